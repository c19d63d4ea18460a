// Shape arithmetic shared by every layer: element counts (checked for foreign shapes),
// contiguity, C-order strides and how far a strided view reaches.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <string_view>
#include <utility>

#include "zerotensor/detail/checked_arithmetic.hpp"
#include "zerotensor/extents.hpp"

namespace zt {

namespace detail {
/// checked_numel's error: names the first negative extent or the first overflow, after
/// `context` (what is being read, e.g. "load_npy: <a.npy>") when it is not empty.
[[noreturn]] void throw_bad_shape(std::span<const index_t> shape, std::size_t itemsize, std::string_view context);
}  // namespace detail

/// Element count of `shape`, with ValueError for a negative extent or an overflow of the
/// byte size `numel * itemsize`: the one place a shape is checked before memory exists.
/// Inline: every view constructor calls it, and a call costs more than the loop.
/// `context`, when given, opens the error message.
[[nodiscard]] inline index_t checked_numel(std::span<const index_t> shape, std::size_t itemsize,
                                           std::string_view context = {}) {
  index_t count = 1;
  bool bad = false;
  for (index_t extent : shape) bad |= extent < 0 || detail::mul_overflows(count, extent, count);
  index_t bytes = 0;
  bad |= detail::mul_overflows(count, static_cast<index_t>(itemsize), bytes);
  if (bad) [[unlikely]] detail::throw_bad_shape(shape, itemsize, context);
  return count;
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
  if (std::find(shape.begin(), shape.end(), index_t{0}) != shape.end()) return true;
  index_t expected = 1;
  for (std::size_t d = shape.size(); d-- > 0;) {
    if (shape[d] != 1 && strides[d] != expected) return false;
    expected *= shape[d];
  }
  return true;
}

/// contiguous_strides' error: the extents before dimension `dim` are `leading_extents`,
/// and dimension `dim` (extent `extent`) steps `stride` elements.
[[noreturn]] void throw_stride_overflow(std::span<const index_t> leading_extents, std::size_t dim, index_t extent,
                                        index_t stride, std::string_view context);

/// C-order strides for `shape`. As PyTorch, an extent of 0 steps like an extent of 1, so
/// shape (2, 0) has strides (1, 1). ValueError when a stride does not fit in 64 bits,
/// which only an empty shape can cause (a shape with elements has passed checked_numel).
/// Takes the shape by value and overwrites it, so a temporary shape costs no copy.
/// `context`, when given, opens the error message.
template <class Shape>
[[nodiscard]] Shape contiguous_strides(Shape shape, std::string_view context = {}) {
  index_t step = 1;
  for (std::size_t d = shape.size(); d-- > 0;) {
    const index_t extent = shape[d];
    shape[d] = step;
    if (d > 0 && mul_overflows(step, extent > 1 ? extent : 1, step)) [[unlikely]]
      throw_stride_overflow(std::span<const index_t>(shape.data(), d), d, extent, shape[d], context);
  }
  return shape;
}

/// Column-major (Fortran-order) strides: the C-order strides of the reversed shape,
/// reversed, with the same rules and checks.
template <class Shape>
[[nodiscard]] Shape column_major_strides(Shape shape, std::string_view context = {}) {
  std::reverse(shape.begin(), shape.end());
  shape = contiguous_strides(std::move(shape), context);
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
