// AnyTensor's view operations: the layouts of detail/view_layout.hpp, each written by
// AnyTensor::derive into a result with this tensor's owner, device and writability.
#include <type_traits>
#include <utility>
#include <vector>

#include "zerotensor/any_tensor.hpp"
#include "zerotensor/detail/view_layout.hpp"

namespace zt {

namespace {

using detail::Sizes;
using detail::SizesOut;

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

template <class Write>
AnyTensor AnyTensor::derive(std::size_t rank, DType dtype, Write&& write) const {
  AnyTensor view(dtype, data_, rank, owner_, device_, writable_);
  const SizesOut shape(view.shape_.data(), rank), strides(view.strides_.data(), rank);
  if constexpr (std::is_void_v<decltype(write(shape, strides))>)
    write(shape, strides);
  else
    view.data_ = detail::element_address(data_, write(shape, strides), itemsize());
  return view;
}

AnyTensor AnyTensor::narrow(index_t dim, index_t start, index_t length) const {
  return derive(rank(), dtype_, [&](SizesOut shape, SizesOut strides) {
    return detail::narrow_layout(shape_.span(), strides_.span(), dim, start, length, shape, strides);
  });
}

AnyTensor AnyTensor::slice(index_t dim, std::optional<index_t> start, std::optional<index_t> end, index_t step) const {
  return derive(rank(), dtype_, [&](SizesOut shape, SizesOut strides) {
    return detail::slice_layout(shape_.span(), strides_.span(), dim, start, end, step, shape, strides);
  });
}

AnyTensor AnyTensor::select(index_t dim, index_t index) const {
  // A rank-0 tensor gets select_layout's error before the result's rank is needed.
  return derive(rank() == 0 ? 0 : rank() - 1, dtype_, [&](SizesOut shape, SizesOut strides) {
    return detail::select_layout(shape_.span(), strides_.span(), dim, index, shape, strides);
  });
}

AnyTensor AnyTensor::transpose(index_t dim0, index_t dim1) const {
  return derive(rank(), dtype_, [&](SizesOut shape, SizesOut strides) {
    detail::transpose_layout(shape_.span(), strides_.span(), dim0, dim1, shape, strides);
  });
}

AnyTensor AnyTensor::permute(List dims) const {
  return derive(rank(), dtype_, [&](SizesOut shape, SizesOut strides) {
    detail::permute_layout(shape_.span(), strides_.span(), dims, shape, strides);
  });
}

AnyTensor AnyTensor::movedim(index_t source, index_t destination) const {
  return derive(rank(), dtype_, [&](SizesOut shape, SizesOut strides) {
    detail::movedim_layout(shape_.span(), strides_.span(), source, destination, shape, strides);
  });
}

AnyTensor AnyTensor::movedim(List sources, List destinations) const {
  return derive(rank(), dtype_, [&](SizesOut shape, SizesOut strides) {
    detail::movedim_layout(shape_.span(), strides_.span(), sources, destinations, shape, strides);
  });
}

AnyTensor AnyTensor::t() const {
  return derive(rank(), dtype_, [&](SizesOut shape, SizesOut strides) {
    detail::t_layout(shape_.span(), strides_.span(), shape, strides);
  });
}

AnyTensor AnyTensor::mT() const {
  return derive(rank(), dtype_, [&](SizesOut shape, SizesOut strides) {
    detail::matrix_transpose_layout("mT", shape_.span(), strides_.span(), shape, strides);
  });
}

AnyTensor AnyTensor::mH() const {
  if (is_complex(dtype_)) detail::throw_conjugate_view("mH", dtype_);
  return derive(rank(), dtype_, [&](SizesOut shape, SizesOut strides) {
    detail::matrix_transpose_layout("mH", shape_.span(), strides_.span(), shape, strides);
  });
}

AnyTensor AnyTensor::adjoint() const {
  if (is_complex(dtype_)) detail::throw_conjugate_view("adjoint()", dtype_);
  return derive(rank(), dtype_, [&](SizesOut shape, SizesOut strides) {
    detail::matrix_transpose_layout("adjoint()", shape_.span(), strides_.span(), shape, strides);
  });
}

AnyTensor AnyTensor::squeeze() const {
  return derive(detail::squeeze_rank(shape_.span(), std::nullopt), dtype_, [&](SizesOut shape, SizesOut strides) {
    detail::squeeze_layout(shape_.span(), strides_.span(), std::nullopt, shape, strides);
  });
}

AnyTensor AnyTensor::squeeze(List dims) const {
  return derive(detail::squeeze_rank(shape_.span(), dims), dtype_, [&](SizesOut shape, SizesOut strides) {
    detail::squeeze_layout(shape_.span(), strides_.span(), dims, shape, strides);
  });
}

AnyTensor AnyTensor::unsqueeze(index_t dim) const {
  return derive(rank() + 1, dtype_, [&](SizesOut shape, SizesOut strides) {
    detail::unsqueeze_layout(shape_.span(), strides_.span(), dim, shape, strides);
  });
}

AnyTensor AnyTensor::expand(List sizes) const {
  return derive(sizes.size(), dtype_, [&](SizesOut shape, SizesOut strides) {
    detail::expand_layout(shape_.span(), strides_.span(), sizes, shape, strides);
  });
}

AnyTensor AnyTensor::view(List sizes) const {
  return derive(sizes.size(), dtype_, [&](SizesOut shape, SizesOut strides) {
    detail::view_layout(shape_.span(), strides_.span(), sizes, shape, strides);
  });
}

AnyTensor AnyTensor::reshape(List sizes) const {
  bool viewed = true;
  AnyTensor view = derive(sizes.size(), dtype_, [&](SizesOut shape, SizesOut strides) {
    viewed = detail::reshape_layout(shape_.span(), strides_.span(), sizes, shape, strides);
  });
  if (!viewed) view = clone().view(sizes);
  return view;
}

AnyTensor AnyTensor::flatten(index_t start_dim, index_t end_dim) const {
  bool viewed = true;
  AnyTensor view = derive(detail::flatten_rank(shape_.span(), start_dim, end_dim), dtype_,
                          [&](SizesOut shape, SizesOut strides) {
                            viewed = detail::flatten_layout(shape_.span(), strides_.span(), start_dim, end_dim, shape,
                                                            strides);
                          });
  if (!viewed) view = clone().flatten(start_dim, end_dim);
  return view;
}

AnyTensor AnyTensor::unflatten(index_t dim, List sizes) const {
  return derive(rank() == 0 ? 0 : rank() - 1 + sizes.size(), dtype_, [&](SizesOut shape, SizesOut strides) {
    detail::unflatten_layout(shape_.span(), strides_.span(), dim, sizes, shape, strides);
  });
}

AnyTensor AnyTensor::diagonal(index_t offset, index_t dim1, index_t dim2) const {
  // Ranks below 2 get diagonal_layout's error before the result's rank is needed.
  return derive(rank() < 2 ? 0 : rank() - 1, dtype_, [&](SizesOut shape, SizesOut strides) {
    return detail::diagonal_layout(shape_.span(), strides_.span(), offset, dim1, dim2, shape, strides);
  });
}

AnyTensor AnyTensor::unfold(index_t dim, index_t size, index_t step) const {
  return derive(rank() + 1, dtype_, [&](SizesOut shape, SizesOut strides) {
    detail::unfold_layout(shape_.span(), strides_.span(), dim, size, step, shape, strides);
  });
}

AnyTensor AnyTensor::as_strided(List size, List stride, index_t storage_offset) const {
  return derive(size.size(), dtype_, [&](SizesOut shape, SizesOut strides) {
    return detail::as_strided_layout(shape_.span(), strides_.span(), size, stride, storage_offset, shape, strides);
  });
}

std::vector<AnyTensor> AnyTensor::chunk(index_t chunks, index_t dim) const {
  return pieces(detail::chunk_pieces(shape_.span(), chunks, dim));
}

std::vector<AnyTensor> AnyTensor::split(index_t split_size, index_t dim) const {
  return pieces(detail::split_pieces(shape_.span(), split_size, dim));
}

std::vector<AnyTensor> AnyTensor::split(List split_sizes, index_t dim) const {
  return pieces(detail::split_pieces(shape_.span(), split_sizes, dim));
}

std::vector<AnyTensor> AnyTensor::tensor_split(index_t sections, index_t dim) const {
  return pieces(detail::tensor_split_pieces(shape_.span(), sections, dim));
}

std::vector<AnyTensor> AnyTensor::tensor_split(List indices, index_t dim) const {
  return pieces(detail::tensor_split_pieces(shape_.span(), indices, dim));
}

std::vector<AnyTensor> AnyTensor::unbind(index_t dim) const {
  const std::size_t d = detail::unbind_dim(shape_.span(), dim);
  std::vector<AnyTensor> out;
  out.reserve(std::size_t(shape_[d]));
  for (index_t i = 0; i < shape_[d]; ++i) {
    out.push_back(derive(rank() - 1, dtype_, [&](SizesOut shape, SizesOut strides) {
      return detail::selected_layout(shape_.span(), strides_.span(), d, i, shape, strides);
    }));
  }
  return out;
}

std::vector<AnyTensor> AnyTensor::pieces(const detail::Pieces& split) const {
  std::vector<AnyTensor> out;
  out.reserve(split.count);
  for (std::size_t i = 0; i < split.count; ++i) {
    const detail::Piece piece = split[i];
    out.push_back(derive(rank(), dtype_, [&](SizesOut shape, SizesOut strides) {
      return detail::narrowed_layout(shape_.span(), strides_.span(), split.dim, piece.start, piece.length, shape,
                                     strides);
    }));
  }
  return out;
}

AnyTensor AnyTensor::view(DType dtype) const {
  const auto write = [&](SizesOut shape, SizesOut strides) {
    detail::view_dtype_layout(shape_.span(), strides_.span(), dtype_, dtype, data_, shape, strides);
  };
  return derive(rank(), dtype, write);
}

AnyTensor AnyTensor::view_as_real() const {
  const DType part = real_dtype(dtype_);
  const auto write = [&](SizesOut shape, SizesOut strides) {
    detail::view_as_real_layout(shape_.span(), strides_.span(), dtype_, shape, strides);
  };
  return derive(rank() + 1, part, write);
}

AnyTensor AnyTensor::view_as_complex() const {
  const DType whole = complex_dtype(dtype_);
  const auto write = [&](SizesOut shape, SizesOut strides) {
    detail::view_as_complex_layout(shape_.span(), strides_.span(), dtype_, data_, shape, strides);
  };
  return derive(rank() == 0 ? 0 : rank() - 1, whole, write);
}

}  // namespace zt
