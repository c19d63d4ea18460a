// AnyTensor::to(Device) in a build without CUDA (with ZT_CUDA, src/cuda/device_copy.cu
// takes this file's place).
#include "zerotensor/device_copy.hpp"

namespace zt::detail {

AnyTensor copy_to_device(const AnyTensor& source, Device target) {
  throw DeviceError(concat("AnyTensor::to: cannot copy from ", source.device(), " to ", target,
                           ": this build of zerotensor has no CUDA (configure it with -DZT_CUDA=ON)"));
}

}  // namespace zt::detail
