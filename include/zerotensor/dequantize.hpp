// zt::dequantize / zt::dequantize_into: the values of a tensor of GGUF blocks (gguf_blocks.hpp),
// as ggml's dequantize_row_* gives them, bit for bit, in float32, or rounded from those to
// nearest even in float16 or bfloat16 (subnormals kept; no result depends on the caller's
// flush-to-zero or denormals-are-zero mode).
//
// A block holds a run of values along the innermost dimension, so the values have the blocks'
// shape with the last extent multiplied by the values per block: a (4096, 16) tensor of
// gguf_q4_k_ (256 values a block) holds (4096, 4096) values. The blocks may be any strided
// view (every other row, a narrow of blocks); a 0-dimensional tensor of blocks has no
// innermost dimension and is refused. Host memory only.
#pragma once

#include "zerotensor/any_tensor.hpp"
#include "zerotensor/dtype.hpp"
#include "zerotensor/export.hpp"
#include "zerotensor/to_options.hpp"

namespace zt {

/// A new contiguous tensor of `dtype` (float32, float16 or bfloat16) holding the values of
/// `blocks`, a tensor of a GGUF block dtype, on `options.threads` host threads (the result is
/// the same for any count; ToOptions' other fields are unused). Every GGUF block dtype decodes.
/// TypeError for `blocks` of another dtype and for another `dtype`; ValueError for 0-dimensional blocks and for values too many to
/// count; DeviceError for memory the host cannot access.
[[nodiscard]] ZT_API AnyTensor dequantize(const AnyTensor& blocks, DType dtype = float32, ToOptions options = {});

/// dequantize's values written into `out`, a writable host tensor of float32, float16 or
/// bfloat16 of exactly the values' shape, any strides. dequantize's errors, and besides:
/// ValueError naming both shapes for another shape, ValueError for an `out` that shares
/// memory with `blocks` or whose elements are the same memory (a stride 0 of an extent above
/// 1), TypeError for a read-only `out`.
ZT_API void dequantize_into(const AnyTensor& blocks, const AnyTensor& out, ToOptions options = {});

}  // namespace zt
