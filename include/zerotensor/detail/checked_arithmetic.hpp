// Internal: overflow-checked integer arithmetic, the one helper every size, stride and
// offset computation on foreign input goes through. The compiler's builtins (GCC and
// Clang, the compilers zerotensor supports) compute the exact result and say whether it fits.
#pragma once

#include <concepts>

namespace zt::detail {

/// `result = a + b`; true when the exact sum does not fit in T (result then unspecified).
template <std::integral T>
[[nodiscard]] constexpr bool add_overflows(T a, T b, T& result) noexcept {
  return __builtin_add_overflow(a, b, &result);
}

/// `result = a * b`; true when the exact product does not fit in T (result then unspecified).
template <std::integral T>
[[nodiscard]] constexpr bool mul_overflows(T a, T b, T& result) noexcept {
  return __builtin_mul_overflow(a, b, &result);
}

}  // namespace zt::detail
