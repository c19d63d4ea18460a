// zt::empty: a new tensor in memory of its own, on any device (torch.empty).
#pragma once

#include <span>

#include "zerotensor/any_tensor.hpp"
#include "zerotensor/export.hpp"

namespace zt {

/// A new contiguous, writable, uninitialised tensor on `device`. ValueError for a
/// negative extent or a shape whose byte size overflows; std::bad_alloc when host memory
/// runs out; DeviceError for a device the build cannot reach (a CUDA device without the
/// CUDA build) or a failed device allocation.
[[nodiscard]] ZT_API AnyTensor empty(std::span<const index_t> shape, DType dtype, Device device = cpu);

/// The typed form.
template <Element T>
[[nodiscard]] Tensor<T> empty(std::span<const index_t> shape, Device device = cpu) {
  return empty(shape, dtype_of<T>, device).template as<T>();
}

}  // namespace zt
