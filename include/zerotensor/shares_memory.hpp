// Whether two views can reach the same bytes.
#pragma once

#include "zerotensor/any_tensor.hpp"
#include "zerotensor/export.hpp"

namespace zt {

/// True when the byte ranges `a` and `b` can reach overlap, judged from each view's
/// lowest and highest reachable element (negative strides included). Empty tensors
/// overlap nothing. Typed tensors convert implicitly.
[[nodiscard]] ZT_API bool shares_memory(const AnyTensor& a, const AnyTensor& b) noexcept;

}  // namespace zt
