#include "zerotensor/asarray.hpp"

#include <cstring>

#include "zerotensor/convert.hpp"
#include "zerotensor/detail/device_copy.hpp"
#include "zerotensor/frombuffer.hpp"
#include "zerotensor/empty.hpp"
#include "vocabulary/concat.hpp"

namespace zt {
namespace detail {
namespace {

[[noreturn]] void throw_alias_device(Device from, Device to) {
  throw ValueError(concat("asarray (copy = false): can't alias tensor from device '", from, "' to '", to, "'"));
}

[[noreturn]] void throw_alias_dtype(DType from, DType to) {
  throw ValueError(concat("asarray (copy = false): can't alias tensor with dtype '", from, "' into dtype '", to, "'"));
}

/// Memory of its own on the tensor's own device.
AnyTensor own_copy(const AnyTensor& tensor) {
  return tensor.device() == cpu ? tensor.clone() : copy_to_device(tensor, tensor.device());
}

/// Bytes at an address the dtype cannot start at, copied byte for byte into aligned memory.
AnyTensor aligned_copy(const Buffer& buffer, DType dtype, index_t count) {
  AnyTensor copy = empty(std::span<const index_t>(&count, 1), dtype);
  std::memcpy(copy.mutable_data_ptr(), buffer.data(), copy.nbytes());
  return copy;
}

}  // namespace

AnyTensor apply_options(AnyTensor tensor, const AsArrayOptions& options, Origin origin) {
  const Device device = options.device.value_or(tensor.device());
  const DType dtype = options.dtype.value_or(tensor.dtype());
  bool own = origin == Origin::own;
  if (options.copy == false && !own) {
    if (device != tensor.device()) throw_alias_device(tensor.device(), device);
    if (dtype != tensor.dtype()) throw_alias_dtype(tensor.dtype(), dtype);
  }
  if (dtype != tensor.dtype()) {
    // Values are converted where the host can touch them.
    if (!tensor.device().is_host_accessible()) tensor = tensor.to(cpu);
    tensor = tensor.to(dtype);
    own = true;
  }
  if (device != tensor.device()) {
    tensor = tensor.to(device);
    own = true;
  }
  if (options.copy == true && !own) tensor = own_copy(tensor);
  return tensor;
}

AnyTensor asarray_buffer(Buffer buffer, const AsArrayOptions& options) {
  const DType dtype = options.dtype.value_or(default_dtype());
  const AsArrayOptions remaining{.dtype = std::nullopt, .device = options.device, .copy = options.copy};
  if (is_aligned(buffer.data(), dtype)) return apply_options(frombuffer(std::move(buffer), dtype), remaining, Origin::view);
  // frombuffer's checks first, in its order; then the copy that alignment needs.
  if (!buffer.device().is_host_accessible()) throw_not_host_accessible("asarray", buffer.device());
  const index_t count = frombuffer_count(buffer.nbytes(), itemsize(dtype), {});
  if (options.copy == false) throw_misaligned("asarray (copy = false)", buffer.data(), 0, dtype);
  return apply_options(aligned_copy(buffer, dtype, count), remaining, Origin::own);
}

void throw_alias_sequence() {
  throw ValueError("asarray (copy = false): can't alias arbitrary sequence into a tensor");
}

void throw_too_many_dimensions(std::size_t limit) {
  throw ValueError(concat("asarray: too many dimensions: the sequence nests deeper than ", limit, " levels"));
}

void throw_ragged(index_t expected, std::size_t dim, index_t found) {
  throw ValueError(concat("expected sequence of length ", expected, " at dim ", dim, " (got ", found, ")"));
}

void throw_not_a_sequence(index_t expected, std::size_t dim) {
  throw TypeError(concat("not a sequence: expected sequence of length ", expected, " at dim ", dim, " (got a number)"));
}

void throw_sequence_for_number(std::size_t dim, index_t length) {
  throw TypeError(concat("expected a number at dim ", dim, " (got a sequence of length ", length, ")"));
}

void ScalarWriter::store(const Scalar& value) {
  store_scalar(value, dtype_, next_);
  next_ += itemsize_;
}

}  // namespace detail

AnyTensor asarray(const AnyTensor& obj, AsArrayOptions options) {
  return detail::apply_options(obj, options, detail::Origin::view);
}

AnyTensor asarray(Scalar value, AsArrayOptions options) {
  if (options.copy == false) detail::throw_alias_sequence();
  AnyTensor result = empty({}, options.dtype.value_or(value.dtype()));
  detail::store_scalar(value, result.dtype(), result.mutable_data_ptr());
  return detail::apply_options(std::move(result), {.dtype = std::nullopt, .device = options.device, .copy = std::nullopt},
                               detail::Origin::own);
}

AnyTensor asarray(std::initializer_list<NestedScalars> sequence, AsArrayOptions options) {
  return detail::from_sequence(NestedScalars(sequence), options);
}

}  // namespace zt
