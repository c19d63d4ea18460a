// The view operations' layouts that are not inlined. Their messages are built in
// view_messages.cpp, but for the one-line checks of the operations below.
#include "zerotensor/detail/view_layout.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

#include "vocabulary/concat.hpp"
#include "views/view_messages.hpp"
#include "zerotensor/error.hpp"

namespace zt::detail {

namespace {

/// `a + b`, or ValueError when it does not fit in 64 bits.
index_t checked_add(index_t a, index_t b) {
  index_t sum = 0;
  if (add_overflows(a, b, sum)) throw ValueError(concat("view: the offset ", a, " + ", b, " overflows 64 bits"));
  return sum;
}

/// The wrapped dims of a list; `on_repeat(dim)` throws for a dim named twice.
template <class OnRepeat>
std::vector<std::size_t> wrap_dims(Sizes dims, std::size_t rank, OnRepeat on_repeat) {
  std::vector<std::size_t> wrapped;
  for (index_t dim : dims) {
    const std::size_t d = wrap_dim(dim, rank);
    if (std::find(wrapped.begin(), wrapped.end(), d) != wrapped.end()) on_repeat(d);
    wrapped.push_back(d);
  }
  return wrapped;
}

/// `sizes` with its one -1 inferred from `numel` (PyTorch's infer_size), written to `out`
/// (as many entries as `sizes`); false when no size fits (throw_infer_size says why).
bool inferred_size(Sizes sizes, index_t numel, SizesOut out) {
  std::size_t inferred = sizes.size();  // none yet
  index_t product = 1;
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    out[d] = sizes[d];
    if (sizes[d] == -1) {
      if (inferred != sizes.size()) return false;
      inferred = d;
    } else if (sizes[d] < 0 || mul_overflows(product, sizes[d], product)) {
      return false;
    }
  }
  if (inferred == sizes.size()) return product == numel;
  if (product == 0 || numel % product != 0) return false;
  out[inferred] = numel / product;
  return true;
}

void infer_size(Sizes sizes, index_t numel, SizesOut out) {
  if (!inferred_size(sizes, numel, out)) throw_infer_size(sizes, numel);
}

/// A source's element count, and whether its strides are C order throughout (extent-1
/// dimensions included): one pass that every reshaping view starts with.
struct Source {
  index_t elements = 1;
  bool packed = true;
};
Source describe(Sizes shape, Sizes strides) noexcept {
  Source source;
  for (std::size_t d = shape.size(); d-- > 0;) {
    source.packed &= strides[d] == source.elements;
    source.elements *= shape[d];
  }
  return source;
}

/// C-order strides for `sizes` (an extent 0 steps as 1, as contiguous_strides), written to `out`.
void write_contiguous_strides(Sizes sizes, SizesOut out) noexcept {
  index_t step = 1;
  for (std::size_t d = sizes.size(); d-- > 0;) {
    out[d] = step;
    step *= sizes[d] > 1 ? sizes[d] : 1;
  }
}

/// view_strides for a source that is empty or not packed: an empty one keeps its strides
/// when the shape stays, else takes C-order strides, which must fit (checked_numel: its
/// other extents are free, and may not); the others follow PyTorch's rule. Out of line, so
/// that the packed case inlines into its callers.
[[gnu::noinline]] bool unpacked_view_strides(const char* operation, Sizes shape, Sizes strides, index_t elements,
                                             Sizes sizes, SizesOut out) {
  if (elements == 0) {
    (void)checked_numel(sizes, 1, operation);
    if (std::equal(shape.begin(), shape.end(), sizes.begin(), sizes.end()))
      std::copy_n(strides.data(), sizes.size(), out.begin());
    else
      write_contiguous_strides(sizes, out);
    return true;
  }
  // PyTorch's rule: the source's dimensions split into chunks that are contiguous among
  // themselves; each chunk must be covered exactly by consecutive dimensions of the view.
  std::ptrdiff_t view_d = std::ptrdiff_t(sizes.size()) - 1;
  index_t chunk_base_stride = strides.back(), tensor_numel = 1, view_numel = 1;
  for (std::ptrdiff_t tensor_d = std::ptrdiff_t(shape.size()) - 1; tensor_d >= 0; --tensor_d) {
    tensor_numel *= shape[std::size_t(tensor_d)];
    const bool chunk_ends =
        tensor_d == 0 || (shape[std::size_t(tensor_d - 1)] != 1 &&
                          strides[std::size_t(tensor_d - 1)] != checked_mul(tensor_numel, chunk_base_stride));
    if (!chunk_ends) continue;
    while (view_d >= 0 && (view_numel < tensor_numel || sizes[std::size_t(view_d)] == 1)) {
      out[std::size_t(view_d)] = checked_mul(view_numel, chunk_base_stride);
      view_numel *= sizes[std::size_t(view_d)];
      --view_d;
    }
    if (view_numel != tensor_numel) return false;
    if (tensor_d > 0) {
      chunk_base_stride = strides[std::size_t(tensor_d - 1)];
      tensor_numel = 1;
      view_numel = 1;
    }
  }
  return view_d == -1;
}

/// Writes the strides viewing `shape`/`strides` as `sizes` needs, or returns false when no
/// strides can; `sizes` already inferred. A packed source's view is in C order (one chunk
/// of base stride 1 under PyTorch's rule). `operation` names the view in an error.
bool view_strides(const char* operation, Sizes shape, Sizes strides, Source source, Sizes sizes, SizesOut out) {
  if (!source.packed || source.elements == 0)
    return unpacked_view_strides(operation, shape, strides, source.elements, sizes, out);
  write_contiguous_strides(sizes, out);
  return true;
}

/// as_strided's checks one at a time, in PyTorch's order, each throwing its own message;
/// else the last element the result reaches (its offset when it is empty, where a product
/// that overflows reaches nothing).
index_t as_strided_reach(Sizes sizes, Sizes new_strides, index_t offset) {
  for (index_t size : sizes) {
    if (size < 0)
      throw ValueError(concat("Trying to create tensor with negative dimension ", size, ": ", bracketed(sizes)));
  }
  for (index_t stride : new_strides) {
    if (stride < 0)
      throw ValueError(concat("as_strided: Negative strides are not supported at the moment, got strides: ",
                              bracketed(new_strides)));
  }
  if (offset < 0) throw ValueError(concat("Tensor: invalid storage offset ", offset));
  if (checked_numel(sizes, 1, "as_strided()") == 0) return offset;
  index_t high = offset;
  for (std::size_t d = 0; d < sizes.size(); ++d) high = checked_add(high, checked_mul(sizes[d] - 1, new_strides[d]));
  return high;
}

}  // namespace

void movedim_layout(Sizes shape, Sizes strides, Sizes sources, Sizes destinations, SizesOut out_shape,
                    SizesOut out_strides) {
  if (sources.size() != destinations.size())
    throw ValueError(concat("movedim: Invalid source or destination dims: source (", bracketed(sources),
                            " dims) should contain the same number of dims as destination (", bracketed(destinations),
                            " dims)"));
  // As PyTorch: both lists are wrapped (IndexError for a dim out of range) before either is
  // checked for repeats.
  bool source_repeats = false, destination_repeats = false;
  const std::vector<std::size_t> from = wrap_dims(sources, shape.size(), [&](std::size_t) { source_repeats = true; });
  const std::vector<std::size_t> to =
      wrap_dims(destinations, shape.size(), [&](std::size_t) { destination_repeats = true; });
  if (source_repeats) throw ValueError(concat("movedim: repeated dim in `source` (", bracketed(sources), ")"));
  if (destination_repeats)
    throw ValueError(concat("movedim: repeated dim in `destination` (", bracketed(destinations), ")"));
  if (shape.empty()) {
    copy_layout(shape, strides, out_shape, out_strides);
    return;
  }
  // Result dimension to[i] is source dimension from[i]; the rest keep their order.
  std::vector<index_t> order(shape.size(), -1);
  std::vector<bool> moved(shape.size(), false);
  for (std::size_t i = 0; i < from.size(); ++i) {
    order[to[i]] = index_t(from[i]);
    moved[from[i]] = true;
  }
  std::size_t next = 0;
  for (index_t& d : order) {
    if (d != -1) continue;
    while (moved[next]) ++next;
    d = index_t(next++);
  }
  for (std::size_t d = 0; d < shape.size(); ++d) {
    out_shape[d] = shape[std::size_t(order[d])];
    out_strides[d] = strides[std::size_t(order[d])];
  }
}

namespace {

/// The body of reshape_layout and view_layout, shared rather than called from one to the
/// other: a call to an exported function is never inlined (bench_views' view row).
bool write_view_layout(const char* operation, Sizes shape, Sizes strides, Sizes sizes, SizesOut out_shape,
                       SizesOut out_strides) {
  const Source source = describe(shape, strides);
  infer_size(sizes, source.elements, out_shape);
  return view_strides(operation, shape, strides, source, Sizes(out_shape.data(), out_shape.size()), out_strides);
}

}  // namespace

bool reshape_layout(Sizes shape, Sizes strides, Sizes sizes, SizesOut out_shape, SizesOut out_strides) {
  return write_view_layout("reshape()", shape, strides, sizes, out_shape, out_strides);
}

void view_layout(Sizes shape, Sizes strides, Sizes sizes, SizesOut out_shape, SizesOut out_strides) {
  if (!write_view_layout("view()", shape, strides, sizes, out_shape, out_strides)) throw_view_incompatible();
}

bool flatten_layout(Sizes shape, Sizes strides, index_t start_dim, index_t end_dim, SizesOut out_shape,
                    SizesOut out_strides) {
  if (shape.empty()) {  // a rank-0 tensor becomes one element of rank 1
    out_shape[0] = 1;
    out_strides[0] = 1;
    return true;
  }
  const std::size_t start = wrap_dim(start_dim, shape.size()), end = wrap_dim(end_dim, shape.size());
  if (start == end) {
    copy_layout(shape, strides, out_shape, out_strides);
    return true;
  }
  index_t merged = 1;  // the extent of dimensions start..end as one
  for (std::size_t d = 0, to = 0; d < shape.size(); ++d) {
    if (d < start || d > end) {
      out_shape[to++] = shape[d];
    } else {
      merged *= shape[d];
      if (d == end) out_shape[to++] = merged;
    }
  }
  return view_strides("flatten()", shape, strides, describe(shape, strides),
                      Sizes(out_shape.data(), out_shape.size()), out_strides);
}

void unflatten_layout(Sizes shape, Sizes strides, index_t dim, Sizes sizes, SizesOut out_shape,
                      SizesOut out_strides) {
  const std::size_t d = wrap_dim(dim, shape.size());
  if (sizes.empty() || shape.empty()) throw_unflatten_rank(sizes, d);
  for (std::size_t from = 0, to = 0; from < shape.size(); ++from, ++to) {
    if (from == d)
      to += sizes.size() - 1;  // inferred_size writes these
    else
      out_shape[to] = shape[from];
  }
  const index_t size = shape[d];
  if (!inferred_size(sizes, size, out_shape.subspan(d, sizes.size()))) throw_unflatten_sizes(sizes, d, size);
  if (!view_strides("unflatten()", shape, strides, describe(shape, strides),
                    Sizes(out_shape.data(), out_shape.size()), out_strides))
    throw_view_incompatible();
}

index_t as_strided_layout(Sizes shape, Sizes strides, Sizes sizes, Sizes new_strides, index_t offset,
                          SizesOut out_shape, SizesOut out_strides) {
  if (sizes.size() != new_strides.size()) throw ValueError("mismatch in length of strides and shape");
  // One pass over the result's dimensions: its layout, whether anything is refused (checked
  // again, in PyTorch's order, by as_strided_reach), and the last element it reaches.
  bool refused = offset < 0, empty = false;
  index_t steps = 1, result_high = offset;
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    out_shape[d] = sizes[d];
    out_strides[d] = new_strides[d];
    index_t step = 0;
    refused = refused || sizes[d] < 0 || new_strides[d] < 0 ||
              mul_overflows(steps, std::max(sizes[d], index_t{1}), steps) ||
              mul_overflows(sizes[d] - 1, new_strides[d], step) || add_overflows(result_high, step, result_high);
    empty = empty || sizes[d] == 0;
  }
  if (refused) result_high = as_strided_reach(sizes, new_strides, offset);
  // The elements the source reaches, relative to its first element: [low, high].
  index_t low = 0, high = -1;
  if (numel(shape) != 0) {
    const ElementReach reach = element_reach(shape, strides);
    low = -reach.below;
    high = reach.above;
  }
  const bool inside = empty ? offset <= high + 1 : offset >= low && result_high <= high;
  if (!inside) throw_as_strided_outside(offset, empty ? offset : result_high, low, high);
  return offset;
}

void view_as_real_layout(Sizes shape, Sizes strides, DType from, SizesOut out_shape, SizesOut out_strides) {
  if (!is_complex(from))
    throw TypeError(concat("view_as_real is only supported for complex tensors, but got a tensor of dtype ", from));
  for (std::size_t d = 0; d < shape.size(); ++d) {
    out_shape[d] = shape[d];
    out_strides[d] = checked_mul(strides[d], 2);
  }
  out_shape[shape.size()] = 2;
  out_strides[shape.size()] = 1;
  // Twice the source's elements, whose count a broadcast source may leave no room for.
  (void)checked_numel(Sizes(out_shape.data(), out_shape.size()), 1, "view_as_real()");
}

void view_as_complex_layout(Sizes shape, Sizes strides, DType from, const void* address, SizesOut out_shape,
                            SizesOut out_strides) {
  const DType to = complex_dtype(from);
  if (to == from)
    throw TypeError(concat("view_as_complex is only supported for half, float and double tensors, but got a tensor "
                           "of dtype ", from));
  if (shape.empty()) throw ValueError("Input tensor must have one or more dimensions");
  const std::size_t last = shape.size() - 1;
  if (shape[last] != 2) throw ValueError("Tensor must have a last dimension of size 2");
  if (strides[last] != 1) throw ValueError("Tensor must have a last dimension with stride 1");
  for (std::size_t d = 0; d < last; ++d) {
    if (strides[d] % 2 != 0) throw ValueError("Tensor must have a stride divisible by 2 for all but last dimension");
    out_shape[d] = shape[d];
    out_strides[d] = strides[d] / 2;
  }
  if (!is_aligned(address, to))
    throw ValueError(concat("view_as_complex: the data address ", address, " must be aligned to ", alignment(to),
                            " bytes for ", to));
}

Pieces split_pieces(Sizes shape, index_t split_size, index_t dim) {
  if (shape.empty()) throw ValueError("split expects at least a 1-dimensional tensor");
  if (split_size < 0)
    throw ValueError(concat("split expects split_size be non-negative, but got split_size=", split_size));
  const std::size_t d = wrap_dim(dim, shape.size());
  const index_t size = shape[d];
  if (split_size == 0 && size != 0)
    throw ValueError(concat("split_size can only be 0 if dimension size is 0, but got dimension size of ", size));
  const std::size_t count = size == 0 ? 1 : std::size_t(size / split_size + (size % split_size != 0));
  return Pieces{d, count, split_size, size, {}};
}

Pieces split_pieces(Sizes shape, Sizes split_sizes, index_t dim) {
  if (shape.empty()) throw ValueError("split expects at least a 1-dimensional tensor");
  const std::size_t d = wrap_dim(dim, shape.size());
  Pieces result{d, split_sizes.size(), 0, 0, {}};
  result.listed.reserve(split_sizes.size());
  index_t start = 0;
  for (index_t length : split_sizes) {
    if (length < 0)
      throw ValueError(concat("split_with_sizes expects split_sizes have only non-negative entries, but got "
                              "split_sizes=",
                              bracketed(split_sizes)));
    result.listed.push_back({start, length});
    if (add_overflows(start, length, start)) start = -1;  // no sum that overflows matches a size
  }
  if (start != shape[d])
    throw ValueError(concat("split_with_sizes expects split_sizes to sum exactly to ", shape[d],
                            " (input tensor's size at dimension ", d, "), but got split_sizes=",
                            bracketed(split_sizes)));
  return result;
}

Pieces chunk_pieces(Sizes shape, index_t chunks, index_t dim) {
  if (shape.empty()) throw ValueError("chunk expects at least a 1-dimensional tensor");
  if (chunks <= 0) throw ValueError(concat("chunk expects `chunks` to be greater than 0, got: ", chunks));
  const std::size_t d = wrap_dim(dim, shape.size());
  const index_t size = shape[d];
  if (size == 0) return Pieces{d, std::size_t(chunks), 0, 0, {}};
  return split_pieces(shape, size / chunks + (size % chunks != 0), index_t(d));
}

Pieces tensor_split_pieces(Sizes shape, index_t sections, index_t dim) {
  if (shape.empty())
    throw ValueError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims");
  const std::size_t d = wrap_dim(dim, shape.size());
  if (sections <= 0) throw ValueError(concat("number of sections must be larger than 0, got ", sections));
  const index_t size = shape[d], base = size / sections, extra = size % sections;
  Pieces result{d, std::size_t(sections), 0, 0, {}};
  result.listed.reserve(std::size_t(sections));
  index_t start = 0;
  for (index_t i = 0; i < sections; ++i) {
    const index_t length = base + (i < extra ? 1 : 0);
    result.listed.push_back({start, length});
    start += length;
  }
  return result;
}

Pieces tensor_split_pieces(Sizes shape, Sizes indices, index_t dim) {
  if (shape.empty())
    throw ValueError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims");
  const std::size_t d = wrap_dim(dim, shape.size());
  const index_t size = shape[d];
  // Each piece is slice(dim, previous index, index): Python's clamping, empty when reversed.
  const auto clamp = [size](index_t index) {
    if (index < 0) index += size;
    return index < 0 ? 0 : (index > size ? size : index);
  };
  Pieces result{d, indices.size() + 1, 0, 0, {}};
  result.listed.reserve(indices.size() + 1);
  index_t start = 0;
  for (std::size_t i = 0; i <= indices.size(); ++i) {
    const index_t end = i < indices.size() ? clamp(indices[i]) : size;
    const index_t first = clamp(start);
    result.listed.push_back({first, end > first ? end - first : 0});
    if (i < indices.size()) start = indices[i];
  }
  return result;
}

std::size_t unbind_dim(Sizes shape, index_t dim) {
  if (shape.empty()) throw IndexError("Dimension specified as 0 but tensor has no dimensions");
  return wrap_dim(dim, shape.size());
}

}  // namespace zt::detail
