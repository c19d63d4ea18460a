// Record batches: a struct array imported column by column, and the columns by name.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <numeric>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "interop/arrow/arrow_import.hpp"
#include "zerotensor/empty.hpp"

namespace zt {

RecordBatchTensors::RecordBatchTensors(std::vector<std::string> names, std::vector<AnyTensor> columns)
    : names_(std::move(names)), columns_(std::move(columns)), by_name_(names_.size()) {
  if (names_.size() != columns_.size())
    throw ValueError(detail::concat("RecordBatchTensors: ", names_.size(), " names for ", columns_.size(), " columns"));
  std::iota(by_name_.begin(), by_name_.end(), std::size_t{0});
  const auto name_less = [this](std::size_t a, std::size_t b) { return names_[a] < names_[b]; };
  std::sort(by_name_.begin(), by_name_.end(), name_less);
  const auto twice = std::adjacent_find(by_name_.begin(), by_name_.end(),
                                        [this](std::size_t a, std::size_t b) { return names_[a] == names_[b]; });
  if (twice != by_name_.end())
    throw ValueError(detail::concat("RecordBatchTensors: column name \"", names_[*twice],
                                    "\" appears twice; a record batch's columns need distinct names here"));
}

const AnyTensor& RecordBatchTensors::at(std::string_view name) const {
  const auto found = std::lower_bound(by_name_.begin(), by_name_.end(), name,
                                      [this](std::size_t column, std::string_view key) { return names_[column] < key; });
  if (found != by_name_.end() && names_[*found] == name) return columns_[*found];
  std::string known;
  for (const std::string& column : names_) known += (known.empty() ? "\"" : ", \"") + column + "\"";
  throw ValueError(detail::concat("RecordBatchTensors: no column \"", name, "\"; the columns are ", known));
}

AnyTensor RecordBatchTensors::stack() const {
  if (columns_.empty()) throw ValueError("RecordBatchTensors::stack: the record batch has no columns");
  const AnyTensor& first = columns_.front();
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    const AnyTensor& column = columns_[c];
    if (column.rank() != 1 || column.dtype() != first.dtype() || column.size(0) != first.size(0) ||
        !column.device().is_host_accessible())
      throw TypeError(detail::concat("RecordBatchTensors::stack: column \"", names_[c], "\" is ",
                                     detail::describe(column.dtype(), column.shape(), column.strides(),
                                                      column.device(), column.is_writable()),
                                     "; stacking needs 1-D host columns of one dtype and length, like column \"",
                                     names_[0], "\" (", first.dtype(), ", ", first.size(0), " rows)"));
  }
  const std::array<index_t, 2> shape = {first.size(0), index_t(columns_.size())};
  AnyTensor out = empty(shape, first.dtype());
  dispatch(first.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const Tensor<T, 2> to = out.as<T, 2>();
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      const Tensor<const T, 1> from = columns_[c].as<const T, 1>();
      for (index_t r = 0; r < shape[0]; ++r) to(r, index_t(c)) = from(r);
    }
  });
  return out;
}

namespace {

constexpr std::string_view batch_what = "from_arrow_record_batch";

template <class... Parts>
[[noreturn]] void throw_malformed(const char* which, const Parts&... what) {
  throw ValueError(detail::concat(batch_what, ": malformed ", which, ": ", what...));
}

}  // namespace

RecordBatchTensors from_arrow_record_batch(arrow::Array* array, arrow::Schema* schema,
                                           const FromArrowOptions& options) {
  const detail::ReleaseGuard<arrow::Schema> release_schema{schema};
  arrow::Array& source = detail::caller_struct(array, batch_what);
  const detail::ReleaseGuard<arrow::Array> release_array{&source};  // until the owner takes it
  const auto held = std::make_shared<detail::HeldArray<arrow::Array>>(source);
  const arrow::Array& data = held->held;
  const KeepAlive owner = held;
  if (schema == nullptr) throw ValueError("from_arrow_record_batch: the ArrowSchema pointer is NULL");
  if (schema->release == nullptr)
    throw ValueError("from_arrow_record_batch: the ArrowSchema is released (its release callback is NULL)");
  if (schema->format == nullptr || std::string_view(schema->format) != "+s")
    throw TypeError(detail::concat("from_arrow_record_batch: the schema's format is \"",
                                   schema->format == nullptr ? "(NULL)" : schema->format,
                                   "\"; a record batch is a struct (\"+s\")"));
  const std::int64_t count = schema->n_children;
  if (count < 0 || (count > 0 && schema->children == nullptr))
    throw_malformed("ArrowSchema", "the struct has ", count, " children (or NULL children)");
  const detail::ArrowData rows = detail::walk_arrow_struct(data, count, batch_what);
  std::vector<std::string> names;
  std::vector<AnyTensor> columns;
  for (std::int64_t c = 0; c < count; ++c) {
    const arrow::Schema* field = schema->children[c];
    if (field == nullptr) throw_malformed("ArrowSchema", "the struct's child ", c, " is NULL");
    names.emplace_back(field->name == nullptr ? "" : field->name);
    const std::string what = detail::concat(batch_what, ": column ", c, " \"", names.back(), "\"");
    const std::string extension = what + ": arrow.fixed_shape_tensor metadata";
    const detail::ArrowType type = detail::read_arrow_type(*field, {what, extension});
    const detail::ArrowData found = detail::walk_arrow_column(data, rows, c, type, what);
    columns.push_back(detail::arrow_tensor(type, found, cpu, owner, options, what));
  }
  return {std::move(names), std::move(columns)};
}

}  // namespace zt
