// Internal: ggml's block-quantized types decoded to float32, bit for bit as ggml's
// dequantize_row_* (ggml-quants.c) decodes them. Blocks are read byte by byte (any
// alignment, little-endian on any host), and no result depends on the caller's
// floating-point mode: subnormal scales and values are made exactly even with
// flush-to-zero or denormals-are-zero on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "zerotensor/export.hpp"

namespace zt::detail {

/// Whether dequantize_blocks decodes the ggml type numbered `type` (see ggml_types.hpp).
ZT_API bool dequantizes(std::uint32_t type);

/// Decodes whole blocks of the ggml type numbered `type` into float32 values, block after
/// block. `blocks` holds n blocks; `out` receives their n * (values per block) values.
/// Throws TypeError for a type dequantizes() refuses (naming it) and ValueError when
/// `blocks` is not a whole number of blocks or `out` is not the size of their values.
ZT_API void dequantize_blocks(std::uint32_t type, std::span<const std::byte> blocks, std::span<float> out);

}  // namespace zt::detail
