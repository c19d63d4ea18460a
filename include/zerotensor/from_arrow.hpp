// zt::from_arrow: an Apache Arrow array (C Data Interface or C Device Data Interface) as an
// AnyTensor, sharing its memory.
//
// Ownership: from_arrow takes the array — it moves the struct into the view's owner (the
// caller's struct is left released, `release` NULL, as the interface's move demands) — and
// the producer's `release` runs exactly once: when the last view dies, or before from_arrow
// returns when it copies or throws. The Schema* forms also take the schema and release it
// before returning; the `const Schema&` forms borrow it (one schema for a stream of arrays).
//
// What becomes which tensor (rank 1 + the dimensions the type adds):
//   int8 … uint64, float16/32/64 ("c" "C" "s" "S" "i" "I" "l" "L" "e" "f" "g")  → (length,)
//   FixedSizeList<T, n> ("+w:n"), nested to any depth ≤ 32 dimensions           → (length, n, …)
//   arrow.fixed_shape_tensor, shape s, permutation p (extension metadata)       → (length, s[p[0]], …),
//       strides of the row-major physical layout permuted as p says (no copy)
//   bool ("b", bit-packed)                                                      → bool, a copy
// The array's `offset` is honoured at every level (slices share memory). Unknown extension
// types are read as their storage type, as Arrow's rules say.
//
// Read-only: Arrow arrays are immutable by the format's contract, so every view is
// read-only (is_writable() false, Tensor<const T>); copies are writable, on the CPU (from
// CUDA host or managed memory too).
//
// Refused, naming what was found:
// - nulls (a validity bitmap with a zero bit among the viewed slots, at any level): ValueError,
//   unless `fill_nulls` asks for a copy with null slots set to that value;
// - bool with copy = false, a first element not aligned for its dtype with copy = false
//   (unaligned data is copied otherwise): ValueError;
// - variable-size lists, list views, strings, binary, decimals, temporal types, unions, maps,
//   run-end encoded and dictionary-encoded arrays, structs (from_arrow_record_batch reads a
//   record batch column by column): TypeError;
// - a released or NULL struct, a malformed schema (format, empty or not, metadata, JSON, child
//   counts) or array (buffer and child counts, lengths or offset + length that do not fit
//   int64, NULL data): ValueError;
// - a copy (copy = true, bool, unaligned data, nulls) of memory the host cannot read:
//   DeviceError, before anything is allocated;
// - device types other than CPU, CUDA, CUDA host and CUDA managed: DeviceError.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "zerotensor/any_tensor.hpp"
#include "zerotensor/arrow.hpp"
#include "zerotensor/export.hpp"
#include "zerotensor/scalar.hpp"

namespace zt {

struct FromArrowOptions {
  /// unset: share when possible, copy bool and unaligned data; true: always copy; false:
  /// ValueError where a copy would be needed.
  std::optional<bool> copy{};
  /// Set: null slots become this value in a copy (PyTorch's rules for storing numbers).
  std::optional<Scalar> fill_nulls{};
};

/// Takes `array` and `schema` (see above) and returns the tensor.
[[nodiscard]] ZT_API AnyTensor from_arrow(arrow::Array* array, arrow::Schema* schema, const FromArrowOptions& options = {});
/// Takes `array`, borrows `schema`.
[[nodiscard]] ZT_API AnyTensor from_arrow(arrow::Array* array, const arrow::Schema& schema,
                                          const FromArrowOptions& options = {});

/// The device form: CPU, CUDA (a view the host cannot touch), CUDA host and CUDA managed
/// memory give tensors on that device. A `sync_event` is waited for (cudaEventSynchronize)
/// before returning; it needs the CUDA build (DeviceError otherwise). Nulls and copies
/// need memory the host can read (DeviceError for CUDA device memory).
[[nodiscard]] ZT_API AnyTensor from_arrow(arrow::DeviceArray* array, arrow::Schema* schema,
                                          const FromArrowOptions& options = {});
[[nodiscard]] ZT_API AnyTensor from_arrow(arrow::DeviceArray* array, const arrow::Schema& schema,
                                          const FromArrowOptions& options = {});

/// A record batch's columns, in schema order, each a tensor with a distinct name.
class ZT_API RecordBatchTensors {
 public:
  RecordBatchTensors() = default;
  /// Column i is `columns[i]`, called `names[i]`. ValueError when the counts differ or a
  /// name appears twice. Indexes the names once: at() is logarithmic in the column count.
  RecordBatchTensors(std::vector<std::string> names, std::vector<AnyTensor> columns);

  [[nodiscard]] const std::vector<std::string>& names() const noexcept { return names_; }
  [[nodiscard]] const std::vector<AnyTensor>& columns() const noexcept { return columns_; }
  [[nodiscard]] std::size_t size() const noexcept { return columns_.size(); }

  /// The column called `name`; ValueError naming the columns when there is none.
  [[nodiscard]] const AnyTensor& at(std::string_view name) const;
  /// The 1-D columns side by side: a new (rows, columns) tensor, C order. A copy, since
  /// each column is a buffer of its own; TypeError for mixed dtypes or columns not 1-D.
  [[nodiscard]] AnyTensor stack() const;

 private:
  std::vector<std::string> names_;
  std::vector<AnyTensor> columns_;
  std::vector<std::size_t> by_name_;  // column indices in the order of their names
};

/// A struct array ("+s", what pyarrow's RecordBatch._export_to_c writes) as its columns,
/// each imported as from_arrow does, sharing memory and one owner: the producer's release
/// runs when the last column view dies. Takes both structs (a NULL or released one is a
/// ValueError, as in from_arrow). Duplicate column names are a ValueError; a null struct
/// slot is a null in every column; an error inside a column names it.
[[nodiscard]] ZT_API RecordBatchTensors from_arrow_record_batch(arrow::Array* array, arrow::Schema* schema,
                                                                const FromArrowOptions& options = {});

}  // namespace zt
