#include "zerotensor/any_tensor.hpp"

#include "zerotensor/convert.hpp"
#include "zerotensor/storage.hpp"

namespace zt {

AnyTensor AnyTensor::to(DType dtype) const {
  if (dtype == this->dtype()) return *this;
  AnyTensor converted = empty(shape(), dtype);
  copy_into(*this, converted);
  return converted;
}

AnyTensor AnyTensor::to(Device device) const {
  if (device == this->device()) return *this;
  throw DeviceError(detail::concat("AnyTensor::to: cannot copy from ", this->device(), " to ", device,
                                   " in a build without CUDA (configure with -DZT_CUDA=ON)"));
}

AnyTensor AnyTensor::clone() const {
  AnyTensor copy = empty(shape(), dtype());
  copy_into(*this, copy);
  return copy;
}

}  // namespace zt
