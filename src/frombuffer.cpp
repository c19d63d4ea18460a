#include "zerotensor/frombuffer.hpp"

#include <algorithm>

namespace zt {

namespace detail {
void check_bool_bytes(const std::byte* bytes, index_t count, std::string_view context) {
  const auto* end = bytes + count;
  const auto* bad = std::find_if(bytes, end, [](std::byte b) { return std::to_integer<unsigned>(b) > 1; });
  if (bad != end)
    throw ValueError(concat(context, context.empty() ? "" : ": ", "bool data must be bytes 0 or 1; element ",
                            bad - bytes, " is byte ", std::to_integer<unsigned>(*bad)));
}
}  // namespace detail

namespace {

/// Builds the dynamic-rank view directly, skipping the typed Tensor<T, 1> in between. Not
/// through detail::make_view: rank-1 extents from braced lists inline to two stores, where
/// the span builder's run-time-length copy doubled this path (10 -> 22 ns).
template <class T>
AnyTensor any_view(Buffer& buffer, FromBufferOptions options) {
  const auto [start, count] = detail::frombuffer_range<T>(buffer, options);
  return Tensor<T>(reinterpret_cast<T*>(start), {count}, {1}, buffer.release_owner(), buffer.device());
}

}  // namespace

AnyTensor frombuffer(Buffer buffer, DType dtype, FromBufferOptions options) {
  return dispatch(dtype, [&](auto tag) -> AnyTensor {
    using T = typename decltype(tag)::type;
    return buffer.is_writable() ? any_view<T>(buffer, options) : any_view<const T>(buffer, options);
  });
}

}  // namespace zt
