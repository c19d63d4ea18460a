// Internal: the library's one strided walk (conversions, copies, the DLPack bool check).
#pragma once

#include <array>
#include <cstddef>
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

}  // namespace zt::detail
