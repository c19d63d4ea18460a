// Internal to src/cuda/: copies between ordinary (pageable) host memory and a GPU through
// the pinned staging buffers, on a stream. Both return when the copy is complete.
#pragma once

#include <cstddef>
#include <string>

#include "zerotensor/cuda.hpp"

#include "../staged_transfer.hpp"

namespace zt::detail {

/// Writes `size_bytes` bytes that `fill` produces into `destination`, device memory of
/// cuda(device_index), queued on `stream`.
void upload_staged_into(std::byte* destination, int device_index, std::size_t size_bytes, const FillStaging& fill,
                        cudaStream_t stream, const std::string& operation);

/// Copies `size_bytes` bytes of device memory of cuda(device_index) at `source` into host
/// memory at `destination`, queued on `stream`.
void download_staged(std::byte* destination, const std::byte* source, int device_index, std::size_t size_bytes,
                     cudaStream_t stream, const std::string& operation);

}  // namespace zt::detail
