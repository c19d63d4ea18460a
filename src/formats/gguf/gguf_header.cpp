#include "formats/gguf/gguf_header.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#include <boost/endian/conversion.hpp>

#include "formats/gguf/ggml_types.hpp"
#include "vocabulary/concat.hpp"
#include "vocabulary/json.hpp"
#include "zerotensor/detail/checked_arithmetic.hpp"
#include "zerotensor/error.hpp"
#include "zerotensor/shape.hpp"

namespace zt::detail {
namespace {

constexpr std::string_view gguf_magic = "GGUF";
constexpr std::uint64_t version_at = 4;
constexpr std::uint32_t max_dims = 4;  // ggml's GGML_MAX_DIMS
constexpr int max_array_depth = 64;
constexpr std::string_view alignment_key = "general.alignment";
/// The fewest bytes a key/value pair takes (a key's length, one byte of key, the value type,
/// a one-byte value) and a tensor info (a name's length, one byte of name, the dimension
/// count, the ggml type, the offset): what bounds the counts before anything is allocated.
constexpr std::uint64_t min_pair_bytes = 8 + 1 + 4 + 1;
constexpr std::uint64_t min_info_bytes = 8 + 1 + 4 + 4 + 8;

/// The fewest bytes a value of `type` takes in the file (all of them for a number or bool).
std::uint64_t min_value_bytes(GgufType type) {
  switch (type) {
    case GgufType::UInt8: case GgufType::Int8: case GgufType::Bool: return 1;
    case GgufType::UInt16: case GgufType::Int16: return 2;
    case GgufType::UInt32: case GgufType::Int32: case GgufType::Float32: return 4;
    case GgufType::UInt64: case GgufType::Int64: case GgufType::Float64: case GgufType::String: return 8;
    case GgufType::Array: return 4 + 8;  // the element type and the count
  }
  return 1;
}

/// `bytes` as text, each byte outside printable ASCII (and the backslash) as \xNN.
std::string printable(std::span<const std::byte> bytes) {
  std::string text;
  for (const std::byte b : bytes) {
    const auto c = std::to_integer<unsigned char>(b);
    if (c >= 0x20 && c < 0x7F && c != '\\') {
      text += char(c);
    } else {
      constexpr std::string_view hex = "0123456789abcdef";
      text += concat("\\x", hex[c >> 4], hex[c & 0xF]);
    }
  }
  return text;
}

/// The key or tensor info being read, which opens the messages about it.
struct Entry {
  std::string_view noun;  // "key" or "tensor"; empty in the file's header
  std::uint64_t index;
  std::string_view name;  // empty until read
  std::uint64_t start;    // the byte where its key or info starts
};

class Reader {
 public:
  Reader(std::span<const std::byte> file, std::string_view description) : file_(file), description_(description) {}

  GgufHeader read() {
    GgufHeader header{};
    read_preamble(header);
    const std::uint64_t tensor_count = number<std::uint64_t>("the tensor count");
    const std::uint64_t pair_count = number<std::uint64_t>("the key/value count");
    bound(tensor_count, "the tensor count", 8, "tensor info", min_info_bytes);
    bound(pair_count, "the key/value count", 16, "key/value pair", min_pair_bytes);
    header.alignment = gguf_default_alignment;
    for (std::uint64_t i = 0; i < pair_count; ++i) read_pair(i, header);
    header.tensors.reserve(tensor_count);  // bounded by the file's size above
    for (std::uint64_t i = 0; i < tensor_count; ++i) header.tensors.push_back(read_info(i, header.alignment));
    entry_ = {};
    // at_ is within the file and the alignment below 2^32: the sum does not overflow.
    const std::uint64_t aligned = (at_ + header.alignment - 1) / header.alignment * header.alignment;
    header.data_offset = header.tensors.empty() ? at_ : aligned;
    place_tensors(header);
    check_unique_names(header.tensors);
    check_no_overlap(header.tensors);
    return header;
  }

 private:
  template <class... Parts>
  [[noreturn]] void fail(const Parts&... what) const {
    if (entry_.noun.empty()) throw ValueError(concat(description_, ": ", what...));
    const std::string named =
        entry_.name.empty() ? std::to_string(entry_.index) : concat("'", text_prefix(entry_.name), "'");
    throw ValueError(concat(description_, ": ", entry_.noun, " ", named, entry_.noun == "tensor" ? " (info " : " (",
                            "at byte ", entry_.start, "): ", what...));
  }

  std::uint64_t remaining() const { return file_.size() - at_; }

  /// The next `size` bytes, the field `what`; ValueError when they run past the end.
  std::span<const std::byte> take(std::uint64_t size, std::string_view what) {
    if (size > remaining())
      fail("truncated: ", what, " (", size, " bytes at byte ", at_, ") runs past the end of the file of ",
           file_.size(), " bytes");
    const auto bytes = file_.subspan(at_, size);
    at_ += size;
    return bytes;
  }

  /// The next integer, in the file's byte order.
  template <std::integral T>
  T number(std::string_view what) {
    T value;
    std::memcpy(&value, take(sizeof(T), what).data(), sizeof(T));
    return swap_ ? boost::endian::endian_reverse(value) : value;
  }

  std::string string(std::string_view length_what, std::string_view what) {
    const std::uint64_t length = number<std::uint64_t>(length_what);
    const auto bytes = take(length, what);
    return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
  }

  /// Refuses a `count` (the field `what`, read at byte `start`) of things named `each`, of
  /// `min_bytes` or more each, that the bytes left in the file cannot hold.
  void bound(std::uint64_t count, std::string_view what, std::uint64_t start, std::string_view each,
             std::uint64_t min_bytes) const {
    if (count > remaining() / min_bytes)
      fail(what, " (at byte ", start, ") is ", count, ": the ", remaining(),
           " bytes left in the file cannot hold that many ", each, "s (", min_bytes, " bytes or more each)");
  }

  void read_preamble(GgufHeader& header) {
    const auto magic = take(gguf_magic.size(), "the magic");
    if (std::memcmp(magic.data(), gguf_magic.data(), gguf_magic.size()) != 0)
      fail("not a GGUF file: its magic is '", printable(magic), "', not '", gguf_magic, "'");
    std::uint32_t version = number<std::uint32_t>("the version");
    // A big-endian file's version (2 or 3) reads byte-swapped: its low half is zero.
    header.big_endian = version != 0 && (version & 0xFFFF) == 0;
    if (header.big_endian) {
      swap_ = std::endian::native == std::endian::little;
      version = boost::endian::endian_reverse(version);
    } else {
      swap_ = std::endian::native == std::endian::big;
    }
    if (version != 2 && version != 3)
      fail("GGUF version ", version, " (at byte ", version_at, ") is not supported: versions 2 and 3 are",
           version == 1 ? " (version 1 had 32-bit counts and lengths)" : "");
    header.version = version;
  }

  GgufType value_type(std::string_view what) {
    const std::uint64_t start = at_;
    const std::uint32_t type = number<std::uint32_t>(what);
    if (type > std::uint32_t(GgufType::Float64))
      fail(what, " (at byte ", start, ") is ", type, ", not a GGUF type (0 to ", std::uint32_t(GgufType::Float64), ")");
    return GgufType(type);
  }

  GgufValue value(GgufType type, int depth) {
    constexpr std::string_view what = "the value";
    switch (type) {
      case GgufType::UInt8: return GgufValue(number<std::uint8_t>(what));
      case GgufType::Int8: return GgufValue(number<std::int8_t>(what));
      case GgufType::UInt16: return GgufValue(number<std::uint16_t>(what));
      case GgufType::Int16: return GgufValue(number<std::int16_t>(what));
      case GgufType::UInt32: return GgufValue(number<std::uint32_t>(what));
      case GgufType::Int32: return GgufValue(number<std::int32_t>(what));
      case GgufType::Float32: return GgufValue(std::bit_cast<float>(number<std::uint32_t>(what)));
      case GgufType::Bool: return GgufValue(boolean());
      case GgufType::String: return GgufValue(string("the value's length", what));
      case GgufType::Array: return array(depth + 1);
      case GgufType::UInt64: return GgufValue(number<std::uint64_t>(what));
      case GgufType::Int64: return GgufValue(number<std::int64_t>(what));
      case GgufType::Float64: return GgufValue(std::bit_cast<double>(number<std::uint64_t>(what)));
    }
    fail("unreachable: value type ", std::uint32_t(type));
  }

  bool boolean() {
    const std::uint64_t start = at_;
    const auto byte = number<std::uint8_t>("the value");
    if (byte > 1) fail("the bool at byte ", start, " is ", unsigned(byte), ", not 0 or 1");
    return byte == 1;
  }

  /// An array `depth` arrays deep (1: a key's value).
  GgufValue array(int depth) {
    if (depth > max_array_depth)
      fail("the array at byte ", at_, " is nested ", depth, " arrays deep, deeper than the ", max_array_depth,
           " allowed");
    const GgufType element_type = value_type("the element type of an array");
    const std::uint64_t start = at_;
    const std::uint64_t size = number<std::uint64_t>("the element count of an array");
    bound(size, "the element count of an array", start, zt::name(element_type), min_value_bytes(element_type));
    std::vector<GgufValue> elements;
    elements.reserve(size);
    for (std::uint64_t i = 0; i < size; ++i) elements.push_back(value(element_type, depth));
    return GgufValue(element_type, std::move(elements));
  }

  void read_pair(std::uint64_t i, GgufHeader& header) {
    entry_ = {"key", i, {}, at_};
    std::string key = string("the key's length", "the key");
    if (key.empty()) fail("the key is empty");
    entry_.name = key;
    if (header.metadata.contains(key)) fail("the key appears twice");
    GgufValue found = value(value_type("the value type"), 0);
    if (key == alignment_key) header.alignment = alignment_of(found);
    header.metadata.emplace(std::move(key), std::move(found));
    entry_ = {};
  }

  std::uint64_t alignment_of(const GgufValue& value) const {
    if (value.type() != GgufType::UInt32) fail("the alignment must be a uint32, not a ", zt::name(value.type()));
    const auto found = value.as<std::uint32_t>();
    if (!std::has_single_bit(found)) fail("the alignment ", found, " is not a power of two");
    return found;
  }

  /// One tensor info; its offset still counted from the data section.
  GgufTensorInfo read_info(std::uint64_t i, std::uint64_t alignment) {
    GgufTensorInfo info{};
    info.info_offset = at_;
    entry_ = {"tensor", i, {}, at_};
    info.name = string("the name's length", "the name");
    if (info.name.empty()) fail("the name is empty");
    entry_.name = info.name;
    info.dims = dims();
    const std::uint64_t type_at = at_;
    info.ggml_type = number<std::uint32_t>("the ggml type");
    const GgmlType* type = ggml_type(info.ggml_type);
    if (type == nullptr)
      fail("ggml type ", info.ggml_type, " (at byte ", type_at, ") is not one ggml defines (removed or unknown)");
    info.nbytes = nbytes(info.dims, *type);
    const std::uint64_t offset_at = at_;
    info.offset = number<std::uint64_t>("the offset");
    if (info.offset % alignment != 0)
      fail("offset ", info.offset, " (at byte ", offset_at, ") is not a multiple of the alignment ", alignment);
    entry_.name = {};  // info.name moves into the header next
    return info;
  }

  std::vector<std::int64_t> dims() {
    const std::uint64_t start = at_;
    const auto rank = number<std::uint32_t>("the dimension count");
    if (rank > max_dims) fail("the dimension count ", rank, " (at byte ", start, ") exceeds ggml's ", max_dims);
    std::vector<std::int64_t> dims(rank);
    for (std::uint32_t d = 0; d < rank; ++d) {
      const std::uint64_t at = at_;
      dims[d] = number<std::int64_t>("a dimension");
      if (dims[d] < 0) fail("dimension ", d, " (at byte ", at, ") is negative: ", dims[d]);
    }
    return dims;
  }

  /// The bytes of a tensor of `dims` (innermost first) and `type`: the rows times the blocks
  /// of a row times the block's bytes.
  std::uint64_t nbytes(const std::vector<std::int64_t>& dims, const GgmlType& type) const {
    index_t count = 0;
    try {
      count = checked_numel(dims, 1);  // the extents counted as zerotensor's views count them
    } catch (const ValueError& error) {  // named here, so that a valid tensor builds no message
      fail(error.what());
    }
    const std::int64_t innermost = dims.empty() ? 1 : dims[0];
    if (innermost % type.block_values != 0)
      fail("the innermost dimension ", innermost, " is not a multiple of the ", type.block_values, " values of a ",
           type.name, " block");
    std::uint64_t bytes = 0;
    if (mul_overflows(std::uint64_t(count) / type.block_values, std::uint64_t(type.block_bytes()), bytes))
      fail("dimensions ", shape_string(dims), " (innermost first) of ", type.name, " take more than 2^64 bytes");
    return bytes;
  }

  static Entry entry_of(const GgufTensorInfo& info) { return {"tensor", 0, info.name, info.info_offset}; }

  /// Makes each offset absolute, checking that the tensor lies inside the file.
  void place_tensors(GgufHeader& header) {
    for (GgufTensorInfo& info : header.tensors) {
      std::uint64_t begin = 0, end = 0;
      if (add_overflows(header.data_offset, info.offset, begin) || add_overflows(begin, info.nbytes, end) ||
          end > file_.size()) {
        entry_ = entry_of(info);
        fail("its ", info.nbytes, " bytes at offset ", info.offset, " of the data section (which starts at byte ",
             header.data_offset, ") run past the end of the file of ", file_.size(), " bytes");
      }
      info.offset = begin;
    }
  }

  void check_unique_names(const std::vector<GgufTensorInfo>& tensors) {
    std::vector<const GgufTensorInfo*> sorted;  // a name's first tensor first
    sorted.reserve(tensors.size());
    for (const GgufTensorInfo& info : tensors) sorted.push_back(&info);
    std::ranges::stable_sort(sorted, {}, [](const GgufTensorInfo* info) -> std::string_view { return info->name; });
    for (std::size_t i = 1; i < sorted.size(); ++i) {
      if (sorted[i]->name == sorted[i - 1]->name) {
        entry_ = entry_of(*sorted[i]);
        fail("the name is also that of the tensor whose info is at byte ", sorted[i - 1]->info_offset);
      }
    }
  }

  /// Tensors may lie in any order, with gaps, but no byte belongs to two of them.
  void check_no_overlap(const std::vector<GgufTensorInfo>& tensors) const {
    std::vector<const GgufTensorInfo*> sorted;
    for (const GgufTensorInfo& info : tensors)
      if (info.nbytes > 0) sorted.push_back(&info);
    std::ranges::sort(sorted, {}, &GgufTensorInfo::offset);
    const GgufTensorInfo* furthest = nullptr;  // of those before, the one that ends last
    for (const GgufTensorInfo* info : sorted) {
      if (furthest != nullptr && info->offset < furthest->offset + furthest->nbytes)
        fail("tensors '", text_prefix(furthest->name), "' (info at byte ", furthest->info_offset, ", bytes [",
             furthest->offset, ", ", furthest->offset + furthest->nbytes, ")) and '", text_prefix(info->name),
             "' (info at byte ", info->info_offset, ", bytes [", info->offset, ", ", info->offset + info->nbytes,
             ")) overlap");
      if (furthest == nullptr || info->offset + info->nbytes > furthest->offset + furthest->nbytes) furthest = info;
    }
  }

  std::span<const std::byte> file_;
  std::string_view description_;
  std::uint64_t at_ = 0;  // the next byte to read
  bool swap_ = false;     // the file's byte order is not this machine's
  Entry entry_{};
};

}  // namespace

GgufHeader parse_gguf_header(std::span<const std::byte> file, std::string_view description) {
  return Reader(file, description).read();
}

}  // namespace zt::detail
