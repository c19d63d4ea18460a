#include "zerotensor/error.hpp"

#include "zerotensor/any_tensor.hpp"
#include "zerotensor/frombuffer.hpp"

namespace zt::detail {

std::string shape_string(std::span<const std::int64_t> extents) {
  std::ostringstream out;
  out << '(';
  for (std::size_t i = 0; i < extents.size(); ++i) out << (i ? ", " : "") << extents[i];
  out << (extents.size() == 1 ? ",)" : ")");
  return out.str();
}

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
  throw ValueError(concat(operation, ": expected a C-contiguous tensor; got shape ", shape_string(shape),
                          ", strides ", shape_string(strides)));
}

void throw_index_out_of_range(index_t index, std::size_t dim, index_t extent) {
  throw ValueError(concat("index ", index, " is out of range for dimension ", dim, " with size ", extent));
}

void throw_as_mismatch(DType expected_dtype, std::size_t expected_rank, bool want_writable,
                       const AnyTensor& found) {
  const std::string message = concat("AnyTensor::as: expected ", expected_dtype,
                                     expected_rank == dynamic ? std::string() : concat(", rank ", expected_rank),
                                     want_writable ? ", writable" : "", "; got ",
                                     describe(found.dtype(), found.shape(), found.strides(), found.device(),
                                              found.is_writable()));
  // A rank that differs is a ValueError everywhere; a dtype or writability, a TypeError.
  const bool rank_only = found.dtype() == expected_dtype && (!want_writable || found.is_writable());
  if (rank_only) throw ValueError(message);
  throw TypeError(message);
}

void throw_read_only(const char* operation) {
  throw TypeError(concat(operation, ": the tensor's memory is read-only"));
}

void throw_frombuffer_empty(std::size_t length, index_t count) {
  throw ValueError(concat("both buffer length (", length, ") and count (", count, ") must not be 0"));
}

void throw_frombuffer_offset(index_t offset, std::size_t length) {
  throw ValueError(concat("offset (", offset, " bytes) must be non-negative and no greater than buffer length (",
                          length, " bytes) minus 1"));
}

void throw_frombuffer_not_multiple(index_t remaining, index_t offset, std::size_t itemsize) {
  throw ValueError(concat("buffer length (", remaining, " bytes) after offset (", offset,
                          " bytes) must be a multiple of element size (", itemsize, ")"));
}

void throw_frombuffer_too_long(index_t count, std::size_t itemsize, index_t offset, std::size_t length) {
  throw ValueError(concat("requested buffer length (", count, " * ", itemsize, " bytes) after offset (", offset,
                          " bytes) must not be greater than actual buffer length (", length, " bytes)"));
}

void throw_misaligned(const char* operation, const void* address, index_t offset, DType dtype) {
  throw ValueError(concat(operation, ": the data at ", address, " (offset ", offset, " bytes) is not aligned to ",
                          alignment(dtype), " bytes, the alignment of ", dtype,
                          "; choose an aligned offset, or let asarray copy it"));
}

void throw_read_only_buffer(const char* operation, DType dtype) {
  throw TypeError(concat(operation, ": the buffer is read-only; ask for a const element type (const ", dtype,
                         " elements), e.g. frombuffer<const T>"));
}

}  // namespace zt::detail
