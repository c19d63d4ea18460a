// Internal: overflow-checked integer arithmetic, the one helper every size, stride and
// offset computation on foreign input goes through. Compilers with the checked builtins
// (GCC, Clang) use them; any other gets the portable comparison.
#pragma once

#include <concepts>
#include <limits>
#include <type_traits>

namespace zt::detail {

#if defined(__has_builtin)
#if __has_builtin(__builtin_add_overflow) && __has_builtin(__builtin_mul_overflow)
#define ZT_HAVE_CHECKED_BUILTINS 1
#endif
#endif

/// `result = a + b`; true when the exact sum does not fit in T (result then unspecified).
template <std::integral T>
[[nodiscard]] constexpr bool add_overflows(T a, T b, T& result) noexcept {
#ifdef ZT_HAVE_CHECKED_BUILTINS
  return __builtin_add_overflow(a, b, &result);
#else
  constexpr T max = std::numeric_limits<T>::max(), min = std::numeric_limits<T>::min();
  if (b > 0 ? a > max - b : a < min - b) return true;
  result = T(a + b);
  return false;
#endif
}

/// `result = a * b`; true when the exact product does not fit in T (result then unspecified).
template <std::integral T>
[[nodiscard]] constexpr bool mul_overflows(T a, T b, T& result) noexcept {
#ifdef ZT_HAVE_CHECKED_BUILTINS
  return __builtin_mul_overflow(a, b, &result);
#else
  constexpr T max = std::numeric_limits<T>::max(), min = std::numeric_limits<T>::min();
  if (a != 0 && b != 0) {
    if constexpr (std::is_unsigned_v<T>) {
      if (a > max / b) return true;
    } else if (a > 0 ? (b > 0 ? a > max / b : b < min / a) : (b > 0 ? a < min / b : b < max / a)) {
      return true;
    }
  }
  result = T(a * b);
  return false;
#endif
}

}  // namespace zt::detail
