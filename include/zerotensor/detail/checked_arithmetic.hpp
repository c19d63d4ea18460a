// Internal: overflow-checked integer arithmetic, the one helper every size, stride and
// offset computation on foreign input goes through. Standard C++ only: factors of at
// most half the type's width (every shape and stride short of 2^31) are proven to fit
// by a shift; larger ones pay a division.
#pragma once

#include <concepts>
#include <limits>
#include <type_traits>

namespace zt::detail {

/// `result = a + b`; true when the exact sum does not fit in T (result then unspecified).
template <std::integral T>
[[nodiscard]] constexpr bool add_overflows(T a, T b, T& result) noexcept {
  constexpr T max = std::numeric_limits<T>::max(), min = std::numeric_limits<T>::min();
  if (b > 0 ? a > max - b : a < min - b) return true;
  result = T(a + b);
  return false;
}

/// The product of `a` and `b` in T's unsigned type, wrapping (never promoted to int).
template <std::integral T>
[[nodiscard]] constexpr std::make_unsigned_t<T> wrapping_product(T a, T b) noexcept {
  using U = std::make_unsigned_t<T>;
  using Wide = std::common_type_t<U, unsigned>;
  return U(Wide(U(a)) * Wide(U(b)));
}

/// Whether both factors lie within half of T's digits, so that their product fits: a
/// test of two sums and a shift, where the exact check needs a division.
template <std::integral T>
[[nodiscard]] constexpr bool half_width_factors(T a, T b) noexcept {
  using U = std::make_unsigned_t<T>;
  constexpr int half = std::numeric_limits<T>::digits / 2;
  if constexpr (std::is_signed_v<T>) {
    // [-2^half, 2^half) moves to [0, 2^(half+1)); |a * b| <= 2^(2 half) then fits.
    constexpr U bias = U(U(1) << half);
    return U(U(U(a) + bias) | U(U(b) + bias)) >> (half + 1) == 0;
  } else {
    return U(a | b) >> half == 0;
  }
}

/// `result = a * b`; true when the exact product does not fit in T (result then unspecified).
template <std::integral T>
[[nodiscard]] constexpr bool mul_overflows(T a, T b, T& result) noexcept {
  using U = std::make_unsigned_t<T>;
  // When the exact product fits, the wrapping one equals it.
  if (half_width_factors(a, b)) [[likely]] {
    result = T(wrapping_product(a, b));
    return false;
  }
  const bool negative = (a < 0) != (b < 0);
  // A negative signed product may reach max + 1 in magnitude.
  const U limit = U(U(std::numeric_limits<T>::max()) + U(std::is_signed_v<T> && negative));
  const U ua = a < 0 ? U(U(0) - U(a)) : U(a);
  const U ub = b < 0 ? U(U(0) - U(b)) : U(b);
  if (ub != 0 && ua > limit / ub) return true;
  result = T(wrapping_product(a, b));
  return false;
}

}  // namespace zt::detail
