#include "zerotensor/device.hpp"

#include "zerotensor/error.hpp"
#include "vocabulary/concat.hpp"

namespace zt {

std::string to_string(Device device) {
  switch (device.kind) {
    case DeviceKind::CPU: return "cpu";
    case DeviceKind::CUDA: return detail::concat("cuda:", device.index);
    case DeviceKind::CUDAHost: return detail::concat("cuda_host:", device.index);
    case DeviceKind::CUDAManaged: return detail::concat("cuda_managed:", device.index);
  }
  return detail::concat("device kind ", int(device.kind));
}

std::ostream& operator<<(std::ostream& out, Device device) { return out << to_string(device); }

}  // namespace zt
