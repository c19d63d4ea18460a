// Each block type's decoder follows its dequantize_row_* in ggml-quants.c value for value and
// operation for operation: every scale is an exact float, and each value is the same
// products and sums in the same order, each rounded to float32 as ggml rounds it. Every
// product of a float16 scale is exact in float32 (11 significant bits times at most 13), so
// a compiler's fusing of a multiply and an add rounds as ggml's two operations do; only
// Q8_K's float32 scale makes inexact products, which no add follows.
//
// Floating-point mode: every float16 scale converts to a normal float32 (by integer code),
// so its products are normal too, which flush-to-zero and denormals-are-zero leave alone.
// Only MXFP4's exponents 0 and 1 and Q8_K's float32 scale can be subnormal; those blocks
// are decoded by integer arithmetic (subnormal_product).
#include "formats/gguf/dequantize_blocks.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <string>

#include <boost/endian/conversion.hpp>

#include "formats/gguf/block_bytes.hpp"
#include "formats/gguf/dequantize_iq.hpp"
#include "formats/gguf/ggml_types.hpp"
#include "zerotensor/error.hpp"

namespace zt::detail {
namespace {

// ---------------------------------------------------------------- shared field readers

/// The float32 product of a subnormal float32 (its bits `d`) and an integer q (|q| <= 256),
/// rounded to nearest even as a multiply rounds it, made by integer arithmetic: an
/// int-to-float conversion of a value below 2^31 is its only float operation.
float subnormal_product(std::uint32_t d, int q) {
  const std::uint32_t sign = (d & 0x80000000u) ^ (q < 0 ? 0x80000000u : 0u);
  const auto n = std::uint32_t(q < 0 ? -q : q) * (d & 0x7fffffu);  // the product in units of 2^-149, < 2^31
  if (n < (1u << 23)) return std::bit_cast<float>(sign | n);
  // n * 2^-149 is normal: float(n) rounds n to 24 bits; its exponent drops by 149.
  return std::bit_cast<float>(sign | (std::bit_cast<std::uint32_t>(static_cast<float>(n)) - (149u << 23)));
}

/// get_scale_min_k4 of ggml-quants.c: Q4_K's and Q5_K's j-th 6-bit scale and minimum out of
/// their 12 packed bytes.
void scale_min_k4(int j, Bytes q, int& scale, int& min) {
  if (j < 4) {
    scale = q[j] & 63;
    min = q[j + 4] & 63;
  } else {
    scale = (q[j + 4] & 0x0f) | ((q[j - 4] >> 6) << 4);
    min = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
  }
}

// The format's value tables: IQ4_NL's 16 non-linear values, and e2m1's values doubled
// (ggml's kvalues_mxfp4; MXFP4's and NVFP4's scales are halved to match).
constexpr std::array<std::int8_t, 16> iq4nl_values = {-127, -104, -83, -65, -49, -35, -22, -10,
                                                      1,    13,   25,  38,  53,  69,  89,  113};
constexpr std::array<std::int8_t, 16> e2m1_doubled = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};

// ---------------------------------------------------------------- 32-value blocks

constexpr int qk = 32;

void q4_0(Bytes b, float* y) {  // d, 16 bytes of nibbles
  const float d = half_at(b);
  for (int j = 0; j < qk / 2; ++j) {
    y[j] = float(low_nibble(b[2 + j]) - 8) * d;
    y[j + qk / 2] = float(high_nibble(b[2 + j]) - 8) * d;
  }
}

void q4_1(Bytes b, float* y) {  // d, m, 16 bytes of nibbles
  const float d = half_at(b), m = half_at(b + 2);
  for (int j = 0; j < qk / 2; ++j) {
    y[j] = float(low_nibble(b[4 + j])) * d + m;
    y[j + qk / 2] = float(high_nibble(b[4 + j])) * d + m;
  }
}

/// Q5_0's and Q5_1's 5-bit values: the nibbles of `qs`, bit j of `qh` the fifth bit of value j.
void five_bit_values(std::uint32_t qh, Bytes qs, int* q) {
  for (int j = 0; j < qk / 2; ++j) {
    q[j] = low_nibble(qs[j]) | int((qh >> j) & 1u) << 4;
    q[j + qk / 2] = high_nibble(qs[j]) | int((qh >> (j + 16)) & 1u) << 4;
  }
}

void q5_0(Bytes b, float* y) {  // d, qh, 16 bytes of nibbles
  const float d = half_at(b);
  int q[qk];
  five_bit_values(boost::endian::load_little_u32(b + 2), b + 6, q);
  for (int j = 0; j < qk; ++j) y[j] = float(q[j] - 16) * d;
}

void q5_1(Bytes b, float* y) {  // d, m, qh, 16 bytes of nibbles
  const float d = half_at(b), m = half_at(b + 2);
  int q[qk];
  five_bit_values(boost::endian::load_little_u32(b + 4), b + 8, q);
  for (int j = 0; j < qk; ++j) y[j] = float(q[j]) * d + m;
}

void q8_0(Bytes b, float* y) {  // d, 32 int8
  const float d = half_at(b);
  for (int j = 0; j < qk; ++j) y[j] = float(int8_at(b + 2 + j)) * d;
}

void q8_1(Bytes b, float* y) {  // d, s (d times the sum of the values, which decoding does not need), 32 int8
  const float d = half_at(b);
  for (int j = 0; j < qk; ++j) y[j] = float(int8_at(b + 4 + j)) * d;
}

void iq4_nl(Bytes b, float* y) {  // d, 16 bytes of nibbles indexing iq4nl_values
  const float d = half_at(b);
  for (int j = 0; j < qk / 2; ++j) {
    y[j] = d * float(iq4nl_values[low_nibble(b[2 + j])]);
    y[j + qk / 2] = d * float(iq4nl_values[high_nibble(b[2 + j])]);
  }
}

void mxfp4(Bytes b, float* y) {  // E8M0 exponent e, 16 bytes of e2m1 nibbles
  const unsigned e = b[0];
  const auto value = [&](int code) { return e2m1_doubled[code]; };
  if (e < 2) {  // half the scale, 2^(e - 128), is subnormal: 2^(21 + e) * 2^-149
    for (int j = 0; j < qk / 2; ++j) {
      y[j] = subnormal_product(1u << (21 + e), value(low_nibble(b[1 + j])));
      y[j + qk / 2] = subnormal_product(1u << (21 + e), value(high_nibble(b[1 + j])));
    }
    return;
  }
  const float d = std::bit_cast<float>((e - 1) << 23);  // 2^(e - 128), 2^127 for e = 255
  for (int j = 0; j < qk / 2; ++j) {
    y[j] = float(value(low_nibble(b[1 + j]))) * d;
    y[j + qk / 2] = float(value(high_nibble(b[1 + j]))) * d;
  }
}

// ---------------------------------------------------------------- other small blocks

/// Half of an unsigned E4M3 scale (bias 7; 0x7f, its NaN, and 0 are 0; the top bit is
/// ignored), as ggml_ue4m3_to_fp32 gives it: exact, normal or zero.
float ue4m3_half(unsigned char x) {
  if (x == 0 || x == 0x7f) return 0.0f;
  const int exponent = (x >> 3) & 0x0f, mantissa = x & 7;
  // man * 2^-10, or (8 + man) * 2^(exponent - 11): 2^-10 * (8 + man) * 2^(exponent - 1)
  if (exponent == 0) return float(mantissa) * 0x1p-10f;
  return float(8 + mantissa) * 0x1p-11f * float(1 << exponent);
}

void nvfp4(Bytes b, float* y) {  // 4 UE4M3 scales, then 4 x 8 bytes of e2m1 nibbles
  for (int s = 0; s < 4; ++s) {
    const float d = ue4m3_half(b[s]);
    const Bytes qs = b + 4 + 8 * s;
    for (int j = 0; j < 8; ++j) {
      y[16 * s + j] = float(e2m1_doubled[low_nibble(qs[j])]) * d;
      y[16 * s + j + 8] = float(e2m1_doubled[high_nibble(qs[j])]) * d;
    }
  }
}

void q1_0(Bytes b, float* y) {  // d, 16 bytes of sign bits (1: +d, 0: -d)
  const float d = half_at(b);
  for (int j = 0; j < 128; ++j) y[j] = (b[2 + j / 8] >> (j % 8)) & 1 ? d : -d;
}

void q2_0(Bytes b, float* y) {  // d, 16 bytes of 2-bit values q (q - 1 in -1..2)
  const float d = half_at(b);
  for (int j = 0; j < 64; ++j) y[j] = float(((b[2 + j / 4] >> (2 * (j % 4))) & 3) - 1) * d;
}

// ---------------------------------------------------------------- 256-value super-blocks

constexpr int qk_k = 256;

void q2_k(Bytes b, float* y) {  // 16 scale bytes (scale | min << 4), 64 bytes of crumbs, d, dmin
  const Bytes scales = b, qs = b + 16;
  const float d = half_at(b + 80), dmin = half_at(b + 82);
  for (int v = 0; v < qk_k; v += 16) {  // 128 values take 32 bytes, 2 bits each at shift 2 * (v / 32 % 4)
    const float dl = d * float(scales[v / 16] & 0x0f), ml = dmin * float(scales[v / 16] >> 4);
    const Bytes q = qs + 32 * (v / 128) + v % 32;
    const int shift = 2 * (v / 32 % 4);
    for (int l = 0; l < 16; ++l) y[v + l] = dl * float((q[l] >> shift) & 3) - ml;
  }
}

/// Q3_K's 16 6-bit scales, less 32: low nibbles in bytes 0-7 (then their high nibbles), top
/// two bits in bytes 8-11, two at a time.
void q3_k_scales(Bytes s, int* scale) {
  for (int j = 0; j < 16; ++j) {
    const int low = j < 8 ? low_nibble(s[j]) : high_nibble(s[j - 8]);
    const int high = (s[8 + j % 4] >> (2 * (j / 4))) & 3;
    scale[j] = (low | high << 4) - 32;
  }
}

void q3_k(Bytes b, float* y) {  // 32 bytes of high bits, 64 of crumbs, 12 of scales, d
  const Bytes hmask = b, qs = b + 32;
  const float d = half_at(b + 108);
  int scale[16];
  q3_k_scales(b + 96, scale);
  for (int v = 0; v < qk_k; v += 16) {
    const float dl = d * float(scale[v / 16]);
    const Bytes q = qs + 32 * (v / 128) + v % 32, h = hmask + v % 32;
    const int shift = 2 * (v / 32 % 4), bit = v / 32;  // hmask bit 0-7 for each 32 values
    for (int l = 0; l < 16; ++l) y[v + l] = dl * float(((q[l] >> shift) & 3) - ((h[l] >> bit) & 1 ? 0 : 4));
  }
}

/// Q5_K's values, value(c, half, l) with Q4_K's scales and mins: 64 values from 32 bytes, low
/// nibbles then high. q4_k spells the same loops out, as two nibble loops that vectorize.
template <class Value>
void k4_blocks(Bytes b, float* y, Value value) {
  const float d = half_at(b), dmin = half_at(b + 2);
  for (int c = 0; c < 4; ++c) {  // 64 values each
    for (int half = 0; half < 2; ++half) {
      int scale = 0, min = 0;
      scale_min_k4(2 * c + half, b + 4, scale, min);
      const float dl = d * float(scale), ml = dmin * float(min);
      float* out = y + 64 * c + 32 * half;
      for (int l = 0; l < 32; ++l) out[l] = dl * float(value(c, half, l)) - ml;
    }
  }
}

void q4_k(Bytes b, float* y) {  // d, dmin, 12 bytes of scales and mins, 128 bytes of nibbles
  const float d = half_at(b), dmin = half_at(b + 2);
  for (int c = 0; c < 4; ++c) {  // 64 values from 32 bytes: their low nibbles, then their high
    int low_scale = 0, low_min = 0, high_scale = 0, high_min = 0;
    scale_min_k4(2 * c, b + 4, low_scale, low_min);
    scale_min_k4(2 * c + 1, b + 4, high_scale, high_min);
    const float d_low = d * float(low_scale), m_low = dmin * float(low_min);
    const float d_high = d * float(high_scale), m_high = dmin * float(high_min);
    const Bytes q = b + 16 + 32 * c;
    float* out = y + 64 * c;
    for (int l = 0; l < 32; ++l) out[l] = d_low * float(low_nibble(q[l])) - m_low;
    for (int l = 0; l < 32; ++l) out[32 + l] = d_high * float(high_nibble(q[l])) - m_high;
  }
}

void q5_k(Bytes b, float* y) {  // as Q4_K with 32 bytes of fifth bits before the nibbles
  const Bytes qh = b + 16, qs = b + 48;
  k4_blocks(b, y, [qh, qs](int c, int half, int l) {
    return ((qs[32 * c + l] >> (4 * half)) & 0x0f) + ((qh[l] >> (2 * c + half)) & 1 ? 16 : 0);
  });
}

void q6_k(Bytes b, float* y) {  // 128 bytes of low nibbles, 64 of high crumbs, 16 int8 scales, d
  const float d = half_at(b + 208);
  for (int v = 0; v < qk_k; v += 16) {
    const int k = v % 128 / 32;  // which of 4 quarters of its 128 values
    const Bytes ql = b + 64 * (v / 128) + 32 * (k & 1) + v % 32, qh = b + 128 + 32 * (v / 128) + v % 32;
    const float dl = d * float(int8_at(b + 192 + v / 16));
    for (int l = 0; l < 16; ++l) {
      const int q = (((ql[l] >> (4 * (k >> 1))) & 0x0f) | ((qh[l] >> (2 * k)) & 3) << 4) - 32;
      y[v + l] = dl * float(q);
    }
  }
}

void q8_k(Bytes b, float* y) {  // float32 d, 256 int8, 16 int16 sums (unused)
  const auto bits = boost::endian::load_little_u32(b);
  const Bytes qs = b + 4;
  if ((bits & 0x7f800000u) == 0 && (bits & 0x7fffffu) != 0) {  // subnormal d
    for (int j = 0; j < qk_k; ++j) y[j] = subnormal_product(bits, int8_at(qs + j));
    return;
  }
  const float d = std::bit_cast<float>(bits);
  for (int j = 0; j < qk_k; ++j) y[j] = d * float(int8_at(qs + j));
}

/// One ternary digit group: byte x * 3^n keeps its top digit as ((x * 3^n mod 256) * 3) >> 8.
int ternary_digit(unsigned char x, int power_of_3) {
  const auto shifted = static_cast<unsigned char>(x * power_of_3);
  return ((shifted * 3) >> 8) - 1;
}

void tq1_0(Bytes b, float* y) {  // 48 bytes of 5 digits, 4 bytes of 4 digits, d
  constexpr int powers[5] = {1, 3, 9, 27, 81};
  const float d = half_at(b + 52);
  for (int n = 0; n < 5; ++n)
    for (int m = 0; m < 32; ++m) *y++ = float(ternary_digit(b[m], powers[n])) * d;
  for (int n = 0; n < 5; ++n)
    for (int m = 0; m < 16; ++m) *y++ = float(ternary_digit(b[32 + m], powers[n])) * d;
  for (int n = 0; n < 4; ++n)
    for (int m = 0; m < 4; ++m) *y++ = float(ternary_digit(b[48 + m], powers[n])) * d;
}

void tq2_0(Bytes b, float* y) {  // 64 bytes of crumbs (q - 1 in -1..2), d
  const float d = half_at(b + 64);
  for (int v = 0; v < qk_k; ++v) y[v] = float(((b[32 * (v / 128) + v % 32] >> (2 * (v / 32 % 4))) & 3) - 1) * d;
}

void iq4_xs(Bytes b, float* y) {  // d, 16 bits of scale tops, 4 bytes of scale nibbles, 128 bytes of nibbles
  const float d = half_at(b);
  const unsigned scales_high = boost::endian::load_little_u16(b + 2);
  for (int ib = 0; ib < 8; ++ib) {
    const int scale = ((b[4 + ib / 2] >> (4 * (ib % 2))) & 0x0f) | int((scales_high >> (2 * ib)) & 3) << 4;
    const float dl = d * float(scale - 32);
    const Bytes qs = b + 8 + 16 * ib;
    for (int j = 0; j < 16; ++j) {
      y[32 * ib + j] = dl * float(iq4nl_values[low_nibble(qs[j])]);
      y[32 * ib + j + 16] = dl * float(iq4nl_values[high_nibble(qs[j])]);
    }
  }
}

// ---------------------------------------------------------------- dispatch

using Decoder = void (*)(Bytes, std::size_t, float*);

/// A block decoder applied to `n` blocks in a row, the block's sizes from the type table.
template <std::uint32_t Type, void (*Decode)(Bytes, float*)>
void each_block(Bytes in, std::size_t n, float* out) {
  constexpr auto bytes = ggml_type(Type)->block_bytes(), values = ggml_type(Type)->block_values;
  for (std::size_t i = 0; i < n; ++i) Decode(in + i * bytes, out + i * values);
}

struct Entry {
  std::uint32_t type;
  Decoder decode;
};

constexpr std::array decoders = {
    Entry{2, each_block<2, q4_0>},      Entry{3, each_block<3, q4_1>},     Entry{6, each_block<6, q5_0>},
    Entry{7, each_block<7, q5_1>},      Entry{8, each_block<8, q8_0>},     Entry{9, each_block<9, q8_1>},
    Entry{10, each_block<10, q2_k>},    Entry{11, each_block<11, q3_k>},   Entry{12, each_block<12, q4_k>},
    Entry{13, each_block<13, q5_k>},    Entry{14, each_block<14, q6_k>},   Entry{15, each_block<15, q8_k>},
    Entry{20, each_block<20, iq4_nl>},  Entry{23, each_block<23, iq4_xs>}, Entry{34, each_block<34, tq1_0>},
    Entry{35, each_block<35, tq2_0>},   Entry{39, each_block<39, mxfp4>},  Entry{40, each_block<40, nvfp4>},
    Entry{41, each_block<41, q1_0>},    Entry{42, each_block<42, q2_0>},   Entry{16, each_block<16, iq2_xxs>},
    Entry{17, each_block<17, iq2_xs>},  Entry{22, each_block<22, iq2_s>},  Entry{18, each_block<18, iq3_xxs>},
    Entry{21, each_block<21, iq3_s>},   Entry{19, each_block<19, iq1_s>},  Entry{29, each_block<29, iq1_m>},
};

static_assert(std::ranges::all_of(ggml_types,
                                  [](const GgmlType& type) {
                                    return type.block_values == 1 ||
                                           std::ranges::any_of(decoders, [&](const Entry& entry) {
                                             return entry.type == type.number;
                                           });
                                  }),
              "every ggml block type has a decoder");

Decoder decoder(std::uint32_t type) {
  for (const auto& entry : decoders)
    if (entry.type == type) return entry.decode;
  return nullptr;
}

}  // namespace

bool dequantizes(std::uint32_t type) { return decoder(type) != nullptr; }

void dequantize_blocks(std::uint32_t type, std::span<const std::byte> blocks, std::span<float> out) {
  const GgmlType* info = ggml_type(type);
  if (info == nullptr) throw TypeError("ggml type " + std::to_string(type) + " is unknown");
  const std::string name(info->name);
  if (info->block_values == 1) throw TypeError(name + " is not a block-quantized type");
  const Decoder decode = decoder(type);
  if (decode == nullptr) throw TypeError("cannot dequantize " + name + " blocks yet");
  if (blocks.size() % info->block_bytes() != 0)
    throw ValueError(std::to_string(blocks.size()) + " bytes are not whole " + name + " blocks of " +
                     std::to_string(info->block_bytes()) + " bytes");
  const std::size_t n = blocks.size() / info->block_bytes();
  if (out.size() / info->block_values != n || out.size() % info->block_values != 0)
    throw ValueError(std::to_string(n) + " " + name + " blocks hold " + std::to_string(n * info->block_values) +
                     " values, the output has room for " + std::to_string(out.size()));
  decode(reinterpret_cast<Bytes>(blocks.data()), n, out.data());
}

}  // namespace zt::detail
