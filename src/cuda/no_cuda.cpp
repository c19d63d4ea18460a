// What a build without CUDA does where the CUDA build calls the CUDA runtime (with
// ZT_CUDA, src/cuda/ takes this file's place): host memory only, and a DeviceError naming
// both devices and the missing build option for anything else.
#include "zerotensor/detail/device_copy.hpp"
#include "zerotensor/device_of.hpp"
#include "zerotensor/pin_memory.hpp"
#include "zerotensor/storage.hpp"

#include "vocabulary/concat.hpp"
#include "conversion/staged_transfer.hpp"

namespace zt {

namespace {
/// `what` is the operation refused, naming the device.
[[noreturn]] void throw_no_cuda(std::string_view what) {
  throw DeviceError(detail::concat(what, ": this build of zerotensor has no CUDA (configure it with -DZT_CUDA=ON)"));
}
}  // namespace

std::shared_ptr<std::byte> allocate_bytes(std::size_t size_bytes, Device device) {
  if (device != cpu) throw_no_cuda(detail::concat("allocating ", size_bytes, " bytes on ", device));
  return allocate_bytes(size_bytes);
}

Device device_of(const void* /*address*/) { return cpu; }

AnyTensor pin_memory(const AnyTensor& tensor) {
  if (tensor.device().kind == DeviceKind::CUDAHost) return tensor;
  throw_no_cuda(detail::concat("pin_memory: cannot pin memory of ", tensor.device()));
}

namespace detail {

AnyTensor copy_to_device(const AnyTensor& source, Device target, const ToOptions& /*options*/,
                         std::string_view operation) {
  throw_no_cuda(concat(operation, ": cannot copy from ", source.device(), " to ", target));
}

std::vector<std::shared_ptr<std::byte>> upload_staged(std::span<const UploadPart> /*parts*/, Device /*target*/,
                                                      const std::string& operation) {
  throw_no_cuda(operation);
}

void download_staged_chunks(const std::byte* /*source*/, Device /*device*/, std::size_t /*size_bytes*/,
                            const DrainStaging& /*drain*/, const std::string& operation) {
  throw_no_cuda(operation);
}

}  // namespace detail

}  // namespace zt
