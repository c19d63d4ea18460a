// Internal: the field readers of ggml's blocks, shared by the block decoders. A block is
// read byte by byte (any alignment, little-endian on any host), and each float16 field
// converts by integer code to a float32, a normal one even for a subnormal float16, so no
// conversion depends on the floating-point mode.
#pragma once

#include <bit>
#include <cstdint>

#include <boost/endian/conversion.hpp>

namespace zt::detail {

using Bytes = const unsigned char*;

inline float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1fu;
  const std::uint32_t mantissa = h & 0x3ffu;
  std::uint32_t bits = 0;
  if (exponent == 0x1f) {
    bits = sign | 0x7f800000u | (mantissa << 13);
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa != 0) {  // mantissa * 2^-24, normal as a float32
    const int top = std::bit_width(mantissa) - 1;
    bits = sign | (std::uint32_t(top + 103) << 23) | ((mantissa << (23 - top)) & 0x7fffffu);
  } else {
    bits = sign;
  }
  return std::bit_cast<float>(bits);
}

inline float half_at(Bytes p) { return half_to_float(boost::endian::load_little_u16(p)); }

inline std::int8_t int8_at(Bytes p) { return static_cast<std::int8_t>(*p); }

inline int low_nibble(unsigned char byte) { return byte & 0x0f; }
inline int high_nibble(unsigned char byte) { return byte >> 4; }

}  // namespace zt::detail
