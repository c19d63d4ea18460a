// Arrow import: the schema's type and extension parsed once per call, the array's levels
// checked against it, then one view (or, for bool, unaligned data and filled nulls, one copy).
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

/// a * b + c, or false when it leaves int64. Every caller passes terms it has checked to be
/// ≥ 0; both overflow flags are computed without branching (this runs ~10 times an import).
inline bool mul_add(std::int64_t a, std::int64_t b, std::int64_t c, std::int64_t& out) {
  std::int64_t product = 0;
  const bool overflow = detail::mul_overflows(a, b, product) | detail::add_overflows(product, c, out);
  return !overflow;
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

[[noreturn, gnu::cold, gnu::noinline]] void throw_schema(const std::string& what) {
  throw ValueError("from_arrow: malformed ArrowSchema: " + what);
}

[[noreturn, gnu::cold, gnu::noinline]] void throw_array(const std::string& what) {
  throw ValueError("from_arrow: malformed ArrowArray: " + what);
}

[[noreturn, gnu::cold, gnu::noinline]] void throw_extension(std::string_view json, const std::string& what) {
  throw ValueError(detail::concat("from_arrow: arrow.fixed_shape_tensor metadata ", json, ": ", what));
}

/// The two extension entries of a schema's metadata (empty when absent).
struct Extension {
  std::string_view name;
  std::string_view metadata;
};

/// Reads the binary key/value list: int32 count, then int32 length + bytes per key and value.
Extension read_extension(const char* metadata) {
  Extension found;
  if (metadata == nullptr) return found;
  const auto read_int32 = [&metadata](const char* what) {
    std::int32_t value = 0;
    std::memcpy(&value, metadata, sizeof value);
    metadata += sizeof value;
    if (value < 0) throw_schema(detail::concat("metadata ", what, " is ", value));
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
    if (key == "ARROW:extension:name") found.name = value;
    else if (key == "ARROW:extension:metadata") found.metadata = value;
  }
  return found;
}

/// The arrow.fixed_shape_tensor parameters zerotensor uses.
struct TensorShape {
  std::size_t rank = 0;
  std::array<std::int64_t, max_rank> shape;  // the first `rank` are set
  std::array<std::int64_t, max_rank> permutation;
  bool has_permutation = false;
};

/// The cursor of the JSON reader below: a position in `json`, kept in a local by every
/// caller so that it stays in a register (a member would be reloaded around each store of
/// a parsed number, which may alias it).
struct JsonCursor {
  const char* begin;
  const char* end;
};

[[noreturn, gnu::cold, gnu::noinline]] void json_fail(const JsonCursor& json, const std::string& what) {
  throw_extension(std::string_view(json.begin, std::size_t(json.end - json.begin)), what);
}

[[noreturn, gnu::cold, gnu::noinline]] void json_expected(const JsonCursor& json, char c, const char* at) {
  json_fail(json, detail::concat("expected '", c, "' at byte ", at - json.begin));
}

inline void skip_space(const char*& p, const char* end) {
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) ++p;
}

inline bool accept(const char*& p, const char* end, char c) {
  if (p < end && *p == c) {  // first without whitespace: Arrow's writers emit none
    ++p;
    return true;
  }
  skip_space(p, end);
  if (p < end && *p == c) {
    ++p;
    return true;
  }
  return false;
}

inline void expect(const JsonCursor& json, const char*& p, char c) {
  if (!accept(p, json.end, c)) json_expected(json, c, p);
}

/// A string's raw bytes between the quotes; escapes are skipped over, not decoded.
inline std::string_view json_string(const JsonCursor& json, const char*& p) {
  expect(json, p, '"');
  const char* start = p;
  while (p < json.end && *p != '"') {
    const auto c = static_cast<unsigned char>(*p);
    if (c < 0x20) json_fail(json, detail::concat("control character in a string at byte ", p - json.begin));
    p += c == '\\' && p + 1 < json.end ? 2 : 1;
  }
  if (p >= json.end) json_fail(json, "a string is not terminated");
  return {start, std::size_t(p++ - start)};
}

/// A JSON array of integers ≥ 0 into `out`; returns how many.
inline std::size_t json_integers(const JsonCursor& json, const char*& p, std::int64_t* out, const char* what) {
  std::size_t count = 0;
  expect(json, p, '[');
  if (accept(p, json.end, ']')) return 0;
  do {
    if (count == max_rank - 1)
      json_fail(json, detail::concat("\"", what, "\" has more than ", max_rank - 1, " dimensions"));
    skip_space(p, json.end);
    const char* start = p;
    std::int64_t value = 0;
    for (; p < json.end && *p >= '0' && *p <= '9'; ++p) {
      if (!mul_add(value, 10, *p - '0', value))
        json_fail(json, detail::concat("a number in \"", what, "\" overflows int64"));
    }
    if (p == start)
      json_fail(json, detail::concat("\"", what, "\" must hold integers ≥ 0 (byte ", start - json.begin, ")"));
    out[count++] = value;
  } while (accept(p, json.end, ','));
  expect(json, p, ']');
  return count;
}

/// Any JSON value under a key zerotensor does not read (out of line: rare).
[[gnu::noinline]] void json_skip_value(const JsonCursor& json, const char*& p, int depth) {
  if (depth == 16) json_fail(json, "nested deeper than 16 levels");
  skip_space(p, json.end);
  if (p >= json.end) json_fail(json, "a value is missing at the end");
  const char c = *p;
  if (c == '"') {
    json_string(json, p);
  } else if (c == '[' || c == '{') {
    ++p;
    const char close = c == '[' ? ']' : '}';
    if (accept(p, json.end, close)) return;
    do {
      if (c == '{') {
        json_string(json, p);
        expect(json, p, ':');
      }
      json_skip_value(json, p, depth + 1);
    } while (accept(p, json.end, ','));
    expect(json, p, close);
  } else {
    const char* start = p;
    while (p < json.end && std::string_view("+-.0123456789eEtrufalsn").find(*p) != std::string_view::npos) ++p;
    if (p == start) json_fail(json, detail::concat("unexpected character at byte ", p - json.begin));
  }
}

/// A strict reader of the extension's small JSON object: {"shape": [...], "permutation":
/// [...], "dim_names": [...]}, any order, other keys skipped, into `result`. Hand-written
/// rather than nlohmann-json, which would allocate a DOM on every import; bounded in depth
/// and width, every number overflow-checked. Out of line from the flattened import.
[[gnu::noinline, gnu::flatten]] void parse_tensor_shape(std::string_view text, TensorShape& result) {
  const JsonCursor json{text.data(), text.data() + text.size()};
  const char* p = json.begin;
  result.rank = 0;
  result.has_permutation = false;
  bool has_shape = false, has_names = false;
  std::size_t names = 0, permutation_rank = 0;
  expect(json, p, '{');
  if (!accept(p, json.end, '}')) {
    do {
      const std::string_view key = json_string(json, p);
      expect(json, p, ':');
      if (key == "shape" && !has_shape) {
        result.rank = json_integers(json, p, result.shape.data(), "shape");
        has_shape = true;
      } else if (key == "permutation" && !result.has_permutation) {
        permutation_rank = json_integers(json, p, result.permutation.data(), "permutation");
        result.has_permutation = true;
      } else if (key == "dim_names" && !has_names) {
        expect(json, p, '[');
        if (!accept(p, json.end, ']')) {
          do {
            json_string(json, p);
            ++names;
          } while (accept(p, json.end, ','));
          expect(json, p, ']');
        }
        has_names = true;
      } else if (key == "shape" || key == "permutation" || key == "dim_names") {
        json_fail(json, detail::concat("\"", key, "\" appears twice"));
      } else {
        json_skip_value(json, p, 0);
      }
    } while (accept(p, json.end, ','));
    expect(json, p, '}');
  }
  skip_space(p, json.end);
  if (p != json.end) json_fail(json, detail::concat("unexpected text at byte ", p - json.begin));
  if (!has_shape) json_fail(json, "has no \"shape\"");
  if (has_names && names != result.rank)
    json_fail(json, detail::concat("\"dim_names\" has ", names, " names for ", result.rank, " dimensions"));
  if (!result.has_permutation) return;
  if (permutation_rank != result.rank)
    json_fail(json, detail::concat("\"permutation\" has ", permutation_rank, " entries for ", result.rank,
                                   " dimensions"));
  std::array<bool, max_rank> seen{};
  for (std::size_t i = 0; i < result.rank; ++i) {
    const std::int64_t d = result.permutation[i];
    if (d >= std::int64_t(result.rank) || seen[std::size_t(d)])
      json_fail(json, detail::concat("\"permutation\" is not a permutation of 0…", result.rank - 1));
    seen[std::size_t(d)] = true;
  }
}

/// The type of an import: a chain of FixedSizeList levels down to one primitive leaf.
struct Type {
  DType dtype = uint8;
  bool bit_packed = false;   ///< Arrow bool: one bit per element
  std::size_t lists = 0;     ///< FixedSizeList levels above the leaf
  std::array<std::int64_t, max_rank> list_size;  // the first `lists` are set
  /// Tensor dimensions after the row one, physical (row-major) order, and for each
  /// logical dimension the physical one it is (arrow.fixed_shape_tensor's permutation).
  /// Arrays are left uninitialised past their counts: zeroing them cost most of an import.
  std::size_t dims = 0;
  std::array<std::int64_t, max_rank> shape;
  std::array<std::uint8_t, max_rank> permutation;
};

/// Parses "+w:123": the list size, or -1 when `format` is not a fixed-size list. Reads the
/// C string in place (no strlen on the hot path).
std::int64_t fixed_list_size(const char* format, std::size_t level) {
  if (format[0] != '+' || format[1] != 'w' || format[2] != ':') return -1;
  std::int64_t size = 0;
  const char* c = format + 3;
  for (; *c != '\0'; ++c) {
    if (*c < '0' || *c > '9' || !mul_add(size, 10, *c - '0', size)) break;
  }
  if (c == format + 3 || *c != '\0')
    throw_schema(detail::concat("format \"", format, "\" at nesting level ", level,
                                " does not end in a list size that fits int64"));
  return size;
}

void add_dims(Type& type, std::span<const std::int64_t> shape, const std::int64_t* permutation) {
  if (type.dims + shape.size() >= max_rank)
    throw_schema(detail::concat("the type has more than ", max_rank - 1, " tensor dimensions"));
  const std::size_t base = type.dims;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    type.shape[base + i] = shape[i];
    type.permutation[base + i] = std::uint8_t(base + (permutation != nullptr ? std::size_t(permutation[i]) : i));
  }
  type.dims += shape.size();
}

Type parse_type(const arrow::Schema& root) {
  Type type;
  const arrow::Schema* schema = &root;
  for (std::size_t level = 0;; ++level) {
    if (schema->release == nullptr) throw_schema(detail::concat("the schema at nesting level ", level, " is released"));
    if (schema->format == nullptr) throw_schema(detail::concat("format is NULL at nesting level ", level));
    const char* format = schema->format;
    if (schema->dictionary != nullptr)
      throw TypeError(detail::concat("from_arrow: the array at nesting level ", level,
                                     " is dictionary-encoded (indices \"", format,
                                     "\"); decode it in Arrow first (pyarrow: array.dictionary_decode())"));
    const Extension extension = read_extension(schema->metadata);
    const bool tensor_extension = extension.name == "arrow.fixed_shape_tensor";
    const std::int64_t size = fixed_list_size(format, level);
    if (size >= 0) {
      if (schema->n_children != 1 || schema->children == nullptr || schema->children[0] == nullptr)
        throw_schema(detail::concat("fixed-size list \"", format, "\" has ", schema->n_children,
                                    " children (or a NULL one); it needs exactly 1"));
      if (type.lists == max_rank - 1) throw_schema(detail::concat("more than ", max_rank - 1, " nested lists"));
      type.list_size[type.lists++] = size;
      if (tensor_extension) {
        TensorShape tensor;
        parse_tensor_shape(extension.metadata, tensor);
        std::int64_t product = 1;
        for (std::size_t i = 0; i < tensor.rank; ++i) {
          if (!mul_add(product, tensor.shape[i], 0, product))
            throw_extension(extension.metadata, "the shape's product overflows int64");
        }
        if (product != size)
          throw_extension(extension.metadata, detail::concat("the shape has ", product,
                                                             " elements but the storage list size is ", size));
        add_dims(type, std::span(tensor.shape.data(), tensor.rank),
                 tensor.has_permutation ? tensor.permutation.data() : nullptr);
      } else {
        add_dims(type, std::span(&size, 1), nullptr);
      }
      schema = schema->children[0];
      continue;
    }
    if (tensor_extension)
      throw_schema(detail::concat("arrow.fixed_shape_tensor has storage \"", format,
                                  "\"; the extension's storage is a fixed-size list"));
    const bool one_character = format[0] != '\0' && format[1] == '\0';
    if (one_character && format[0] == 'b') {
      type.dtype = bool_;
      type.bit_packed = true;
    } else {
      const int found = one_character ? primitive_dtypes[static_cast<unsigned char>(format[0])] : -1;
      if (found < 0) throw_format(format, level);
      type.dtype = DType(found);
    }
    if (schema->n_children != 0)
      throw_schema(detail::concat("primitive \"", format, "\" has ", schema->n_children, " children"));
    return type;
  }
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

/// One array of the chain: the slots the tensor uses are [first, first + count) counted
/// from the start of its buffers (its own offset included); each holds `inner` elements.
struct Level {
  const std::byte* validity;  ///< set only where some used slot is null
  std::int64_t first;
  std::int64_t count;
  std::int64_t inner;
  std::int64_t nulls;
};

/// What the import found: the leaf's elements [first, first + count) of `data` hold the
/// tensor in physical order; `levels` carry nulls.
struct Found {
  std::array<Level, max_rank + 1> levels;  // the first `level_count` are set
  std::size_t level_count = 0;
  std::int64_t nulls = 0;
  const std::byte* data = nullptr;
  std::int64_t first = 0;   ///< elements (bits for bool) from `data`
  std::int64_t count = 0;
};

struct Walk {
  const Type& type;
  Device device;
  Found& found;

  /// Adds a level for `array`, whose used slots start `start` slots after its offset.
  Level& add_level(const arrow::Array& array, std::size_t level, std::int64_t start, std::int64_t count,
                   std::int64_t expected_buffers, std::int64_t expected_children) {
    if (array.release == nullptr) throw_array(detail::concat("the array at nesting level ", level, " is released"));
    if (array.length < 0 || array.offset < 0 || array.null_count < -1)
      throw_array(detail::concat("length ", array.length, ", offset ", array.offset, ", null_count ",
                                 array.null_count, " at nesting level ", level));
    if (array.n_buffers != expected_buffers || (expected_buffers > 0 && array.buffers == nullptr))
      throw_array(detail::concat(array.n_buffers, " buffers (or NULL buffers) at nesting level ", level,
                                 " where the type has ", expected_buffers));
    if (array.n_children != expected_children ||
        (expected_children > 0 && (array.children == nullptr || array.children[0] == nullptr)))
      throw_array(detail::concat(array.n_children, " children (or a NULL one) at nesting level ", level,
                                 " where the type has ", expected_children));
    std::int64_t end = 0;
    if (!mul_add(start, 1, count, end) || end > array.length)
      throw_array(detail::concat("slots [", start, ", ", start + count, ") are used at nesting level ", level,
                                 " but its length is ", array.length));
    Level& out = found.levels[found.level_count++];
    out = {nullptr, 0, count, 1, 0};
    if (!mul_add(start, 1, array.offset, out.first))
      throw_array(detail::concat("offset ", array.offset, " overflows at nesting level ", level));
    const auto* validity = static_cast<const std::byte*>(array.buffers[0]);
    if (array.null_count > 0 && validity == nullptr)
      throw_array(detail::concat("null_count ", array.null_count, " without a validity bitmap at nesting level ",
                                 level));
    if (validity != nullptr && array.null_count != 0 && count > 0) {
      if (!device.is_host_accessible())
        throw DeviceError(detail::concat("from_arrow: the array at nesting level ", level, " may hold nulls (null_count ",
                                         array.null_count, ") and its validity bitmap is on ", device,
                                         ", which the host cannot read"));
      out.nulls = count_zero_bits(validity, out.first, count);
      if (out.nulls > 0) out.validity = validity;
      found.nulls += out.nulls;
    }
    return out;
  }

  /// Walks from `array` (nesting level 0 of the type) down to the leaf.
  void run(const arrow::Array& root, std::int64_t start, std::int64_t count) {
    const std::size_t base = found.level_count;
    const arrow::Array* array = &root;
    for (std::size_t level = 0; level < type.lists; ++level) {
      const Level& list = add_level(*array, level, start, count, 1, 1);
      const std::int64_t size = type.list_size[level];
      if (!mul_add(list.first, size, 0, start) || !mul_add(count, size, 0, count))
        throw_array(detail::concat("list slots overflow int64 at nesting level ", level + 1));
      array = array->children[0];
    }
    const Level& leaf = add_level(*array, type.lists, start, count, 2, 0);
    found.data = static_cast<const std::byte*>(array->buffers[1]);
    found.first = leaf.first;
    found.count = count;
    if (found.data == nullptr && count > 0)
      throw_array(detail::concat("the data buffer is NULL for ", count, " elements"));
    // Each level's slot holds the elements of the levels below it (a product of list sizes
    // that the element count bounds, except with no rows: checked).
    std::int64_t inner = 1;
    for (std::size_t j = type.lists + 1; j-- > 0;) {
      found.levels[base + j].inner = inner;
      if (j > 0 && !mul_add(inner, type.list_size[j - 1], 0, inner))
        throw_array(detail::concat("the list sizes' product overflows int64"));
    }
  }
};

// ---- errors of the result -------------------------------------------------------------------

[[noreturn, gnu::cold, gnu::noinline]] void throw_nulls(const Found& found, const Type& type) {
  for (std::size_t i = 0; i < found.level_count; ++i) {
    const Level& level = found.levels[i];
    if (level.nulls == 0) continue;
    std::int64_t slot = 0;
    while (bit_set(level.validity, level.first + slot)) ++slot;
    throw ValueError(detail::concat("from_arrow: the ", type.dtype, " array holds ", found.nulls,
                                    " nulls (the first at slot ", slot, " of nesting level ", i,
                                    "); a tensor has no nulls: pass .fill_nulls to copy with a fill value"));
  }
  throw ValueError("from_arrow: nulls");  // unreachable: found.nulls > 0 names a level
}

[[noreturn, gnu::cold, gnu::noinline]] void throw_no_copy(const std::string& why) {
  throw ValueError("from_arrow: copy = false, but " + why + " needs a copy");
}

// ---- building the tensor --------------------------------------------------------------------

/// Shape and strides of the result: the row dimension, then the type's dimensions in
/// logical order, with the strides of the row-major physical layout.
struct Geometry {
  std::size_t rank = 0;
  std::array<index_t, max_rank> physical;  // the first `rank` are set
  std::array<index_t, max_rank> shape;
  std::array<index_t, max_rank> strides;
};

Geometry geometry(const Type& type, std::int64_t rows) {
  Geometry g;
  g.rank = 1 + type.dims;
  g.physical[0] = rows;
  std::copy_n(type.shape.begin(), type.dims, g.physical.begin() + 1);
  // Checked: with no rows the element count does not bound the other extents.
  static_cast<void>(
      checked_numel(std::span<const index_t>(g.physical.data(), g.rank), itemsize(type.dtype), "from_arrow"));
  std::array<index_t, max_rank> physical_strides;
  std::copy_n(g.physical.begin(), g.rank, physical_strides.begin());
  static_cast<void>(detail::contiguous_strides(std::span<index_t>(physical_strides.data(), g.rank)));
  g.shape[0] = rows;
  g.strides[0] = physical_strides[0];
  for (std::size_t d = 0; d < type.dims; ++d) {
    g.shape[1 + d] = g.physical[1 + type.permutation[d]];
    g.strides[1 + d] = physical_strides[1 + type.permutation[d]];
  }
  return g;
}

/// The tensor in memory of its own: the leaf's elements copied (bits unpacked) in physical
/// order, null slots at every level overwritten with `fill`.
[[gnu::noinline]] AnyTensor copy_out(const Type& type, const Found& found, const Geometry& g, const FromArrowOptions& options) {
  AnyTensor own = empty(std::span<const index_t>(g.physical.data(), g.rank), type.dtype);
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
    for (std::size_t i = 0; i < found.level_count; ++i) {
      const Level& level = found.levels[i];
      if (level.nulls == 0) continue;
      for (std::int64_t slot = 0; slot < level.count; ++slot) {
        if (bit_set(level.validity, level.first + slot)) continue;
        for (std::int64_t e = slot * level.inner; e < (slot + 1) * level.inner; ++e)
          std::memcpy(out + std::size_t(e) * size, fill.data(), size);
      }
    }
  }
  return detail::make_view(type.dtype, out, std::span<const index_t>(g.shape.data(), g.rank),
                           std::span<const index_t>(g.strides.data(), g.rank), KeepAlive(own.owner()), cpu, true);
}

/// The checks after the walk, then the view or the copy. `owner` releases the producer's
/// array when the last view dies (at once when this copies or throws).
AnyTensor build(const Type& type, const Found& found, Device device, KeepAlive&& owner,
                const FromArrowOptions& options) {
  const Geometry g = geometry(type, found.levels[0].count);
  const std::span<const index_t> shape(g.shape.data(), g.rank), strides(g.strides.data(), g.rank);
  // The walk checked count = rows * Π list sizes, geometry() the strides: here the byte size,
  // [start, start + count * itemsize), must lie inside the address space.
  std::uintptr_t start = 0, end = 0;
  std::int64_t skip = 0, bytes = 0;
  const auto size = std::int64_t(itemsize(type.dtype));
  if (!type.bit_packed && found.count > 0 &&
      (!mul_add(found.first, size, 0, skip) || !mul_add(found.count, size, 0, bytes) ||
       detail::add_overflows(reinterpret_cast<std::uintptr_t>(found.data), std::uintptr_t(skip), start) ||
       detail::add_overflows(start, std::uintptr_t(bytes), end)))
    throw_array(detail::concat(found.count, " elements from offset ", found.first, " of data ",
                               static_cast<const void*>(found.data), " pass the end of the address space"));
  const bool misaligned = (start & (alignment(type.dtype) - 1)) != 0;
  if (found.nulls > 0 && !options.fill_nulls) throw_nulls(found, type);
  if (options.copy == false) {
    if (type.bit_packed) throw_no_copy("Arrow's bit-packed bool (one bit per element, a tensor has one byte)");
    if (misaligned)
      throw_no_copy(detail::concat("the first element at ", reinterpret_cast<const void*>(start),
                                   ", not aligned to ", alignment(type.dtype), " bytes (the alignment of ",
                                   type.dtype, "),"));
    if (found.nulls > 0) throw_no_copy(detail::concat("filling ", found.nulls, " nulls"));
  }
  if (type.bit_packed || misaligned || found.nulls > 0) {
    if (!device.is_host_accessible())
      throw DeviceError(detail::concat("from_arrow: the ", type.dtype, " array on ", device,
                                       " needs a copy (bool, unaligned or nulls) that the host cannot make"));
    return copy_out(type, found, g, options);
  }
  auto* first = found.count > 0 ? reinterpret_cast<std::byte*>(start) : nullptr;
  // Returned as prvalues: a named view would be moved into the result (NRVO fails with
  // the other returns above).
  if (options.copy == true)
    return detail::make_view(type.dtype, first, shape, strides, std::move(owner), device, false).clone();
  return detail::make_view(type.dtype, first, shape, strides, std::move(owner), device, false);
}

// ---- ownership --------------------------------------------------------------------------------

/// The producer's struct, moved in; its release runs once, when the owner dies.
template <class Struct>
struct Held {
  Struct held;
  explicit Held(Struct* source) noexcept : held(*source) { release_of(*source) = nullptr; }
  Held(const Held&) = delete;
  Held& operator=(const Held&) = delete;
  ~Held() {
    arrow::Array& array = array_of(held);
    if (array.release != nullptr) array.release(&array);
  }
  static arrow::Array& array_of(arrow::Array& a) noexcept { return a; }
  static arrow::Array& array_of(arrow::DeviceArray& a) noexcept { return a.array; }
  static auto& release_of(Struct& s) noexcept { return array_of(s).release; }
};

/// Releases a taken schema on every way out of the import.
struct SchemaRelease {
  arrow::Schema* schema;
  ~SchemaRelease() {
    if (schema != nullptr && schema->release != nullptr) schema->release(schema);
  }
};

template <class Struct>
std::shared_ptr<Held<Struct>> take(Struct* array) {
  if (array == nullptr) throw ValueError("from_arrow: the ArrowArray pointer is NULL");
  if (Held<Struct>::release_of(*array) == nullptr)
    throw ValueError("from_arrow: the ArrowArray is released (its release callback is NULL)");
  // ArrowArray owners share from_dlpack's per-thread block cache (malloc and free cost a
  // third of an import); the larger device struct takes the ordinary allocator.
  if constexpr (std::is_same_v<Struct, arrow::Array>)
    return std::allocate_shared<Held<Struct>>(detail::OwnerBlockAllocator<Held<Struct>>{}, array);
  else
    return std::make_shared<Held<Struct>>(array);
}

const arrow::Schema& schema_ref(const arrow::Schema* schema) {
  if (schema == nullptr) throw ValueError("from_arrow: the ArrowSchema pointer is NULL");
  return *schema;
}

// Flattened, as view_from_dlpack: the type, the walk, the checks and the view's construction
// in one body (copies, nulls and the JSON parser stay out of line).
[[gnu::flatten]] AnyTensor import_array(const arrow::Array& array, const arrow::Schema& schema, Device device, KeepAlive&& owner,
                       const FromArrowOptions& options) {
  const Type type = parse_type(schema);
  Found found;
  Walk{type, device, found}.run(array, 0, array.length);
  return build(type, found, device, std::move(owner), options);
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

AnyTensor import_device(std::shared_ptr<Held<arrow::DeviceArray>> held, const arrow::Schema& schema,
                        const FromArrowOptions& options) {
  const Device device = device_of(held->held);
  wait_for(held->held, device);
  const arrow::Array& data = held->held.array;
  return import_array(data, schema, device, KeepAlive(std::move(held)), options);
}

}  // namespace

AnyTensor from_arrow(arrow::Array* array, const arrow::Schema& schema, FromArrowOptions options) {
  auto held = take(array);
  const arrow::Array& data = held->held;
  return import_array(data, schema, cpu, KeepAlive(std::move(held)), options);
}

AnyTensor from_arrow(arrow::Array* array, arrow::Schema* schema, FromArrowOptions options) {
  SchemaRelease release{schema};
  auto held = take(array);
  const arrow::Array& data = held->held;
  return import_array(data, schema_ref(schema), cpu, KeepAlive(std::move(held)), options);
}

AnyTensor from_arrow(arrow::DeviceArray* array, const arrow::Schema& schema, FromArrowOptions options) {
  return import_device(take(array), schema, options);
}

AnyTensor from_arrow(arrow::DeviceArray* array, arrow::Schema* schema, FromArrowOptions options) {
  SchemaRelease release{schema};
  auto held = take(array);  // taken before the schema is read: an error releases both
  return import_device(std::move(held), schema_ref(schema), options);
}

RecordBatchTensors from_arrow_record_batch(arrow::Array* array, arrow::Schema* schema, FromArrowOptions options) {
  SchemaRelease release{schema};
  auto held = take(array);
  const arrow::Schema& batch = schema_ref(schema);
  const arrow::Array& data = held->held;
  const KeepAlive owner(std::move(held));
  if (batch.format == nullptr || std::string_view(batch.format) != "+s")
    throw TypeError(detail::concat("from_arrow_record_batch: the schema's format is \"",
                                   batch.format == nullptr ? "(NULL)" : batch.format,
                                   "\"; a record batch is a struct (\"+s\")"));
  if (batch.n_children < 0 || (batch.n_children > 0 && batch.children == nullptr))
    throw_schema(detail::concat("the struct has ", batch.n_children, " children (or NULL children)"));
  RecordBatchTensors result;
  for (std::int64_t c = 0; c < batch.n_children; ++c) {
    const arrow::Schema* field = batch.children[c];
    if (field == nullptr) throw_schema(detail::concat("the struct's child ", c, " is NULL"));
    std::string name = field->name == nullptr ? std::string() : std::string(field->name);
    if (std::find(result.names.begin(), result.names.end(), name) != result.names.end())
      throw ValueError(detail::concat("from_arrow_record_batch: column name \"", name,
                                      "\" appears twice; a record batch's columns need distinct names here"));
    const Type type = parse_type(*field);
    Found found;
    Walk walk{type, cpu, found};
    // The struct's own slots (its validity: a null row is null in every column), then the
    // column, whose slot for row i is the struct's offset + i.
    walk.add_level(data, 0, 0, data.length, 1, batch.n_children);
    if (data.children[c] == nullptr) throw_array(detail::concat("the struct's child ", c, " is NULL"));
    walk.run(*data.children[c], data.offset, data.length);
    found.levels[0].inner = found.levels[1].inner;
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
