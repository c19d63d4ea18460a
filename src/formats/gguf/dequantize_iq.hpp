// Internal: the decoders of ggml's i-quant block types with value grids (IQ2_XXS, IQ2_XS,
// IQ2_S, IQ3_XXS, IQ3_S, IQ1_S, IQ1_M), one block of 256 values at `block` into `y`, bit for
// bit as ggml's dequantize_row_* (ggml-quants.c) decodes it; dequantize_blocks dispatches to
// them. Blocks are read byte by byte, at any alignment, little-endian on any host.
#pragma once

namespace zt::detail {

void iq2_xxs(const unsigned char* block, float* y);  // d, 8 x (4 grid bytes, 32 bits: 4 x 7 sign bits, scale)
void iq2_xs(const unsigned char* block, float* y);   // d, 32 x 16 bits (9 grid, 7 sign), 8 scale bytes
void iq2_s(const unsigned char* block, float* y);    // d, 32 grid bytes, 32 sign bytes, 8 grid tops, 8 scales
void iq3_xxs(const unsigned char* block, float* y);  // d, 64 grid bytes, 8 x 32 bits (4 x 7 sign bits, scale)
void iq3_s(const unsigned char* block, float* y);    // d, 64 grid bytes, 8 grid tops, 32 sign bytes, 4 scales
void iq1_s(const unsigned char* block, float* y);    // d, 32 grid bytes, 8 x 16 bits (grid tops, scale, delta)
void iq1_m(const unsigned char* block, float* y);    // 32 grid bytes, 16 bytes of tops and deltas, 4 scale words

}  // namespace zt::detail
