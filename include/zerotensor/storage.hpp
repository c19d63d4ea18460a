// Memory zerotensor allocates for itself: contiguous, 64-byte aligned on the host,
// owned by a shared handle that frees it exactly once.
#pragma once

#include <cstddef>
#include <memory>

#include "zerotensor/device.hpp"
#include "zerotensor/export.hpp"

namespace zt {

/// `size_bytes` of uninitialised host memory aligned to 64 bytes; blocks of 2 MiB or more
/// start on a 2 MiB boundary and are advised for transparent huge pages, to cut page-fault cost. std::bad_alloc when the
/// memory cannot be had.
[[nodiscard]] ZT_API std::shared_ptr<std::byte> allocate_bytes(std::size_t size_bytes);

/// The same on `device`: cudaMalloc for cuda(i), cudaMallocHost for CUDAHost,
/// cudaMallocManaged for CUDAManaged (the CUDA build), allocate_bytes(size_bytes) for cpu.
/// DeviceError for a device the build cannot reach or that does not exist, naming the
/// CUDA error.
[[nodiscard]] ZT_API std::shared_ptr<std::byte> allocate_bytes(std::size_t size_bytes, Device device);

}  // namespace zt
