// zt::load_gguf / zt::save_gguf: GGUF files, the model files of llama.cpp and the C++
// inference world around it (ollama, LM Studio, whisper.cpp).
//
// load_gguf maps the file once and makes every tensor a view into that one mapping, as
// load_safetensors does, with the same LoadOptions (copy, access, device, slice, direct) and a
// zt::Buffer overload for bytes in memory. Shapes are in PyTorch's order: GGUF's dimensions,
// innermost first, reversed. Plain tensors (F32, F16, BF16, F64, I8, I16, I32, I64) get those
// dtypes; a block-quantized tensor (Q4_K, IQ2_XS, MXFP4, ...) gets the GGUF block dtype of its
// type (gguf_blocks.hpp), whose element is one block, so its last extent counts blocks: the
// file's innermost size divided by the values a block holds. zt::dequantize (dequantize.hpp)
// decodes blocks to float32, float16 or bfloat16.
//
// The header is read strictly: magic "GGUF", version 2 or 3, every count, length and offset
// checked against the file and for overflow, the 13 metadata types and arrays of them,
// `general.alignment` a nonzero power of two (default 32), at most 4 dimensions, tensors inside
// the data section at multiples of the alignment, not overlapping, names and keys unique and
// non-empty. A malformed file is a ValueError naming the field, its byte offset and the
// numbers. A big-endian file's plain tensors load as byte-swapped copies (copy = false refuses
// them); its block tensors are refused, since ggml defines no big-endian block layout.
//
// Split models (llama.cpp's `name-00001-of-00003.gguf`, with split.no, split.count and
// split.tensors.count): load_gguf of the first part opens every part, each tensor a view of its
// own part; load_checkpoint opens a directory that holds them.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "zerotensor/any_tensor.hpp"
#include "zerotensor/buffer.hpp"
#include "zerotensor/dequantize.hpp"
#include "zerotensor/export.hpp"
#include "zerotensor/gguf_value.hpp"
#include "zerotensor/load_options.hpp"
#include "zerotensor/path_ref.hpp"

namespace zt {

/// GGUF metadata by key, as the file holds it ("general.architecture", "llama.context_length").
using GgufMetadata = std::map<std::string, GgufValue, std::less<>>;

/// Every tensor of a GGUF model by name, and its metadata.
struct ZT_API GgufFile {
  std::map<std::string, AnyTensor, std::less<>> tensors;
  GgufMetadata metadata;
  /// The part file each tensor came from: the file itself, or for a split model its part.
  std::map<std::string, std::string, std::less<>> part_of;

  /// The tensor called `name`; ValueError naming it and the count when there is none.
  [[nodiscard]] const AnyTensor& at(std::string_view name) const;
};

/// Loads the GGUF file at `path` (for a split model, its first part and the others beside it).
/// IOError when a file cannot be opened or mapped; ValueError for a malformed file (see above)
/// and for data that needs a copy which `options` forbid.
[[nodiscard]] ZT_API GgufFile load_gguf(PathRef path, LoadOptions options = {});

namespace detail {
[[nodiscard]] ZT_API GgufFile load_gguf_bytes(const Buffer& bytes, LoadOptions options);
}

/// The tensors and metadata of the GGUF file whose bytes are `bytes`, with load_gguf's checks
/// and messages ("<memory>" for the path); views into the buffer as load_options.hpp says.
/// A split model's part loads as the one file it is.
template <detail::BufferArgument Bytes>
[[nodiscard]] GgufFile load_gguf(Bytes&& bytes, LoadOptions options = {}) {
  return detail::load_gguf_bytes(bytes, options);
}

/// Writes `tensors` and `metadata` to `path` as a GGUF version 3 file: plain tensors of the
/// eight GGUF plain dtypes and block tensors passed through as their bytes, unchanged (a tool
/// can rewrite metadata or drop tensors without requantizing), each at a multiple of
/// `general.alignment` (from `metadata`, a uint32 power of two; 32 when absent). Tensors are
/// written in name order, in C order. TypeError for a dtype GGUF has no type for and for a
/// `general.alignment` of another type; ValueError for an alignment that is not a power of two,
/// a 0-dimensional block tensor, more than 4 dimensions or an empty name or key; DeviceError and
/// IOError as save_safetensors. Atomic, as save_safetensors: a failed save changes nothing.
ZT_API void save_gguf(PathRef path, const std::map<std::string, AnyTensor, std::less<>>& tensors,
                      const GgufMetadata& metadata = {});

}  // namespace zt
