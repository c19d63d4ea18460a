// Internal: uploads through the pinned staging buffers (zerotensor/staging.hpp) that every
// build can call. The CUDA build streams (src/cuda/staged_transfer.cu); a build without CUDA
// refuses, naming the option it lacks (src/no_cuda.cpp).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "zerotensor/device.hpp"

namespace zt::detail {

/// Writes bytes [offset, offset + staging.size()) of what is being uploaded into `staging`.
/// Called from several host threads at once, for different chunks.
using FillStaging = std::function<void(std::size_t offset, std::span<std::byte> staging)>;

/// New memory on `target` (a GPU, or pinned or managed memory, written in place) holding
/// the `size_bytes` bytes that `fill` produces, chunk by chunk through the staging buffers:
/// the host never holds more of it than they do. Complete when it returns. `operation`
/// names `target` and starts every message. DeviceError naming the CUDA error, or naming
/// -DZT_CUDA=ON in a build without CUDA; what `fill` throws is rethrown once no copy is in
/// flight, and the device memory is freed.
[[nodiscard]] std::shared_ptr<std::byte> upload_staged(std::size_t size_bytes, const FillStaging& fill, Device target,
                                                       const std::string& operation);

}  // namespace zt::detail
