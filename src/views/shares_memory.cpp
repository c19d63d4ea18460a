#include "zerotensor/shares_memory.hpp"

#include <cstdint>
#include <utility>

namespace zt {
namespace {

/// [lowest, highest] byte address the view reaches, inclusive.
std::pair<std::uintptr_t, std::uintptr_t> reachable_bytes(const AnyTensor& t) {
  const detail::ElementReach reach = detail::element_reach(t.shape(), t.strides());
  const auto base = reinterpret_cast<std::uintptr_t>(t.data_ptr());
  const auto size = static_cast<index_t>(t.itemsize());
  return {base - std::uintptr_t(reach.below * size), base + std::uintptr_t(reach.above * size + size - 1)};
}

}  // namespace

bool shares_memory(const AnyTensor& a, const AnyTensor& b) noexcept {
  if (a.numel() == 0 || b.numel() == 0) return false;
  const auto [a_low, a_high] = reachable_bytes(a);
  const auto [b_low, b_high] = reachable_bytes(b);
  return a_low <= b_high && b_low <= a_high;
}

}  // namespace zt
