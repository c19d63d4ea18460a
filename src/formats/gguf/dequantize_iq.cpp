// Each decoder follows its dequantize_row_* in ggml-quants.c: the same scales, grid rows,
// signs and deltas. Every value is an exact product, so neither the order of its operations
// nor the floating-point mode can change it: a float16 scale d converts to a normal float32
// (11 significant bits) or zero; IQ2's and IQ3_XXS's d * (0.5 + s) * 0.25 (or * 0.5) with
// s < 16 has at most 16 bits, IQ3_S's d * (2s + 1) at most 16; a grid value (at most 62)
// adds 6, a sign none. IQ1's d * (2s + 1) has at most 15 bits and grid value + delta
// (+-0.125, +-0.875, +-1.125) 4. The products of a finite scale are normal, at least
// 2^-24 * 2^-3, or zero, and finite, at most 65504 * 15.5 * 0.5 * 62.
#include "formats/gguf/dequantize_iq.hpp"

#include <cstdint>

#include <boost/endian/conversion.hpp>

#include "formats/gguf/block_bytes.hpp"
#include "formats/gguf/iq_grids.hpp"

namespace zt::detail {
namespace {

using boost::endian::load_little_u16;
using boost::endian::load_little_u32;

/// Eight values: `scale` times the bytes of grid row `row`, each negated where its bit of
/// `signs` is set. A NaN (of a NaN scale) is left as the product made it, as a multiplication
/// by -1 (the gguf package's) leaves it: negating it would flip its sign.
void signed_grid_row(float scale, std::uint64_t row, unsigned signs, float* y) {
  for (int j = 0; j < 8; ++j) {
    const float v = scale * float((row >> (8 * j)) & 0xffu);
    y[j] = (signs >> j) & 1u && v == v ? -v : v;
  }
}

/// Two grid rows of 4 values as one row of 8.
std::uint64_t two_rows(std::uint32_t first, std::uint32_t second) { return first | std::uint64_t(second) << 32; }

/// An IQ2 group's scale out of its 4-bit s.
float iq2_scale(float d, unsigned s) { return d * (0.5f + float(s)) * 0.25f; }

/// Eight IQ1 values: `scale` times (grid value + delta), the grid's values int8 bytes.
void shifted_grid_row(float scale, std::uint64_t row, float delta, float* y) {
  for (int j = 0; j < 8; ++j) y[j] = scale * (float(static_cast<std::int8_t>((row >> (8 * j)) & 0xffu)) + delta);
}

constexpr float iq1_delta = 0.125f;

}  // namespace

void iq2_xxs(Bytes b, float* y) {
  const float d = half_at(b);
  for (int ib = 0; ib < 8; ++ib, y += 32) {
    const Bytes group = b + 2 + 8 * ib;
    const std::uint32_t bits = load_little_u32(group + 4);
    const float db = iq2_scale(d, bits >> 28);
    for (int l = 0; l < 4; ++l)
      signed_grid_row(db, iq2xxs_grid[group[l]], ksigns_iq2xs[(bits >> (7 * l)) & 127], y + 8 * l);
  }
}

void iq2_xs(Bytes b, float* y) {
  const float d = half_at(b);
  for (int ib = 0; ib < 8; ++ib, y += 32) {
    const unsigned char scales = b[66 + ib];
    for (int l = 0; l < 4; ++l) {
      const unsigned q = load_little_u16(b + 2 + 8 * ib + 2 * l);
      const float db = iq2_scale(d, l < 2 ? low_nibble(scales) : high_nibble(scales));
      signed_grid_row(db, iq2xs_grid[q & 511], ksigns_iq2xs[q >> 9], y + 8 * l);
    }
  }
}

void iq2_s(Bytes b, float* y) {
  const float d = half_at(b);
  const Bytes qs = b + 2, signs = b + 34, qh = b + 66, scales = b + 74;
  for (int ib = 0; ib < 8; ++ib, y += 32) {
    for (int l = 0; l < 4; ++l) {
      const unsigned index = qs[4 * ib + l] | ((qh[ib] >> (2 * l)) & 3u) << 8;
      const float db = iq2_scale(d, l < 2 ? low_nibble(scales[ib]) : high_nibble(scales[ib]));
      signed_grid_row(db, iq2s_grid[index], signs[4 * ib + l], y + 8 * l);
    }
  }
}

void iq3_xxs(Bytes b, float* y) {
  const float d = half_at(b);
  for (int ib = 0; ib < 8; ++ib, y += 32) {
    const Bytes qs = b + 2 + 8 * ib;
    const std::uint32_t bits = load_little_u32(b + 66 + 4 * ib);
    const float db = d * (0.5f + float(bits >> 28)) * 0.5f;
    for (int l = 0; l < 4; ++l) {
      const std::uint64_t row = two_rows(iq3xxs_grid[qs[2 * l]], iq3xxs_grid[qs[2 * l + 1]]);
      signed_grid_row(db, row, ksigns_iq2xs[(bits >> (7 * l)) & 127], y + 8 * l);
    }
  }
}

void iq3_s(Bytes b, float* y) {
  const float d = half_at(b);
  const Bytes qh = b + 66, signs = b + 74, scales = b + 106;
  for (int ib = 0; ib < 8; ++ib, y += 32) {
    const Bytes qs = b + 2 + 8 * ib;
    const float db = d * float(1 + 2 * (ib % 2 == 0 ? low_nibble(scales[ib / 2]) : high_nibble(scales[ib / 2])));
    for (int l = 0; l < 4; ++l) {  // grid indices' ninth bits: bits 2l and 2l + 1 of qh[ib]
      const unsigned first = qs[2 * l] | ((qh[ib] >> (2 * l)) & 1u) << 8;
      const unsigned second = qs[2 * l + 1] | ((qh[ib] >> (2 * l + 1)) & 1u) << 8;
      signed_grid_row(db, two_rows(iq3s_grid[first], iq3s_grid[second]), signs[4 * ib + l], y + 8 * l);
    }
  }
}

void iq1_s(Bytes b, float* y) {
  const float d = half_at(b);
  const Bytes qs = b + 2;
  for (int ib = 0; ib < 8; ++ib, y += 32) {
    const unsigned h = load_little_u16(b + 34 + 2 * ib);  // 4 x 3 grid index tops, 3-bit scale, delta's sign
    const float dl = d * float(2 * ((h >> 12) & 7u) + 1);
    const float delta = h & 0x8000u ? -iq1_delta : iq1_delta;
    for (int l = 0; l < 4; ++l) shifted_grid_row(dl, iq1s_grid[qs[4 * ib + l] | ((h >> (3 * l)) & 7u) << 8], delta, y + 8 * l);
  }
}

void iq1_m(Bytes b, float* y) {
  const Bytes qs = b, qh = b + 32;
  unsigned scales[4];  // each: 4 x 3-bit scales, then a nibble of d
  std::uint16_t d_bits = 0;
  for (int k = 0; k < 4; ++k) {
    scales[k] = load_little_u16(b + 48 + 2 * k);
    d_bits = std::uint16_t(d_bits | (scales[k] >> 12) << (4 * k));
  }
  const float d = half_to_float(d_bits);
  for (int ib = 0; ib < 8; ++ib, y += 32) {
    for (int l = 0; l < 4; ++l) {
      const unsigned h = qh[2 * ib + l / 2] >> (4 * (l % 2));  // 3 grid index tops, delta's sign
      const unsigned s = (scales[ib / 2] >> (6 * (ib % 2) + 3 * (l / 2))) & 7u;
      shifted_grid_row(d * float(2 * s + 1), iq1s_grid[qs[4 * ib + l] | (h & 7u) << 8], h & 8u ? -iq1_delta : iq1_delta,
                       y + 8 * l);
    }
  }
}

}  // namespace zt::detail
