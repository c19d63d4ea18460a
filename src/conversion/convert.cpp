// copy_into: the strided copy engine (layouts, tiles, threads, overlap checks). It moves
// elements by their size, whatever their dtype; a conversion converts contiguous runs with
// the bulk loops of convert_kernels.hpp, one function per pair of dtypes (convert_pairs.cpp).
#include "zerotensor/convert.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <utility>
#include <vector>

#include "vocabulary/concat.hpp"
#include "conversion/convert_kernels.hpp"
#include "conversion/host_threads.hpp"
#include "views/strided_walk.hpp"
#include "zerotensor/shares_memory.hpp"

namespace zt {
namespace {

using Steps = std::array<index_t, 2>;

/// `Size` bytes aligned to `Align`: an element moved as a whole, whatever its dtype. Sizes
/// that are their own alignment move as unsigned integers, which the compiler vectorises.
template <std::size_t Size, std::size_t Align>
struct alignas(Align) ElementBytes {
  unsigned char bytes[Size];
};
template <std::size_t Size, std::size_t Align>
struct element_bytes {
  using type = ElementBytes<Size, Align>;
};
template <> struct element_bytes<1, 1> { using type = std::uint8_t; };
template <> struct element_bytes<2, 2> { using type = std::uint16_t; };
template <> struct element_bytes<4, 4> { using type = std::uint32_t; };
template <> struct element_bytes<8, 8> { using type = std::uint64_t; };

/// One run of `count` elements, `in_step` and `out_step` apart.
template <class T>
void copy_run(const T* in, index_t in_step, T* out, index_t out_step, index_t count) {
  if (in_step == 1 && out_step == 1) {
    std::memcpy(out, in, std::size_t(count) * sizeof(T));
    return;
  }
  if (in_step == 2 && out_step == 1) return detail::copy_every_other<1>(in, out, count);
  if (in_step == 2 && out_step == 2) return detail::copy_every_other<2>(in, out, count);
  for (index_t i = 0; i < count; ++i) out[i * out_step] = in[i * in_step];
}

/// A rows x columns block of one element size. When the source steps further along a row
/// than down a column (a transpose), the block goes in tiles of tiles: 8 x 8 elements read
/// down the source's columns inside 256 x 256 tiles, so that the lines of both sides are
/// read from cache.
template <class T>
void copy_block(const std::byte* in_bytes, const Steps& in_steps, std::byte* out_bytes, const Steps& out_steps,
                index_t rows, index_t columns) {
  const auto* in = reinterpret_cast<const T*>(in_bytes);
  auto* out = reinterpret_cast<T*>(out_bytes);
  constexpr index_t tile = 256, micro = 8;
  if (std::abs(in_steps[1]) <= std::abs(in_steps[0]) || rows < micro || columns < micro) {
    for (index_t r = 0; r < rows; ++r)
      copy_run(in + r * in_steps[0], in_steps[1], out + r * out_steps[0], out_steps[1], columns);
    return;
  }
  for (index_t r0 = 0; r0 < rows; r0 += tile) {
    for (index_t c0 = 0; c0 < columns; c0 += tile) {
      const index_t r1 = std::min(rows, r0 + tile), c1 = std::min(columns, c0 + tile);
      for (index_t r = r0; r < r1; r += micro) {
        for (index_t c = c0; c < c1; c += micro) {
          const index_t r_end = std::min(r1, r + micro), c_end = std::min(c1, c + micro);
          for (index_t j = c; j < c_end; ++j)
            for (index_t i = r; i < r_end; ++i) out[i * out_steps[0] + j * out_steps[1]] = in[i * in_steps[0] + j * in_steps[1]];
        }
      }
    }
  }
}

using BlockCopy = void (*)(const std::byte*, const Steps&, std::byte*, const Steps&, index_t, index_t);

/// copy_block for the elements of `dtype`.
BlockCopy block_copy_of(DType dtype) {
  return dispatch(dtype, [](auto tag) -> BlockCopy {
    using T = typename decltype(tag)::type;
    return &copy_block<typename element_bytes<sizeof(T), alignof(T)>::type>;
  });
}

/// One copy_into: the element sizes of both sides, how each moves, and, where the dtypes
/// differ, the conversion.
struct Copy {
  std::size_t in_size, out_size;
  BlockCopy move_in, move_out;
  detail::ContiguousConverter convert;  // nullptr where the dtypes are the same
};

/// A rows x columns block of different dtypes. Rows contiguous on both sides convert in
/// place; any other block goes in tiles through two buffers: the source's tile moved
/// into the first (tiled as copy_block tiles a transpose), converted in bulk into the
/// second, which is moved to the destination (or converted straight into a destination
/// whose rows are contiguous).
void convert_block(const Copy& copy, const std::byte* in, const Steps& in_steps, std::byte* out,
                   const Steps& out_steps, index_t rows, index_t columns) {
  const auto in_at = [&](index_t r, index_t c) { return in + (r * in_steps[0] + c * in_steps[1]) * index_t(copy.in_size); };
  const auto out_at = [&](index_t r, index_t c) { return out + (r * out_steps[0] + c * out_steps[1]) * index_t(copy.out_size); };
  if (in_steps[1] == 1 && out_steps[1] == 1) {
    for (index_t r = 0; r < rows; ++r) copy.convert(in_at(r, 0), out_at(r, 0), columns);
    return;
  }
  constexpr index_t buffered = 2048, transposed_tile_columns = 64;
  alignas(64) std::byte moved_in[buffered * 16], converted[buffered * 16];  // 16: the largest element
  const bool transposing = std::abs(in_steps[1]) > std::abs(in_steps[0]);
  const index_t tile_columns = std::min(columns, transposing ? transposed_tile_columns : buffered);
  const index_t tile_rows = buffered / tile_columns;
  for (index_t r0 = 0; r0 < rows; r0 += tile_rows) {
    for (index_t c0 = 0; c0 < columns; c0 += tile_columns) {
      const index_t n_rows = std::min(tile_rows, rows - r0), n_columns = std::min(tile_columns, columns - c0);
      const Steps contiguous{n_columns, 1};
      copy.move_in(in_at(r0, c0), in_steps, moved_in, contiguous, n_rows, n_columns);
      if (out_steps[1] == 1) {
        for (index_t r = 0; r < n_rows; ++r)
          copy.convert(moved_in + r * n_columns * index_t(copy.in_size), out_at(r0 + r, c0), n_columns);
        continue;
      }
      copy.convert(moved_in, converted, n_rows * n_columns);
      copy.move_out(converted, contiguous, out_at(r0, c0), out_steps, n_rows, n_columns);
    }
  }
}

/// One coalesced layout (see copy_layout) from `in` to `out`: blocks of its two innermost
/// dimensions (a shorter layout is one block of one row).
void copy_layout(const Copy& copy, const std::byte* in, std::byte* out, const detail::CoalescedLayout<2>& layout) {
  const auto block = [&](const std::byte* from, const Steps& in_steps, std::byte* to, const Steps& out_steps,
                         index_t rows, index_t columns) {
    if (copy.convert == nullptr) copy.move_in(from, in_steps, to, out_steps, rows, columns);
    else convert_block(copy, from, in_steps, to, out_steps, rows, columns);
  };
  const std::size_t rank = layout.shape.size();
  if (rank == 0) return block(in, {0, 1}, out, {0, 1}, 1, 1);
  if (rank == 1) return block(in, {0, layout.strides[1][0]}, out, {0, layout.strides[0][0]}, 1, layout.shape[0]);
  const std::span<const index_t> outer = layout.shape.span().first(rank - 1);
  const Steps in_steps{layout.strides[1][rank - 2], layout.strides[1][rank - 1]};
  const Steps out_steps{layout.strides[0][rank - 2], layout.strides[0][rank - 1]};
  detail::for_each_row<2>(outer, {layout.strides[0].span().first(rank - 1), layout.strides[1].span().first(rank - 1)},
                          [&](const std::array<index_t, 2>& offsets, index_t rows, std::span<const index_t>) {
                            block(in + offsets[1] * index_t(copy.in_size), in_steps,
                                  out + offsets[0] * index_t(copy.out_size), out_steps, rows, layout.shape[rank - 1]);
                          });
}

/// The one strided copy: the layout coalesced in the destination's memory order, its
/// outermost dimension split into `threads` parts (run_in_parts).
void copy_on_threads(const Copy& copy, const AnyTensor& source, const AnyTensor& destination, unsigned threads) {
  const auto* in = static_cast<const std::byte*>(source.data_ptr());
  auto* out = static_cast<std::byte*>(destination.mutable_data_ptr());
  const detail::CoalescedLayout<2> layout = detail::coalesce<2>(source.shape(), {destination.strides(), source.strides()});
  if (threads <= 1 || layout.shape.size() == 0) return copy_layout(copy, in, out, layout);
  detail::run_in_parts(layout.shape[0], threads, [&](index_t begin, index_t count) {
    detail::CoalescedLayout<2> piece = layout;
    piece.shape[0] = count;
    copy_layout(copy, in + begin * layout.strides[1][0] * index_t(copy.in_size),
                out + begin * layout.strides[0][0] * index_t(copy.out_size), piece);
  });
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

void refuse_internal_overlap(const char* operation, const AnyTensor& destination) {
  for (std::size_t d = 0; d < destination.rank(); ++d) {
    if (destination.shape()[d] > 1 && destination.strides()[d] == 0)
      throw ValueError(detail::concat(operation, ": unsupported operation: more than one element of the written-to "
                                      "tensor refers to a single memory location (dimension ", d, " has extent ",
                                      destination.shape()[d], " and stride 0). Please clone() the tensor before "
                                      "performing the operation."));
  }
}

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

}  // namespace detail

void copy_into(const AnyTensor& source, const AnyTensor& destination, const ToOptions& options) {
  if (source.shape() != destination.shape())
    throw ValueError(detail::concat("copy_into: source shape ", detail::shape_string(source.shape()),
                                    " differs from destination shape ", detail::shape_string(destination.shape())));
  if (!destination.is_writable()) detail::throw_read_only("copy_into");
  if (!source.device().is_host_accessible()) detail::throw_not_host_accessible("copy_into", source.device());
  if (!destination.device().is_host_accessible())
    detail::throw_not_host_accessible("copy_into", destination.device());
  const detail::ContiguousConverter converter =
      source.dtype() == destination.dtype() ? nullptr : detail::contiguous_converter(source.dtype(), destination.dtype());
  if (source.numel() == 0) return;
  detail::refuse_internal_overlap("copy_into", destination);
  if (same_view(source, destination)) return;
  // As NumPy's copyto and PyTorch's copy_: overlapping elements read as they were before the
  // copy. The copy walks in its own order, so a source that overlaps is copied first.
  const AnyTensor input = detail::elements_may_overlap(source, destination) ? source.clone(options) : source;
  // Threads write disjoint parts only where the destination's elements are distinct.
  unsigned threads = detail::host_copy_threads(destination.nbytes(), options.threads);
  if (threads > 1 && !detail::provably_distinct_elements(destination)) threads = 1;
  const Copy copy{input.itemsize(), destination.itemsize(), block_copy_of(input.dtype()),
                  block_copy_of(destination.dtype()), converter};
  copy_on_threads(copy, input, destination, threads);
}

}  // namespace zt
