// Memory zerotensor allocates for itself: contiguous, 64-byte aligned, size-checked, and
// owned by the tensor's keep-alive handle.
#pragma once

#include <cstddef>
#include <memory>
#include <span>

#include "zerotensor/any_tensor.hpp"

namespace zt {

/// `size_bytes` of uninitialised host memory aligned to 64 bytes; large blocks are
/// advised for transparent huge pages to cut page-fault cost.
[[nodiscard]] std::shared_ptr<std::byte> allocate_bytes(std::size_t size_bytes);

/// A new contiguous, writable, uninitialised tensor. ValueError for a negative extent or
/// a shape whose byte size overflows.
[[nodiscard]] AnyTensor empty(std::span<const index_t> shape, DType dtype);

/// The typed form of empty().
template <Element T>
[[nodiscard]] Tensor<T> empty(std::span<const index_t> shape) {
  return empty(shape, dtype_of<T>).template as<T>();
}

namespace detail {
/// checked_numel's error: names the first negative extent or the first overflow.
[[noreturn]] void throw_bad_shape(std::span<const index_t> shape, std::size_t itemsize);

/// A contiguous, writable view of `dtype` elements filling `memory`, which it owns, on
/// `device`: what empty() returns on every device.
[[nodiscard]] AnyTensor owning_view(std::shared_ptr<std::byte> memory, std::span<const index_t> shape, DType dtype,
                                    Device device);
}  // namespace detail

/// Element count of `shape`, with ValueError for a negative extent or an overflow of the
/// byte size `numel * itemsize`: the one place a shape is checked before memory exists.
/// Inline: every view constructor calls it, and a call costs more than the loop.
[[nodiscard]] inline index_t checked_numel(std::span<const index_t> shape, std::size_t itemsize) {
  index_t count = 1;
  bool bad = false;
  for (index_t extent : shape) bad |= extent < 0 || __builtin_mul_overflow(count, extent, &count);
  index_t bytes = 0;
  bad |= __builtin_mul_overflow(count, static_cast<index_t>(itemsize), &bytes);
  if (bad) [[unlikely]] detail::throw_bad_shape(shape, itemsize);
  return count;
}

}  // namespace zt
