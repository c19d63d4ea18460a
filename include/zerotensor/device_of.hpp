// zt::device_of: asks the CUDA driver where an address lives. Views never ask (a view must
// cost what a CPU build's view costs); code that receives raw pointers of unknown origin
// calls this once, where it can afford a driver call, before labelling them.
#pragma once

#include "zerotensor/device.hpp"
#include "zerotensor/export.hpp"

namespace zt {

/// The device the CUDA driver reports for `address`: cuda(i) for device memory, CUDAHost
/// for pinned or registered memory, CUDAManaged for managed memory, cpu for ordinary host
/// memory. cpu for every address in a build without CUDA and where there is no GPU or
/// driver. One driver call (cudaPointerGetAttributes); DeviceError naming the CUDA error when the driver fails.
[[nodiscard]] ZT_API Device device_of(const void* address);

}  // namespace zt
