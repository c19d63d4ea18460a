#include "zerotensor/frombuffer.hpp"

#include <algorithm>

namespace zt {

namespace detail {
void check_bool_bytes(const std::byte* bytes, index_t count) {
  const auto* end = bytes + count;
  const auto* bad = std::find_if(bytes, end, [](std::byte b) { return std::to_integer<unsigned>(b) > 1; });
  if (bad != end)
    throw ValueError(concat("bool data must be bytes 0 or 1; element ", bad - bytes, " is byte ",
                            std::to_integer<unsigned>(*bad)));
}
}  // namespace detail

AnyTensor frombuffer(Buffer buffer, DType dtype, FromBufferOptions options) {
  return dispatch(dtype, [&](auto tag) -> AnyTensor {
    using T = typename decltype(tag)::type;
    if (buffer.is_writable()) return frombuffer<T>(std::move(buffer), options);
    return frombuffer<const T>(std::move(buffer), options);
  });
}

}  // namespace zt
