// A tensor's repr with the rules of PyTorch's torch/_tensor_str.py, in three steps: collect
// the values shown (all, or the edges of every dimension of a large tensor), format them to
// one width, lay them out in nested brackets.
#include "zerotensor/print.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <complex>
#include <concepts>
#include <cstdint>
#include <numeric>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <vector>

#include "zerotensor/dtype_sets.hpp"
#include "zerotensor/error.hpp"

namespace zt {
namespace {

// PyTorch's default print options.
constexpr index_t summary_threshold = 1000;  // a tensor of more elements is summarised
constexpr index_t edge_items = 3;            // what a summary shows at each end of a dimension
constexpr int precision = 4;                 // decimals of fixed and scientific values
constexpr std::ptrdiff_t line_width = 80;
constexpr std::string_view prefix = "tensor(";

// --- Which elements are shown

/// Whether a summary leaves out the middle of a dimension of `extent` elements.
bool elides(index_t extent, bool summarise) { return summarise && extent > 2 * edge_items; }

/// How many indices of a dimension of `extent` elements are shown.
index_t shown_count(index_t extent, bool summarise) { return elides(extent, summarise) ? 2 * edge_items : extent; }

/// The indices of a dimension that are shown, in order.
std::vector<index_t> shown_indices(index_t extent, bool summarise) {
  std::vector<index_t> indices(std::size_t(shown_count(extent, summarise)));
  std::iota(indices.begin(), indices.end(), index_t{0});
  if (elides(extent, summarise)) {
    std::iota(indices.begin() + edge_items, indices.end(), extent - edge_items);
  }
  return indices;
}

// --- Their values

/// The shown values in C order: bool and integers as their text, floating values as double,
/// complex ones as double real and imaginary parts.
struct ShownValues {
  std::vector<std::string> texts;
  std::vector<double> reals;
  std::vector<double> imaginaries;
};

/// A real element as double: exact for every floating dtype (the 16- and 8-bit ones through float).
template <class T>
double to_double(const T& value) {
  if constexpr (std::is_same_v<T, double>) {
    return value;
  } else {
    return static_cast<double>(static_cast<float>(value));
  }
}

template <class T>
void append(ShownValues& values, const T& element) {
  if constexpr (std::is_same_v<T, bool>) {
    values.texts.emplace_back(element ? "True" : "False");
  } else if constexpr (std::signed_integral<T>) {
    values.texts.push_back(std::to_string(std::int64_t{element}));
  } else if constexpr (std::unsigned_integral<T>) {
    values.texts.push_back(std::to_string(std::uint64_t{element}));
  } else if constexpr (is_complex(dtype_of<T>)) {
    values.reals.push_back(to_double(element.real()));
    values.imaginaries.push_back(to_double(element.imag()));
  } else {
    values.reals.push_back(to_double(element));
  }
}

using ShownIndices = std::vector<std::vector<index_t>>;

/// Appends the shown elements of dimensions `dim` on, the first at `data + offset`.
template <class T>
void append_from(ShownValues& values, const T* data, const ShownIndices& shown, std::span<const index_t> strides,
                 std::size_t dim, index_t offset) {
  if (dim == shown.size()) {
    append(values, data[offset]);
    return;
  }
  for (index_t index : shown[dim]) append_from(values, data, shown, strides, dim + 1, offset + index * strides[dim]);
}

/// The values shown of a tensor the host can read whose dtype is one number per element.
ShownValues collect(const AnyTensor& tensor, bool summarise) {
  ShownIndices shown;
  for (index_t extent : tensor.shape()) shown.push_back(shown_indices(extent, summarise));
  return tensor.visit<dtypes::numeric>([&](const auto& view) {
    ShownValues values;
    append_from(values, view.data(), shown, view.strides().span(), 0, 0);
    return values;
  });
}

// --- Their text

std::string padded(std::string_view text, std::size_t width) {
  std::string out(width > text.size() ? width - text.size() : 0, ' ');
  return out.append(text);
}

/// `value` in `format` with `decimals` decimals, as Python's "{:.4f}" and "{:.4e}" write it
/// (both exact, neither depends on the locale).
std::string decimal(double value, std::chars_format format, int decimals) {
  char buffer[400];  // 309 digits of DBL_MAX, sign, point, decimals
  const auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, value, format, decimals);
  return error == std::errc{} ? std::string(buffer, end) : std::string("?");
}

/// PyTorch's _Formatter for floating values: one style and width for all of a tensor's
/// values, chosen from its finite nonzero ones. All integers: "3." (integer style); else
/// "3.1416" (fixed); scientific "3.1416e+08" when the largest magnitude is over 1000 times
/// the smallest, over 1e8, or the smallest is under 1e-4. NaN and infinities as Python writes them.
class RealFormat {
 public:
  explicit RealFormat(std::span<const double> values) {
    double smallest = HUGE_VAL, largest = 0;
    bool integers = true;
    for (double value : values) {
      if (!counts(value)) continue;
      smallest = std::min(smallest, std::abs(value));
      largest = std::max(largest, std::abs(value));
      integers = integers && value == std::ceil(value);
    }
    if (largest == 0) return;  // no finite nonzero value: integer style, width 1
    const bool scientific = largest / smallest > 1000.0 || largest > 1.0e8 || smallest < 1.0e-4;
    style_ = scientific ? Style::scientific : integers ? Style::integer : Style::fixed;
    for (double value : values) {
      if (counts(value)) width_ = std::max(width_, text(value).size());
    }
  }

  [[nodiscard]] std::size_t width() const noexcept { return width_; }
  /// `value` in the tensor's style, padded on the left to width().
  [[nodiscard]] std::string operator()(double value) const { return padded(text(value), width_); }

 private:
  enum class Style { integer, fixed, scientific };

  /// Whether a value takes part in choosing the style and width.
  static bool counts(double value) { return std::isfinite(value) && value != 0; }

  [[nodiscard]] std::string text(double value) const {
    if (std::isnan(value)) return "nan";
    if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
    switch (style_) {
      case Style::integer: return decimal(value, std::chars_format::fixed, 0) + ".";
      case Style::fixed: return decimal(value, std::chars_format::fixed, precision);
      case Style::scientific: return decimal(value, std::chars_format::scientific, precision);
    }
    return {};
  }

  Style style_ = Style::integer;
  std::size_t width_ = 1;
};

/// The shown values as text, each padded to the widest, and the width of one.
struct Cells {
  std::vector<std::string> texts;
  std::size_t width = 0;  // what a cell takes in a row, ", " not included
};

Cells text_cells(std::vector<std::string> texts) {
  std::size_t width = 1;
  for (const std::string& text : texts) width = std::max(width, text.size());
  for (std::string& text : texts) text = padded(text, width);
  return {std::move(texts), width};
}

Cells real_cells(std::span<const double> reals) {
  const RealFormat format(reals);
  Cells cells{{}, format.width()};
  for (double value : reals) cells.texts.push_back(format(value));
  return cells;
}

/// "1.0000+2.0000j": each part formatted as the tensor's real or imaginary parts are; the
/// imaginary part unpadded, after its sign.
Cells complex_cells(std::span<const double> reals, std::span<const double> imaginaries) {
  const RealFormat real(reals), imaginary(imaginaries);
  Cells cells{{}, real.width() + imaginary.width() + 1};
  for (std::size_t i = 0; i < reals.size(); ++i) {
    std::string imaginary_text = imaginary(imaginaries[i]);
    imaginary_text.erase(0, imaginary_text.find_first_not_of(' '));
    const bool signed_part = imaginary_text.front() == '-' || imaginary_text.front() == '+';
    cells.texts.push_back(real(reals[i]) + (signed_part ? "" : "+") + imaginary_text + "j");
  }
  return cells;
}

Cells format_cells(ShownValues values, DType dtype) {
  if (is_complex(dtype)) return complex_cells(values.reals, values.imaginaries);
  if (!values.reals.empty()) return real_cells(values.reals);
  return text_cells(std::move(values.texts));
}

// --- Their layout

/// Lays cells out as _tensor_str_with_formatter does: a row of values wrapped at the line
/// width, the rows of a matrix one per line, blocks of higher dimensions apart by as many
/// newlines as they have dimensions less one; "..." where a summary leaves elements out.
class Nesting {
 public:
  Nesting(std::span<const index_t> shape, bool summarise, const Cells& cells)
      : shape_(shape), summarise_(summarise), cells_(cells) {}

  /// Dimensions `dim` on, their opening bracket at column `indent`.
  [[nodiscard]] std::string block(std::size_t dim, std::ptrdiff_t indent) {
    if (dim + 1 == shape_.size()) return row(indent);
    const std::string separator = "," + std::string(shape_.size() - dim - 1, '\n') + spaces(indent + 1);
    std::string text = "[";
    for (index_t k = 0; k < shown_count(shape_[dim], summarise_); ++k) {
      if (k > 0) text += separator;
      if (k == edge_items && elides(shape_[dim], summarise_)) text += "..." + separator;
      text += block(dim + 1, indent + 1);
    }
    return text + "]";
  }

 private:
  static std::string spaces(std::ptrdiff_t count) {
    return std::string(std::size_t(std::max<std::ptrdiff_t>(count, 0)), ' ');
  }

  /// The last dimension: as many cells to a line as fit in the line width, at least one.
  [[nodiscard]] std::string row(std::ptrdiff_t indent) {
    const index_t extent = shape_.back();
    std::vector<std::string_view> items;
    for (index_t k = 0; k < shown_count(extent, summarise_); ++k) {
      if (k == edge_items && elides(extent, summarise_)) items.emplace_back(" ...");
      items.emplace_back(cells_.texts[next_++]);
    }
    const auto per_line = std::max<std::ptrdiff_t>(1, (line_width - indent) / std::ptrdiff_t(cells_.width + 2));
    std::string text = "[";
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (i > 0) text += i % std::size_t(per_line) == 0 ? ",\n" + spaces(indent + 1) : ", ";
      text += items[i];
    }
    return text + "]";
  }

  std::span<const index_t> shape_;
  bool summarise_;
  const Cells& cells_;
  std::size_t next_ = 0;  // the next cell to lay out
};

/// The values of a non-empty tensor the host can read, nested, the first bracket at `indent`.
std::string values_text(const AnyTensor& tensor, std::ptrdiff_t indent) {
  const bool summarise = tensor.numel() > summary_threshold;
  const Cells cells = format_cells(collect(tensor, summarise), tensor.dtype());
  if (tensor.rank() == 0) return cells.texts.front();
  return Nesting(tensor.shape().span(), summarise, cells).block(0, indent);
}

// --- The whole repr

/// int64, bool, the default dtype and its complex counterpart print no "dtype=".
bool has_default_dtype(DType dtype) {
  const DType floating = default_dtype();
  const DType complex = floating == float64 ? complex128 : complex64;
  return dtype == floating || dtype == complex || dtype == int64 || dtype == bool_;
}

/// `text` then ", suffix" for each suffix, on a new line, indented, where the line would pass
/// the line width (measured as _add_suffixes does, which counts the last line 2 longer), and ")".
std::string with_suffixes(std::string text, const std::vector<std::string>& suffixes) {
  const std::size_t last_newline = text.rfind('\n');
  std::size_t line_length = text.size() - (last_newline == std::string::npos ? 0 : last_newline + 1) + 2;
  for (const std::string& suffix : suffixes) {
    if (line_length + suffix.size() + 2 > std::size_t(line_width)) {
      text.append(",\n").append(prefix.size(), ' ').append(suffix);
      line_length = prefix.size() + suffix.size();
    } else {
      text.append(", ").append(suffix);
      line_length += suffix.size() + 2;
    }
  }
  return text + ")";
}

}  // namespace

std::string to_string(const AnyTensor& tensor) {
  std::vector<std::string> suffixes;
  if (tensor.device() != cpu) suffixes.push_back("device='" + to_string(tensor.device()) + "'");
  const std::string size = "size=" + shape_string(tensor.shape().span());
  const std::string dtype = "dtype=" + to_string(tensor.dtype());
  std::string values;
  if (!tensor.device().is_host_accessible() || is_packed(tensor.dtype())) {
    // As PyTorch prints a meta tensor: no values.
    values = "...";
    suffixes.push_back(size);
    if (tensor.dtype() != default_dtype()) suffixes.push_back(dtype);
  } else if (tensor.numel() == 0) {
    values = "[]";
    if (tensor.rank() != 1) suffixes.push_back(size);
    if (tensor.dtype() != default_dtype()) suffixes.push_back(dtype);
  } else {
    values = values_text(tensor, std::ptrdiff_t(prefix.size()));
    if (!has_default_dtype(tensor.dtype())) suffixes.push_back(dtype);
  }
  return with_suffixes(std::string(prefix) + values, suffixes);
}

std::ostream& operator<<(std::ostream& out, const AnyTensor& tensor) { return out << to_string(tensor); }

}  // namespace zt
