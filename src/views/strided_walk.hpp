// Internal: the library's one strided walk (conversions, copies, the DLPack bool check).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdlib>
#include <span>

#include "zerotensor/extents.hpp"

namespace zt::detail {

/// Calls `run(offsets, length, outer_index)` for every innermost row of a non-empty
/// `shape`, in C order: `offsets[k]` is the row's first element under `strides[k]`, in
/// elements; `outer_index` is the row's index in every dimension but the last. A rank-0
/// shape is one row of length 1.
///
/// A dimension steps only to an index it has and rewinds by (extent - 1) * stride, so
/// every offset stays between the view's lowest and highest element: no overflow for any
/// view whose reach fits in index_t, and an extent-1 dimension is never stepped at all.
template <std::size_t N, class Run>
void for_each_row(std::span<const index_t> shape, const std::array<std::span<const index_t>, N>& strides, Run&& run) {
  std::array<index_t, N> offsets{};
  const std::size_t rank = shape.size();
  if (rank == 0) return run(offsets, index_t{1}, std::span<const index_t>());
  DynamicExtents position(rank - 1, 0);
  while (true) {
    run(offsets, shape[rank - 1], std::span<const index_t>(position));
    std::size_t d = rank - 1;
    while (d-- > 0) {
      if (++position[d] < shape[d]) {
        for (std::size_t k = 0; k < N; ++k) offsets[k] += strides[k][d];
        break;
      }
      for (std::size_t k = 0; k < N; ++k) offsets[k] -= strides[k][d] * (shape[d] - 1);
      position[d] = 0;
    }
    if (d == std::size_t(-1)) return;
  }
}

/// The same elements as N operands of one shape, arranged for a fast element-wise walk.
template <std::size_t N>
struct CoalescedLayout {
  DynamicExtents shape;
  std::array<DynamicExtents, N> strides;
};

/// Rearranges `shape` and the N operands' `strides` (in elements) without changing which
/// elements pair up: extent-1 dimensions are dropped, the rest are ordered by operand 0's
/// |stride|, largest outermost (ties by the next operands', then C order), and neighbours
/// whose strides chain in every operand (stride[d] == stride[d + 1] * shape[d + 1]) merge.
/// A walk over the result visits the pairs in another order than C order, so it suits an
/// element-wise job whose operands do not overlap each other. A non-empty shape with no
/// dimension left has one element. `shape` must have no zero extent.
template <std::size_t N>
CoalescedLayout<N> coalesce(std::span<const index_t> shape, const std::array<std::span<const index_t>, N>& strides) {
  DynamicExtents order(shape.size(), 0);
  std::size_t kept = 0;
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (shape[d] != 1) order[kept++] = index_t(d);
  std::stable_sort(order.begin(), order.begin() + kept, [&](index_t a, index_t b) {
    for (std::size_t k = 0; k < N; ++k) {
      const index_t x = std::abs(strides[k][std::size_t(a)]), y = std::abs(strides[k][std::size_t(b)]);
      if (x != y) return x > y;
    }
    return false;
  });
  CoalescedLayout<N> layout{DynamicExtents(kept, 0), {}};
  for (std::size_t k = 0; k < N; ++k) layout.strides[k] = DynamicExtents(kept, 0);
  std::size_t rank = 0;
  for (std::size_t i = 0; i < kept; ++i) {
    const auto d = std::size_t(order[i]);
    bool chains = rank > 0;
    for (std::size_t k = 0; k < N && chains; ++k) chains = layout.strides[k][rank - 1] == strides[k][d] * shape[d];
    if (chains) {
      layout.shape[rank - 1] *= shape[d];
      for (std::size_t k = 0; k < N; ++k) layout.strides[k][rank - 1] = strides[k][d];
      continue;
    }
    layout.shape[rank] = shape[d];
    for (std::size_t k = 0; k < N; ++k) layout.strides[k][rank] = strides[k][d];
    ++rank;
  }
  layout.shape = DynamicExtents(layout.shape.span().first(rank));
  for (std::size_t k = 0; k < N; ++k) layout.strides[k] = DynamicExtents(layout.strides[k].span().first(rank));
  return layout;
}

}  // namespace zt::detail
