// Arrow import: the schema and the array walked down together, each level's type (format,
// extension metadata) read once per call and its array checked against it, then one view
// (or, for bool, unaligned data and filled nulls, one copy).
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "concat.hpp"
#include "dtype_formats.hpp"
#include "zerotensor/convert.hpp"
#include "zerotensor/detail/checked_arithmetic.hpp"
#include "zerotensor/empty.hpp"
#include "zerotensor/from_arrow.hpp"
#include "zerotensor/from_dlpack.hpp"
#include "zerotensor/shape.hpp"

#if ZT_CUDA
#include <cuda_runtime_api.h>
#endif

namespace zt {
namespace {

// ---- checked arithmetic on foreign numbers ----------------------------------------------------

/// a * b + c, or false when it leaves int64: the project's one checked arithmetic.
inline bool mul_add(std::int64_t a, std::int64_t b, std::int64_t c, std::int64_t& out) {
  std::int64_t product = 0;
  return !detail::mul_overflows(a, b, product) && !detail::add_overflows(product, c, out);
}

/// Up to this value, value * 10 + 9 fits int64: decimal digits need no check until then.
constexpr std::int64_t unchecked_decimal = (INT64_MAX - 9) / 10;

/// Equality with a literal: the length first, then a compare of known size that the compiler
/// inlines (std::string_view's == is a three-way compare through memcmp).
template <std::size_t N>
bool equals(std::string_view text, const char (&literal)[N]) {
  return text.size() == N - 1 && std::memcmp(text.data(), literal, N - 1) == 0;
}

// ---- the type: format strings, metadata, the fixed_shape_tensor extension ---------------------

/// Every tensor dimension an import can make: the row dimension and 31 from the type.
constexpr std::size_t max_rank = 32;

/// The one-character primitive formats (the arrow column of the dtype table) as a table
/// indexed by the character: the dtype, or -1.
constexpr auto primitive_dtypes = [] {
  std::array<std::int8_t, 256> table{};
  table.fill(-1);
  for (DType dtype : all_dtypes) {
    const std::string_view format = detail::dtype_formats[std::size_t(dtype)].arrow;
    if (format.size() == 1) table[static_cast<unsigned char>(format[0])] = std::int8_t(dtype);
  }
  return table;
}();

/// What a refused format is, and what to do instead; `format` is not a supported one.
std::string refusal(std::string_view format) {
  const auto starts = [&](std::string_view prefix) { return format.substr(0, prefix.size()) == prefix; };
  if (format == "n") return "the null type holds no values";
  if (format == "z" || format == "Z" || format == "vz") return "binary is variable-size, with no tensor layout";
  if (format == "u" || format == "U" || format == "vu") return "a string is variable-size, with no tensor layout";
  if (starts("w:")) return "fixed-size binary has no element dtype; view it as bytes with zt::frombuffer";
  if (starts("d:")) return "decimals have no tensor dtype; cast them to float64 in Arrow first";
  if (starts("t"))
    return "temporal types have no tensor dtype; cast to int32/int64 in Arrow first (pyarrow: array.cast(pa.int64()))";
  if (format == "+l" || format == "+L" || format == "+vl" || format == "+vL")
    return "a variable-size list has slots of different lengths; a tensor needs FixedSizeList or "
           "arrow.fixed_shape_tensor";
  if (format == "+s") return "a struct is a record batch's layout: zt::from_arrow_record_batch reads it column by column";
  if (format == "+m") return "a map is a variable-size list of key/value structs, with no tensor layout";
  if (starts("+u")) return "a union mixes types, with no tensor layout";
  if (format == "+r") return "run-end encoded data must be decoded in Arrow first";
  return "not an Arrow format zerotensor knows";
}

[[noreturn, gnu::cold, gnu::noinline]] void throw_format(std::string_view format, std::size_t level) {
  throw TypeError(detail::concat("from_arrow: Arrow format \"", format, "\" at nesting level ", level,
                                 " is not supported: ", refusal(format),
                                 "; zerotensor reads int8…uint64, float16/32/64, bool, FixedSizeList and "
                                 "arrow.fixed_shape_tensor"));
}

// The errors take the parts of their message and build it out of line: a message built at
// the call would put its stream's setup into the import's hot path.

template <class... Parts>
[[noreturn, gnu::cold, gnu::noinline]] void throw_schema(const Parts&... what) {
  throw ValueError(detail::concat("from_arrow: malformed ArrowSchema: ", what...));
}

template <class... Parts>
[[noreturn, gnu::cold, gnu::noinline]] void throw_array(const Parts&... what) {
  throw ValueError(detail::concat("from_arrow: malformed ArrowArray: ", what...));
}

template <class... Parts>
[[noreturn, gnu::cold, gnu::noinline]] void throw_extension(std::string_view json, const Parts&... what) {
  throw ValueError(detail::concat("from_arrow: arrow.fixed_shape_tensor metadata ", json, ": ", what...));
}

/// What a schema's metadata says of its extension type.
struct Extension {
  bool fixed_shape_tensor = false;  ///< its name is arrow.fixed_shape_tensor
  std::string_view parameters;      ///< its metadata (JSON for that type); empty when absent
};

[[noreturn, gnu::cold, gnu::noinline]] void throw_metadata_length(const char* what, std::int32_t value) {
  throw_schema("metadata ", what, " is ", value);
}

/// The int32 at `at` (native byte order, unaligned).
std::int32_t int32_at(const char* at) {
  std::int32_t value = 0;
  std::memcpy(&value, at, sizeof value);
  return value;
}

/// Whether the key or value at `at` (its int32 length, then its bytes) is `literal`; `at`
/// moves past it as `literal` would fill it.
template <std::size_t N>
bool part_is(const char*& at, const char (&literal)[N]) {
  const bool same = int32_at(at) == std::int32_t(N - 1) && std::memcmp(at + 4, literal, N - 1) == 0;
  at += 4 + (N - 1);
  return same;
}

/// Reads the binary key/value list: int32 count, then int32 length + bytes per key and value.
/// Each read waits on the length before it.
Extension scan_extension(const char* metadata) {
  Extension found;
  const auto read_int32 = [&metadata](const char* what) {
    const std::int32_t value = int32_at(metadata);
    metadata += sizeof value;
    if (value < 0) throw_metadata_length(what, value);
    return value;
  };
  const std::int32_t pairs = read_int32("pair count");
  for (std::int32_t i = 0; i < pairs; ++i) {
    const std::int32_t key_length = read_int32("key length");
    const std::string_view key(metadata, std::size_t(key_length));
    metadata += key_length;
    const std::int32_t value_length = read_int32("value length");
    const std::string_view value(metadata, std::size_t(value_length));
    metadata += value_length;
    if (equals(key, "ARROW:extension:name")) found.fixed_shape_tensor = equals(value, "arrow.fixed_shape_tensor");
    else if (equals(key, "ARROW:extension:metadata")) found.parameters = value;
  }
  return found;
}

/// Arrow C++ (so pyarrow) and zt::to_arrow write a fixed_shape_tensor's metadata as two pairs
/// alone, name then parameters: "ARROW:extension:name", "arrow.fixed_shape_tensor",
/// "ARROW:extension:metadata", the JSON. In that layout every part but the JSON lies at a
/// fixed offset, checked in order without waiting on a length read (the scan's chain of
/// reads); true, with the JSON, when every part matches.
bool read_tensor_metadata(const char* metadata, std::string_view& parameters) {
  const char* at = metadata + 4;
  if (int32_at(metadata) != 2 || !part_is(at, "ARROW:extension:name") || !part_is(at, "arrow.fixed_shape_tensor") ||
      !part_is(at, "ARROW:extension:metadata"))
    return false;
  const std::int32_t json_length = int32_at(at);
  if (json_length < 0) return false;  // the scan reports it
  parameters = {at + 4, std::size_t(json_length)};
  return true;
}

/// What `metadata` (NULL: none) says of the extension type.
Extension read_extension(const char* metadata) {
  Extension found;
  if (metadata == nullptr) return found;
  if (read_tensor_metadata(metadata, found.parameters)) {
    found.fixed_shape_tensor = true;
    return found;
  }
  return scan_extension(metadata);
}

/// The type of an import: a chain of FixedSizeList levels down to one primitive leaf, and
/// the tensor it makes. Arrays are left uninitialised past their counts: zeroing them cost
/// most of an import.
struct Type {
  DType dtype = uint8;
  bool bit_packed = false;   ///< Arrow bool: one bit per element
  bool permuted = false;     ///< some arrow.fixed_shape_tensor has a permutation
  std::size_t lists = 0;     ///< FixedSizeList levels above the leaf
  std::array<std::int64_t, max_rank> list_size;  // the first `lists` are set
  /// The tensor's physical (row-major) extents: the row count in [0] (set once the array is
  /// walked), then the dimensions the type adds.
  std::size_t rank = 1;
  std::array<index_t, max_rank> physical;
  /// The physical extents again, which Geometry turns into C-order strides in place.
  std::array<index_t, max_rank> strides;
  /// From [1]: the physical dimension each logical one is (arrow.fixed_shape_tensor's
  /// permutation; the identity otherwise).
  std::array<std::uint8_t, max_rank> permutation;

  [[nodiscard]] std::span<const index_t> physical_shape() const { return {physical.data(), rank}; }
  /// Appends a physical dimension, logical in the same place.
  void add_dimension(index_t extent) {
    physical[rank] = strides[rank] = extent;
    permutation[rank] = std::uint8_t(rank);
    ++rank;
  }
};

// ---- the extension's JSON ------------------------------------------------------------------------

/// The text being read, for the reader below and its errors. The position is a separate
/// `const char*&`, kept in a local by every caller so that it stays in a register (a member
/// would be reloaded around each store of a parsed number, which may alias it).
struct JsonCursor {
  const char* begin;
  const char* end;
};

template <class... Parts>
[[noreturn, gnu::cold, gnu::noinline]] void json_fail(const JsonCursor& json, const Parts&... what) {
  throw_extension(std::string_view(json.begin, std::size_t(json.end - json.begin)), what...);
}

[[noreturn, gnu::cold, gnu::noinline]] void json_expected(const JsonCursor& json, char c, const char* at) {
  json_fail(json, "expected '", c, "' at byte ", at - json.begin);
}

/// Past the whitespace at `p`. Out of line: Arrow's writers emit none. Positions go in and
/// out by value here and in every out-of-line helper, so that callers keep theirs in a register.
[[gnu::noinline]] const char* skip_space(const JsonCursor& json, const char* p) {
  while (p < json.end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) ++p;
  return p;
}

/// The next character that is not whitespace, not consumed; '\0' at the end (never valid
/// where a caller looks, like a '\0' inside the text).
inline char peek(const JsonCursor& json, const char*& p) {
  if (p == json.end || static_cast<unsigned char>(*p) <= ' ') [[unlikely]] {
    p = skip_space(json, p);
    if (p == json.end) return '\0';
  }
  return *p;
}

inline void expect(const JsonCursor& json, const char*& p, char c) {
  if (peek(json, p) != c) json_expected(json, c, p);
  ++p;
}

/// Past the ',' between items, or the `close` after the last: true when it was `close`.
inline bool next_item(const JsonCursor& json, const char*& p, char close) {
  const char c = peek(json, p);
  if (c != ',' && c != close) json_expected(json, close, p);
  ++p;
  return c == close;
}

/// Past one escape sequence or one multi-byte UTF-8 character at `p`, which JSON's rules
/// check (RFC 8259, RFC 3629: no overlong forms, surrogates or code points past U+10FFFF);
/// a control character is refused. Out of line: plain ASCII is the rule.
[[gnu::noinline]] const char* json_string_special(const JsonCursor& json, const char* p) {
  const std::ptrdiff_t at = p - json.begin, left = json.end - p;
  const auto byte = [&](std::ptrdiff_t i) { return i < left ? static_cast<unsigned char>(p[i]) : 0u; };
  const unsigned lead = byte(0);
  if (lead < 0x20) json_fail(json, "control character in a string at byte ", at);
  if (lead == '\\') {
    const unsigned escaped = byte(1);
    if (std::string_view("\"\\/bfnrt").find(char(escaped)) != std::string_view::npos) return p + 2;
    bool hex = escaped == 'u';
    for (std::ptrdiff_t i = 2; i < 6; ++i) {
      const unsigned digit = byte(i), letter = digit | 0x20;  // ASCII lower case
      hex = hex && ((digit >= '0' && digit <= '9') || (letter >= 'a' && letter <= 'f'));
    }
    if (hex) return p + 6;
    json_fail(json, "invalid escape sequence in a string at byte ", at);
  }
  std::ptrdiff_t length = 0;
  unsigned low = 0x80, high = 0xBF;  // the second byte's range
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // no overlong form
    if (lead == 0xED) high = 0x9F;  // no surrogate
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;   // no overlong form
    if (lead == 0xF4) high = 0x8F;  // nothing past U+10FFFF
  }
  bool valid = length > 0 && byte(1) >= low && byte(1) <= high;
  for (std::ptrdiff_t i = 2; i < length; ++i) valid = valid && byte(i) >= 0x80 && byte(i) <= 0xBF;
  if (!valid) json_fail(json, "invalid UTF-8 in a string at byte ", at);
  return p + length;
}

/// A string's raw bytes between the quotes (escapes checked, not decoded).
inline std::string_view json_string(const JsonCursor& json, const char*& p) {
  expect(json, p, '"');
  const char* start = p;
  for (;;) {
    if (p == json.end) json_fail(json, "a string is not terminated");
    const char c = *p;
    if (c == '"') break;
    // Printable ASCII but the backslash goes straight on; the rest is checked out of line.
    if (static_cast<unsigned char>(c - 0x20) < 0x60 && c != '\\') [[likely]] ++p;
    else p = json_string_special(json, p);
  }
  return {start, std::size_t(p++ - start)};
}

/// Past the digits of a JSON number's integer part at `p`; false when there are none. A
/// leading zero is JSON's only one ("0", not "07").
inline bool json_digits(const char*& p, const char* end) {
  const char* start = p;
  while (p < end && static_cast<unsigned char>(*p - '0') < 10) ++p;
  return p > start && (*start != '0' || p - start == 1);
}

/// An integer ≥ 0 in an array called `what`, overflow-checked.
inline std::int64_t json_index(const JsonCursor& json, const char*& p, const char* what) {
  const char* start = p;
  std::int64_t value = 0;
  for (; p < json.end; ++p) {
    const auto digit = static_cast<unsigned char>(*p - '0');
    if (digit > 9) break;
    if (value <= unchecked_decimal) [[likely]]
      value = value * 10 + digit;
    else if (!mul_add(value, 10, digit, value))
      json_fail(json, "a number in \"", what, "\" overflows int64");
  }
  if (p == start || (*start == '0' && p - start > 1))
    json_fail(json, "\"", what, "\" must hold integers ≥ 0 without leading zeros (byte ",
                                   start - json.begin, ")");
  return value;
}

/// A JSON array of at most `limit` integers ≥ 0 into `out`; returns how many.
inline std::size_t json_indices(const JsonCursor& json, const char*& p, std::int64_t* out, std::size_t limit,
                                const char* what) {
  expect(json, p, '[');
  std::size_t count = 0;
  if (peek(json, p) == ']') {
    ++p;
    return count;
  }
  do {
    if (count == limit) json_fail(json, "\"", what, "\" has more than ", limit, " dimensions");
    peek(json, p);
    out[count++] = json_index(json, p, what);
  } while (!next_item(json, p, ']'));
  return count;
}

/// true, false, null or a number, by JSON's grammar.
void json_scalar(const JsonCursor& json, const char*& p) {
  const std::string_view rest(p, std::size_t(json.end - p));
  for (const std::string_view literal : {"true", "false", "null"}) {
    if (rest.starts_with(literal)) {
      p += literal.size();
      return;
    }
  }
  const char* start = p;
  if (p < json.end && *p == '-') ++p;
  bool valid = json_digits(p, json.end);
  const auto fraction = [&](std::string_view introducers, std::string_view signs) {
    if (!valid || p == json.end || introducers.find(*p) == std::string_view::npos) return;
    ++p;
    if (p < json.end && signs.find(*p) != std::string_view::npos) ++p;
    const char* digits = p;
    while (p < json.end && static_cast<unsigned char>(*p - '0') < 10) ++p;
    valid = p > digits;
  };
  fraction(".", "");
  fraction("eE", "+-");
  if (!valid) json_fail(json, "malformed value at byte ", start - json.begin);
}

/// Past any JSON value under a key zerotensor does not read, checked as strictly (out of
/// line: rare).
[[gnu::noinline]] const char* json_skip_value(const JsonCursor& json, const char* p, int depth) {
  if (depth == 16) json_fail(json, "nested deeper than 16 levels");
  const char c = peek(json, p);
  if (c == '"') {
    json_string(json, p);
  } else if (c == '[' || c == '{') {
    ++p;
    const char close = c == '[' ? ']' : '}';
    if (peek(json, p) == close) return p + 1;
    do {
      if (c == '{') {
        json_string(json, p);
        expect(json, p, ':');
      }
      p = json_skip_value(json, p, depth + 1);
    } while (!next_item(json, p, close));
  } else {
    json_scalar(json, p);
  }
  return p;
}

/// What the extension's JSON says, before it is checked against the type. The shape is read
/// straight into the type's physical extents; the rest waits here.
struct TensorParameters {
  std::size_t rank = 0;
  std::size_t permutation_rank = 0;
  std::size_t names = 0;
  bool has_shape = false;
  bool has_permutation = false;
  bool has_names = false;
  std::array<std::int64_t, max_rank> permutation;  // the first `permutation_rank` are set
};

constexpr std::array<const char*, 3> tensor_keys = {"shape", "permutation", "dim_names"};

/// `quoted` (a literal) starts at `p`.
template <std::size_t N>
bool literal_at(const JsonCursor& json, const char* p, const char (&quoted)[N]) {
  return std::size_t(json.end - p) >= N - 1 && std::memcmp(p, quoted, N - 1) == 0;
}

/// Which of tensor_keys the key at `p` is (their count for any other), read past it. The extension's
/// keys are told apart by comparing the quoted key with each (Arrow's writers escape none of
/// them); any other key is read as a string.
inline std::size_t json_key(const JsonCursor& json, const char*& p) {
  peek(json, p);
  if (literal_at(json, p, "\"shape\"")) {
    p += 7;
    return 0;
  }
  if (literal_at(json, p, "\"permutation\"")) {
    p += 13;
    return 1;
  }
  if (literal_at(json, p, "\"dim_names\"")) {
    p += 11;
    return 2;
  }
  json_string(json, p);
  return tensor_keys.size();
}

/// The general reader: any JSON object, strictly (RFC 8259), bounded in depth and width,
/// every number overflow-checked: {"shape": [...], "permutation": [...], "dim_names": [...]}
/// in any order, other keys skipped.
void read_json(const JsonCursor& json, std::int64_t* shape, std::size_t limit, TensorParameters& out) {
  const char* p = json.begin;
  expect(json, p, '{');
  if (peek(json, p) == '}') {
    ++p;
  } else {
    do {
      const std::size_t key = json_key(json, p);
      expect(json, p, ':');
      if ((key == 0 && out.has_shape) || (key == 1 && out.has_permutation) || (key == 2 && out.has_names))
        json_fail(json, "\"", tensor_keys[key], "\" appears twice");
      if (key == 0) {
        out.rank = json_indices(json, p, shape, limit, "shape");
        out.has_shape = true;
      } else if (key == 1) {
        out.permutation_rank = json_indices(json, p, out.permutation.data(), limit, "permutation");
        out.has_permutation = true;
      } else if (key == 2) {
        expect(json, p, '[');
        if (peek(json, p) == ']') {
          ++p;
        } else {
          do {
            json_string(json, p);
            ++out.names;
          } while (!next_item(json, p, ']'));
        }
        out.has_names = true;
      } else {
        p = json_skip_value(json, p, 0);
      }
    } while (!next_item(json, p, '}'));
  }
  if (p != json.end) p = skip_space(json, p);
  if (p != json.end) json_fail(json, "unexpected text at byte ", p - json.begin);
}

/// Integers ≥ 0 up to the closing ']' (read past it), compact: at most `limit`, 1 to 18 digits
/// each (so no overflow), no leading zero, no whitespace, each handed to `take(index, value)`.
/// False on anything else, or when `take` refuses a value. The text ends in '}'
/// (add_compact_extension checked), which stops every scan before its end.
template <class Take>
inline bool compact_indices(const char*& p, std::size_t limit, std::size_t& count, Take&& take) {
  for (count = 0; count < limit; ++count) {
    const char* start = p;
    // Unsigned: a 19th digit may wrap before it is refused.
    std::uint64_t value = static_cast<unsigned char>(*p - '0');
    if (value > 9) return false;
    for (++p; static_cast<unsigned char>(*p - '0') < 10; ++p) value = value * 10 + unsigned(*p - '0');
    const auto digits = std::size_t(p - start);
    if (digits > 18 || (digits > 1 && *start == '0') || !take(count, std::int64_t(value))) return false;
    const char separator = *p++;
    if (separator == ']') {
      ++count;
      return true;
    }
    if (separator != ',') return false;
  }
  return false;
}

/// Whether `rank` (< 32) entries ≥ 0 hold each of 0 … rank - 1 once.
inline bool is_permutation(const std::int64_t* entries, std::size_t rank) {
  std::uint32_t seen = 0;
  for (std::size_t i = 0; i < rank; ++i) {
    if (entries[i] >= std::int64_t(rank)) return false;
    seen |= std::uint32_t{1} << entries[i];
  }
  return seen == (std::uint32_t{1} << rank) - 1;
}

/// Arrow's writers (Arrow C++, so pyarrow) emit the parameters compactly, shape first:
/// {"shape":[8,8]}, or {"shape":[2,3],"permutation":[1,0]}. That form, with parameters the
/// type accepts, is read here by direct comparison and added to `type` as it is read. On
/// anything else this returns false with `type` unchanged (but for scratch space past its
/// dimensions), and add_general_extension reads the text from the start (it accepts every
/// text this does, the same way, and reports every error).
inline bool add_compact_extension(const JsonCursor& json, std::int64_t list_size, Type& type) {
  const char* p = json.begin;
  if (!literal_at(json, p, "{\"shape\":[") || json.end[-1] != '}') return false;
  p += 10;
  const std::size_t base = type.rank;
  std::size_t rank = 0;
  std::int64_t product = 1;
  const auto extent = [&](std::size_t i, std::int64_t value) {
    type.physical[base + i] = type.strides[base + i] = value;
    type.permutation[base + i] = std::uint8_t(base + i);
    return mul_add(product, value, 0, product);
  };
  if (!compact_indices(p, max_rank - base, rank, extent) || product != list_size) return false;
  if (literal_at(json, p, ",\"permutation\":[")) {
    p += 16;
    std::array<std::int64_t, max_rank> permutation;
    std::size_t entries = 0;
    const auto entry = [&](std::size_t i, std::int64_t value) {
      permutation[i] = value;
      return true;
    };
    if (!compact_indices(p, rank, entries, entry) || entries != rank || !is_permutation(permutation.data(), rank) ||
        json.end - p != 1)
      return false;
    for (std::size_t i = 0; i < rank; ++i) type.permutation[base + i] = std::uint8_t(base + permutation[i]);
    type.permuted = true;
  } else if (json.end - p != 1) {
    return false;
  }
  type.rank += rank;
  return true;
}

/// Any spelling of the parameters, read by read_json and checked against the type, with an
/// error naming the numbers for each way they can be wrong (out of line: Arrow's writers
/// emit the compact form).
[[gnu::noinline]] void add_general_extension(const JsonCursor& json, std::int64_t list_size, Type& type) {
  const std::size_t base = type.rank;
  std::int64_t* shape = type.physical.data() + base;
  TensorParameters read;
  read_json(json, shape, max_rank - base, read);
  const std::size_t rank = read.rank;
  if (!read.has_shape) json_fail(json, "has no \"shape\"");
  if (read.has_names && read.names != rank)
    json_fail(json, "\"dim_names\" has ", read.names, " names for ", rank, " dimensions");
  if (read.has_permutation) {
    if (read.permutation_rank != rank)
      json_fail(json, "\"permutation\" has ", read.permutation_rank, " entries for ", rank, " dimensions");
    if (!is_permutation(read.permutation.data(), rank))
      json_fail(json, "\"permutation\" is not a permutation of 0…", rank - 1);
  }
  std::int64_t product = 1;
  for (std::size_t i = 0; i < rank; ++i) {
    if (!mul_add(product, shape[i], 0, product)) json_fail(json, "the shape's product overflows int64");
    type.strides[base + i] = shape[i];
    type.permutation[base + i] = std::uint8_t(base + (read.has_permutation ? std::size_t(read.permutation[i]) : i));
  }
  if (product != list_size)
    json_fail(json, "the shape has ", product, " elements but the storage list size is ", list_size);
  type.permuted |= read.has_permutation;
  type.rank += rank;
}

/// Reads the extension's JSON parameters and adds its dimensions to `type`: the shape after
/// the physical ones, the permutation as logical → physical. Hand-written rather than
/// nlohmann-json, which would allocate a DOM on every import.
inline void add_tensor_extension(std::string_view text, std::int64_t list_size, Type& type) {
  const JsonCursor json{text.data(), text.data() + text.size()};
  if (!add_compact_extension(json, list_size, type)) add_general_extension(json, list_size, type);
}

// ---- the schema --------------------------------------------------------------------------------

/// The list size of a fixed-size list format, "+w:" then the decimal digits at `digits`,
/// each checked for overflow (out of line: fast_list_size reads up to 18 digits).
[[gnu::noinline]] std::int64_t checked_list_size(const char* format, const char* digits, std::size_t level) {
  std::int64_t size = 0;
  const char* c = digits;
  for (; static_cast<unsigned char>(*c - '0') < 10; ++c) {
    if (!mul_add(size, 10, *c - '0', size)) break;
  }
  if (c == digits || *c != '\0')
    throw_schema("format \"", format, "\" at nesting level ", level, " does not end in a list size that fits int64");
  return size;
}

/// Parses "+w:123": the list size, or -1 when `format` is not a fixed-size list. Reads the
/// C string in place (no strlen on the hot path).
std::int64_t fixed_list_size(const char* format, std::size_t level) {
  if (format[0] != '+' || format[1] != 'w' || format[2] != ':') return -1;
  const char* digits = format + 3;
  const char* c = digits;
  // Unsigned: past 18 digits the value may wrap before checked_list_size reads it again.
  std::uint64_t size = 0;
  for (; static_cast<unsigned char>(*c - '0') < 10; ++c) size = size * 10 + unsigned(*c - '0');
  if (c == digits || *c != '\0' || c - digits > 18) [[unlikely]]
    return checked_list_size(format, digits, level);
  return std::int64_t(size);
}

/// Why a schema level was refused before its format was read (out of line).
[[noreturn, gnu::cold, gnu::noinline]] void throw_schema_level(const arrow::Schema& schema, std::size_t level) {
  if (schema.release == nullptr) throw_schema("the schema at nesting level ", level, " is released");
  if (schema.format == nullptr) throw_schema("format is NULL at nesting level ", level);
  throw TypeError(detail::concat("from_arrow: the array at nesting level ", level, " is dictionary-encoded (indices \"",
                                 schema.format, "\"); decode it in Arrow first (pyarrow: array.dictionary_decode())"));
}

/// Reads nesting level `level` of the type: a fixed-size list's size, its dimensions added
/// to `type`, or -1 for the primitive leaf, whose dtype it sets.
std::int64_t read_schema_level(const arrow::Schema& schema, std::size_t level, Type& type) {
  if (schema.release == nullptr || schema.format == nullptr || schema.dictionary != nullptr) [[unlikely]]
    throw_schema_level(schema, level);
  const char* format = schema.format;
  const Extension extension = read_extension(schema.metadata);
  const std::int64_t size = fixed_list_size(format, level);
  if (size >= 0) {
    if (schema.n_children != 1 || schema.children == nullptr || schema.children[0] == nullptr)
      throw_schema("fixed-size list \"", format, "\" has ", schema.n_children,
                   " children (or a NULL one); it needs exactly 1");
    if (type.lists == max_rank - 1) throw_schema("more than ", max_rank - 1, " nested lists");
    type.list_size[type.lists++] = size;
    if (extension.fixed_shape_tensor) {
      add_tensor_extension(extension.parameters, size, type);
    } else {
      if (type.rank == max_rank) throw_schema("the type has more than ", max_rank - 1, " tensor dimensions");
      type.add_dimension(size);
    }
    return size;
  }
  if (extension.fixed_shape_tensor)
    throw_schema("arrow.fixed_shape_tensor has storage \"", format, "\"; the extension's storage is a fixed-size list");
  const bool one_character = format[0] != '\0' && format[1] == '\0';
  if (one_character && format[0] == 'b') {
    type.dtype = bool_;
    type.bit_packed = true;
  } else {
    const int found = one_character ? primitive_dtypes[static_cast<unsigned char>(format[0])] : -1;
    if (found < 0) throw_format(format, level);
    type.dtype = DType(found);
  }
  if (schema.n_children != 0) throw_schema("primitive \"", format, "\" has ", schema.n_children, " children");
  return -1;
}

// ---- the array: levels, offsets, nulls --------------------------------------------------------

/// Zero bits among `count` bits from bit `first` of `bitmap`.
[[gnu::noinline]] std::int64_t count_zero_bits(const std::byte* bitmap, std::int64_t first, std::int64_t count) {
  std::int64_t ones = 0, bit = first;
  const std::int64_t end = first + count;
  for (; bit < end && bit % 64 != 0; ++bit) ones += std::to_integer<int>(bitmap[bit / 8] >> (bit % 8)) & 1;
  for (; bit + 64 <= end; bit += 64) {
    std::uint64_t word = 0;
    std::memcpy(&word, bitmap + bit / 8, sizeof word);
    ones += std::popcount(word);
  }
  for (; bit < end; ++bit) ones += std::to_integer<int>(bitmap[bit / 8] >> (bit % 8)) & 1;
  return count - ones;
}

bool bit_set(const std::byte* bitmap, std::int64_t bit) {
  return (std::to_integer<unsigned>(bitmap[bit / 8]) >> (bit % 8) & 1u) != 0;
}

/// A level holding nulls among the slots the tensor uses, [first, first + count) counted from
/// the start of its buffers (its own offset included).
struct NullLevel {
  std::size_t index;  ///< its place in the walk: outer levels first, then the type's
  const std::byte* validity;
  std::int64_t first;
  std::int64_t count;
  std::int64_t nulls;
};

/// What the import found: the leaf's elements [first, first + count) of `data` hold the
/// tensor in physical order, `rows` slots of the first level; `null_levels` carry nulls. A
/// record batch's column has the struct's level first (`outer_levels` 1 once it is walked),
/// then one level per level of its type.
struct Found {
  std::array<NullLevel, max_rank + 1> null_levels;  // the first `null_level_count` are set
  std::size_t null_level_count = 0;
  std::size_t outer_levels = 0;
  std::int64_t nulls = 0;
  std::int64_t rows = 0;
  const std::byte* data = nullptr;
  std::int64_t first = 0;   ///< elements (bits for bool) from `data`
  std::int64_t count = 0;
};

/// Why an array level was refused (out of line): the first of add_level's checks that fails.
[[noreturn, gnu::cold, gnu::noinline]] void throw_array_level(const arrow::Array& array, std::size_t level,
                                                              std::int64_t start, std::int64_t count,
                                                              std::int64_t expected_buffers,
                                                              std::int64_t expected_children) {
  if (array.release == nullptr) throw_array("the array at nesting level ", level, " is released");
  if (array.length < 0 || array.offset < 0 || array.null_count < -1)
    throw_array("length ", array.length, ", offset ", array.offset, ", null_count ", array.null_count,
                " at nesting level ", level);
  if (array.n_buffers != expected_buffers || array.buffers == nullptr)
    throw_array(array.n_buffers, " buffers (or NULL buffers) at nesting level ", level, " where the type has ",
                expected_buffers);
  if (array.n_children != expected_children ||
      (expected_children > 0 && (array.children == nullptr || array.children[0] == nullptr)))
    throw_array(array.n_children, " children (or a NULL one) at nesting level ", level, " where the type has ",
                expected_children);
  std::int64_t end = 0;
  if (detail::add_overflows(start, count, end))
    throw_array(count, " slots from slot ", start, " overflow int64 at nesting level ", level);
  if (end > array.length)
    throw_array("slots [", start, ", ", end, ") are used at nesting level ", level, " but its length is ",
                array.length);
  throw_array("offset ", array.offset, " overflows at nesting level ", level);
}

/// A level that may hold nulls: counts them among its used slots, recording the level where
/// there are some (out of line: rare).
[[gnu::noinline]] void count_nulls(const arrow::Array& array, std::size_t level, std::int64_t first,
                                   std::int64_t count, const Device& device, Found& found) {
  const auto* validity = static_cast<const std::byte*>(array.buffers[0]);
  if (array.null_count > 0 && validity == nullptr)
    throw_array("null_count ", array.null_count, " without a validity bitmap at nesting level ", level);
  if (validity == nullptr || count == 0) return;
  if (!device.is_host_accessible())
    throw DeviceError(detail::concat("from_arrow: the array at nesting level ", level, " may hold nulls (null_count ",
                                     array.null_count, ") and its validity bitmap is on ", device,
                                     ", which the host cannot read"));
  const std::int64_t nulls = count_zero_bits(validity, first, count);
  if (nulls == 0) return;
  found.null_levels[found.null_level_count++] = {found.outer_levels + level, validity, first, count, nulls};
  found.nulls += nulls;
}

struct Walk {
  Type& type;
  const Device& device;
  Found& found;

  /// Checks a level for `array`, whose used slots start `start` slots after its offset, and
  /// returns the first of them counted from the start of its buffers.
  std::int64_t add_level(const arrow::Array& array, std::size_t level, std::int64_t start, std::int64_t count,
                         std::int64_t expected_buffers, std::int64_t expected_children) {
    std::int64_t first = 0;
    // start, count and (checked first) length are ≥ 0: length - start cannot overflow.
    if (array.release == nullptr || (array.length | array.offset) < 0 || array.null_count < -1 ||
        array.n_buffers != expected_buffers || array.buffers == nullptr || array.n_children != expected_children ||
        (expected_children > 0 && (array.children == nullptr || array.children[0] == nullptr)) ||
        count > array.length - start || detail::add_overflows(start, array.offset, first)) [[unlikely]]
      throw_array_level(array, level, start, count, expected_buffers, expected_children);
    if (array.null_count != 0) [[unlikely]]
      count_nulls(array, level, first, count, device, found);
    return first;
  }

  /// Walks `schema` and `array` (nesting level 0 of the type) down to the leaf together,
  /// reading the type as it goes; the used slots of `array` start `start` slots after its offset.
  void run(const arrow::Schema& root_schema, const arrow::Array& root, std::int64_t start, std::int64_t count) {
    found.rows = count;
    const arrow::Schema* schema = &root_schema;
    const arrow::Array* array = &root;
    for (std::size_t level = 0;; ++level) {
      const std::int64_t size = read_schema_level(*schema, level, type);
      if (size < 0) return add_leaf(*array, level, start, count);
      const std::int64_t first = add_level(*array, level, start, count, 1, 1);
      if (!mul_add(first, size, 0, start) || !mul_add(count, size, 0, count))
        throw_array("list slots overflow int64 at nesting level ", level + 1);
      schema = schema->children[0];
      array = array->children[0];
    }
  }

  /// The primitive array at the bottom, whose elements hold the tensor.
  void add_leaf(const arrow::Array& array, std::size_t level, std::int64_t start, std::int64_t count) {
    found.first = add_level(array, level, start, count, 2, 0);
    found.data = static_cast<const std::byte*>(array.buffers[1]);
    found.count = count;
    if (found.data == nullptr && count > 0) throw_array("the data buffer is NULL for ", count, " elements");
  }
};

/// Elements in one slot of level `i`: the product of the list sizes below it (a record
/// batch's struct level holds one row of its column). The element count bounds it, except
/// with no rows: checked.
std::int64_t slot_elements(const Type& type, const Found& found, std::size_t i) {
  std::int64_t inner = 1;
  for (std::size_t j = std::max(i, found.outer_levels) - found.outer_levels; j < type.lists; ++j) {
    if (!mul_add(inner, type.list_size[j], 0, inner)) throw_array("the list sizes' product overflows int64");
  }
  return inner;
}

// ---- errors of the result -------------------------------------------------------------------

[[noreturn, gnu::cold, gnu::noinline]] void throw_nulls(const Found& found, const Type& type) {
  const NullLevel& level = found.null_levels[0];  // found.nulls > 0: there is one
  std::int64_t slot = 0;
  while (bit_set(level.validity, level.first + slot)) ++slot;
  throw ValueError(detail::concat("from_arrow: the ", type.dtype, " array holds ", found.nulls,
                                  " nulls (the first at slot ", slot, " of nesting level ", level.index,
                                  "); a tensor has no nulls: pass .fill_nulls to copy with a fill value"));
}

template <class... Parts>
[[noreturn, gnu::cold, gnu::noinline]] void throw_no_copy(const Parts&... why) {
  throw ValueError(detail::concat("from_arrow: copy = false, but ", why..., " needs a copy"));
}

[[noreturn, gnu::cold, gnu::noinline]] void throw_no_host_copy(DType dtype, Device device) {
  throw DeviceError(detail::concat("from_arrow: the ", dtype, " array on ", device,
                                   " needs a copy (bool, unaligned or nulls) that the host cannot make"));
}

// ---- building the tensor --------------------------------------------------------------------

/// Shape and strides of the result: the row dimension, then the type's dimensions in
/// logical order, with the strides of the row-major physical layout. Built in place: the
/// spans point into the type and into this object.
class Geometry {
 public:
  Geometry(Type& type, const Found& found) : type_(type) {
    const std::int64_t rows = found.rows;
    type.physical[0] = type.strides[0] = rows;
    // The walk checked count = rows * Π list sizes, so a non-empty array's extents are ≥ 1
    // and their product fits (times itemsize: build checks that); an empty one's do not.
    if (found.count == 0)
      static_cast<void>(checked_numel(type.physical_shape(), itemsize(type.dtype), "from_arrow"));
    static_cast<void>(detail::contiguous_strides(std::span<index_t>(type.strides.data(), type.rank)));
    if (!type.permuted) return;
    shape_[0] = rows;
    strides_[0] = type.strides[0];
    for (std::size_t d = 1; d < type.rank; ++d) {
      shape_[d] = type.physical[type.permutation[d]];
      strides_[d] = type.strides[type.permutation[d]];
    }
  }
  Geometry(const Geometry&) = delete;
  Geometry& operator=(const Geometry&) = delete;

  [[nodiscard]] std::span<const index_t> physical() const { return type_.physical_shape(); }
  [[nodiscard]] std::span<const index_t> shape() const {
    return type_.permuted ? std::span<const index_t>(shape_.data(), type_.rank) : physical();
  }
  [[nodiscard]] std::span<const index_t> strides() const {
    return {type_.permuted ? strides_.data() : type_.strides.data(), type_.rank};
  }

 private:
  const Type& type_;
  std::array<index_t, max_rank> shape_;    // set when permuted: the first rank
  std::array<index_t, max_rank> strides_;
};

/// The tensor in memory of its own: the leaf's elements copied (bits unpacked) in physical
/// order, null slots at every level overwritten with `fill`.
[[gnu::noinline]] AnyTensor copy_out(const Type& type, const Found& found, const Geometry& g,
                                     const FromArrowOptions& options) {
  AnyTensor own = empty(g.physical(), type.dtype);
  auto* out = static_cast<std::byte*>(own.mutable_data_ptr());
  const std::size_t size = itemsize(type.dtype);
  if (type.bit_packed) {
    for (std::int64_t i = 0; i < found.count; ++i) out[i] = std::byte(bit_set(found.data, found.first + i) ? 1 : 0);
  } else if (found.count > 0) {
    std::memcpy(out, found.data + std::size_t(found.first) * size, std::size_t(found.count) * size);
  }
  if (found.nulls > 0) {
    std::array<std::byte, 16> fill{};
    detail::store_scalar(*options.fill_nulls, type.dtype, fill.data());
    for (std::size_t i = 0; i < found.null_level_count; ++i) {
      const NullLevel& level = found.null_levels[i];
      const std::int64_t inner = slot_elements(type, found, level.index);
      for (std::int64_t slot = 0; slot < level.count; ++slot) {
        if (bit_set(level.validity, level.first + slot)) continue;
        for (std::int64_t e = slot * inner; e < (slot + 1) * inner; ++e)
          std::memcpy(out + std::size_t(e) * size, fill.data(), size);
      }
    }
  }
  return detail::make_view(type.dtype, out, g.shape(), g.strides(), KeepAlive(own.owner()), cpu, true);
}

/// The checks after the walk, then the view or the copy. `owner` releases the producer's
/// array when the last view dies (at once when this copies or throws).
AnyTensor build(Type& type, const Found& found, const Device& device, KeepAlive&& owner,
                const FromArrowOptions& options) {
  const Geometry g(type, found);
  // The walk checked count = rows * Π list sizes, Geometry the strides: here the byte size,
  // [start, start + count * itemsize), must lie inside the address space.
  std::uintptr_t start = 0, end = 0;
  std::int64_t skip = 0, bytes = 0;
  const auto size = std::int64_t(itemsize(type.dtype));
  if (!type.bit_packed && found.count > 0 &&
      (!mul_add(found.first, size, 0, skip) || !mul_add(found.count, size, 0, bytes) ||
       detail::add_overflows(reinterpret_cast<std::uintptr_t>(found.data), std::uintptr_t(skip), start) ||
       detail::add_overflows(start, std::uintptr_t(bytes), end)))
    throw_array(found.count, " elements from offset ", found.first, " of data ",
                               static_cast<const void*>(found.data), " pass the end of the address space");
  const bool misaligned = (start & (alignment(type.dtype) - 1)) != 0;
  if (found.nulls > 0 && !options.fill_nulls) throw_nulls(found, type);
  if (options.copy == false) {
    if (type.bit_packed) throw_no_copy("Arrow's bit-packed bool (one bit per element, a tensor has one byte)");
    if (misaligned)
      throw_no_copy("the first element at ", reinterpret_cast<const void*>(start),
                                   ", not aligned to ", alignment(type.dtype), " bytes (the alignment of ",
                                   type.dtype, "),");
    if (found.nulls > 0) throw_no_copy("filling ", found.nulls, " nulls");
  }
  if (type.bit_packed || misaligned || found.nulls > 0) {
    if (!device.is_host_accessible()) throw_no_host_copy(type.dtype, device);
    return copy_out(type, found, g, options);
  }
  auto* first = found.count > 0 ? reinterpret_cast<std::byte*>(start) : nullptr;
  // Returned as prvalues: a named view would be moved into the result (NRVO fails with
  // the other returns above).
  if (options.copy == true)
    return detail::make_view(type.dtype, first, g.shape(), g.strides(), std::move(owner), device, false).clone();
  return detail::make_view(type.dtype, first, g.shape(), g.strides(), std::move(owner), device, false);
}

// ---- ownership --------------------------------------------------------------------------------

/// The array of either struct.
inline arrow::Array& array_of(arrow::Array& a) noexcept { return a; }
inline arrow::Array& array_of(arrow::DeviceArray& a) noexcept { return a.array; }

/// The producer's struct, moved in; its release runs once, when the owner dies.
template <class Struct>
struct Held {
  Struct held;
  explicit Held(Struct& source) noexcept : held(source) { array_of(source).release = nullptr; }
  Held(const Held&) = delete;
  Held& operator=(const Held&) = delete;
  ~Held() {
    arrow::Array& array = array_of(held);
    if (array.release != nullptr) array.release(&array);
  }
};

/// The caller's struct, which the import takes: a NULL pointer or a released struct is refused.
template <class Struct>
Struct& caller_struct(Struct* array) {
  if (array == nullptr) throw ValueError("from_arrow: the ArrowArray pointer is NULL");
  if (array_of(*array).release == nullptr)
    throw ValueError("from_arrow: the ArrowArray is released (its release callback is NULL)");
  return *array;
}

/// Moves the caller's struct into a new owner. Always inlined: a call here, and the owner's
/// return through memory, cost more than its body.
template <class Struct>
[[gnu::always_inline]] inline std::shared_ptr<Held<Struct>> take(Struct& array) {
  // ArrowArray owners share from_dlpack's per-thread block cache (malloc and free cost a
  // third of an import); the larger device struct takes the ordinary allocator.
  if constexpr (std::is_same_v<Struct, arrow::Array>)
    return std::allocate_shared<Held<Struct>>(detail::OwnerBlockAllocator<Held<Struct>>{}, array);
  else
    return std::make_shared<Held<Struct>>(array);
}

/// The import reads the caller's struct where it lies (its fields were just written there:
/// a copy read back at once would wait for them) and takes it once every check has passed.
/// Until then, this releases it on every way out.
template <class Struct>
struct ReleaseUntilTaken {
  Struct& array;
  ~ReleaseUntilTaken() {
    arrow::Array& base = array_of(array);
    if (base.release != nullptr) base.release(&base);
  }
};

/// Releases a taken schema on every way out of the import.
struct SchemaRelease {
  arrow::Schema* schema;
  ~SchemaRelease() {
    if (schema != nullptr && schema->release != nullptr) schema->release(schema);
  }
};

const arrow::Schema& schema_ref(const arrow::Schema* schema) {
  if (schema == nullptr) throw ValueError("from_arrow: the ArrowSchema pointer is NULL");
  return *schema;
}

/// A NULL schema pointer: the array is released (as on every error) and the error thrown.
template <class Struct>
[[noreturn]] void refuse_null_schema(Struct* array) {
  const ReleaseUntilTaken<Struct> release{caller_struct(array)};
  throw ValueError("from_arrow: the ArrowSchema pointer is NULL");
}

// The import's body, inlined into the flattened callers below (as view_from_dlpack is
// flattened): the type, the walk, the checks, the owner and the view's construction in one
// body (copies, nulls and the JSON parser stay out of line). The device comes by reference,
// from memory written long before: a Device held in registers across the calls in between
// is spilled as two narrow stores and reloaded as one wide load, which stalls. The caller
// keeps a ReleaseUntilTaken on `source`.
template <class Struct>
AnyTensor import_array(Struct& source, const arrow::Schema& schema, const Device& device,
                       const FromArrowOptions& options) {
  Type type;
  Found found;
  const arrow::Array& array = array_of(source);
  Walk{type, device, found}.run(schema, array, 0, array.length);
  return build(type, found, device, KeepAlive(take(source)), options);
}

Device device_of(const arrow::DeviceArray& array) {
  const auto id = array.device_id;
  const bool id_ok = id >= 0 && id <= std::int64_t(INT32_MAX);
  switch (array.device_type) {
    case arrow::device_cpu: return cpu;
    case arrow::device_cuda:
      if (id_ok) return {DeviceKind::CUDA, int(id)};
      break;
    case arrow::device_cuda_host:
      if (id_ok) return {DeviceKind::CUDAHost, int(id)};
      break;
    case arrow::device_cuda_managed:
      if (id_ok) return {DeviceKind::CUDAManaged, int(id)};
      break;
    default:
      throw DeviceError(detail::concat("from_arrow: unsupported Arrow device type ", array.device_type,
                                       "; zerotensor accepts CPU (1), CUDA (2), CUDA host (3) and CUDA managed (13)"));
  }
  throw DeviceError(detail::concat("from_arrow: device id ", id, " of Arrow device type ", array.device_type,
                                   " is not a GPU ordinal"));
}

/// The producer's work on the buffers is done once its event has fired.
void wait_for(const arrow::DeviceArray& array, Device device) {
  if (array.sync_event == nullptr || device.kind == DeviceKind::CPU) return;
#if ZT_CUDA
  const cudaError_t status = cudaEventSynchronize(*static_cast<cudaEvent_t*>(array.sync_event));
  if (status != cudaSuccess)
    throw DeviceError(detail::concat("from_arrow: waiting for the array's sync_event failed: ",
                                     cudaGetErrorString(status)));
#else
  throw DeviceError(detail::concat("from_arrow: the array on ", device,
                                   " has a sync_event to wait for; that needs the CUDA build (ZT_CUDA=ON)"));
#endif
}

[[gnu::flatten]] AnyTensor import_device(arrow::DeviceArray& array, const arrow::Schema& schema,
                                         const FromArrowOptions& options) {
  const ReleaseUntilTaken<arrow::DeviceArray> release{array};
  const Device device = device_of(array);
  wait_for(array, device);
  return import_array(array, schema, device, options);
}

}  // namespace

// The host import, flattened: the other host form comes through here too.
[[gnu::flatten]] AnyTensor from_arrow(arrow::Array* array, const arrow::Schema& schema,
                                      const FromArrowOptions& options) {
  const ReleaseUntilTaken<arrow::Array> release{caller_struct(array)};
  return import_array(*array, schema, cpu, options);
}

AnyTensor from_arrow(arrow::Array* array, arrow::Schema* schema, const FromArrowOptions& options) {
  const SchemaRelease release{schema};
  if (schema == nullptr) refuse_null_schema(array);
  return from_arrow(array, *schema, options);
}

AnyTensor from_arrow(arrow::DeviceArray* array, const arrow::Schema& schema, const FromArrowOptions& options) {
  return import_device(caller_struct(array), schema, options);
}

AnyTensor from_arrow(arrow::DeviceArray* array, arrow::Schema* schema, const FromArrowOptions& options) {
  const SchemaRelease release{schema};
  if (schema == nullptr) refuse_null_schema(array);
  return import_device(caller_struct(array), *schema, options);
}

RecordBatchTensors from_arrow_record_batch(arrow::Array* array, arrow::Schema* schema,
                                           const FromArrowOptions& options) {
  SchemaRelease release{schema};
  auto held = take(caller_struct(array));
  const arrow::Schema& batch = schema_ref(schema);
  const arrow::Array& data = held->held;
  const KeepAlive owner(std::move(held));
  if (batch.format == nullptr || std::string_view(batch.format) != "+s")
    throw TypeError(detail::concat("from_arrow_record_batch: the schema's format is \"",
                                   batch.format == nullptr ? "(NULL)" : batch.format,
                                   "\"; a record batch is a struct (\"+s\")"));
  if (batch.n_children < 0 || (batch.n_children > 0 && batch.children == nullptr))
    throw_schema("the struct has ", batch.n_children, " children (or NULL children)");
  RecordBatchTensors result;
  for (std::int64_t c = 0; c < batch.n_children; ++c) {
    const arrow::Schema* field = batch.children[c];
    if (field == nullptr) throw_schema("the struct's child ", c, " is NULL");
    std::string name = field->name == nullptr ? std::string() : std::string(field->name);
    if (std::find(result.names.begin(), result.names.end(), name) != result.names.end())
      throw ValueError(detail::concat("from_arrow_record_batch: column name \"", name,
                                      "\" appears twice; a record batch's columns need distinct names here"));
    Type type;
    Found found;
    Walk walk{type, cpu, found};
    // The struct's own slots (its validity: a null row is null in every column), then the
    // column, whose slot for row i is the struct's offset + i.
    walk.add_level(data, 0, 0, data.length, 1, batch.n_children);
    found.outer_levels = 1;
    if (data.children[c] == nullptr) throw_array("the struct's child ", c, " is NULL");
    walk.run(*field, *data.children[c], data.offset, data.length);
    result.columns.push_back(build(type, found, cpu, KeepAlive(owner), options));
    result.names.push_back(std::move(name));
  }
  return result;
}

const AnyTensor& RecordBatchTensors::at(std::string_view name) const {
  const auto found = std::find(names.begin(), names.end(), name);
  if (found != names.end()) return columns[std::size_t(found - names.begin())];
  std::string known;
  for (const std::string& column : names) known += (known.empty() ? "\"" : ", \"") + column + "\"";
  throw ValueError(detail::concat("RecordBatchTensors: no column \"", name, "\"; the columns are ", known));
}

AnyTensor RecordBatchTensors::stack() const {
  if (columns.empty()) throw ValueError("RecordBatchTensors::stack: the record batch has no columns");
  const AnyTensor& first = columns.front();
  for (std::size_t c = 0; c < columns.size(); ++c) {
    const AnyTensor& column = columns[c];
    if (column.rank() != 1 || column.dtype() != first.dtype() || column.size(0) != first.size(0) ||
        !column.device().is_host_accessible())
      throw TypeError(detail::concat("RecordBatchTensors::stack: column \"", names[c], "\" is ",
                                     detail::describe(column.dtype(), column.shape(), column.strides(),
                                                      column.device(), column.is_writable()),
                                     "; stacking needs 1-D host columns of one dtype and length, like column \"",
                                     names[0], "\" (", first.dtype(), ", ", first.size(0), " rows)"));
  }
  const std::array<index_t, 2> shape = {first.size(0), index_t(columns.size())};
  AnyTensor out = empty(shape, first.dtype());
  dispatch(first.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const Tensor<T, 2> to = out.as<T, 2>();
    for (std::size_t c = 0; c < columns.size(); ++c) {
      const Tensor<const T, 1> from = columns[c].as<const T, 1>();
      for (index_t r = 0; r < shape[0]; ++r) to(r, index_t(c)) = from(r);
    }
  });
  return out;
}

}  // namespace zt
