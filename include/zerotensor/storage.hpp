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

/// Element count of `shape`, with ValueError for a negative extent or an overflow of the
/// byte size `numel * itemsize`: the one place a shape is checked before memory exists.
[[nodiscard]] index_t checked_numel(std::span<const index_t> shape, std::size_t itemsize);

}  // namespace zt
