#include "zerotensor/empty.hpp"

#include "zerotensor/storage.hpp"

namespace zt {

AnyTensor empty(std::span<const index_t> shape, DType dtype, Device device) {
  const index_t count = checked_numel(shape, itemsize(dtype));
  std::shared_ptr<std::byte> memory = allocate_bytes(std::size_t(count) * itemsize(dtype), device);
  std::byte* data = memory.get();
  return detail::make_view(dtype, data, shape, detail::contiguous_strides(DynamicExtents(shape)), std::move(memory),
                           device, true);
}

}  // namespace zt
