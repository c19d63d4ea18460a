// The sub-byte floating-point element types, packed as PyTorch's float4_e2m1fn_x2 is: one
// element is a whole group of bytes holding several values, and a tensor's shape counts
// groups. float4_e2m1fn_x2 holds two FP4 (E2M1) values in one byte; float6_e2m3fn_x4 and
// float6_e3m2fn_x4 hold four FP6 values in three bytes (safetensors' F6_E2M3 and F6_E3M2,
// DLPack's 6-bit codes with four lanes). Views, sizes and offsets never split a group.
// Like PyTorch, zerotensor stores and moves these bytes but converts them to no other dtype.
#pragma once

#include <array>
#include <cstdint>
#include <ios>
#include <ostream>
#include <type_traits>

namespace zt {

struct float4_e2m1fn_x2 {
  std::uint8_t bits;  ///< both values, as PyTorch stores them
  friend bool operator==(float4_e2m1fn_x2, float4_e2m1fn_x2) = default;
};

struct float6_e2m3fn_x4 {
  std::array<std::uint8_t, 3> bits;
  friend bool operator==(const float6_e2m3fn_x4&, const float6_e2m3fn_x4&) = default;
};

struct float6_e3m2fn_x4 {
  std::array<std::uint8_t, 3> bits;
  friend bool operator==(const float6_e3m2fn_x4&, const float6_e3m2fn_x4&) = default;
};

namespace detail {
/// The bytes in hexadecimal, first byte first: "0x3c", "0x01a2ff".
inline std::ostream& print_packed_bytes(std::ostream& out, const std::uint8_t* bytes, std::size_t count) {
  const std::ios_base::fmtflags flags = out.flags();
  const char fill = out.fill('0');
  out << "0x" << std::hex;
  for (std::size_t i = 0; i < count; ++i) {
    out.width(2);
    out << unsigned(bytes[i]);
  }
  out.fill(fill);
  out.flags(flags);
  return out;
}
}  // namespace detail

inline std::ostream& operator<<(std::ostream& out, float4_e2m1fn_x2 value) {
  return detail::print_packed_bytes(out, &value.bits, 1);
}
inline std::ostream& operator<<(std::ostream& out, const float6_e2m3fn_x4& value) {
  return detail::print_packed_bytes(out, value.bits.data(), 3);
}
inline std::ostream& operator<<(std::ostream& out, const float6_e3m2fn_x4& value) {
  return detail::print_packed_bytes(out, value.bits.data(), 3);
}

static_assert(sizeof(float4_e2m1fn_x2) == 1 && sizeof(float6_e2m3fn_x4) == 3 && alignof(float6_e3m2fn_x4) == 1);
static_assert(std::is_trivially_copyable_v<float6_e2m3fn_x4>);

}  // namespace zt
