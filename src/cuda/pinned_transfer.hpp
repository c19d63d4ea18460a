// Internal to src/cuda/: copies between ordinary (pageable) host memory and a GPU through
// the pinned staging buffers, on a stream. Both return when the copy is complete.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "zerotensor/cuda.hpp"

#include "conversion/staged_transfer.hpp"

namespace zt::detail {

/// Writes the bytes that each part's `fill` produces into its destination, device memory of
/// cuda(device_index), in one staged copy queued on `stream`.
void upload_staged_into(std::span<std::byte* const> destinations, std::span<const UploadPart> parts, int device_index,
                        cudaStream_t stream, const std::string& operation);

/// Copies `size_bytes` bytes of device memory of cuda(device_index) at `source` into host
/// memory at `destination`, queued on `stream`.
void download_staged(std::byte* destination, const std::byte* source, int device_index, std::size_t size_bytes,
                     cudaStream_t stream, const std::string& operation);

}  // namespace zt::detail
