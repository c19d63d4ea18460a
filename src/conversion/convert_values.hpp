// Internal: the value rules of one conversion, element by element (see convert.hpp).
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "zerotensor/dtype.hpp"

namespace zt::detail {

template <class T>
inline constexpr bool is_complex_v = is_complex(dtype_of<T>);

/// The floating types that convert through float, as c10's do.
template <class T>
inline constexpr bool is_half_v =
    std::is_same_v<T, Eigen::half> || std::is_same_v<T, Eigen::bfloat16> || is_float8_v<T>;

template <class T>
inline constexpr bool is_packed_v = is_packed(dtype_of<T>);

/// Truncates toward zero. NaN gives 0; values outside int64 saturate (uint64 keeps its
/// upper half), then narrower types wrap modulo 2^n as integer narrowing does.
template <class To, class From>
To float_to_integer(From value) {
  constexpr From two_to_63 = From(9223372036854775808.0);
  if (value != value) return To(0);
  if constexpr (std::is_same_v<To, std::uint64_t>) {
    if (value >= two_to_63) {
      return value >= From(18446744073709551616.0) ? std::numeric_limits<To>::max() : static_cast<To>(value);
    }
  }
  if (value >= two_to_63) return static_cast<To>(std::numeric_limits<std::int64_t>::max());
  if (value < -two_to_63) return static_cast<To>(std::numeric_limits<std::int64_t>::min());
  return static_cast<To>(static_cast<std::int64_t>(value));
}

template <class To, class From>
To convert_value(From value) {
  if constexpr (std::is_same_v<To, From>) {
    return value;
  } else if constexpr (std::is_same_v<To, bool>) {
    if constexpr (is_complex_v<From>) return convert_value<bool>(value.real()) || convert_value<bool>(value.imag());
    else if constexpr (is_half_v<From>) return static_cast<float>(value) != 0.0f;
    else return value != From(0);
  } else if constexpr (is_complex_v<From> && !is_complex_v<To>) {
    return convert_value<To>(value.real());
  } else if constexpr (is_complex_v<To>) {
    using Real = typename To::value_type;
    if constexpr (is_complex_v<From>) return To(Real(value.real()), Real(value.imag()));
    else return To(convert_value<Real>(value), Real(0));
  } else if constexpr (is_half_v<From>) {
    return convert_value<To>(static_cast<float>(value));
  } else if constexpr (is_half_v<To>) {
    return To(static_cast<float>(value));
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    return float_to_integer<To>(value);
  } else {
    return static_cast<To>(value);
  }
}

}  // namespace zt::detail
