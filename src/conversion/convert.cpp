// copy_into: the strided copy engine (layouts, tiles, threads, overlap checks) over the bulk
// conversion loops of convert_kernels.hpp.
#include "zerotensor/convert.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "vocabulary/concat.hpp"
#include "conversion/convert_kernels.hpp"
#include "views/strided_walk.hpp"
#include "zerotensor/shares_memory.hpp"

namespace zt {
namespace {

/// One run of `count` elements, `in_step` and `out_step` apart.
template <class To, class From>
void convert_run(const From* in, index_t in_step, To* out, index_t out_step, index_t count) {
  if (in_step == 1 && out_step == 1) return detail::convert_contiguous(in, out, count);
  if constexpr (std::is_same_v<From, To>) {
    if (in_step == 2 && out_step == 1) return detail::copy_every_other<1>(in, out, count);
    if (in_step == 2 && out_step == 2) return detail::copy_every_other<2>(in, out, count);
  }
  for (index_t i = 0; i < count; ++i) out[i * out_step] = detail::convert_value<To>(in[i * in_step]);
}

/// A rows x columns block. When the source steps further along a row than down a column
/// (a transpose), the block goes in tiles of tiles: 8 x 8 elements read down the source's
/// columns inside 256 x 256 tiles, so that the lines of both sides are read from cache.
template <class To, class From>
void convert_block(const From* in, const std::array<index_t, 2>& in_steps, To* out,
                   const std::array<index_t, 2>& out_steps, index_t rows, index_t columns) {
  constexpr index_t tile = 256, micro = 8;
  if (std::abs(in_steps[1]) <= std::abs(in_steps[0]) || rows < micro || columns < micro) {
    for (index_t r = 0; r < rows; ++r)
      convert_run(in + r * in_steps[0], in_steps[1], out + r * out_steps[0], out_steps[1], columns);
    return;
  }
  for (index_t r0 = 0; r0 < rows; r0 += tile) {
    for (index_t c0 = 0; c0 < columns; c0 += tile) {
      const index_t r1 = std::min(rows, r0 + tile), c1 = std::min(columns, c0 + tile);
      for (index_t r = r0; r < r1; r += micro) {
        for (index_t c = c0; c < c1; c += micro) {
          const index_t r_end = std::min(r1, r + micro), c_end = std::min(c1, c + micro);
          for (index_t j = c; j < c_end; ++j)
            for (index_t i = r; i < r_end; ++i)
              out[i * out_steps[0] + j * out_steps[1]] =
                  detail::convert_value<To>(in[i * in_steps[0] + j * in_steps[1]]);
        }
      }
    }
  }
}

/// One coalesced layout (see convert_typed) from `in` to `out`: blocks of its two innermost
/// dimensions, contiguous runs by memcpy or a vectorised loop.
template <class From, class To>
void convert_layout(const From* in, To* out, const detail::CoalescedLayout<2>& layout) {
  const std::size_t rank = layout.shape.size();
  if (rank == 0) return convert_run(in, 1, out, 1, 1);
  if (rank == 1) return convert_run(in, layout.strides[1][0], out, layout.strides[0][0], layout.shape[0]);
  const std::span<const index_t> outer = layout.shape.span().first(rank - 1);
  const std::array<index_t, 2> in_steps{layout.strides[1][rank - 2], layout.strides[1][rank - 1]};
  const std::array<index_t, 2> out_steps{layout.strides[0][rank - 2], layout.strides[0][rank - 1]};
  detail::for_each_row<2>(outer, {layout.strides[0].span().first(rank - 1), layout.strides[1].span().first(rank - 1)},
                          [&](const std::array<index_t, 2>& offsets, index_t rows, std::span<const index_t>) {
                            convert_block(in + offsets[1], in_steps, out + offsets[0], out_steps, rows,
                                          layout.shape[rank - 1]);
                          });
}

/// The one strided copy: the layout coalesced in the destination's memory order, its
/// outermost dimension split into `threads` equal parts, one per thread (the calling
/// thread takes the last; a thread that cannot be started leaves its part to the caller).
template <class Source, class To>
void convert_typed(const Tensor<Source>& source, const Tensor<To>& destination, unsigned threads) {
  const auto* in = source.data();
  To* out = destination.data();
  const detail::CoalescedLayout<2> layout = detail::coalesce<2>(source.shape(), {destination.strides(), source.strides()});
  if (threads <= 1 || layout.shape.size() == 0) return convert_layout(in, out, layout);
  const index_t extent = layout.shape[0], parts = std::min(index_t(threads), extent);
  std::vector<std::jthread> workers;  // joined when the copy returns or throws
  index_t begin = 0;
  for (index_t part = 0; part < parts; ++part) {
    detail::CoalescedLayout<2> piece = layout;
    piece.shape[0] = extent / parts + (part < extent % parts ? 1 : 0);
    const auto work = [in = in + begin * layout.strides[1][0], out = out + begin * layout.strides[0][0], piece] {
      convert_layout(in, out, piece);
    };
    begin += piece.shape[0];
    if (part + 1 == parts) {
      work();
      continue;
    }
    try {
      workers.emplace_back(work);
    } catch (const std::system_error&) {
      work();
    }
  }
}

/// Whether the two views are the same elements in the same order (copying is a no-op).
bool same_view(const AnyTensor& a, const AnyTensor& b) {
  return a.data_ptr() == b.data_ptr() && a.dtype() == b.dtype() && a.strides() == b.strides();
}

}  // namespace

namespace detail {
bool elements_may_overlap(const AnyTensor& a, const AnyTensor& b) {
  if (!shares_memory(a, b)) return false;
  std::uint64_t period = 0;
  for (const AnyTensor* view : {&a, &b})
    for (std::size_t d = 0; d < view->rank(); ++d)
      if (view->shape()[d] > 1) period = std::gcd(period, std::uint64_t(std::abs(view->strides()[d])) * view->itemsize());
  if (period < a.itemsize() + b.itemsize()) return true;
  const auto address = [](const AnyTensor& t) { return std::int64_t(reinterpret_cast<std::uintptr_t>(t.data_ptr())); };
  const auto modulus = std::int64_t(period);
  const auto b_after_a = std::uint64_t(((address(b) - address(a)) % modulus + modulus) % modulus);  // b past a
  return b_after_a < a.itemsize() || b_after_a + b.itemsize() > period;
}
}  // namespace detail

namespace {

/// Threads for a copy into `destination`: as many as asked (0: one per hardware thread),
/// but no more than one per copy_bytes_per_thread of output, so that starting a thread
/// (tens of microseconds) stays small against its share of the copy.
unsigned copy_threads(const AnyTensor& destination, const ToOptions& options) {
  constexpr std::size_t copy_bytes_per_thread = std::size_t{1} << 20;
  const unsigned asked = options.threads == 0 ? std::max(1u, std::thread::hardware_concurrency()) : options.threads;
  return unsigned(std::min<std::size_t>(asked, std::max<std::size_t>(1, destination.nbytes() / copy_bytes_per_thread)));
}

/// PyTorch's assert_no_internal_overlap: a destination whose elements are the same memory
/// (an extent above 1 with stride 0, as expand() makes) would be written more than once.
void refuse_internal_overlap(const AnyTensor& destination) {
  for (std::size_t d = 0; d < destination.rank(); ++d) {
    if (destination.shape()[d] > 1 && destination.strides()[d] == 0)
      throw ValueError(detail::concat("copy_into: unsupported operation: more than one element of the written-to "
                                      "tensor refers to a single memory location (dimension ", d, " has extent ",
                                      destination.shape()[d], " and stride 0). Please clone() the tensor before "
                                      "performing the operation."));
  }
}

/// Whether no two elements of `view` share memory, by a sufficient test: ordered by stride,
/// each dimension steps past everything the smaller ones reach.
bool provably_distinct_elements(const AnyTensor& view) {
  std::vector<std::pair<index_t, index_t>> steps;  // (|stride|, extent) of the dimensions that step
  for (std::size_t d = 0; d < view.rank(); ++d)
    if (view.shape()[d] > 1) steps.emplace_back(std::abs(view.strides()[d]), view.shape()[d]);
  std::sort(steps.begin(), steps.end());
  index_t reach = 0;  // the furthest element the smaller dimensions reach
  for (const auto& [stride, extent] : steps) {
    index_t step = 0;
    if (stride <= reach || detail::mul_overflows(stride, extent - 1, step) || detail::add_overflows(reach, step, reach))
      return false;
  }
  return true;
}

}  // namespace

void copy_into(const AnyTensor& source, const AnyTensor& destination, const ToOptions& options) {
  if (source.shape() != destination.shape())
    throw ValueError(detail::concat("copy_into: source shape ", detail::shape_string(source.shape()),
                                    " differs from destination shape ", detail::shape_string(destination.shape())));
  if (!destination.is_writable()) detail::throw_read_only("copy_into");
  if (!source.device().is_host_accessible()) detail::throw_not_host_accessible("copy_into", source.device());
  if (!destination.device().is_host_accessible())
    detail::throw_not_host_accessible("copy_into", destination.device());
  if (source.dtype() != destination.dtype() && (is_packed(source.dtype()) || is_packed(destination.dtype())))
    throw TypeError(detail::concat("copy_into: cannot convert ", source.dtype(), " to ", destination.dtype(),
                                   "; as in PyTorch, packed sub-byte types convert to no other dtype"));
  if (source.numel() == 0) return;
  refuse_internal_overlap(destination);
  if (same_view(source, destination)) return;
  // As NumPy's copyto and PyTorch's copy_: overlapping elements read as they were before the
  // copy. The copy walks in its own order, so a source that overlaps is copied first.
  const AnyTensor input = detail::elements_may_overlap(source, destination) ? source.clone(options) : source;
  // Threads write disjoint parts only where the destination's elements are distinct.
  unsigned threads = copy_threads(destination, options);
  if (threads > 1 && !provably_distinct_elements(destination)) threads = 1;
  dispatch(destination.dtype(), [&](auto to_tag) {
    using To = typename decltype(to_tag)::type;
    const auto out = destination.as<To>();
    dispatch(input.dtype(), [&](auto from_tag) {
      using From = typename decltype(from_tag)::type;
      if constexpr (std::is_same_v<From, To> || !(detail::is_packed_v<From> || detail::is_packed_v<To>))
        convert_typed(input.as<const From>(), out, threads);
    });
  });
}

}  // namespace zt
