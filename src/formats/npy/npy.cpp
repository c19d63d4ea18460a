#include "zerotensor/npy.hpp"

#include <algorithm>
#include <bit>
#include <string>
#include <string_view>

#include <boost/endian/conversion.hpp>

#include "vocabulary/concat.hpp"
#include "interop/dtype_formats.hpp"
#include "memory/file_io.hpp"
#include "formats/file_tensor.hpp"
#include "formats/rank_slice.hpp"
#include "zerotensor/empty.hpp"

namespace zt {
namespace {

using detail::concat;

constexpr std::string_view npy_magic = "\x93NUMPY";
constexpr std::size_t version_1_preamble = 10;  // magic, major, minor, uint16 header length
constexpr std::size_t version_2_preamble = 12;  // magic, major, minor, uint32 header length
constexpr std::size_t npy_header_alignment = 64;  // NumPy pads the header so the data starts aligned

/// What the header of a .npy file says.
struct NpyHeader {
  DType dtype = uint8;
  bool foreign_byte_order = false;
  bool fortran_order = false;
  DynamicExtents shape;
};

/// Reads the subset of Python literal syntax NumPy writes for a header:
/// {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
class HeaderParser {
 public:
  HeaderParser(std::string_view text, std::string_view description) : text_(text), description_(description) {}

  NpyHeader parse() {
    NpyHeader header;
    bool seen_descr = false, seen_order = false, seen_shape = false;
    expect('{');
    while (!accept('}')) {
      const std::string key = parse_string("a key");
      expect(':');
      if (key == "descr") {
        mark_seen(seen_descr, key);
        parse_descr(header);
      } else if (key == "fortran_order") {
        mark_seen(seen_order, key);
        header.fortran_order = parse_bool(key);
      } else if (key == "shape") {
        mark_seen(seen_shape, key);
        header.shape = parse_shape();
      } else {
        fail(concat("unexpected key '", key, "' (a header has exactly 'descr', 'fortran_order' and 'shape')"));
      }
      if (!accept(',')) {
        expect('}');
        break;
      }
    }
    skip_space();
    if (position_ != text_.size()) fail(concat("unexpected text after the dict at position ", position_));
    if (!(seen_descr && seen_order && seen_shape))
      fail(concat("missing key '", !seen_descr ? "descr" : !seen_order ? "fortran_order" : "shape", "'"));
    return header;
  }

 private:
  [[noreturn]] void fail(std::string_view what) const {
    std::string_view shown = text_.substr(0, text_.find_last_not_of(" \n") + 1);
    throw ValueError(concat(description_, ": malformed header: ", what, " in ", shown));
  }
  [[noreturn]] void fail_expected(std::string_view expected) const {
    if (position_ >= text_.size()) fail(concat("expected ", expected, " at position ", position_, ", found the end"));
    fail(concat("expected ", expected, " at position ", position_, ", found '", text_[position_], "'"));
  }

  /// Python's whitespace in a header: ' ' and '\t' to '\r' ("\t\n\v\f\r").
  static bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
  static bool is_digit(char c) { return c >= '0' && c <= '9'; }

  void skip_space() {
    while (position_ < text_.size() && is_space(text_[position_])) ++position_;
  }
  bool accept(char c) {
    skip_space();
    if (position_ < text_.size() && text_[position_] == c) {
      ++position_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!accept(c)) fail_expected(concat('\'', c, '\''));
  }
  void mark_seen(bool& seen, std::string_view key) const {
    if (seen) fail(concat("duplicate key '", key, "'"));
    seen = true;
  }

  std::string parse_string(std::string_view what) {
    skip_space();
    const char quote = position_ < text_.size() ? text_[position_] : '\0';
    if (quote != '\'' && quote != '"') fail_expected(concat(what, " (a quoted string)"));
    std::string value;
    for (++position_; position_ < text_.size() && text_[position_] != quote; ++position_) {
      if (text_[position_] == '\\' && position_ + 1 < text_.size()) ++position_;
      value += text_[position_];
    }
    if (position_ >= text_.size()) fail("unterminated string");
    ++position_;
    return value;
  }

  bool parse_bool(std::string_view key) {
    skip_space();
    for (const auto& [word, value] : {std::pair{std::string_view("True"), true}, {std::string_view("False"), false}}) {
      if (text_.substr(position_, word.size()) == word) {
        position_ += word.size();
        return value;
      }
    }
    fail_expected(concat("True or False for '", key, "'"));
  }

  void parse_descr(NpyHeader& header) {
    skip_space();
    if (position_ < text_.size() && text_[position_] == '[')
      fail("'descr' is a list: structured dtypes are not supported");
    const std::string descr = parse_string("the 'descr' string");
    const char order = descr.empty() ? '\0' : descr[0];
    const std::string_view code = descr.empty() ? std::string_view() : std::string_view(descr).substr(1);
    const std::optional<DType> dtype = detail::dtype_named<&detail::DTypeFormats::numpy>(code);
    if (order == '\0' || std::string_view("<>=|").find(order) == std::string_view::npos || !dtype)
      fail(concat("unsupported dtype descr '", descr, "'"));
    header.dtype = *dtype;
    const bool little = std::endian::native == std::endian::little;
    header.foreign_byte_order = (order == '<' && !little) || (order == '>' && little);
  }

  DynamicExtents parse_shape() {
    std::vector<index_t> extents;
    expect('(');
    while (!accept(')')) {
      extents.push_back(parse_extent(extents.size()));
      if (!accept(',')) {
        expect(')');
        break;
      }
    }
    return DynamicExtents(std::span<const index_t>(extents));
  }

  index_t parse_extent(std::size_t dim) {
    skip_space();
    const bool negative = accept('-');
    if (position_ >= text_.size() || !is_digit(text_[position_]))
      fail_expected(concat("an integer for dimension ", dim, " of 'shape'"));
    index_t value = 0;
    for (; position_ < text_.size() && is_digit(text_[position_]); ++position_) {
      if (detail::mul_overflows(value, index_t{10}, value) ||
          detail::add_overflows(value, index_t(text_[position_] - '0'), value))
        fail(concat("dimension ", dim, " of 'shape' does not fit in 64 bits"));
    }
    accept('L');  // Python 2 long literals, as old NumPy wrote them
    if (negative) fail(concat("dimension ", dim, " of 'shape' is negative (-", value, ")"));
    return value;
  }

  std::string_view text_;
  std::string_view description_;
  std::size_t position_ = 0;
};

const unsigned char* as_uchars(const std::byte* bytes) { return reinterpret_cast<const unsigned char*>(bytes); }

/// The preamble's version and header length; returns the header text and the data offset.
std::pair<std::string_view, std::size_t> locate_header(std::span<const std::byte> file, std::string_view description) {
  detail::refuse_zip_archive(file, ".npy", description);
  if (file.size() < version_1_preamble)
    throw ValueError(concat(description, ": truncated: ", file.size(), " bytes is too short for the ",
                            version_1_preamble, "-byte .npy preamble"));
  const std::string_view start(reinterpret_cast<const char*>(file.data()), file.size());
  if (start.substr(0, npy_magic.size()) != npy_magic)
    throw ValueError(concat(description, ": not a .npy file (the magic string \\x93NUMPY is missing)"));
  const unsigned major = std::to_integer<unsigned>(file[6]), minor = std::to_integer<unsigned>(file[7]);
  if (major < 1 || major > 3 || minor != 0)
    throw ValueError(concat(description, ": unsupported .npy format version ", major, ".", minor,
                            " (1.0, 2.0 and 3.0 are known)"));
  const std::size_t preamble = major == 1 ? version_1_preamble : version_2_preamble;
  if (file.size() < preamble)
    throw ValueError(concat(description, ": truncated: ", file.size(), " bytes is too short for the ", preamble,
                            "-byte preamble of format ", major, ".0"));
  const unsigned char* length_field = as_uchars(file.data() + 8);
  const std::size_t header_length = major == 1 ? boost::endian::load_little_u16(length_field)
                                               : boost::endian::load_little_u32(length_field);
  if (header_length > file.size() - preamble)
    throw ValueError(concat(description, ": truncated header: the preamble announces ", header_length,
                            " header bytes but only ", file.size() - preamble, " follow"));
  return {start.substr(preamble, header_length), preamble + header_length};
}

/// "|b1", "<f4", ... in this machine's byte order; TypeError, naming the dtype, for those
/// NumPy has not (bfloat16, complex32, the 8-bit and packed floats).
std::string descr_of(DType dtype) {
  if (detail::dtype_formats[detail::table_index(dtype)].numpy.empty()) {
    if (is_packed(dtype)) throw TypeError(concat("save_npy: NumPy has no ", dtype, " dtype"));
    throw TypeError(concat("save_npy: NumPy has no ", dtype, " dtype; convert with to(zt::",
                           is_complex(dtype) ? "complex64" : "float32", ") first"));
  }
  const char order = itemsize(dtype) == 1 ? '|' : std::endian::native == std::endian::little ? '<' : '>';
  return concat(order, detail::dtype_formats[std::size_t(dtype)].numpy);
}

bool is_fortran_contiguous(const AnyTensor& tensor) {
  DynamicExtents shape = tensor.shape(), strides = tensor.strides();
  std::reverse(shape.begin(), shape.end());
  std::reverse(strides.begin(), strides.end());
  return detail::is_contiguous(shape, strides);
}

std::span<const std::byte> as_bytes(std::string_view text) {
  return {reinterpret_cast<const std::byte*>(text.data()), text.size()};
}

/// The preamble and padded header for `dict` (the header text without padding).
std::string npy_prefix(const std::string& dict) {
  // The header ends in '\n' and is padded with spaces so the data starts 64-byte aligned.
  const auto padded_length = [&](std::size_t preamble) {
    const std::size_t unpadded = preamble + dict.size() + 1;
    return dict.size() + 1 + (npy_header_alignment - unpadded % npy_header_alignment) % npy_header_alignment;
  };
  const bool version_1 = padded_length(version_1_preamble) <= 0xFFFF;
  const std::size_t preamble = version_1 ? version_1_preamble : version_2_preamble;
  const std::size_t header_length = padded_length(preamble);
  std::string prefix(npy_magic);
  prefix += char(version_1 ? 1 : 2);
  prefix += char(0);
  unsigned char length[4];
  if (version_1) boost::endian::store_little_u16(length, std::uint16_t(header_length));
  else boost::endian::store_little_u32(length, std::uint32_t(header_length));
  prefix.append(reinterpret_cast<const char*>(length), preamble - 8);
  prefix += dict;
  prefix.append(header_length - dict.size() - 1, ' ');
  prefix += '\n';
  return prefix;
}

/// The array of the .npy file in `file`'s bytes, viewed or copied as its options say; `context`
/// opens the messages.
AnyTensor read_npy(const detail::FileBytes& file, const detail::LoadContext& context) {
  const Buffer& bytes = file.bytes;
  const LoadOptions& options = file.options;
  const std::string_view description = context.source();
  const auto [header_text, data_offset] = locate_header(bytes.bytes(), description);
  NpyHeader header = HeaderParser(header_text, description).parse();

  const index_t count = checked_numel(header.shape, itemsize(header.dtype), description);
  DynamicExtents strides = header.fortran_order ? detail::column_major_strides(header.shape)
                                                : detail::contiguous_strides(header.shape);
  const std::size_t needed = std::size_t(count) * itemsize(header.dtype);
  const std::size_t available = bytes.nbytes() - data_offset;
  if (needed > available)
    throw ValueError(concat(description, ": shape ", detail::shape_string(header.shape), " of ", header.dtype,
                            " needs ", needed, " bytes of data but the ", context.noun(), " holds ", available,
                            " after the header"));
  detail::StoredTensor stored{data_offset, header.dtype, std::move(header.shape), std::move(strides),
                              header.foreign_byte_order};
  const auto describe = [&context] { return std::string(context.whole()); };
  // The array has no name: the slice rule "*" names it.
  const auto slice = detail::settle_slice(options.slice, description);
  detail::narrow_stored_for_rank(slice, "", stored, describe);
  return detail::load_stored_tensor(bytes, stored, options, describe, context.noun(), file.direct);
}

}  // namespace

AnyTensor load_npy(PathRef path, LoadOptions options) {
  const detail::LoadContext context("load_npy", path, ": array");
  return read_npy(detail::file_bytes(path, options, true), context);
}

AnyTensor detail::load_npy_bytes(const Buffer& bytes, LoadOptions options) {
  const LoadContext context("load_npy", ": array");
  return read_npy({bytes, buffer_load_options(bytes, options, context.source())}, context);
}

void save_npy(PathRef path, const AnyTensor& tensor) {
  const std::string descr = descr_of(tensor.dtype());
  const bool fortran = !tensor.is_contiguous() && is_fortran_contiguous(tensor);
  const AnyTensor data = tensor.is_contiguous() || fortran ? tensor : tensor.clone();
  const std::string dict =
      detail::concat("{'descr': '", descr, "', 'fortran_order': ", fortran ? "True" : "False",
                     ", 'shape': ", detail::shape_string(data.shape()), ", }");
  const std::string prefix = npy_prefix(dict);
  detail::write_file(path, {as_bytes(prefix), detail::tensor_file_part(data, "save_npy")});
}

}  // namespace zt
