// Shape arithmetic shared by every layer: element counts (checked for foreign shapes),
// contiguity, C-order strides and how far a strided view reaches; and a shape as text.
#pragma once

#include <algorithm>
#include <cstddef>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "zerotensor/detail/checked_arithmetic.hpp"
#include "zerotensor/error.hpp"
#include "zerotensor/export.hpp"
#include "zerotensor/extents.hpp"

namespace zt {

/// shape_string (error.hpp) of a dynamic-rank shape or strides: "(2, 3)", "(4,)", "()".
/// A static rank's shape is a std::array, for which an operator<< here would not be found:
/// pass it to shape_string.
[[nodiscard]] inline std::string to_string(const DynamicExtents& extents) {
  return shape_string(extents.span());
}
ZT_API std::ostream& operator<<(std::ostream& out, const DynamicExtents& extents);

namespace detail {
/// checked_numel's error: names the first negative extent or the first overflow, after
/// `context` (what is being read, e.g. "load_npy: <a.npy>") when it is not empty.
[[noreturn]] ZT_API void throw_bad_shape(std::span<const index_t> shape, std::size_t itemsize, std::string_view context);
}  // namespace detail

/// Element count of `shape`: the one place a shape is checked before memory exists.
/// ValueError for a negative extent, or when the product of the extents — an extent of 0
/// counted as 1, as the C-order strides count it — times `itemsize` does not fit in 64
/// bits: so every accepted shape, empty or not, has C-order strides and can be copied.
/// `context`, when given, opens the error message.
[[nodiscard]] inline index_t checked_numel(std::span<const index_t> shape, std::size_t itemsize,
                                           std::string_view context = {}) {
  index_t steps = 1;
  bool bad = false, empty = false;
  for (index_t extent : shape) {
    bad |= extent < 0 || detail::mul_overflows(steps, extent > 1 ? extent : 1, steps);
    empty |= extent == 0;
  }
  index_t bytes = 0;
  bad |= detail::mul_overflows(steps, static_cast<index_t>(itemsize), bytes);
  if (bad) [[unlikely]] detail::throw_bad_shape(shape, itemsize, context);
  return empty ? 0 : steps;
}

namespace detail {

/// Product of the extents; callers have validated the shape, so it cannot overflow.
[[nodiscard]] inline index_t numel(std::span<const index_t> shape) noexcept {
  index_t n = 1;
  for (index_t extent : shape) n *= extent;
  return n;
}

/// C-contiguous, ignoring the strides of extent-1 dimensions; at most one element is
/// always contiguous.
[[nodiscard]] inline bool is_contiguous(std::span<const index_t> shape,
                                        std::span<const index_t> strides) noexcept {
  for (index_t extent : shape) {
    if (extent == 0) return true;
  }
  index_t expected = 1;
  for (std::size_t d = shape.size(); d-- > 0;) {
    if (shape[d] != 1 && strides[d] != expected) return false;
    expected *= shape[d];
  }
  return true;
}

/// C-order strides for a shape that passed checked_numel (so no stride overflows). As
/// PyTorch, an extent of 0 steps like an extent of 1: shape (2, 0) has strides (1, 1).
/// Takes the shape by value and overwrites it, so a temporary shape costs no copy.
template <class Shape>
[[nodiscard]] Shape contiguous_strides(Shape shape) noexcept {
  index_t step = 1;
  for (std::size_t d = shape.size(); d-- > 0;) {
    const index_t extent = shape[d];
    shape[d] = step;
    step *= extent > 1 ? extent : 1;
  }
  return shape;
}

/// Column-major (Fortran-order) strides: the C-order strides of the reversed shape,
/// reversed, with the same rules.
template <class Shape>
[[nodiscard]] Shape column_major_strides(Shape shape) noexcept {
  std::reverse(shape.begin(), shape.end());
  shape = contiguous_strides(std::move(shape));
  std::reverse(shape.begin(), shape.end());
  return shape;
}

/// How many elements a non-empty, validated view reaches below and above its data pointer;
/// its required span is below + above + 1 elements (docs/design.md, "Validating a view").
struct ElementReach {
  index_t below = 0;
  index_t above = 0;
};
[[nodiscard]] inline ElementReach element_reach(std::span<const index_t> shape,
                                                std::span<const index_t> strides) noexcept {
  ElementReach reach;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    const index_t step = (shape[d] - 1) * strides[d];
    (step < 0 ? reach.below : reach.above) += step < 0 ? -step : step;
  }
  return reach;
}

}  // namespace detail

}  // namespace zt
