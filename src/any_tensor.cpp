#include "zerotensor/any_tensor.hpp"

#include "zerotensor/convert.hpp"
#include "zerotensor/detail/device_copy.hpp"
#include "zerotensor/empty.hpp"

namespace zt {

AnyTensor AnyTensor::to(DType dtype) const {
  if (dtype == this->dtype()) return *this;
  AnyTensor converted = empty(shape(), dtype);
  copy_into(*this, converted);
  return converted;
}

AnyTensor AnyTensor::to(Device device) const {
  if (device == this->device()) return *this;
  // Pinned or managed memory (e.g. from DLPack) is host memory: no CUDA call is needed.
  if (device == cpu && this->device().is_host_accessible()) return clone();
  return detail::copy_to_device(*this, device);
}

AnyTensor AnyTensor::clone() const {
  AnyTensor copy = empty(shape(), dtype());
  copy_into(*this, copy);
  return copy;
}

}  // namespace zt
