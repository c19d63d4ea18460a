// Whether memory that claims to be host memory really is. Only the CUDA build can ask:
// there a Buffer labelled cpu may hold a cudaMalloc pointer, which host code must not
// touch. In a CPU build the check is an empty inline function, so it costs nothing.
#pragma once

namespace zt::detail {

#if defined(ZT_CUDA) && ZT_CUDA
/// DeviceError when the CUDA driver reports device memory at `address` (src/cuda/).
void require_host_memory(const char* operation, const void* address);
#else
inline void require_host_memory(const char* /*operation*/, const void* /*address*/) noexcept {}
#endif

}  // namespace zt::detail
