#include "zerotensor/any_tensor.hpp"

#include "zerotensor/convert.hpp"
#include "zerotensor/detail/device_copy.hpp"
#include "zerotensor/storage.hpp"
#include "vocabulary/concat.hpp"

namespace zt {

namespace detail {

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

void throw_visit_outside(DType dtype, std::string_view set_name, std::span<const DType> set) {
  std::string members;
  for (DType member : set) members += concat(members.empty() ? "" : ", ", member);
  const std::string_view wider = is_gguf_block(dtype) ? "all_and_gguf_blocks" : is_packed(dtype) ? "all" : "numeric";
  throw TypeError(concat("visit: f is compiled for zt::dtypes::", set_name, " (", members, "), which does not hold ",
                         dtype, "; call visit<zt::dtypes::", wider, ">(f) to compile f for it too"));
}

void throw_read_only(const char* operation) {
  throw TypeError(concat(operation, ": the tensor's memory is read-only"));
}

std::span<const index_t> checked_strides(std::span<const index_t> shape, std::span<const index_t> strides) {
  if (shape.size() != strides.size())
    throw ValueError(concat("AnyTensor: mismatch in length of strides and shape: ", strides.size(), " strides for ",
                            shape.size(), " dimensions"));
  return strides;
}

AnyTensor allocate_tensor(std::span<const index_t> shape, DType dtype, Device device) {
  const index_t count = checked_numel(shape, zt::itemsize(dtype));
  std::shared_ptr<std::byte> memory = allocate_bytes(std::size_t(count) * zt::itemsize(dtype), device);
  std::byte* data = memory.get();
  return make_view(dtype, data, shape, contiguous_strides(DynamicExtents(shape)), std::move(memory), device, true);
}

}  // namespace detail

ReadOnlyTensorVariant AnyTensor::variant() const {
  return dispatch(dtype_, [&](auto tag) -> ReadOnlyTensorVariant {
    using T = typename decltype(tag)::type;
    return typed<const T>();
  });
}

AnyTensor AnyTensor::to(DType dtype, const ToOptions& options) const {
  if (dtype == this->dtype()) return *this;
  // No conversion kernels on the GPU: the host converts, between two copies.
  if (!device().is_host_accessible()) return to(cpu).to(dtype, options).to(device());
  AnyTensor converted = detail::allocate_tensor(shape(), dtype, cpu);
  copy_into(*this, converted, options);
  return converted;
}

AnyTensor AnyTensor::to(Device device) const { return to(device, ToOptions{}); }

AnyTensor AnyTensor::to(Device device, const ToOptions& options) const {
  if (device == this->device()) return *this;
  // Pinned or managed memory (e.g. from DLPack) is host memory: no CUDA call is needed.
  if (device == cpu && this->device().is_host_accessible()) return clone(options);
  return detail::copy_to_device(*this, device, options);
}

AnyTensor AnyTensor::clone(const ToOptions& options) const {
  if (!device().is_host_accessible()) return detail::copy_to_device(*this, device(), options, "AnyTensor::clone");
  AnyTensor copy = detail::allocate_tensor(shape(), dtype(), cpu);
  copy_into(*this, copy, options);
  return copy;
}

}  // namespace zt
