// What a build without CUDA does where the CUDA build calls the CUDA runtime (with
// ZT_CUDA, src/cuda/ takes this file's place): host memory only, and a DeviceError naming
// both devices and the missing build option for anything else.
#include "zerotensor/detail/device_copy.hpp"
#include "zerotensor/storage.hpp"

namespace zt {

namespace {
[[noreturn]] void throw_no_cuda(std::string_view operation, Device device) {
  throw DeviceError(detail::concat(operation, device,
                                   ": this build of zerotensor has no CUDA (configure it with -DZT_CUDA=ON)"));
}
}  // namespace

std::shared_ptr<std::byte> allocate_bytes(std::size_t size_bytes, Device device) {
  if (device != cpu) throw_no_cuda(detail::concat("allocating ", size_bytes, " bytes on "), device);
  return allocate_bytes(size_bytes);
}

namespace detail {

AnyTensor copy_to_device(const AnyTensor& source, Device target) {
  throw_no_cuda(concat("AnyTensor::to: cannot copy from ", source.device(), " to "), target);
}

}  // namespace detail

}  // namespace zt
