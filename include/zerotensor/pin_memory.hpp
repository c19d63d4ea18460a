// zt::pin_memory: page-locks the host memory of a tensor where it is (cudaHostRegister), so
// copies between it and a GPU run at the pinned rate and may be non_blocking (ToOptions).
// PyTorch's pin_memory() copies into new pinned memory; this pins in place, without a copy.
#pragma once

#include "zerotensor/any_tensor.hpp"
#include "zerotensor/export.hpp"

namespace zt {

/// A view of the same memory labelled CUDAHost (index 0; registered as portable, so every
/// GPU copies from it at the pinned rate). The memory stays registered while any view of
/// the result lives, and is unregistered before the tensor's own owner is released. A
/// tensor already on CUDAHost is returned as it is; an empty one is only relabelled.
/// Read-only memory (a read-only file mapping) is registered read-only.
/// DeviceError for memory that is not ordinary host memory (a GPU's, managed), for memory
/// already registered by someone else (one range can be registered once), and naming the
/// CUDA error when there is no GPU or driver, or in a build without CUDA naming -DZT_CUDA=ON.
[[nodiscard]] ZT_API AnyTensor pin_memory(const AnyTensor& tensor);

}  // namespace zt
