// Internal: the one layout engine of PyTorch's view operations, shared by Tensor<T, Rank>
// and AnyTensor. Each function reads a source layout (shape and strides in elements) and
// writes the result's into spans the caller has sized to the result's rank, returning
// where the result's first element lies, in elements from the source's. Nothing here
// touches memory or a driver: views of device memory are pure arithmetic. Every product
// and sum that a foreign stride or index enters is overflow-checked. The operations a
// typed view inlines are defined here; the rest, and every error message, in
// src/views/view_layout.cpp.
#pragma once

#include <algorithm>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "zerotensor/export.hpp"
#include "zerotensor/buffer.hpp"
#include "zerotensor/detail/checked_arithmetic.hpp"
#include "zerotensor/device.hpp"
#include "zerotensor/dtype.hpp"
#include "zerotensor/extents.hpp"
#include "zerotensor/shape.hpp"

namespace zt::detail {

using Sizes = std::span<const index_t>;
using SizesOut = std::span<index_t>;

/// Result ranks of static-rank views (dynamic stays dynamic; rank_minus stops at 0, which
/// the operations that drop a dimension refuse with a static_assert).
constexpr std::size_t rank_minus(std::size_t rank, std::size_t n) noexcept {
  return rank == dynamic ? dynamic : (rank < n ? 0 : rank - n);
}
constexpr std::size_t rank_plus(std::size_t rank, std::size_t n) noexcept {
  return rank == dynamic ? dynamic : rank + n;
}

/// Shape or strides of a result of rank R with `rank` entries, to be written.
template <std::size_t R>
[[nodiscard]] Extents<R> extents_of_rank(std::size_t rank) {
  if constexpr (R == dynamic) {
    return DynamicExtents(rank, 0);
  } else {
    return Extents<R>{};
  }
}

template <class T>
inline constexpr bool is_complex_element = is_complex(dtype_of<T>);

/// The element type of a complex element type's parts (T itself for others).
template <class T>
using real_part_t = type_of<real_dtype(dtype_of<T>)>;

/// U, const when T is: a view of read-only memory stays read-only.
template <class T, class U>
using same_constness_t = std::conditional_t<std::is_const_v<T>, const U, U>;

/// A contiguous copy of a strided view in memory of its own (AnyTensor::clone()): for the
/// typed contiguous() and reshape(), which cannot name AnyTensor.
struct ContiguousCopy {
  void* data;
  KeepAlive owner;
  Device device;
};
[[nodiscard]] ZT_API ContiguousCopy contiguous_copy(DType dtype, const void* data, Sizes shape, Sizes strides,
                                             const KeepAlive& owner, Device device);

// The errors (PyTorch's wording; IndexError where PyTorch raises IndexError).
[[noreturn]] ZT_API void throw_dim_out_of_range(index_t dim, index_t low, index_t high);
[[noreturn]] ZT_API void throw_view_overflow(index_t a, index_t b);
[[noreturn]] ZT_API void throw_zero_dim(const char* operation);
[[noreturn]] ZT_API void throw_zero_dim_index(const char* operation);
[[noreturn]] ZT_API void throw_narrow(index_t start, index_t length, index_t size);
[[noreturn]] ZT_API void throw_slice_step();
[[noreturn]] ZT_API void throw_select_index(index_t index, Sizes shape, std::size_t dim);
[[noreturn]] ZT_API void throw_permute(Sizes dims, std::size_t rank);
[[noreturn]] ZT_API void throw_expand(Sizes shape, Sizes sizes);
[[noreturn]] ZT_API void throw_diagonal_dims(std::size_t dim1, std::size_t dim2);
[[noreturn]] ZT_API void throw_diagonal_overflow(index_t stride1, index_t stride2);
[[noreturn]] ZT_API void throw_unfold(index_t size, index_t step, index_t dim_size, std::size_t dim);
[[noreturn]] ZT_API void throw_squeeze_repeated(std::size_t dim);
[[noreturn]] ZT_API void throw_flatten_order();
/// view(dtype)'s errors, in PyTorch's order, for a layout it refused; for an address not
/// aligned for `to`, ValueError naming the address' alignment and `to`'s.
[[noreturn]] ZT_API void throw_view_dtype(Sizes shape, Sizes strides, DType from, DType to, const void* address);
[[noreturn]] ZT_API void throw_t_rank(std::size_t rank);
[[noreturn]] ZT_API void throw_matrix_rank(const char* operation, std::size_t rank);

/// `a * b`, or ValueError when it does not fit in 64 bits.
[[nodiscard]] inline index_t checked_mul(index_t a, index_t b) {
  index_t product = 0;
  if (mul_overflows(a, b, product)) [[unlikely]] throw_view_overflow(a, b);
  return product;
}

/// `data` moved on by `offset` elements of `itemsize` bytes: every view's first element. The
/// byte offset is checked (ValueError when it overflows 64 bits) before the pointer moves.
[[nodiscard]] inline void* element_address(const void* data, index_t offset, std::size_t itemsize) {
  return const_cast<char*>(static_cast<const char*>(data)) + checked_mul(offset, index_t(itemsize));
}

/// `dim` wrapped into [0, rank) as PyTorch wraps it (a rank-0 tensor counts as rank 1);
/// IndexError "Dimension out of range (...)" otherwise.
[[nodiscard]] inline std::size_t wrap_dim(index_t dim, std::size_t rank) {
  const index_t n = rank == 0 ? 1 : index_t(rank);
  if (dim < -n || dim >= n) [[unlikely]] throw_dim_out_of_range(dim, -n, n - 1);
  return std::size_t(dim < 0 ? dim + n : dim);
}

/// Copies the source layout: the operations that change one dimension start from it.
inline void copy_layout(Sizes shape, Sizes strides, SizesOut out_shape, SizesOut out_strides) noexcept {
  for (std::size_t d = 0; d < shape.size(); ++d) {
    out_shape[d] = shape[d];
    out_strides[d] = strides[d];
  }
}

/// slice(dim, start, end, step) with Python's clamping; same rank.
[[nodiscard]] inline index_t slice_layout(Sizes shape, Sizes strides, index_t dim, std::optional<index_t> start,
                                          std::optional<index_t> end, index_t step, SizesOut out_shape,
                                          SizesOut out_strides) {
  if (shape.empty()) [[unlikely]] throw_zero_dim_index("slice()");
  const std::size_t d = wrap_dim(dim, shape.size());
  if (step <= 0) [[unlikely]] throw_slice_step();
  const index_t size = shape[d];
  index_t first = start.value_or(0), last = end.value_or(size);
  if (first < 0) first += size;
  if (last < 0) last += size;
  first = first < 0 ? 0 : (first > size ? size : first);
  last = last < first ? first : (last > size ? size : last);
  copy_layout(shape, strides, out_shape, out_strides);
  out_shape[d] = last == first ? 0 : (last - first - 1) / step + 1;
  out_strides[d] = checked_mul(strides[d], step);
  return checked_mul(first, strides[d]);
}

/// The layout of `length` entries of dimension `d` from `start`, all inside it (narrow's,
/// once checked, and each piece of a split's).
[[nodiscard]] inline index_t narrowed_layout(Sizes shape, Sizes strides, std::size_t d, index_t start, index_t length,
                                             SizesOut out_shape, SizesOut out_strides) {
  copy_layout(shape, strides, out_shape, out_strides);
  out_shape[d] = length;
  return checked_mul(start, strides[d]);
}

/// narrow(dim, start, length): PyTorch's checks, then the layout of slice(dim, start,
/// start + length), whose clamps and step have nothing left to do.
[[nodiscard]] inline index_t narrow_layout(Sizes shape, Sizes strides, index_t dim, index_t start, index_t length,
                                           SizesOut out_shape, SizesOut out_strides) {
  if (shape.empty()) [[unlikely]] throw_zero_dim("narrow()");
  if (length < 0) [[unlikely]] throw_narrow(start, length, 0);  // before the dim, as PyTorch
  const std::size_t d = wrap_dim(dim, shape.size());
  const index_t size = shape[d];
  if (start < -size || start > size) [[unlikely]] throw_narrow(start, length, size);
  if (start < 0) start += size;
  if (start > size - length) [[unlikely]] throw_narrow(start, length, size);
  return narrowed_layout(shape, strides, d, start, length, out_shape, out_strides);
}

/// The layout of entry `index` of dimension `d`, which it drops; `index` inside it
/// (select's, once checked, and each of unbind's).
[[nodiscard]] inline index_t selected_layout(Sizes shape, Sizes strides, std::size_t d, index_t index,
                                             SizesOut out_shape, SizesOut out_strides) {
  for (std::size_t from = 0, to = 0; from < shape.size(); ++from) {
    if (from == d) continue;
    out_shape[to] = shape[from];
    out_strides[to++] = strides[from];
  }
  return checked_mul(index, strides[d]);
}

/// select(dim, index): the result drops `dim`.
[[nodiscard]] inline index_t select_layout(Sizes shape, Sizes strides, index_t dim, index_t index,
                                           SizesOut out_shape, SizesOut out_strides) {
  if (shape.empty()) [[unlikely]] throw_zero_dim_index("select()");
  const std::size_t d = wrap_dim(dim, shape.size());
  if (index < -shape[d] || index >= shape[d]) [[unlikely]] throw_select_index(index, shape, d);
  return selected_layout(shape, strides, d, index < 0 ? index + shape[d] : index, out_shape, out_strides);
}

/// permute(dims): dimension i of the result is dimension dims[i] of the source.
inline void permute_layout(Sizes shape, Sizes strides, Sizes dims, SizesOut out_shape, SizesOut out_strides) {
  const std::size_t rank = shape.size();
  if (dims.size() != rank) [[unlikely]] throw_permute(dims, rank);
  for (std::size_t i = 0; i < rank; ++i) {
    const std::size_t d = wrap_dim(dims[i], rank);
    for (std::size_t j = 0; j < i; ++j) {
      if (wrap_dim(dims[j], rank) == d) [[unlikely]] throw_permute(dims, rank);
    }
    out_shape[i] = shape[d];
    out_strides[i] = strides[d];
  }
}

/// transpose(dim0, dim1): the two dimensions swapped.
inline void transpose_layout(Sizes shape, Sizes strides, index_t dim0, index_t dim1, SizesOut out_shape,
                             SizesOut out_strides) {
  const std::size_t a = wrap_dim(dim0, shape.size()), b = wrap_dim(dim1, shape.size());
  for (std::size_t d = 0; d < shape.size(); ++d) {
    const std::size_t from = d == a ? b : d == b ? a : d;
    out_shape[d] = shape[from];
    out_strides[d] = strides[from];
  }
}

/// movedim(source, destination) for one dimension: the others keep their order.
inline void movedim_layout(Sizes shape, Sizes strides, index_t source, index_t destination, SizesOut out_shape,
                           SizesOut out_strides) {
  const std::size_t from = wrap_dim(source, shape.size()), to = wrap_dim(destination, shape.size());
  copy_layout(shape, strides, out_shape, out_strides);
  if (shape.empty()) return;
  for (std::size_t d = from; d < to; ++d) {
    out_shape[d] = shape[d + 1];
    out_strides[d] = strides[d + 1];
  }
  for (std::size_t d = to; d < from; ++d) {
    out_shape[d + 1] = shape[d];
    out_strides[d + 1] = strides[d];
  }
  out_shape[to] = shape[from];
  out_strides[to] = strides[from];
}

/// t() (rank 2 transposed; ranks 0 and 1 unchanged) and mT()/mH()/adjoint() (the last
/// two dimensions swapped; rank 2 or more, or rank 0, which stays as it is: PyTorch returns
/// the tensor itself, deprecated there).
inline void t_layout(Sizes shape, Sizes strides, SizesOut out_shape, SizesOut out_strides) {
  if (shape.size() > 2) [[unlikely]] throw_t_rank(shape.size());
  transpose_layout(shape, strides, 0, shape.size() == 2 ? 1 : 0, out_shape, out_strides);
}
inline void matrix_transpose_layout(const char* operation, Sizes shape, Sizes strides, SizesOut out_shape,
                                    SizesOut out_strides) {
  if (shape.size() == 1) [[unlikely]] throw_matrix_rank(operation, 1);
  if (!shape.empty()) transpose_layout(shape, strides, -2, -1, out_shape, out_strides);
}

/// unsqueeze(dim): a new extent-1 dimension at `dim` (wrapped against rank + 1), with
/// PyTorch's stride for it (the next dimension's extent times stride, or 1 at the end).
inline void unsqueeze_layout(Sizes shape, Sizes strides, index_t dim, SizesOut out_shape, SizesOut out_strides) {
  const std::size_t d = wrap_dim(dim, shape.size() + 1);
  for (std::size_t from = 0, to = 0; to <= shape.size(); ++to) {
    if (to == d) {
      out_shape[to] = 1;
      out_strides[to] = d < shape.size() ? checked_mul(shape[d], strides[d]) : 1;
    } else {
      out_shape[to] = shape[from];
      out_strides[to] = strides[from++];
    }
  }
}

/// expand(sizes): `sizes` has at least the source's rank; -1 keeps an existing extent, an
/// extent-1 dimension broadcasts with stride 0. New leading dimensions take PyTorch's
/// strides (inferExpandGeometry): 0 where they broadcast, else the next dimension's extent
/// times stride; all 0 for a rank-0 source.
inline void expand_layout(Sizes shape, Sizes strides, Sizes sizes, SizesOut out_shape, SizesOut out_strides) {
  if (sizes.size() < shape.size()) [[unlikely]] throw_expand(shape, sizes);
  const std::size_t lead = sizes.size() - shape.size();
  for (std::size_t d = sizes.size(); d-- > 0;) {
    const bool exists = d >= lead;
    const index_t size = exists ? shape[d - lead] : 1;
    const index_t wanted = sizes[d] == -1 && exists ? size : sizes[d];
    if (wanted < 0 || (wanted != size && size != 1)) [[unlikely]] throw_expand(shape, sizes);
    out_shape[d] = wanted;
    if (wanted != size || shape.empty())
      out_strides[d] = 0;
    else
      out_strides[d] = exists ? strides[d - lead] : checked_mul(out_shape[d + 1], out_strides[d + 1]);
  }
  (void)checked_numel(Sizes(out_shape.data(), out_shape.size()), 1, "expand()");
}

/// diagonal(offset, dim1, dim2): both dimensions dropped, the diagonal appended last.
[[nodiscard]] inline index_t diagonal_layout(Sizes shape, Sizes strides, index_t offset, index_t dim1, index_t dim2,
                                             SizesOut out_shape, SizesOut out_strides) {
  const std::size_t a = wrap_dim(dim1, shape.size()), b = wrap_dim(dim2, shape.size());
  if (a == b) [[unlikely]] throw_diagonal_dims(a, b);
  index_t size = 0, first = 0;
  if (offset >= 0 && offset < shape[b]) {
    size = std::min(shape[a], shape[b] - offset);
    first = checked_mul(offset, strides[b]);
  } else if (offset < 0 && offset > -shape[a]) {
    size = std::min(shape[a] + offset, shape[b]);
    first = checked_mul(-offset, strides[a]);
  }
  std::size_t to = 0;
  for (std::size_t from = 0; from < shape.size(); ++from) {
    if (from == a || from == b) continue;
    out_shape[to] = shape[from];
    out_strides[to++] = strides[from];
  }
  index_t step = 0;
  if (add_overflows(strides[a], strides[b], step)) [[unlikely]] throw_diagonal_overflow(strides[a], strides[b]);
  out_shape[to] = size;
  out_strides[to] = step;
  return size == 0 ? 0 : first;
}

/// unfold(dim, size, step): `dim` becomes the window count, a window dimension is
/// appended (a rank-0 source counts as one element of rank 1). The windows may outnumber the
/// elements, so the result's count is checked.
inline void unfold_layout(Sizes shape, Sizes strides, index_t dim, index_t size, index_t step, SizesOut out_shape,
                          SizesOut out_strides) {
  const std::size_t d = wrap_dim(dim, shape.size());
  const index_t dim_size = shape.empty() ? 1 : shape[d], dim_stride = shape.empty() ? 1 : strides[d];
  if (size < 0 || size > dim_size || step <= 0) [[unlikely]] throw_unfold(size, step, dim_size, d);
  copy_layout(shape, strides, out_shape, out_strides);
  if (!shape.empty()) {
    out_shape[d] = (dim_size - size) / step + 1;
    out_strides[d] = checked_mul(dim_stride, step);
  }
  out_shape[shape.size()] = size;
  out_strides[shape.size()] = dim_stride;
  (void)checked_numel(Sizes(out_shape.data(), out_shape.size()), 1, "unfold()");
}

/// Whether squeeze(dims) drops dimension `d`: extent 1, and listed in `dims` (every
/// dimension when there are no `dims`, as squeeze() drops them all).
[[nodiscard]] inline bool squeezed(Sizes shape, std::optional<Sizes> dims, std::size_t d) {
  const auto names_d = [&](index_t dim) { return wrap_dim(dim, shape.size()) == d; };
  return shape[d] == 1 && (!dims || std::any_of(dims->begin(), dims->end(), names_d));
}

/// The rank of squeeze(dims)'s result; its errors (a dim out of range or listed twice).
[[nodiscard]] inline std::size_t squeeze_rank(Sizes shape, std::optional<Sizes> dims) {
  for (std::size_t i = 0; dims && i < dims->size(); ++i) {
    const std::size_t d = wrap_dim((*dims)[i], shape.size());
    for (std::size_t j = 0; j < i; ++j) {
      if (wrap_dim((*dims)[j], shape.size()) == d) [[unlikely]] throw_squeeze_repeated(d);
    }
  }
  std::size_t rank = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) rank += squeezed(shape, dims, d) ? 0 : 1;
  return rank;
}

/// squeeze(dims), of rank squeeze_rank(): the dimensions of `dims` with extent 1 dropped
/// (every extent-1 one without `dims`, as squeeze()).
inline void squeeze_layout(Sizes shape, Sizes strides, std::optional<Sizes> dims, SizesOut out_shape,
                           SizesOut out_strides) {
  for (std::size_t from = 0, to = 0; from < shape.size(); ++from) {
    if (squeezed(shape, dims, from)) continue;
    out_shape[to] = shape[from];
    out_strides[to++] = strides[from];
  }
}

/// The rank of flatten(start_dim, end_dim)'s result; its errors.
[[nodiscard]] inline std::size_t flatten_rank(Sizes shape, index_t start_dim, index_t end_dim) {
  const std::size_t start = wrap_dim(start_dim, shape.size()), end = wrap_dim(end_dim, shape.size());
  if (start > end) [[unlikely]] throw_flatten_order();
  return shape.empty() ? 1 : shape.size() - (end - start);
}

/// view(dtype)'s layout between element sizes (the last dimension, of stride 1, scales, and
/// the other strides scale, divisibly when the size grows), or its error.
inline void view_dtype_resized_layout(Sizes shape, Sizes strides, DType from, DType to, const void* address,
                                      SizesOut out_shape, SizesOut out_strides) {
  const index_t old_size = index_t(itemsize(from)), new_size = index_t(itemsize(to));
  const bool bool_from_other = to == DType::Bool && from != DType::Bool;
  if (bool_from_other || shape.empty() || strides.back() != 1) [[unlikely]]
    throw_view_dtype(shape, strides, from, to, address);
  const std::size_t last = shape.size() - 1;
  if (old_size > new_size) {
    const index_t ratio = old_size / new_size;
    for (std::size_t d = 0; d < last; ++d) out_strides[d] = checked_mul(strides[d], ratio);
    // More elements than the source's: a broadcast source's count may not fit.
    out_shape[last] = checked_mul(shape[last], ratio);
    (void)checked_numel(Sizes(out_shape.data(), out_shape.size()), 1, "view(dtype)");
    return;
  }
  const index_t ratio = new_size / old_size;
  bool divisible = shape[last] % ratio == 0;
  for (std::size_t d = 0; d < last; ++d) {
    divisible = divisible && strides[d] % ratio == 0;
    out_strides[d] = strides[d] / ratio;
  }
  if (!divisible) [[unlikely]] throw_view_dtype(shape, strides, from, to, address);
  out_shape[last] = shape[last] / ratio;
}

/// view(dtype) with PyTorch's rules (same rank), from a source of dtype `from` at `address`:
/// the same element size keeps the layout, another resizes the last dimension. The address
/// must be aligned for `to`, as a typed view needs (zerotensor has no storage offset: the
/// address stands for it).
inline void view_dtype_layout(Sizes shape, Sizes strides, DType from, DType to, const void* address,
                              SizesOut out_shape, SizesOut out_strides) {
  copy_layout(shape, strides, out_shape, out_strides);
  if (itemsize(from) != itemsize(to) || (to == DType::Bool && from != DType::Bool))
    view_dtype_resized_layout(shape, strides, from, to, address, out_shape, out_strides);
  if (!is_aligned(address, to)) [[unlikely]]
    throw_view_dtype(shape, strides, from, to, address);
}

// The operations whose result rank depends on values (dynamic rank), or that are too
// large to inline; defined in src/views/view_layout.cpp.

/// movedim(sources, destinations).
ZT_API void movedim_layout(Sizes shape, Sizes strides, Sizes sources, Sizes destinations, SizesOut out_shape,
                    SizesOut out_strides);
/// reshape(sizes): writes its layout (rank sizes.size()) when it is a view, else returns
/// false (it needs a copy; the spans then hold no layout).
[[nodiscard]] ZT_API bool reshape_layout(Sizes shape, Sizes strides, Sizes sizes, SizesOut out_shape,
                                         SizesOut out_strides);
/// view(sizes), whose rank is sizes.size(); ValueError with PyTorch's "view size is not
/// compatible" message when the strides do not allow it.
ZT_API void view_layout(Sizes shape, Sizes strides, Sizes sizes, SizesOut out_shape, SizesOut out_strides);
/// flatten(start_dim, end_dim), of rank flatten_rank(): writes its layout when it is a view
/// (start_dim == end_dim keeps the tensor as it is, as PyTorch, which returns the tensor
/// itself), else returns false (it needs a copy).
[[nodiscard]] ZT_API bool flatten_layout(Sizes shape, Sizes strides, index_t start_dim, index_t end_dim,
                                         SizesOut out_shape, SizesOut out_strides);
/// unflatten(dim, sizes), of rank rank - 1 + sizes.size() (0 for a rank-0 source, which it
/// refuses): `dim` split into `sizes` (one -1 inferred), viewed as view() views.
ZT_API void unflatten_layout(Sizes shape, Sizes strides, index_t dim, Sizes sizes, SizesOut out_shape,
                             SizesOut out_strides);
/// as_strided(size, stride, storage_offset), of rank size.size(), checked to lie inside
/// the elements the source reaches (ValueError naming both ranges otherwise).
[[nodiscard]] ZT_API index_t as_strided_layout(Sizes shape, Sizes strides, Sizes sizes, Sizes new_strides,
                                               index_t storage_offset, SizesOut out_shape, SizesOut out_strides);
/// view_as_real() of a complex source (rank + 1); view_as_complex() of a float32/float64
/// source (rank - 1).
ZT_API void view_as_real_layout(Sizes shape, Sizes strides, DType from, SizesOut out_shape, SizesOut out_strides);
ZT_API void view_as_complex_layout(Sizes shape, Sizes strides, DType from, const void* address, SizesOut out_shape,
                            SizesOut out_strides);

/// One piece of a split along `dim`: where it starts and its extent there.
struct Piece {
  index_t start;
  index_t length;
};
/// The pieces of chunk, split (one size or several) and tensor_split (sections or
/// indices), along the wrapped dimension `dim`. Piece i is listed[i] when the pieces are
/// listed; else the pieces are even: piece i starts at i * length and ends at the latest at
/// `extent` (the last one shorter). chunk and split(size), the common calls, list nothing:
/// their only allocation is the result's vector.
struct Pieces {
  std::size_t dim;
  std::size_t count;
  index_t length = 0;
  index_t extent = 0;
  std::vector<Piece> listed;

  [[nodiscard]] Piece operator[](std::size_t i) const {
    if (!listed.empty()) return listed[i];
    const index_t start = index_t(i) * length;
    return {start, std::min(length, extent - start)};
  }
};
[[nodiscard]] ZT_API Pieces chunk_pieces(Sizes shape, index_t chunks, index_t dim);
[[nodiscard]] ZT_API Pieces split_pieces(Sizes shape, index_t split_size, index_t dim);
[[nodiscard]] ZT_API Pieces split_pieces(Sizes shape, Sizes split_sizes, index_t dim);
[[nodiscard]] ZT_API Pieces tensor_split_pieces(Sizes shape, index_t sections, index_t dim);
[[nodiscard]] ZT_API Pieces tensor_split_pieces(Sizes shape, Sizes indices, index_t dim);
/// unbind(dim): the wrapped dimension; IndexError for a rank-0 source.
[[nodiscard]] ZT_API std::size_t unbind_dim(Sizes shape, index_t dim);

/// TypeError: zerotensor has no lazy conjugation, so the conjugate transpose of a complex
/// tensor is no view.
[[noreturn]] ZT_API void throw_conjugate_view(const char* operation, DType dtype);

}  // namespace zt::detail
