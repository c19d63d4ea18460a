// The 8-bit floating-point element types, as PyTorch names and converts them:
// float8_e4m3fn, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz and float8_e8m0fnu.
// Each is one trivially copyable byte. Like c10's types they convert implicitly to float
// (exactly, with integer operations only) and from float (rounding to nearest even, with each
// format's own overflow, NaN and zero rules — PyTorch's, where ml_dtypes differs).
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <initializer_list>
#include <type_traits>

#include <Eigen/Core>

namespace zt {
namespace detail {

/// `condition ? a : b` as mask arithmetic: compilers keep it a select (vectorisable) where
/// they turn a conditional expression into branches.
template <class Bits>
constexpr Bits select(bool condition, Bits a, Bits b) {
  return Bits(b ^ ((a ^ b) & Bits(0u - Bits(condition))));
}

/// 2^exponent for exponents that give a normal float.
constexpr float power_of_two(int exponent) { return std::bit_cast<float>(std::uint32_t(127 + exponent) << 23); }

/// A sign bit, `Exponent` bits and `Mantissa` bits with bias `Bias`. `MaxFinite` is the
/// largest finite magnitude code. Codes above it: infinity then NaNs when `HasInfinity`
/// (e5m2), NaN otherwise (e4m3fn). `Unsigned_zero` ("fnuz"): no negative zero, 0x80 is the
/// only NaN. Rounded magnitudes above MaxFinite become `OverflowCode` (with the sign unless
/// fnuz): saturation for e4m3fn, infinity for e5m2, NaN for fnuz.
template <int Exponent, int Mantissa, int Bias, std::uint8_t MaxFinite, std::uint8_t OverflowCode, bool HasInfinity,
          bool UnsignedZero>
struct SignedFloat8Format {
  static constexpr int mantissa_bits = Mantissa;
  static constexpr std::uint8_t nan_code = UnsignedZero ? 0x80 : 0x7F;

  /// The value as bfloat16 bits (see float8_to_float). NaNs are the quiet NaN with the
  /// code's sign, except fnuz's, which is positive.
  static constexpr std::uint16_t bfloat16_bits(std::uint8_t bits) {
    const std::uint16_t magnitude = bits & 0x7F;
    // The exponent and mantissa fields in bfloat16's places. A subnormal code's mantissa is
    // shifted up until its leading one sits where a normal code's implicit one goes (bit 7,
    // which then adds one to the exponent), lowering the exponent by one per place: by 2,
    // then by 1, where the leading one stays at or below bit 7 (1 to 3 places in all).
    static_assert(Mantissa <= 3, "the normalisation below shifts by at most 3 places");
    std::uint16_t fields = std::uint16_t(magnitude << (7 - Mantissa)), exponent = std::uint16_t(127 - Bias) << 7;
    for (const int shift : {2, 1}) {
      const bool fits = fields < std::uint16_t(0x100 >> shift);  // 16 bits both: vectorises in 16-bit lanes
      fields = select<std::uint16_t>(fits, std::uint16_t(fields << shift), fields);
      exponent = select<std::uint16_t>(fits, std::uint16_t(exponent - (shift << 7)), exponent);
    }
    std::uint16_t value = select<std::uint16_t>(magnitude == 0, 0, std::uint16_t(fields + exponent));
    const std::uint16_t special = HasInfinity && magnitude == MaxFinite + 1 ? 0x7F80 : 0x7FC0;  // infinity, NaN
    value = select<std::uint16_t>(magnitude > MaxFinite, special, value);
    value |= std::uint16_t(bits << 8) & 0x8000;
    return UnsignedZero ? select<std::uint16_t>(bits == 0x80, 0x7FC0, value) : value;
  }

  /// Written as selects, without branches, so that bulk conversions vectorise.
  static std::uint8_t encode(float value) {
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
    const std::uint32_t sign = (bits >> 24) & 0x80, kept_sign = UnsignedZero ? 0 : sign;
    const std::uint32_t magnitude_bits = bits & 0x7FFFFFFF;
    const std::uint32_t subnormal = subnormal_code(magnitude_bits), normal = normal_code(magnitude_bits);
    const std::uint32_t code = select(magnitude_bits < min_normal_bits, subnormal, normal);
    std::uint32_t result = select(code == 0, kept_sign, sign | code);
    result = select(code > MaxFinite, kept_sign | OverflowCode, result);
    result = select(magnitude_bits > 0x7F800000, kept_sign | nan_code, result);
    return std::uint8_t(result);
  }

 private:
  static constexpr std::uint32_t min_normal_bits = std::uint32_t(127 + 1 - Bias) << 23;

  /// Rounds the float's mantissa to `Mantissa` bits, to nearest even, and re-biases the
  /// exponent; a carry moves into the exponent as it should. Meaningful from the smallest
  /// normal up (unsigned arithmetic: no overflow for any input).
  static std::uint32_t normal_code(std::uint32_t magnitude_bits) {
    constexpr int dropped = 23 - Mantissa;
    const std::uint32_t odd = (magnitude_bits >> dropped) & 1;
    const std::uint32_t rounded = (magnitude_bits + (1u << (dropped - 1)) - 1 + odd) >> dropped;
    return rounded - (std::uint32_t(127 - Bias) << Mantissa);
  }

  /// Values below the smallest normal: the float addition of a power of two rounds the
  /// value to the subnormal grid (to nearest even); the sum's low bits are the code, which
  /// is the smallest normal's code when it rounds up to it. Meaningful below the smallest
  /// normal only; computed for every input, so that encode selects without a branch.
  static std::uint32_t subnormal_code(std::uint32_t magnitude_bits) {
    constexpr float magic = power_of_two(23 - Mantissa + 1 - Bias);
    return std::bit_cast<std::uint32_t>(std::bit_cast<float>(magnitude_bits) + magic) -
           std::bit_cast<std::uint32_t>(magic);
  }
};

/// float8_e8m0fnu: 8 exponent bits, bias 127, no sign and no mantissa; 0xFF is NaN.
/// Encoding as PyTorch: the sign is ignored, zero and values below 2^-127 give 0x00, a
/// value rounds up when its float mantissa's top bit is set (for subnormal floats, when
/// more than that bit is), and infinities, NaNs and values that round past 2^127 give NaN.
struct E8M0Format {
  static constexpr int mantissa_bits = 0;
  static constexpr std::uint8_t nan_code = 0xFF;

  /// 2^(bits - 127): `bits` is the exponent field, except 2^-127, which is the subnormal
  /// 0x0040, and NaN (0xFF), which is the positive quiet NaN.
  static constexpr std::uint16_t bfloat16_bits(std::uint8_t bits) {
    const std::uint16_t value = select<std::uint16_t>(bits == 0, 0x0040, std::uint16_t(bits << 7));
    return select<std::uint16_t>(bits == 0xFF, 0x7FC0, value);
  }

  static std::uint8_t encode(float value) {
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(value) & 0x7FFFFFFF;
    const std::uint32_t exponent = bits >> 23, mantissa = bits & 0x7FFFFF;
    const bool half_or_more = mantissa & 0x400000;
    const bool rounds_up = half_or_more && (exponent != 0 || (mantissa & 0x3FFFFF) != 0);
    return std::uint8_t(std::min<std::uint32_t>(exponent + rounds_up, 0xFF));  // NaN, inf: 0xFF
  }
};

/// A code's value. Every 8-bit float value is a bfloat16, so its float is the bfloat16 bits
/// (`Format::bfloat16_bits`) followed by 16 zero bits. The decoders use integer operations
/// only, so that no floating-point mode of the caller (DAZ, FTZ, rounding) can change a
/// result, and selects rather than branches in 16 bits, so that bulk decoding vectorises.
template <class Format>
constexpr float float8_to_float(std::uint8_t bits) {
  return std::bit_cast<float>(std::uint32_t(Format::bfloat16_bits(bits)) << 16);
}

/// One byte in `Format`. Converts implicitly to and from float, as c10's float8 types do.
template <class Format>
class Float8 {
 public:
  using format = Format;

  Float8() = default;
  Float8(float value) noexcept : bits_(Format::encode(value)) {}  // NOLINT(google-explicit-constructor)

  [[nodiscard]] static constexpr Float8 from_bits(std::uint8_t bits) noexcept {
    Float8 result;
    result.bits_ = bits;
    return result;
  }
  [[nodiscard]] constexpr std::uint8_t bits() const noexcept { return bits_; }

  constexpr operator float() const noexcept { return float8_to_float<Format>(bits_); }  // NOLINT

 private:
  std::uint8_t bits_;
};

using E4M3FN = SignedFloat8Format<4, 3, 7, 0x7E, 0x7E, false, false>;
using E5M2 = SignedFloat8Format<5, 2, 15, 0x7B, 0x7C, true, false>;
using E4M3FNUZ = SignedFloat8Format<4, 3, 8, 0x7F, 0x80, false, true>;
using E5M2FNUZ = SignedFloat8Format<5, 2, 16, 0x7F, 0x80, false, true>;

/// The code of the largest (or, with `largest` false, the lowest) finite value.
template <class Format>
constexpr std::uint8_t extreme_finite_code(bool largest) {
  std::uint8_t found = 0;
  for (int bits = 0; bits < 256; ++bits) {
    const float value = float8_to_float<Format>(std::uint8_t(bits)), best = float8_to_float<Format>(found);
    const bool finite = (Format::bfloat16_bits(std::uint8_t(bits)) & 0x7F80) != 0x7F80;
    if (finite && (largest ? value > best : value < best)) found = std::uint8_t(bits);
  }
  return found;
}

template <class T>
inline constexpr bool is_float8_v = false;
template <class Format>
inline constexpr bool is_float8_v<Float8<Format>> = true;

}  // namespace detail

using float8_e4m3fn = detail::Float8<detail::E4M3FN>;
using float8_e5m2 = detail::Float8<detail::E5M2>;
using float8_e4m3fnuz = detail::Float8<detail::E4M3FNUZ>;
using float8_e5m2fnuz = detail::Float8<detail::E5M2FNUZ>;
using float8_e8m0fnu = detail::Float8<detail::E8M0Format>;

static_assert(sizeof(float8_e4m3fn) == 1 && std::is_trivially_copyable_v<float8_e4m3fn>);

}  // namespace zt

/// Eigen's traits, so that 8-bit float matrices map and `.cast<float>()` works.
template <class Format>
struct Eigen::NumTraits<zt::detail::Float8<Format>> : Eigen::GenericNumTraits<zt::detail::Float8<Format>> {
  using Self = zt::detail::Float8<Format>;
  using Real = Self;
  using NonInteger = Self;
  using Literal = Self;
  enum { IsComplex = 0, IsInteger = 0, IsSigned = 1, RequireInitialization = 0, ReadCost = 1, AddCost = 1, MulCost = 1 };
  static Self epsilon() { return Self(zt::detail::power_of_two(-Format::mantissa_bits)); }
  static Self dummy_precision() { return Self(1e-1f); }
  static Self highest() {
    constexpr std::uint8_t code = zt::detail::extreme_finite_code<Format>(true);
    return Self::from_bits(code);
  }
  static Self lowest() {
    constexpr std::uint8_t code = zt::detail::extreme_finite_code<Format>(false);
    return Self::from_bits(code);
  }
  static Self quiet_NaN() { return Self::from_bits(Format::nan_code); }
  static int digits10() { return 0; }
};
