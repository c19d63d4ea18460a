// Internal: the strict reader of a GGUF file's header (llama.cpp's model files): the magic,
// the version, the metadata and the tensor infos, each checked against the file it came from.
// The tensors' bytes are not read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "zerotensor/export.hpp"
#include "zerotensor/gguf_value.hpp"

namespace zt::detail {

/// Where a GGUF file's tensors start when `general.alignment` does not say.
inline constexpr std::uint64_t gguf_default_alignment = 32;

/// One tensor info, validated: its bytes lie inside the file's data section, overlapping no
/// other tensor's.
struct GgufTensorInfo {
  std::string name;
  std::uint32_t ggml_type;         // a number detail::ggml_type knows
  std::vector<std::int64_t> dims;  // innermost first, as in the file; none for a scalar
  std::uint64_t offset;            // of the first byte, from the start of the file
  std::uint64_t nbytes;
  std::uint64_t info_offset;  // where the tensor info starts in the file, for messages
};

struct GgufHeader {
  std::uint32_t version;  // 2 or 3
  bool big_endian;        // every number of the file is big-endian (the tensors' bytes too)
  std::uint64_t alignment;
  /// Where the data section starts: the end of the tensor infos rounded up to the alignment
  /// (with no tensors, the end of the tensor infos, as ggml reads it).
  std::uint64_t data_offset;
  std::map<std::string, GgufValue, std::less<>> metadata;
  std::vector<GgufTensorInfo> tensors;  // in the file's order
};

/// The header of the GGUF file `file`; ValueError naming the field, its byte offset and the
/// numbers when it is malformed. `description` (e.g. "load_gguf: <path>") opens the messages.
ZT_API GgufHeader parse_gguf_header(std::span<const std::byte> file, std::string_view description);

}  // namespace zt::detail
