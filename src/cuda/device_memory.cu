// Device memory owned by tensors, and what the CUDA driver says about an address.
#include "zerotensor/cuda.hpp"
#include "zerotensor/device_of.hpp"
#include "zerotensor/storage.hpp"

#include "vocabulary/concat.hpp"
#include "cuda/current_device.hpp"

namespace zt {

namespace detail {

void throw_cuda_error(const std::string& operation, cudaError_t error) {
  (void)cudaGetLastError();  // a non-sticky error must not surface again in the next call
  throw DeviceError(concat(operation, " failed: ", cudaGetErrorName(error), " (", cudaGetErrorString(error), ")"));
}

void require_cuda_device(const std::string& operation, Device device) {
  int count = 0;
  check_cuda(operation + ": cudaGetDeviceCount", cudaGetDeviceCount(&count));
  if (device.index < 0 || device.index >= count)
    throw DeviceError(concat(operation, ": ", device, " does not exist; the CUDA driver reports ", count,
                             count == 1 ? " device" : " devices"));
}

void require_reachable_from(const char* operation, Device memory, Device context) {
  switch (memory.kind) {
    case DeviceKind::CUDAHost:
    case DeviceKind::CUDAManaged: return;
    case DeviceKind::CUDA:
      if (memory.index == context.index) return;
      throw DeviceError(concat(operation, ": the tensor is on ", memory, " but the GpuContext computes on ", context,
                               "; copy it with to(zt::cuda(", context.index, ")) first"));
    case DeviceKind::CPU: break;
  }
  throw DeviceError(concat(operation, ": the tensor is in ordinary host memory (", memory,
                           "), which kernels on ", context, " cannot read; copy it with to(zt::cuda(", context.index,
                           ")) first"));
}

}  // namespace detail

int cuda_device_count() noexcept {
  int count = 0;
  if (cudaGetDeviceCount(&count) == cudaSuccess) return count;
  (void)cudaGetLastError();
  return 0;
}

Device device_of(const void* address) {
  if (!cuda_is_available()) return cpu;  // without a GPU or driver no device memory exists
  cudaPointerAttributes attributes{};
  detail::check_cuda("cudaPointerGetAttributes", cudaPointerGetAttributes(&attributes, address));
  switch (attributes.type) {
    case cudaMemoryTypeDevice: return cuda(attributes.device);
    case cudaMemoryTypeHost: return {DeviceKind::CUDAHost, attributes.device};
    case cudaMemoryTypeManaged: return {DeviceKind::CUDAManaged, attributes.device};
    case cudaMemoryTypeUnregistered: break;
  }
  return cpu;
}

namespace {

/// After a failed cudaMalloc on `device` (the current device): the sizes asked for
/// (`operation` names them) and left.
[[noreturn]] void throw_out_of_device_memory(const std::string& operation, Device device) {
  (void)cudaGetLastError();
  std::size_t free_bytes = 0, total_bytes = 0;
  detail::check_cuda(operation + ": cudaMemGetInfo", cudaMemGetInfo(&free_bytes, &total_bytes));
  throw DeviceError(detail::concat(operation, ": cudaMalloc failed: cudaErrorMemoryAllocation (out of memory): ",
                                   device, " has ", free_bytes, " bytes free of ", total_bytes));
}

}  // namespace

std::shared_ptr<std::byte> allocate_bytes(std::size_t size_bytes, Device device) {
  if (device.kind == DeviceKind::CPU) return allocate_bytes(size_bytes);
  const std::string operation = detail::concat("allocating ", size_bytes, " bytes on ", device);
  detail::require_cuda_device(operation, device);
  const detail::CurrentDevice current(operation, device.index);
  // At least one byte, so even an empty tensor has an address of its own.
  const std::size_t request = size_bytes == 0 ? 1 : size_bytes;
  void* memory = nullptr;
  if (device.kind == DeviceKind::CUDAHost) {
    detail::check_cuda(operation + ": cudaMallocHost", cudaMallocHost(&memory, request));
    return {static_cast<std::byte*>(memory), [](std::byte* p) { (void)cudaFreeHost(p); }};
  }
  if (device.kind == DeviceKind::CUDAManaged) {
    detail::check_cuda(operation + ": cudaMallocManaged", cudaMallocManaged(&memory, request, cudaMemAttachGlobal));
  } else {
    const cudaError_t error = cudaMalloc(&memory, request);
    if (error == cudaErrorMemoryAllocation) throw_out_of_device_memory(operation, device);
    detail::check_cuda(operation + ": cudaMalloc", error);
  }
  // cudaFree finds the owning device through unified addressing, whatever is current.
  return {static_cast<std::byte*>(memory), [](std::byte* p) { (void)cudaFree(p); }};
}


}  // namespace zt
