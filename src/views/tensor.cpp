// Tensor's errors, out of line so the view's accessors stay small.
#include "zerotensor/tensor.hpp"
#include "vocabulary/concat.hpp"

namespace zt::detail {

std::string describe(DType dtype, std::span<const index_t> shape, std::span<const index_t> strides,
                     Device device, bool writable) {
  return concat(dtype, ", shape ", shape_string(shape), ", strides ", shape_string(strides), ", ",
                device, writable ? "" : ", read-only");
}

void throw_not_host_accessible(const char* operation, Device device) {
  throw DeviceError(concat(operation, ": the memory is on ", device,
                           ", which the host cannot access; copy it with to(zt::cpu) first"));
}

void throw_rank_mismatch(const char* operation, std::size_t expected, std::size_t found) {
  throw ValueError(concat(operation, ": expected rank ", expected, "; got rank ", found));
}

void throw_not_contiguous(const char* operation, std::span<const index_t> shape,
                          std::span<const index_t> strides) {
  throw_layout_mismatch(operation, "a C-contiguous tensor", shape, strides);
}

void throw_layout_mismatch(const char* operation, const char* expected, std::span<const index_t> shape,
                           std::span<const index_t> strides) {
  throw ValueError(concat(operation, ": expected ", expected, "; got shape ", shape_string(shape), ", strides ",
                          shape_string(strides)));
}

void throw_index_out_of_range(index_t index, std::size_t dim, index_t extent) {
  throw ValueError(concat("index ", index, " is out of range for dimension ", dim, " with size ", extent));
}

}  // namespace zt::detail
