// Arrow import, in three steps: the type read from the schema tree (arrow_schema.cpp), the
// array tree walked against it (arrow_walk.cpp), the view or copy (arrow_view.cpp).
#pragma once

#include <boost/container/small_vector.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "vocabulary/concat.hpp"
#include "zerotensor/any_tensor.hpp"
#include "zerotensor/arrow.hpp"
#include "zerotensor/from_arrow.hpp"

namespace zt::detail {

/// Every tensor dimension an import can make: the row dimension and 31 from the type.
inline constexpr std::size_t arrow_max_rank = 32;

template <class T>
using ArrowDims = boost::container::small_vector<T, 8>;

/// Boost 1.74's small_vector is no std::contiguous_range: spans are made by hand.
template <class T>
std::span<const T> span_of(const ArrowDims<T>& dims) noexcept {
  return {dims.data(), dims.size()};
}

/// The type of an import: FixedSizeList levels down to one primitive leaf, and the
/// dimensions they add to the row dimension.
struct ArrowType {
  DType dtype = uint8;
  bool bit_packed = false;             ///< Arrow bool: one bit per element
  ArrowDims<std::int64_t> list_sizes;  ///< one per FixedSizeList level, outermost first
  ArrowDims<index_t> shape;            ///< the dimensions the type adds, physical (row-major) order
  /// Logical dimension i is physical dimension permutation[i] (arrow.fixed_shape_tensor's
  /// permutation; the identity otherwise). Same length as `shape`.
  ArrowDims<std::size_t> permutation;
};

/// How the messages of an import begin: `what` (e.g. "from_arrow"), and `extension` for those
/// about the arrow.fixed_shape_tensor parameters: `what` + ": arrow.fixed_shape_tensor
/// metadata", given whole so that no import builds a string before it fails.
struct ArrowWhat {
  std::string_view what;
  std::string_view extension;
};

/// Reads the type of `schema`, nesting level 0 of the import. ValueError for a malformed
/// schema (format, metadata, extension JSON, children), TypeError for a type with no tensor.
ArrowType read_arrow_type(const arrow::Schema& schema, const ArrowWhat& what);

/// A level holding nulls among the slots the tensor uses: `count` slots from bit `first`
/// of `validity` (the level's offset included), `nulls` of them null.
struct ArrowNullLevel {
  std::size_t level;  ///< 0 is the outermost level walked (a record batch's struct)
  const std::byte* validity;
  std::int64_t first;
  std::int64_t count;
  std::int64_t nulls;
};

/// What the walk found: the leaf's elements [first, first + count) of `data` hold the tensor
/// in physical order, `rows` slots of the first level.
struct ArrowData {
  const std::byte* data = nullptr;
  std::int64_t first = 0;  ///< elements (bits for bool) from `data`
  std::int64_t count = 0;
  std::int64_t rows = 0;
  std::int64_t nulls = 0;  ///< over every level
  std::size_t outer_levels = 0;  ///< levels above the type's: 1 for a record batch's column
  boost::container::small_vector<ArrowNullLevel, 2> null_levels;
};

/// Walks `array` (nesting level 0) against `type`: lengths, offsets, buffer and child
/// counts, nulls. ValueError for a malformed array; DeviceError for nulls the host cannot
/// count. `what` begins every message.
ArrowData walk_arrow_array(const arrow::Array& array, const ArrowType& type, const Device& device,
                           std::string_view what);

/// The struct level of the record batch `batch` of `columns` children, walked once for
/// every column: its rows, and its nulls (a null row is null in every column).
ArrowData walk_arrow_struct(const arrow::Array& batch, std::int64_t columns, std::string_view what);

/// Column `column` of `batch` walked against `type` below the struct level `rows` (what
/// walk_arrow_struct found): the column's slots from the struct's offset.
ArrowData walk_arrow_column(const arrow::Array& batch, const ArrowData& rows, std::int64_t column,
                            const ArrowType& type, std::string_view what);

/// The tensor: a read-only view kept alive by `owner`, or a copy (bool, unaligned data,
/// filled nulls, copy = true), after the checks the options ask for.
AnyTensor arrow_tensor(const ArrowType& type, const ArrowData& data, const Device& device, KeepAlive owner,
                       const FromArrowOptions& options, std::string_view what);

/// Bit `bit` of an Arrow bitmap (least significant bit first): a validity bit or a bool.
inline bool bit_set(const std::byte* bitmap, std::int64_t bit) noexcept {
  return std::to_integer<unsigned>(bitmap[bit / 8] >> (bit % 8) & std::byte{1}) != 0;
}

/// The array of either struct.
inline arrow::Array& array_of(arrow::Array& a) noexcept { return a; }
inline arrow::Array& array_of(arrow::DeviceArray& a) noexcept { return a.array; }

/// Runs the release callback of an ArrowArray or ArrowSchema when the guard goes out of
/// scope, unless the pointer is NULL or the struct is released by then (a struct moved out
/// is marked released: release = NULL), so it runs exactly once on every way out.
template <class Struct>
class ReleaseGuard {
 public:
  explicit ReleaseGuard(Struct* target) noexcept : target_(target) {}
  ReleaseGuard(const ReleaseGuard&) = delete;
  ReleaseGuard& operator=(const ReleaseGuard&) = delete;
  ~ReleaseGuard() {
    if (target_ != nullptr && target_->release != nullptr) target_->release(target_);
  }

 private:
  Struct* target_;
};

/// The producer's struct, moved in (the source is left released); its release runs once,
/// when the owner dies.
template <class Struct>
struct HeldArray {
  Struct held;
  ReleaseGuard<arrow::Array> release{&array_of(held)};
  explicit HeldArray(Struct& source) noexcept : held(source) { array_of(source).release = nullptr; }
};

/// The caller's struct, which an import takes: a NULL pointer or a released struct is refused.
template <class Struct>
Struct& caller_struct(Struct* array, std::string_view what) {
  if (array == nullptr) throw ValueError(concat(what, ": the ArrowArray pointer is NULL"));
  if (array_of(*array).release == nullptr)
    throw ValueError(concat(what, ": the ArrowArray is released (its release callback is NULL)"));
  return *array;
}

}  // namespace zt::detail
