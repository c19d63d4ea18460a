// The type of an Arrow import, read from the schema tree: format strings, FixedSizeList
// nesting, and the arrow.fixed_shape_tensor extension with its JSON parameters.
#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "interop/arrow/arrow_import.hpp"
#include "interop/dtype_formats.hpp"
#include "vocabulary/json.hpp"
#include "zerotensor/detail/checked_arithmetic.hpp"

namespace zt::detail {
namespace {

template <class... Parts>
[[noreturn]] void throw_schema(std::string_view what, const Parts&... parts) {
  throw ValueError(concat(what, ": malformed ArrowSchema: ", parts...));
}

/// What a refused format is, and what to do instead; `format` is not a supported one.
std::string_view refusal(std::string_view format) {
  if (format == "n") return "the null type holds no values";
  if (format == "z" || format == "Z" || format == "vz") return "binary is variable-size, with no tensor layout";
  if (format == "u" || format == "U" || format == "vu") return "a string is variable-size, with no tensor layout";
  if (format.starts_with("w:")) return "fixed-size binary has no element dtype; view it as bytes with zt::frombuffer";
  if (format.starts_with("d:")) return "decimals have no tensor dtype; cast them to float64 in Arrow first";
  if (format.starts_with("t"))
    return "temporal types have no tensor dtype; cast to int32/int64 in Arrow first (pyarrow: array.cast(pa.int64()))";
  if (format == "+l" || format == "+L" || format == "+vl" || format == "+vL")
    return "a variable-size list has slots of different lengths; a tensor needs FixedSizeList or "
           "arrow.fixed_shape_tensor";
  if (format == "+s") return "a struct is a record batch's layout: zt::from_arrow_record_batch reads it column by column";
  if (format == "+m") return "a map is a variable-size list of key/value structs, with no tensor layout";
  if (format.starts_with("+u")) return "a union mixes types, with no tensor layout";
  if (format == "+r") return "run-end encoded data must be decoded in Arrow first";
  return "not an Arrow format zerotensor knows";
}

[[noreturn]] void throw_format(std::string_view what, std::string_view format, std::size_t level) {
  throw TypeError(concat(what, ": Arrow format \"", format, "\" at nesting level ", level,
                         " is not supported: ", refusal(format),
                         "; zerotensor reads int8…uint64, float16/32/64, bool, FixedSizeList and "
                         "arrow.fixed_shape_tensor"));
}

/// What a schema's metadata says of the extension type: the last name and parameters given.
struct Extension {
  bool fixed_shape_tensor = false;
  std::optional<std::string_view> parameters;  ///< "ARROW:extension:metadata"
};

/// Reads the binary key/value list (arrow.hpp): int32 count, then per pair int32 key length,
/// key bytes, int32 value length, value bytes. The interface gives no total size to check.
Extension read_extension(const char* metadata, std::string_view what) {
  Extension found;
  if (metadata == nullptr) return found;
  const auto read_length = [&](const char* field) {
    std::int32_t value = 0;
    std::memcpy(&value, metadata, sizeof value);
    metadata += sizeof value;
    if (value < 0) throw_schema(what, "metadata ", field, " is ", value);
    return std::size_t(value);
  };
  const auto read_text = [&](const char* field) {
    const std::size_t length = read_length(field);
    const std::string_view text(metadata, length);
    metadata += length;
    return text;
  };
  const std::size_t pairs = read_length("pair count");
  for (std::size_t i = 0; i < pairs; ++i) {
    const std::string_view key = read_text("key length");
    const std::string_view value = read_text("value length");
    if (key == "ARROW:extension:name") found.fixed_shape_tensor = value == "arrow.fixed_shape_tensor";
    if (key == "ARROW:extension:metadata") found.parameters = value;
  }
  return found;
}

/// `extension` is ArrowWhat::extension.
template <class... Parts>
[[noreturn]] void throw_extension(std::string_view extension, std::string_view text, const Parts&... parts) {
  throw ValueError(concat(extension, " ", text_prefix(text), ": ", parts...));
}

/// The extension's parameters: an object whose "shape" and "permutation" are arrays of
/// integers ≥ 0 that fit int64 and whose "dim_names" is an array of strings. Other keys are
/// ignored, as Arrow C++ ignores them. Read through the project's JSON reader with a depth
/// of 2: an object (level 1) of arrays (level 2).
class TensorParameters {
 public:
  enum Member { shape, permutation, dim_names, other };

  /// `extension` begins every message (ArrowWhat::extension).
  TensorParameters(std::string_view text, std::string_view extension) : text_(text), extension_(extension) {
    const detail::ParsedJson document(text, 2, extension);
    simdjson::dom::object members;
    if (document.root().get(members) != simdjson::SUCCESS) throw_extension(extension_, text_, "must be a JSON object");
    for (const simdjson::dom::key_value_pair member : members) {
      const Member which = member.key == "shape" ? shape : member.key == "permutation" ? permutation
                           : member.key == "dim_names" ? dim_names : other;
      if (which != other) read(which, member.value);
    }
  }

  [[nodiscard]] bool has(Member member) const { return present_[member]; }
  [[nodiscard]] const ArrowDims<std::int64_t>& indices(Member member) const { return indices_[member]; }
  [[nodiscard]] std::size_t names() const { return names_; }

 private:
  void read(Member member, simdjson::dom::element value) {
    simdjson::dom::array items;
    if (value.get(items) != simdjson::SUCCESS) refuse(member);
    present_[member] = true;
    for (const simdjson::dom::element item : items) {
      if (member == dim_names) {
        if (!item.is_string()) refuse(member);
        ++names_;
      } else {
        std::int64_t index = 0;  // simdjson refuses a fraction and an integer past int64 here
        if (item.get(index) != simdjson::SUCCESS || index < 0) refuse(member);
        indices_[member].push_back(index);
      }
    }
  }

  [[noreturn]] void refuse(Member member) const {
    if (member == dim_names) throw_extension(extension_, text_, "\"dim_names\" must be an array of strings");
    throw_extension(extension_, text_, "\"", member == shape ? "shape" : "permutation",
                    "\" must be an array of integers ≥ 0 that fit int64");
  }

  std::string_view text_;
  std::string_view extension_;  ///< ArrowWhat::extension
  std::array<bool, 3> present_{};
  std::array<ArrowDims<std::int64_t>, 2> indices_;  ///< shape, permutation
  std::size_t names_ = 0;
};

/// Whether `entries` hold each of 0 … size - 1 once.
bool is_permutation(const ArrowDims<std::int64_t>& entries) {
  ArrowDims<bool> seen(entries.size(), false);
  for (const std::int64_t entry : entries) {
    if (entry >= std::int64_t(entries.size()) || seen[std::size_t(entry)]) return false;
    seen[std::size_t(entry)] = true;
  }
  return true;
}

/// Reads the extension's JSON parameters (what Arrow C++ reads: "shape", and "permutation"
/// and "dim_names" when present; other keys are ignored, as Arrow C++ ignores them) and adds
/// the dimensions to `type`: the shape in physical order, the permutation logical → physical.
void add_tensor_extension(std::string_view text, std::int64_t list_size, ArrowType& type,
                          std::string_view extension) {
  const TensorParameters parameters(text, extension);
  if (!parameters.has(TensorParameters::shape)) throw_extension(extension, text, "has no \"shape\"");
  const ArrowDims<std::int64_t>& shape = parameters.indices(TensorParameters::shape);
  const std::size_t rank = shape.size();
  if (type.shape.size() + rank > arrow_max_rank - 1)
    throw_extension(extension, text, "\"shape\" has ", rank, " dimensions; with the ", type.shape.size(),
                    " before it the type would have more than ", arrow_max_rank - 1);
  std::int64_t product = 1;
  for (const std::int64_t extent : shape) {
    if (mul_overflows(product, extent, product))
      throw_extension(extension, text, "the shape's product overflows int64");
  }
  if (product != list_size)
    throw_extension(extension, text, "the shape has ", product, " elements but the storage list size is ", list_size);
  const bool permuted = parameters.has(TensorParameters::permutation);
  const ArrowDims<std::int64_t>& permutation = parameters.indices(TensorParameters::permutation);
  if (permuted && permutation.size() != rank)
    throw_extension(extension, text, "\"permutation\" has ", permutation.size(), " entries for ", rank, " dimensions");
  if (permuted && !is_permutation(permutation))
    throw_extension(extension, text, "\"permutation\" is not a permutation of 0…", rank - 1);
  if (parameters.has(TensorParameters::dim_names) && parameters.names() != rank)
    throw_extension(extension, text, "\"dim_names\" has ", parameters.names(), " names for ", rank, " dimensions");
  const std::size_t base = type.shape.size();
  for (std::size_t i = 0; i < rank; ++i) {
    type.shape.push_back(shape[i]);
    type.permutation.push_back(base + (permuted ? std::size_t(permutation[i]) : i));
  }
}

/// The list size of a fixed-size list format ("+w:" then decimal digits), or nullopt when
/// `format` is another format.
std::optional<std::int64_t> fixed_list_size(std::string_view format, std::size_t level, std::string_view what) {
  if (!format.starts_with("+w:")) return std::nullopt;
  const std::string_view digits = format.substr(3);
  std::int64_t size = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), size);
  if (digits.empty() || digits[0] < '0' || digits[0] > '9' || error != std::errc() || end != format.data() + format.size())
    throw_schema(what, "format \"", format, "\" at nesting level ", level, " does not end in a list size that fits int64");
  return size;
}

/// Reads nesting level `level` of the type into `type`; returns its child for a fixed-size
/// list, nullptr for the primitive leaf.
const arrow::Schema* read_level(const arrow::Schema& schema, std::size_t level, ArrowType& type,
                                const ArrowWhat& context) {
  const std::string_view what = context.what;
  if (schema.release == nullptr) throw_schema(what, "the schema at nesting level ", level, " is released");
  if (schema.format == nullptr) throw_schema(what, "format is NULL at nesting level ", level);
  const std::string_view format = schema.format;
  if (format.empty()) throw_schema(what, "format is empty at nesting level ", level);
  if (schema.dictionary != nullptr)
    throw TypeError(concat(what, ": the array at nesting level ", level, " is dictionary-encoded (indices \"",
                           format, "\"); decode it in Arrow first (pyarrow: array.dictionary_decode())"));
  const Extension extension = read_extension(schema.metadata, what);
  if (const std::optional<std::int64_t> size = fixed_list_size(format, level, what)) {
    if (schema.n_children != 1 || schema.children == nullptr || schema.children[0] == nullptr)
      throw_schema(what, "fixed-size list \"", format, "\" has ", schema.n_children,
                   " children (or a NULL one); it needs exactly 1");
    if (type.list_sizes.size() == arrow_max_rank - 1) throw_schema(what, "more than ", arrow_max_rank - 1, " nested lists");
    type.list_sizes.push_back(*size);
    if (extension.fixed_shape_tensor) {
      if (!extension.parameters) throw_schema(what, "arrow.fixed_shape_tensor has no \"ARROW:extension:metadata\"");
      add_tensor_extension(*extension.parameters, *size, type, context.extension);
    } else {
      if (type.shape.size() == arrow_max_rank - 1)
        throw_schema(what, "the type has more than ", arrow_max_rank - 1, " tensor dimensions");
      type.permutation.push_back(type.shape.size());
      type.shape.push_back(*size);
    }
    return schema.children[0];
  }
  if (extension.fixed_shape_tensor)
    throw_schema(what, "arrow.fixed_shape_tensor has storage \"", format, "\"; the extension's storage is a fixed-size list");
  if (format == "b") {
    type.dtype = bool_;
    type.bit_packed = true;
  } else if (const std::optional<DType> dtype = dtype_named<&DTypeFormats::arrow>(format)) {
    type.dtype = *dtype;
  } else {
    throw_format(what, format, level);
  }
  if (schema.n_children != 0) throw_schema(what, "primitive \"", format, "\" has ", schema.n_children, " children");
  return nullptr;
}

}  // namespace

ArrowType read_arrow_type(const arrow::Schema& schema, const ArrowWhat& what) {
  ArrowType type;
  const arrow::Schema* level = &schema;
  for (std::size_t depth = 0; level != nullptr; ++depth) level = read_level(*level, depth, type, what);
  return type;
}

}  // namespace zt::detail
