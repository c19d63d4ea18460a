// The array tree of an Arrow import, walked against its type: lengths, offsets, buffer and
// child counts, and the nulls among the slots the tensor uses.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "interop/arrow/arrow_import.hpp"
#include "zerotensor/detail/checked_arithmetic.hpp"

namespace zt::detail {
namespace {

template <class... Parts>
[[noreturn]] void throw_array(std::string_view what, const Parts&... parts) {
  throw ValueError(concat(what, ": malformed ArrowArray: ", parts...));
}

/// Zero bits among `count` bits from bit `first` of `bitmap`.
std::int64_t count_zero_bits(const std::byte* bitmap, std::int64_t first, std::int64_t count) {
  std::int64_t ones = 0, bit = first;
  const std::int64_t end = first + count;
  for (; bit < end && bit % 64 != 0; ++bit) ones += bit_set(bitmap, bit);
  for (; bit + 64 <= end; bit += 64) {
    std::uint64_t word = 0;
    std::memcpy(&word, bitmap + bit / 8, sizeof word);
    ones += std::popcount(word);
  }
  for (; bit < end; ++bit) ones += bit_set(bitmap, bit);
  return count - ones;
}

class Walk {
 public:
  /// A walk that goes on below the levels `above` found (none by default).
  Walk(const Device& device, std::string_view what, const ArrowData& above = {})
      : found(above), device_(device), what_(what), depth_(found.outer_levels) {}

  /// Checks `array`, level `level` of the type (message numbering), whose used slots are
  /// `count` slots from `start` slots after its offset, and counts their nulls. Returns the
  /// first used slot counted from the start of its buffers.
  std::int64_t level(const arrow::Array& array, std::size_t level, std::int64_t start, std::int64_t count,
                     std::int64_t n_buffers, std::int64_t n_children) {
    if (array.release == nullptr) throw_array(what_, "the array at nesting level ", level, " is released");
    if (array.length < 0 || array.offset < 0 || array.null_count < -1)
      throw_array(what_, "length ", array.length, ", offset ", array.offset, ", null_count ", array.null_count,
                  " at nesting level ", level);
    // The buffers hold offset + length slots: that count must exist.
    std::int64_t slots = 0;
    if (add_overflows(array.offset, array.length, slots))
      throw_array(what_, "offset ", array.offset, " + length ", array.length, " overflows int64 at nesting level ",
                  level);
    if (array.n_buffers != n_buffers || array.buffers == nullptr)
      throw_array(what_, array.n_buffers, " buffers (or NULL buffers) at nesting level ", level, " where the type has ",
                  n_buffers);
    if (array.n_children != n_children || (n_children > 0 && array.children == nullptr))
      throw_array(what_, array.n_children, " children (or NULL children) at nesting level ", level,
                  " where the type has ", n_children);
    std::int64_t end = 0;
    if (add_overflows(start, count, end))
      throw_array(what_, count, " slots from slot ", start, " overflow int64 at nesting level ", level);
    if (end > array.length)
      throw_array(what_, "slots [", start, ", ", end, ") are used at nesting level ", level, " but its length is ",
                  array.length);
    const std::int64_t first = start + array.offset;  // ≤ offset + length, which fits
    if (array.null_count != 0) count_nulls(array, level, first, count);
    ++depth_;
    return first;
  }

  /// The levels of `type`, from `array` (level 0 of the type) down to the leaf.
  void type_levels(const ArrowType& type, const arrow::Array& top, std::int64_t start, std::int64_t count) {
    const arrow::Array* array = &top;
    for (std::size_t level = 0; level < type.list_sizes.size(); ++level) {
      const std::int64_t first = this->level(*array, level, start, count, 1, 1);
      const std::int64_t size = type.list_sizes[level];
      if (mul_overflows(first, size, start) || mul_overflows(count, size, count))
        throw_array(what_, "list slots overflow int64 at nesting level ", level + 1);
      array = array->children[0];
      if (array == nullptr) throw_array(what_, "the child of nesting level ", level, " is NULL");
    }
    found.first = level(*array, type.list_sizes.size(), start, count, 2, 0);
    found.count = count;
    found.data = static_cast<const std::byte*>(array->buffers[1]);
    if (found.data == nullptr && count > 0) throw_array(what_, "the data buffer is NULL for ", count, " elements");
  }

  ArrowData found;

 private:
  void count_nulls(const arrow::Array& array, std::size_t level, std::int64_t first, std::int64_t count) {
    const auto* validity = static_cast<const std::byte*>(array.buffers[0]);
    if (array.null_count > 0 && validity == nullptr)
      throw_array(what_, "null_count ", array.null_count, " without a validity bitmap at nesting level ", level);
    if (validity == nullptr || count == 0) return;
    if (!device_.is_host_accessible())
      throw DeviceError(concat(what_, ": the array at nesting level ", level, " may hold nulls (null_count ",
                               array.null_count, ") and its validity bitmap is on ", device_,
                               ", which the host cannot read"));
    const std::int64_t nulls = count_zero_bits(validity, first, count);
    if (nulls == 0) return;
    found.null_levels.push_back({depth_, validity, first, count, nulls});
    found.nulls += nulls;
  }

  const Device& device_;
  std::string_view what_;
  std::size_t depth_ = 0;  // levels walked so far, the struct's included
};

}  // namespace

ArrowData walk_arrow_array(const arrow::Array& array, const ArrowType& type, const Device& device,
                           std::string_view what) {
  Walk walk(device, what);
  walk.found.rows = array.length;
  walk.type_levels(type, array, 0, array.length);
  return walk.found;
}

ArrowData walk_arrow_struct(const arrow::Array& batch, std::int64_t columns, std::string_view what) {
  Walk walk(cpu, what);
  walk.found.rows = batch.length;
  walk.level(batch, 0, 0, batch.length, 1, columns);
  walk.found.outer_levels = 1;
  return walk.found;
}

ArrowData walk_arrow_column(const arrow::Array& batch, const ArrowData& rows, std::int64_t column,
                            const ArrowType& type, std::string_view what) {
  const arrow::Array* child = batch.children[column];
  if (child == nullptr) throw_array(what, "the struct's child ", column, " is NULL");
  // Row i of the column is slot offset + i of the child, the struct's offset applying to both.
  Walk walk(cpu, what, rows);
  walk.type_levels(type, *child, batch.offset, batch.length);
  return walk.found;
}

}  // namespace zt::detail
