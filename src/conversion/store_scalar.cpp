// detail::store_scalar: one Python number stored as an element, checked as PyTorch checks it.
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <variant>

#include "vocabulary/concat.hpp"
#include "conversion/convert_values.hpp"
#include "zerotensor/convert.hpp"

namespace zt {
namespace {

[[noreturn]] void throw_overflow(const Scalar& value, DType dtype) {
  throw ValueError(detail::concat("value ", value, " cannot be converted to type ", dtype, " without overflow"));
}

/// c10's overflow rule for integer → integer, with its wrap of negative values into
/// unsigned types down to -max.
template <class To>
bool integer_overflows(std::int64_t value) {
  constexpr auto max = std::numeric_limits<To>::max();
  if constexpr (std::is_unsigned_v<To>) {
    if (value < 0) return std::uint64_t(0) - std::uint64_t(value) > std::uint64_t(max);
    return std::uint64_t(value) > std::uint64_t(max);
  } else {
    return value < std::int64_t(std::numeric_limits<To>::lowest()) || value > std::int64_t(max);
  }
}

/// c10's rule for floating → integer: NaN and ±inf overflow, as does anything below the
/// lowest or above the largest value. 2^63 into int64 (and 2^64 into uint64) overflows
/// too, where PyTorch's comparison against a rounded limit lets it through.
template <class To>
bool floating_overflows(double value) {
  const double upper = double(std::numeric_limits<To>::max());
  if (value != value || value < double(std::numeric_limits<To>::lowest()) || value > upper) return true;
  return sizeof(To) == 8 && value >= upper;  // upper is 2^63 or 2^64, one above the true limit
}

/// PyTorch's checked store of a Python number (see detail::store_scalar).
template <class To>
To store_typed(const Scalar& scalar, DType dtype) {
  return std::visit(
      [&](const auto& value) -> To {
        using From = std::decay_t<decltype(value)>;
        if constexpr (std::is_same_v<To, bool> || std::is_same_v<From, To>) {
          return detail::convert_value<To>(value);
        } else if constexpr (detail::is_complex_v<From> && !detail::is_complex_v<To>) {
          throw TypeError(detail::concat("value ", scalar, " cannot be converted to type ", dtype,
                                         ": must be real number, not complex"));
        } else if constexpr (std::is_integral_v<To> && std::is_same_v<From, std::int64_t>) {
          if (integer_overflows<To>(value)) throw_overflow(scalar, dtype);
          return static_cast<To>(value);
        } else if constexpr (std::is_integral_v<To> && std::is_same_v<From, double>) {
          if (floating_overflows<To>(value)) throw_overflow(scalar, dtype);
          return static_cast<To>(value);
        } else {
          return detail::convert_value<To>(value);
        }
      },
      scalar.value());
}

template <class To>
To store_value(const Scalar& scalar, DType dtype) {
  if constexpr (detail::is_packed_v<To>) {
    throw TypeError(detail::concat("value ", scalar, " cannot be converted to type ", dtype,
                                   ": packed sub-byte types hold no single number"));
  } else {
    return store_typed<To>(scalar, dtype);
  }
}

}  // namespace

namespace detail {
void store_scalar(const Scalar& value, DType dtype, void* destination) {
  dispatch(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T element = store_value<T>(value, dtype);
    std::memcpy(destination, &element, sizeof(T));
  });
}
}  // namespace detail

}  // namespace zt
