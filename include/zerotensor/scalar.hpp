// zt::Scalar: one number as Python holds it — a bool, an int (64-bit), a float (double) or a
// complex (two doubles) — so that asarray can infer a dtype from plain C++ numbers exactly
// as PyTorch infers one from Python numbers. The C++ type a number came from is forgotten
// on purpose: `3` and `std::int8_t(3)` are both Python's int 3 (Int64), `2.5f` and `2.5`
// are both a Python float (the default dtype).
#pragma once

#include <complex>
#include <concepts>
#include <cstdint>
#include <limits>
#include <ostream>
#include <type_traits>
#include <variant>

#include <Eigen/Core>

#include "zerotensor/dtype.hpp"
#include "zerotensor/error.hpp"
#include "zerotensor/export.hpp"

namespace zt {

namespace detail {
template <class T>
inline constexpr bool is_character_v =
    std::is_same_v<T, char> || std::is_same_v<T, wchar_t> || std::is_same_v<T, char8_t> ||
    std::is_same_v<T, char16_t> || std::is_same_v<T, char32_t>;

/// Integers a Scalar takes: every integer type but bool and the character types (text is
/// not a number; signed and unsigned char are the int8/uint8 element types).
template <class T>
concept ScalarInteger = std::integral<T> && !std::same_as<T, bool> && !is_character_v<T>;

[[noreturn]] ZT_API void throw_scalar_overflow(unsigned long long value);
}  // namespace detail

/// The four kinds of Python number, in PyTorch's promotion order.
enum class ScalarKind : std::uint8_t { Bool, Integer, Floating, Complex };

class ZT_API Scalar {
 public:
  using variant_type = std::variant<bool, std::int64_t, double, std::complex<double>>;

  /// Exactly bool: a pointer or a string literal does not become a Scalar through bool.
  template <std::same_as<bool> B>
  Scalar(B value) noexcept : value_(value) {}  // NOLINT(google-explicit-constructor)

  /// Any integer. An unsigned value above 2^63 - 1 throws ValueError, as PyTorch's
  /// "Overflow when unpacking long" for Python ints outside int64.
  template <detail::ScalarInteger I>
  Scalar(I value) : value_(std::int64_t{0}) {  // NOLINT(google-explicit-constructor)
    if constexpr (std::is_unsigned_v<I> && sizeof(I) >= sizeof(std::int64_t)) {
      if (value > static_cast<I>(std::numeric_limits<std::int64_t>::max()))
        detail::throw_scalar_overflow(static_cast<unsigned long long>(value));
    }
    value_ = static_cast<std::int64_t>(value);
  }

  /// float, double, long double (rounded to double), Eigen::half, Eigen::bfloat16.
  template <std::floating_point F>
  Scalar(F value) noexcept : value_(static_cast<double>(value)) {}  // NOLINT(google-explicit-constructor)
  Scalar(Eigen::half value) noexcept : value_(static_cast<double>(static_cast<float>(value))) {}  // NOLINT
  Scalar(Eigen::bfloat16 value) noexcept : value_(static_cast<double>(static_cast<float>(value))) {}  // NOLINT

  template <std::floating_point F>
  Scalar(std::complex<F> value) noexcept  // NOLINT(google-explicit-constructor)
      : value_(std::complex<double>(static_cast<double>(value.real()), static_cast<double>(value.imag()))) {}

  [[nodiscard]] ScalarKind kind() const noexcept { return static_cast<ScalarKind>(value_.index()); }
  [[nodiscard]] const variant_type& value() const noexcept { return value_; }

  /// The dtype PyTorch infers for this number alone: bool → bool, int → int64,
  /// float → default_dtype(), complex → complex64 (complex128 when the default is float64;
  /// TypeError when it is float16 or bfloat16, which have no complex counterpart here).
  [[nodiscard]] DType dtype() const { return inferred_dtype(kind()); }

  /// The dtype inferred for a number of `kind` (see dtype()).
  [[nodiscard]] static DType inferred_dtype(ScalarKind kind);

  friend bool operator==(const Scalar&, const Scalar&) = default;

 private:
  variant_type value_;
};

/// "True", "3", "2.5", "(1+2j)": as Python prints the number.
ZT_API std::ostream& operator<<(std::ostream& out, const Scalar& value);

}  // namespace zt
