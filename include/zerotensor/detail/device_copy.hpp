// The copy behind AnyTensor::to(Device) and clone(), and the memory every copy is made in.
// The copy's definition depends on the build: the CPU build (src/cuda/no_cuda.cpp) refuses every
// copy that needs the CUDA runtime, the CUDA build (src/cuda/device_copy.cu) copies between
// any two devices (staged_transfer.hpp). This header names no CUDA type, so CPU builds never
// see CUDA headers.
#pragma once

#include <span>
#include <string_view>

#include "zerotensor/any_tensor.hpp"
#include "zerotensor/export.hpp"

namespace zt::detail {

/// A contiguous, writable copy of `source` in new memory on `target`, owned by the result
/// (freed when its last view dies); AnyTensor::to calls it for every copy that needs the
/// CUDA runtime (host-accessible → cpu it does by clone()). Strided sources are gathered.
/// Queued on `options.stream`, waited for unless options.non_blocking allows
/// (to_options.hpp). DeviceError when the build cannot reach `target`, when the device does
/// not exist, or when the CUDA runtime fails (the message names the CUDA error); messages
/// start with `operation`.
[[nodiscard]] ZT_API AnyTensor copy_to_device(const AnyTensor& source, Device target, const ToOptions& options = {},
                                       std::string_view operation = "AnyTensor::to");

/// A new contiguous, writable, uninitialised tensor on `device`, in memory from
/// allocate_bytes (storage.hpp), which owns it. ValueError for a negative extent or a byte
/// size that overflows; allocate_bytes' errors otherwise.
[[nodiscard]] ZT_API AnyTensor allocate_tensor(std::span<const index_t> shape, DType dtype, Device device);

}  // namespace zt::detail
