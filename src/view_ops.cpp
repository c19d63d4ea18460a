// AnyTensor's view operations: the layouts of detail/view_layout.hpp, each result built by
// detail::make_view with this tensor's owner, device and writability.
#include <utility>

#include "zerotensor/any_tensor.hpp"
#include "zerotensor/detail/view_layout.hpp"

namespace zt {

namespace {

using detail::Sizes;
using detail::SizesOut;

/// `tensor`'s memory `offset` elements on, as a byte address (overflow-checked).
void* element_address(const AnyTensor& tensor, index_t offset) {
  const index_t bytes = detail::checked_mul(offset, index_t(tensor.itemsize()));
  return const_cast<char*>(static_cast<const char*>(tensor.data_ptr())) + bytes;
}

/// A view of `tensor`'s memory with the layout of `layout`, as `dtype`.
AnyTensor from_layout(const AnyTensor& tensor, detail::Layout&& layout, DType dtype) {
  KeepAlive owner = tensor.owner();
  return detail::make_view(dtype, element_address(tensor, layout.offset), layout.shape.span(), layout.strides.span(),
                           std::move(owner), tensor.device(), tensor.is_writable());
}
AnyTensor from_layout(const AnyTensor& tensor, detail::Layout&& layout) {
  return from_layout(tensor, std::move(layout), tensor.dtype());
}

/// A view of rank `rank` whose layout `write(shape, strides)` writes, returning its first
/// element in elements from `tensor`'s.
template <class Write>
AnyTensor derive(const AnyTensor& tensor, std::size_t rank, Write&& write) {
  detail::Layout layout{DynamicExtents(rank, 0), DynamicExtents(rank, 0), 0};
  layout.offset = write(SizesOut(layout.shape.data(), rank), SizesOut(layout.strides.data(), rank));
  return from_layout(tensor, std::move(layout));
}

/// The same rank, the same first element.
template <class Write>
AnyTensor same_rank(const AnyTensor& tensor, Write&& write) {
  return derive(tensor, tensor.rank(), [&](SizesOut shape, SizesOut strides) {
    write(shape, strides);
    return index_t{0};
  });
}

std::vector<AnyTensor> narrow_pieces(const AnyTensor& tensor, const detail::Pieces& split) {
  std::vector<AnyTensor> out;
  out.reserve(split.pieces.size());
  for (const detail::Piece& piece : split.pieces) out.push_back(tensor.narrow(index_t(split.dim), piece.start, piece.length));
  return out;
}

}  // namespace

namespace detail {

ContiguousCopy contiguous_copy(DType dtype, const void* data, Sizes shape, Sizes strides, const KeepAlive& owner,
                               Device device) {
  KeepAlive source_owner = owner;
  const AnyTensor copy =
      make_view(dtype, const_cast<void*>(data), shape, strides, std::move(source_owner), device, false).clone();
  return ContiguousCopy{const_cast<void*>(copy.data_ptr()), copy.owner(), copy.device()};
}

}  // namespace detail

AnyTensor AnyTensor::narrow(index_t dim, index_t start, index_t length) const {
  return derive(*this, rank(), [&](SizesOut shape, SizesOut strides) {
    return detail::narrow_layout(shape_.span(), strides_.span(), dim, start, length, shape, strides);
  });
}

AnyTensor AnyTensor::slice(index_t dim, std::optional<index_t> start, std::optional<index_t> end, index_t step) const {
  return derive(*this, rank(), [&](SizesOut shape, SizesOut strides) {
    return detail::slice_layout(shape_.span(), strides_.span(), dim, start, end, step, shape, strides);
  });
}

AnyTensor AnyTensor::select(index_t dim, index_t index) const {
  // A rank-0 tensor gets select_layout's error before the result's rank is needed.
  return derive(*this, rank() == 0 ? 0 : rank() - 1, [&](SizesOut shape, SizesOut strides) {
    return detail::select_layout(shape_.span(), strides_.span(), dim, index, shape, strides);
  });
}

AnyTensor AnyTensor::transpose(index_t dim0, index_t dim1) const {
  return same_rank(*this, [&](SizesOut shape, SizesOut strides) {
    detail::transpose_layout(shape_.span(), strides_.span(), dim0, dim1, shape, strides);
  });
}

AnyTensor AnyTensor::permute(List dims) const {
  return same_rank(*this, [&](SizesOut shape, SizesOut strides) {
    detail::permute_layout(shape_.span(), strides_.span(), dims, shape, strides);
  });
}

AnyTensor AnyTensor::movedim(index_t source, index_t destination) const {
  return same_rank(*this, [&](SizesOut shape, SizesOut strides) {
    detail::movedim_layout(shape_.span(), strides_.span(), source, destination, shape, strides);
  });
}

AnyTensor AnyTensor::movedim(List sources, List destinations) const {
  return same_rank(*this, [&](SizesOut shape, SizesOut strides) {
    detail::movedim_layout(shape_.span(), strides_.span(), sources, destinations, shape, strides);
  });
}

AnyTensor AnyTensor::t() const {
  return same_rank(*this, [&](SizesOut shape, SizesOut strides) {
    detail::t_layout(shape_.span(), strides_.span(), shape, strides);
  });
}

AnyTensor AnyTensor::mT() const {
  return same_rank(*this, [&](SizesOut shape, SizesOut strides) {
    detail::matrix_transpose_layout("mT", shape_.span(), strides_.span(), shape, strides);
  });
}

AnyTensor AnyTensor::mH() const {
  if (is_complex(dtype_)) detail::throw_conjugate_view("mH", dtype_);
  return same_rank(*this, [&](SizesOut shape, SizesOut strides) {
    detail::matrix_transpose_layout("mH", shape_.span(), strides_.span(), shape, strides);
  });
}

AnyTensor AnyTensor::adjoint() const {
  if (is_complex(dtype_)) detail::throw_conjugate_view("adjoint()", dtype_);
  return same_rank(*this, [&](SizesOut shape, SizesOut strides) {
    detail::matrix_transpose_layout("adjoint()", shape_.span(), strides_.span(), shape, strides);
  });
}

AnyTensor AnyTensor::squeeze() const { return from_layout(*this, detail::squeeze_layout(shape_.span(), strides_.span())); }

AnyTensor AnyTensor::squeeze(List dims) const {
  return from_layout(*this, detail::squeeze_layout(shape_.span(), strides_.span(), dims));
}

AnyTensor AnyTensor::unsqueeze(index_t dim) const {
  return derive(*this, rank() + 1, [&](SizesOut shape, SizesOut strides) {
    detail::unsqueeze_layout(shape_.span(), strides_.span(), dim, shape, strides);
    return index_t{0};
  });
}

AnyTensor AnyTensor::expand(List sizes) const {
  return derive(*this, sizes.size(), [&](SizesOut shape, SizesOut strides) {
    detail::expand_layout(shape_.span(), strides_.span(), sizes, shape, strides);
    return index_t{0};
  });
}

AnyTensor AnyTensor::view(List sizes) const {
  return from_layout(*this, detail::view_layout(shape_.span(), strides_.span(), sizes));
}

AnyTensor AnyTensor::reshape(List sizes) const {
  DynamicExtents inferred = detail::infer_size(sizes, numel());
  if (std::optional<DynamicExtents> strides = detail::view_strides(shape_.span(), strides_.span(), inferred.span()))
    return from_layout(*this, detail::Layout{std::move(inferred), std::move(*strides), 0});
  return clone().view(inferred.span());
}

AnyTensor AnyTensor::flatten(index_t start_dim, index_t end_dim) const {
  return reshape(detail::flatten_shape(shape_.span(), start_dim, end_dim).span());
}

AnyTensor AnyTensor::unflatten(index_t dim, List sizes) const {
  return view(detail::unflatten_shape(shape_.span(), dim, sizes).span());
}

AnyTensor AnyTensor::diagonal(index_t offset, index_t dim1, index_t dim2) const {
  // Ranks below 2 get diagonal_layout's error before the result's rank is needed.
  return derive(*this, rank() < 2 ? 0 : rank() - 1, [&](SizesOut shape, SizesOut strides) {
    return detail::diagonal_layout(shape_.span(), strides_.span(), offset, dim1, dim2, shape, strides);
  });
}

AnyTensor AnyTensor::unfold(index_t dim, index_t size, index_t step) const {
  return derive(*this, rank() + 1, [&](SizesOut shape, SizesOut strides) {
    detail::unfold_layout(shape_.span(), strides_.span(), dim, size, step, shape, strides);
    return index_t{0};
  });
}

AnyTensor AnyTensor::as_strided(List size, List stride, std::optional<index_t> storage_offset) const {
  return from_layout(*this, detail::as_strided_layout(shape_.span(), strides_.span(), size, stride, storage_offset));
}

std::vector<AnyTensor> AnyTensor::chunk(index_t chunks, index_t dim) const {
  return narrow_pieces(*this, detail::chunk_pieces(shape_.span(), chunks, dim));
}

std::vector<AnyTensor> AnyTensor::split(index_t split_size, index_t dim) const {
  return narrow_pieces(*this, detail::split_pieces(shape_.span(), split_size, dim));
}

std::vector<AnyTensor> AnyTensor::split(List split_sizes, index_t dim) const {
  return narrow_pieces(*this, detail::split_pieces(shape_.span(), split_sizes, dim));
}

std::vector<AnyTensor> AnyTensor::tensor_split(index_t sections, index_t dim) const {
  return narrow_pieces(*this, detail::tensor_split_pieces(shape_.span(), sections, dim));
}

std::vector<AnyTensor> AnyTensor::tensor_split(List indices, index_t dim) const {
  return narrow_pieces(*this, detail::tensor_split_pieces(shape_.span(), indices, dim));
}

std::vector<AnyTensor> AnyTensor::unbind(index_t dim) const {
  const std::size_t d = detail::unbind_dim(shape_.span(), dim);
  std::vector<AnyTensor> out;
  out.reserve(std::size_t(shape_[d]));
  for (index_t i = 0; i < shape_[d]; ++i) out.push_back(select(index_t(d), i));
  return out;
}

AnyTensor AnyTensor::view(DType dtype) const {
  return from_layout(*this, detail::view_dtype_layout(shape_.span(), strides_.span(), dtype_, dtype, data_), dtype);
}

AnyTensor AnyTensor::view_as_real() const {
  const DType part = dtype_ == complex128 ? float64 : float32;
  return from_layout(*this, detail::view_as_real_layout(shape_.span(), strides_.span(), dtype_), part);
}

AnyTensor AnyTensor::view_as_complex() const {
  const DType whole = dtype_ == float64 ? complex128 : complex64;
  return from_layout(*this, detail::view_as_complex_layout(shape_.span(), strides_.span(), dtype_, data_), whole);
}

}  // namespace zt
