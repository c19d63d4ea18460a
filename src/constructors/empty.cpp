#include "zerotensor/empty.hpp"

#include "zerotensor/detail/device_copy.hpp"

namespace zt {

AnyTensor empty(std::span<const index_t> shape, DType dtype, Device device) {
  return detail::allocate_tensor(shape, dtype, device);
}

}  // namespace zt
