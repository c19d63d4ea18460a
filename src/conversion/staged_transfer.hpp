// Internal: uploads and downloads through the pinned staging buffers (zerotensor/staging.hpp)
// that every build can call. The CUDA build streams (src/cuda/pinned_transfer.cu); a build without CUDA
// refuses, naming the option it lacks (src/cuda/no_cuda.cpp).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "zerotensor/device.hpp"

namespace zt::detail {

/// Writes bytes [offset, offset + staging.size()) of what is being uploaded into `staging`.
/// Called from several host threads at once, for different chunks.
using FillStaging = std::function<void(std::size_t offset, std::span<std::byte> staging)>;

/// One part of an upload: `size_bytes` bytes that `fill` produces.
struct UploadPart {
  std::size_t size_bytes = 0;
  FillStaging fill;
};

/// New memory on `target` (a GPU, or pinned or managed memory, written in place) for each
/// part, holding the bytes its `fill` produces. To a GPU, all parts go through one staged copy,
/// laid end to end: a chunk carries the end of one part and the start of the next, so many
/// small tensors keep the staging buffers as full as one large one, and the host never holds
/// more of them than the buffers do. Complete when it returns. `operation` names `target` and
/// starts every message. DeviceError naming the CUDA error, or naming -DZT_CUDA=ON in a build
/// without CUDA; what a `fill` throws is rethrown once no copy is in flight, and the device
/// memory of every part is freed.
[[nodiscard]] std::vector<std::shared_ptr<std::byte>> upload_staged(std::span<const UploadPart> parts, Device target,
                                                                    const std::string& operation);

/// Receives bytes [offset, offset + staging.size()) of what is being downloaded. Called from
/// several host threads at once, for different chunks.
using DrainStaging = std::function<void(std::size_t offset, std::span<const std::byte> staging)>;

/// Reads `size_bytes` bytes at `source`, memory of the GPU `device`, through the pinned staging
/// buffers, handing each chunk to `drain` as it arrives: the host never holds more of them than
/// the buffers do. Complete when it returns. DeviceError as upload_staged; what `drain` throws is
/// rethrown once no copy is in flight.
void download_staged_chunks(const std::byte* source, Device device, std::size_t size_bytes, const DrainStaging& drain,
                            const std::string& operation);

}  // namespace zt::detail
