#include "zerotensor/buffer.hpp"

#include "zerotensor/error.hpp"
#include "vocabulary/concat.hpp"

namespace zt {

namespace detail {
void throw_null_container() { throw ValueError("Buffer: the shared_ptr holds no container"); }
}  // namespace detail

std::span<const std::byte> Buffer::bytes() const noexcept { return {data_, size_}; }

std::span<std::byte> Buffer::writable_bytes() const {
  if (!writable_) throw TypeError(detail::concat("Buffer::writable_bytes: the ", size_, " bytes are read-only"));
  return {data_, size_};
}

}  // namespace zt
