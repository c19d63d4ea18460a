// zt::Tensor<T, Rank>: the compile-time typed view. A pointer, a shape, strides in
// elements, a device and a shared keep-alive handle. Copying a Tensor copies the view,
// never the data. `const T` marks read-only memory: writing through it does not compile.
#pragma once

#include <array>
#include <cassert>
#include <cstdlib>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>
#include <variant>

#include <Eigen/Core>

#include "zerotensor/buffer.hpp"
#include "zerotensor/detail/view_layout.hpp"
#include "zerotensor/device.hpp"
#include "zerotensor/dtype.hpp"
#include "zerotensor/error.hpp"
#include "zerotensor/export.hpp"
#include "zerotensor/extents.hpp"
#include "zerotensor/shape.hpp"

namespace zt {

namespace detail {

/// "float32, shape (4, 4), strides (4, 1), cpu" — the found half of a mismatch message.
ZT_API std::string describe(DType dtype, std::span<const index_t> shape, std::span<const index_t> strides,
                            Device device, bool writable);

[[noreturn]] ZT_API void throw_not_host_accessible(const char* operation, Device device);
[[noreturn]] ZT_API void throw_rank_mismatch(const char* operation, std::size_t expected, std::size_t found);
[[noreturn]] ZT_API void throw_not_contiguous(const char* operation, std::span<const index_t> shape,
                                              std::span<const index_t> strides);
/// "<operation>: expected <expected>; got shape (...), strides (...)".
[[noreturn]] ZT_API void throw_layout_mismatch(const char* operation, const char* expected,
                                               std::span<const index_t> shape, std::span<const index_t> strides);
[[noreturn]] ZT_API void throw_index_out_of_range(index_t index, std::size_t dim, index_t extent);

/// Eigen::TensorMap views of typed views: declared here, defined by
/// <zerotensor/eigen_tensor.hpp>, so that only code asking for tensor() compiles Eigen's
/// Tensor module.
template <class Element, class = void>
struct EigenTensorViews {
  static_assert(sizeof(Element) == 0,
                "zt::Tensor::tensor(): #include <zerotensor/eigen_tensor.hpp> (Eigen's Tensor module) for "
                "Eigen::TensorMap views.");
};

/// True when a rank-2 view is stored as Eigen's `OuterStride<>` maps expect: its inner
/// dimension steps one element at a time and its outer dimension by at least a whole inner
/// run (no overlap, no negative step). The stride of an extent-1 dimension never matters.
constexpr bool has_unit_inner_stride(index_t inner_extent, index_t inner_stride, index_t outer_extent,
                                     index_t outer_stride) noexcept {
  return (inner_extent <= 1 || inner_stride == 1) && (outer_extent <= 1 || outer_stride >= inner_extent);
}

/// The outer stride an `OuterStride<>` map is given: a single outer index never steps, so
/// its stride (any value) becomes the packed one.
constexpr index_t packed_outer_stride(index_t inner_extent, index_t outer_extent, index_t outer_stride) noexcept {
  return outer_extent <= 1 ? inner_extent : outer_stride;
}

/// Converts between static and dynamic extents; the ranks are known to agree.
template <class Shape>
Shape to_extents(std::span<const index_t> values) noexcept(!std::is_same_v<Shape, DynamicExtents>) {
  if constexpr (std::is_same_v<Shape, DynamicExtents>) {
    return DynamicExtents(values);
  } else {
    Shape out{};
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = values[i];
    return out;
  }
}

}  // namespace detail

class AnyTensor;

/// What `view.matrix()` returns for a rank-2 `Tensor` view, in matrix()'s order of
/// preference: C order, Fortran order, then both strides at run time, stored along the
/// smaller stride.
template <class View>
using AnyMatrixMap = std::variant<typename View::RowMajorMatrixMap, typename View::ColumnMajorMatrixMap,
                                  typename View::template StridedMatrixMap<Eigen::RowMajor>,
                                  typename View::template StridedMatrixMap<Eigen::ColMajor>>;

template <class T, std::size_t Rank = dynamic>
class Tensor {
  static_assert(Element<T>,
                "zt::Tensor<T>: T must be one of the element types (bool, the 8 integer types, "
                "Eigen::half, Eigen::bfloat16, float, double, std::complex<float>, "
                "std::complex<double>, the zt::float8_* types, zt::complex32, the packed zt::float4/6 "
                "types), optionally const.");
  static_assert(!std::is_volatile_v<T>, "zt::Tensor<T>: volatile element types are not supported.");

  template <class Plain>
  using MapTarget = std::conditional_t<std::is_const_v<T>, const Plain, Plain>;

 public:
  using element_type = T;
  using value_type = std::remove_const_t<T>;
  using extents_type = Extents<Rank>;
  static constexpr std::size_t static_rank = Rank;

  using ArrayMap = Eigen::Map<MapTarget<Eigen::Array<value_type, Eigen::Dynamic, 1>>>;
  using StridedArrayMap = Eigen::Map<MapTarget<Eigen::Array<value_type, Eigen::Dynamic, 1>>,
                                     Eigen::Unaligned, Eigen::InnerStride<>>;
  /// Rank 1: a column vector, inner stride 1 at compile time (vectorised), or strided.
  using VectorMap = Eigen::Map<MapTarget<Eigen::Matrix<value_type, Eigen::Dynamic, 1>>>;
  using StridedVectorMap = Eigen::Map<MapTarget<Eigen::Matrix<value_type, Eigen::Dynamic, 1>>,
                                      Eigen::Unaligned, Eigen::InnerStride<>>;
  /// Rank 2: C order (rows of unit stride) and Fortran order (columns of unit stride) keep
  /// the inner stride 1 at compile time, which Eigen's GEMV/GEMM kernels need; any other
  /// layout is a map with both strides at run time, in either storage order.
  template <int StorageOrder, class Stride>
  using MatrixMapOf = Eigen::Map<MapTarget<Eigen::Matrix<value_type, Eigen::Dynamic, Eigen::Dynamic, StorageOrder>>,
                                 Eigen::Unaligned, Stride>;
  using RowMajorMatrixMap = MatrixMapOf<Eigen::RowMajor, Eigen::OuterStride<>>;
  using ColumnMajorMatrixMap = MatrixMapOf<Eigen::ColMajor, Eigen::OuterStride<>>;
  template <int StorageOrder = Eigen::RowMajor>
  using StridedMatrixMap = MatrixMapOf<StorageOrder, Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>>;

  /// A view over memory the caller vouches for: `shape` and `strides` (in elements) must
  /// stay inside it and `owner` (empty: borrowed) must keep it alive. The constructor
  /// functions (frombuffer, asarray, ...) validate and then build through this.
  Tensor(T* data, extents_type shape, extents_type strides, KeepAlive owner = {},
         Device device = cpu) noexcept
      : data_(data), shape_(std::move(shape)), strides_(std::move(strides)), device_(device),
        owner_(std::move(owner)) {}

  /// Adds const, or forgets a static rank; both implicit. Recovering a static rank from a
  /// dynamic one is explicit and checked (ValueError on a different rank).
  template <class U, std::size_t R>
    requires std::is_convertible_v<U (*)[], T (*)[]> &&
             (R == Rank || Rank == dynamic || R == dynamic)
  explicit(R == dynamic && Rank != dynamic) Tensor(const Tensor<U, R>& other)
      : data_(other.data()),
        shape_(detail::to_extents<extents_type>(checked_rank(other.shape()))),
        strides_(detail::to_extents<extents_type>(other.strides())),
        device_(other.device()),
        owner_(other.owner()) {}

  [[nodiscard]] T* data() const noexcept { return data_; }
  [[nodiscard]] const extents_type& shape() const noexcept { return shape_; }
  [[nodiscard]] const extents_type& strides() const noexcept { return strides_; }
  [[nodiscard]] index_t size(std::size_t dim) const noexcept { return shape_[dim]; }
  [[nodiscard]] index_t stride(std::size_t dim) const noexcept { return strides_[dim]; }
  [[nodiscard]] std::size_t rank() const noexcept { return shape_.size(); }
  [[nodiscard]] index_t numel() const noexcept { return detail::numel(shape_); }
  [[nodiscard]] std::size_t nbytes() const noexcept { return std::size_t(numel()) * sizeof(T); }
  [[nodiscard]] bool is_contiguous() const noexcept { return detail::is_contiguous(shape_, strides_); }
  [[nodiscard]] Device device() const noexcept { return device_; }
  [[nodiscard]] static constexpr DType dtype() noexcept { return dtype_of<T>; }
  /// The keep-alive handle; empty when the memory is borrowed.
  [[nodiscard]] const KeepAlive& owner() const noexcept { return owner_; }

  /// Unchecked element access (like Eigen's operator()); one index per dimension.
  template <std::integral... Index>
  [[nodiscard]] T& operator()(Index... index) const noexcept {
    static_assert(Rank == dynamic || sizeof...(Index) == Rank,
                  "zt::Tensor::operator(): give exactly one index per dimension of the tensor.");
    assert(sizeof...(Index) == rank());
    return data_[offset_of(index...)];
  }

  /// Checked element access: ValueError for a wrong index count or an index out of range,
  /// DeviceError for memory the host cannot touch. Negative indices are not wrapped.
  template <std::integral... Index>
  [[nodiscard]] T& at(Index... index) const {
    static_assert(Rank == dynamic || sizeof...(Index) == Rank,
                  "zt::Tensor::at(): give exactly one index per dimension of the tensor.");
    require_host("element access");
    if (sizeof...(Index) != rank()) detail::throw_rank_mismatch("at()", rank(), sizeof...(Index));
    const std::array<index_t, sizeof...(Index)> indices{index_t(index)...};
    for (std::size_t dim = 0; dim < indices.size(); ++dim) {
      if (indices[dim] < 0 || indices[dim] >= shape_[dim])
        detail::throw_index_out_of_range(indices[dim], dim, shape_[dim]);
    }
    return data_[offset_of(index...)];
  }

  /// Every element, flat in C order, as an Eigen array with inner stride 1 known at
  /// compile time: the vectorised fast path. Contiguous tensors only (ValueError otherwise;
  /// use strided_array() for a strided 1-D view).
  [[nodiscard]] ArrayMap array() const {
    require_host("array()");
    if (!is_contiguous()) detail::throw_not_contiguous("array()", shape_, strides_);
    return ArrayMap(data_, numel());
  }

  /// A rank-1 tensor with any stride (or any contiguous tensor, flat) as an Eigen array
  /// with a run-time inner stride. Eigen does not vectorise these.
  [[nodiscard]] StridedArrayMap strided_array() const {
    require_host("strided_array()");
    if (is_contiguous()) return StridedArrayMap(data_, numel(), Eigen::InnerStride<>(1));
    if (rank() != 1) detail::throw_not_contiguous("strided_array()", shape_, strides_);
    return StridedArrayMap(data_, shape_[0], Eigen::InnerStride<>(strides_[0]));
  }

  /// A rank-1 tensor of unit stride as an Eigen column vector with inner stride 1 known at
  /// compile time. ValueError for another stride (use strided_vector()) or rank.
  [[nodiscard]] VectorMap vector() const {
    static_assert(rank_may_be(1), "zt::Tensor::vector(): an Eigen vector needs a rank-1 tensor; use matrix() "
                                  "for rank 2, array() for every element of a contiguous tensor.");
    require_host_rank("vector()", 1);
    if (!is_contiguous()) detail::throw_not_contiguous("vector()", shape_, strides_);
    return VectorMap(data_, shape_[0]);
  }

  /// A rank-1 tensor with any stride as an Eigen column vector with a run-time inner stride.
  [[nodiscard]] StridedVectorMap strided_vector() const {
    static_assert(rank_may_be(1), "zt::Tensor::strided_vector(): an Eigen vector needs a rank-1 tensor.");
    require_host_rank("strided_vector()", 1);
    return StridedVectorMap(data_, shape_[0], Eigen::InnerStride<>(strides_[0]));
  }

  /// A rank-2 tensor as the Eigen map its strides allow, in this order of preference:
  /// row-major (C order), column-major (Fortran order: Eigen's own matrices, transposed C
  /// views), else both strides at run time, stored along the smaller stride so that
  /// Eigen's loops walk memory in order. Visit it so the product compiles for each:
  /// `std::visit([&](const auto& w) { y.noalias() = w * x; }, t.matrix());`
  [[nodiscard]] AnyMatrixMap<Tensor> matrix() const {
    static_assert(rank_may_be(2), "zt::Tensor::matrix(): an Eigen matrix needs a rank-2 tensor; use vector() "
                                  "for rank 1, tensor() for other ranks.");
    require_host_rank("matrix()", 2);
    if (rows_have_unit_stride()) return unchecked_row_major();
    if (columns_have_unit_stride()) return unchecked_column_major();
    if (std::abs(strides_[1]) <= std::abs(strides_[0])) return unchecked_strided<Eigen::RowMajor>();
    return unchecked_strided<Eigen::ColMajor>();
  }

  /// matrix() when the layout is known to be row-major: ValueError unless each row has
  /// unit stride and rows do not overlap (C order, or rows further apart).
  [[nodiscard]] RowMajorMatrixMap row_major_matrix() const {
    static_assert(rank_may_be(2), "zt::Tensor::row_major_matrix(): an Eigen matrix needs a rank-2 tensor.");
    require_host_rank("row_major_matrix()", 2);
    if (!rows_have_unit_stride())
      detail::throw_layout_mismatch("row_major_matrix()", "rows of unit stride (C order)", shape_, strides_);
    return unchecked_row_major();
  }

  /// matrix() when the layout is known to be column-major: ValueError unless each column
  /// has unit stride and columns do not overlap (Fortran order, a transposed C view).
  [[nodiscard]] ColumnMajorMatrixMap column_major_matrix() const {
    static_assert(rank_may_be(2), "zt::Tensor::column_major_matrix(): an Eigen matrix needs a rank-2 tensor.");
    require_host_rank("column_major_matrix()", 2);
    if (!columns_have_unit_stride())
      detail::throw_layout_mismatch("column_major_matrix()", "columns of unit stride (Fortran order)", shape_,
                                    strides_);
    return unchecked_column_major();
  }

  /// Any rank-2 tensor with both strides at run time, in the storage order asked for:
  /// every layout, without Eigen's vectorised kernels.
  template <int StorageOrder = Eigen::RowMajor>
  [[nodiscard]] StridedMatrixMap<StorageOrder> strided_matrix() const {
    static_assert(rank_may_be(2), "zt::Tensor::strided_matrix(): an Eigen matrix needs a rank-2 tensor.");
    require_host_rank("strided_matrix()", 2);
    return unchecked_strided<StorageOrder>();
  }

  /// A contiguous tensor as a row-major Eigen::TensorMap of rank `TensorRank`: the static
  /// rank, or named for a dynamic-rank tensor (`t.tensor<3>()`; ValueError when the rank
  /// differs). ValueError when not contiguous, DeviceError for memory the host cannot
  /// touch. Needs <zerotensor/eigen_tensor.hpp>.
  template <int TensorRank = (Rank == dynamic ? -1 : int(Rank)), class Views = detail::EigenTensorViews<T>>
    requires(TensorRank >= 0 && (Rank == dynamic || TensorRank == int(Rank)))
  [[nodiscard]] auto tensor() const {
    return Views::template map<TensorRank>(*this);
  }

  // --- Views: PyTorch's view operations, with its names, defaults, rules and messages
  // (detail/view_layout.hpp computes every layout). Each result shares this tensor's
  // memory, owner and device, and keeps `const T` const; a result's rank is static when
  // this rank is and the operation fixes it. IndexError for a dimension or index out of
  // range, ValueError for the rest, as PyTorch raises IndexError and RuntimeError.
  // Lists (sizes, dims, strides) are any contiguous range of index_t or a braced list.

  using List = std::span<const index_t>;
  using BracedList = std::initializer_list<index_t>;

  /// `length` elements of `dim` from `start` (negative `start` counts from the end).
  [[nodiscard]] Tensor narrow(index_t dim, index_t start, index_t length) const {
    return derive<Rank>(rank(), [&](auto shape, auto strides) {
      return detail::narrow_layout(shape_, strides_, dim, start, length, shape, strides);
    });
  }
  /// Python's `[start:end:step]` along `dim`, clamped as Python clamps; step > 0.
  [[nodiscard]] Tensor slice(index_t dim = 0, std::optional<index_t> start = {}, std::optional<index_t> end = {},
                             index_t step = 1) const {
    return derive<Rank>(rank(), [&](auto shape, auto strides) {
      return detail::slice_layout(shape_, strides_, dim, start, end, step, shape, strides);
    });
  }
  /// Index `index` of `dim`, which the result drops.
  [[nodiscard]] Tensor<T, detail::rank_minus(Rank, 1)> select(index_t dim, index_t index) const {
    static_assert(Rank != 0, "zt::Tensor::select(): a rank-0 tensor has no dimension to select from.");
    return derive<detail::rank_minus(Rank, 1)>(rank() == 0 ? 0 : rank() - 1, [&](auto shape, auto strides) {
      return detail::select_layout(shape_, strides_, dim, index, shape, strides);
    });
  }
  /// select(0, index).
  [[nodiscard]] Tensor<T, detail::rank_minus(Rank, 1)> operator[](index_t index) const {
    static_assert(Rank != 0, "zt::Tensor::operator[]: a rank-0 tensor has no dimension to index.");
    return select(0, index);
  }

  [[nodiscard]] Tensor transpose(index_t dim0, index_t dim1) const {
    return derive<Rank>(rank(), [&](auto shape, auto strides) {
      detail::transpose_layout(shape_, strides_, dim0, dim1, shape, strides);
    });
  }
  [[nodiscard]] Tensor swapaxes(index_t dim0, index_t dim1) const { return transpose(dim0, dim1); }
  [[nodiscard]] Tensor swapdims(index_t dim0, index_t dim1) const { return transpose(dim0, dim1); }
  /// Dimension i of the result is dimension dims[i] of this tensor.
  [[nodiscard]] Tensor permute(List dims) const {
    return derive<Rank>(rank(), [&](auto shape, auto strides) {
      detail::permute_layout(shape_, strides_, dims, shape, strides);
    });
  }
  [[nodiscard]] Tensor permute(BracedList dims) const { return permute(List(dims.begin(), dims.size())); }
  [[nodiscard]] Tensor movedim(index_t source, index_t destination) const {
    return derive<Rank>(rank(), [&](auto shape, auto strides) {
      detail::movedim_layout(shape_, strides_, source, destination, shape, strides);
    });
  }
  [[nodiscard]] Tensor movedim(List sources, List destinations) const {
    return derive<Rank>(rank(), [&](auto shape, auto strides) {
      detail::movedim_layout(shape_, strides_, sources, destinations, shape, strides);
    });
  }
  [[nodiscard]] Tensor movedim(BracedList sources, BracedList destinations) const {
    return movedim(List(sources.begin(), sources.size()), List(destinations.begin(), destinations.size()));
  }
  /// Rank 2 transposed; ranks 0 and 1 unchanged.
  [[nodiscard]] Tensor t() const {
    static_assert(Rank == dynamic || Rank <= 2, "zt::Tensor::t(): t() transposes a tensor of rank 2 or less; use "
                                                "mT() for the last two dimensions, transpose() for any two.");
    return derive<Rank>(rank(), [&](auto shape, auto strides) { detail::t_layout(shape_, strides_, shape, strides); });
  }
  /// The last two dimensions swapped (rank 2 or more; a rank-0 tensor stays as it is).
  [[nodiscard]] Tensor mT() const {
    static_assert(Rank != 1, "zt::Tensor::mT(): mT() swaps the last two dimensions of a tensor of rank 2 or more.");
    return derive<Rank>(rank(), [&](auto shape, auto strides) {
      detail::matrix_transpose_layout("mT", shape_, strides_, shape, strides);
    });
  }
  /// mT() for real element types; the conjugate transpose of a complex tensor is no view.
  [[nodiscard]] Tensor mH() const {
    static_assert(!detail::is_complex_element<value_type>,
                  "zt::Tensor::mH(): zerotensor has no lazy conjugation, so a complex tensor's conjugate transpose "
                  "is not a view; use mT() and conjugate a copy.");
    static_assert(Rank != 1, "zt::Tensor::mH(): mH() swaps the last two dimensions of a tensor of rank 2 or more.");
    return derive<Rank>(rank(), [&](auto shape, auto strides) {
      detail::matrix_transpose_layout("mH", shape_, strides_, shape, strides);
    });
  }
  [[nodiscard]] Tensor adjoint() const {
    static_assert(!detail::is_complex_element<value_type>,
                  "zt::Tensor::adjoint(): zerotensor has no lazy conjugation, so a complex tensor's conjugate "
                  "transpose is not a view; use mT() and conjugate a copy.");
    static_assert(Rank != 1, "zt::Tensor::adjoint(): adjoint() swaps the last two dimensions of a tensor of rank 2 "
                             "or more.");
    return derive<Rank>(rank(), [&](auto shape, auto strides) {
      detail::matrix_transpose_layout("adjoint()", shape_, strides_, shape, strides);
    });
  }

  /// Every extent-1 dimension dropped; or `dim`'s, or those of `dims`, when extent 1.
  [[nodiscard]] Tensor<T> squeeze() const { return squeezed(std::nullopt); }
  [[nodiscard]] Tensor<T> squeeze(index_t dim) const { return squeeze(List(&dim, 1)); }
  [[nodiscard]] Tensor<T> squeeze(List dims) const { return squeezed(dims); }
  [[nodiscard]] Tensor<T> squeeze(BracedList dims) const { return squeeze(List(dims.begin(), dims.size())); }
  /// A new extent-1 dimension at `dim` (in [-rank - 1, rank]).
  [[nodiscard]] Tensor<T, detail::rank_plus(Rank, 1)> unsqueeze(index_t dim) const {
    return derive<detail::rank_plus(Rank, 1)>(rank() + 1, [&](auto shape, auto strides) {
      detail::unsqueeze_layout(shape_, strides_, dim, shape, strides);
    });
  }
  /// Extent-1 dimensions repeated (stride 0) to `sizes`; -1 keeps an extent; new leading
  /// dimensions. The result has rank N (sizes.size(), this rank by default).
  template <std::size_t N = Rank>
  [[nodiscard]] Tensor<T, N> expand(List sizes) const {
    return derive<N>(checked_result_rank<N>("expand()", sizes.size()), [&](auto shape, auto strides) {
      detail::expand_layout(shape_, strides_, sizes, shape, strides);
    });
  }
  template <std::size_t N = Rank>
  [[nodiscard]] Tensor<T, N> expand(BracedList sizes) const {
    return expand<N>(List(sizes.begin(), sizes.size()));
  }
  template <class U, std::size_t R>
  [[nodiscard]] Tensor<T, R> expand_as(const Tensor<U, R>& other) const {
    return expand<R>(List(other.shape().data(), other.rank()));
  }
  template <std::size_t N = Rank>
  [[nodiscard]] Tensor<T, N> broadcast_to(List sizes) const {
    return expand<N>(sizes);
  }
  template <std::size_t N = Rank>
  [[nodiscard]] Tensor<T, N> broadcast_to(BracedList sizes) const {
    return expand<N>(List(sizes.begin(), sizes.size()));
  }

  /// The same elements in C order as `sizes` (one -1 inferred), when the strides allow
  /// it (PyTorch's rule); rank N when named (view<2>(...)).
  template <std::size_t N = dynamic>
  [[nodiscard]] Tensor<T, N> view(List sizes) const {
    return derive<N>(checked_result_rank<N>("view()", sizes.size()), [&](auto shape, auto strides) {
      detail::view_layout(shape_, strides_, sizes, shape, strides);
    });
  }
  template <std::size_t N = dynamic>
  [[nodiscard]] Tensor<T, N> view(BracedList sizes) const {
    return view<N>(List(sizes.begin(), sizes.size()));
  }
  template <class U, std::size_t R>
  [[nodiscard]] Tensor<T, R> view_as(const Tensor<U, R>& other) const {
    return view<R>(List(other.shape().data(), other.rank()));
  }
  /// view(sizes) when the strides allow it, else a contiguous copy (see contiguous()).
  template <std::size_t N = dynamic>
  [[nodiscard]] Tensor<T, N> reshape(List sizes) const {
    bool viewed = true;
    Tensor<T, N> view = derive<N>(checked_result_rank<N>("reshape()", sizes.size()), [&](auto shape, auto strides) {
      viewed = detail::reshape_layout(shape_, strides_, sizes, shape, strides);
    });
    if (!viewed) view = contiguous().template view<N>(sizes);
    return view;
  }
  template <std::size_t N = dynamic>
  [[nodiscard]] Tensor<T, N> reshape(BracedList sizes) const {
    return reshape<N>(List(sizes.begin(), sizes.size()));
  }
  /// Dimensions start_dim..end_dim as one (as reshape: a view when the strides allow it).
  template <std::size_t N = dynamic>
  [[nodiscard]] Tensor<T, N> flatten(index_t start_dim = 0, index_t end_dim = -1) const {
    const std::size_t rank = detail::flatten_rank(shape_, start_dim, end_dim);
    bool viewed = true;
    Tensor<T, N> view = derive<N>(checked_result_rank<N>("flatten()", rank), [&](auto shape, auto strides) {
      viewed = detail::flatten_layout(shape_, strides_, start_dim, end_dim, shape, strides);
    });
    if (!viewed) view = contiguous().template flatten<N>(start_dim, end_dim);
    return view;
  }
  /// `dim` split into `sizes` (one -1 inferred).
  template <std::size_t N = dynamic>
  [[nodiscard]] Tensor<T, N> unflatten(index_t dim, List sizes) const {
    const std::size_t rank = shape_.size() == 0 ? 0 : shape_.size() - 1 + sizes.size();
    return derive<N>(checked_result_rank<N>("unflatten()", rank), [&](auto shape, auto strides) {
      detail::unflatten_layout(shape_, strides_, dim, sizes, shape, strides);
    });
  }
  template <std::size_t N = dynamic>
  [[nodiscard]] Tensor<T, N> unflatten(index_t dim, BracedList sizes) const {
    return unflatten<N>(dim, List(sizes.begin(), sizes.size()));
  }

  /// The diagonal of dims dim1 and dim2 (both dropped), appended as the last dimension.
  [[nodiscard]] Tensor<T, detail::rank_minus(Rank, 1)> diagonal(index_t offset = 0, index_t dim1 = 0,
                                                                index_t dim2 = 1) const {
    static_assert(Rank == dynamic || Rank >= 2, "zt::Tensor::diagonal(): a diagonal needs two dimensions.");
    return derive<detail::rank_minus(Rank, 1)>(rank() == 0 ? 0 : rank() - 1, [&](auto shape, auto strides) {
      return detail::diagonal_layout(shape_, strides_, offset, dim1, dim2, shape, strides);
    });
  }
  /// Windows of `size` elements every `step` along `dim`, as a new last dimension.
  [[nodiscard]] Tensor<T, detail::rank_plus(Rank, 1)> unfold(index_t dim, index_t size, index_t step) const {
    return derive<detail::rank_plus(Rank, 1)>(rank() + 1, [&](auto shape, auto strides) {
      detail::unfold_layout(shape_, strides_, dim, size, step, shape, strides);
    });
  }
  /// Any layout inside the elements this tensor reaches (unlike PyTorch, which allows the
  /// whole storage: zerotensor does not know it). `storage_offset` counts elements from
  /// this tensor's first element, not from a storage's start. Non-negative strides.
  template <std::size_t N = dynamic>
  [[nodiscard]] Tensor<T, N> as_strided(List size, List stride, index_t storage_offset = 0) const {
    return derive<N>(checked_result_rank<N>("as_strided()", size.size()), [&](auto shape, auto strides) {
      return detail::as_strided_layout(shape_, strides_, size, stride, storage_offset, shape, strides);
    });
  }
  template <std::size_t N = dynamic>
  [[nodiscard]] Tensor<T, N> as_strided(BracedList size, BracedList stride, index_t storage_offset = 0) const {
    return as_strided<N>(List(size.begin(), size.size()), List(stride.begin(), stride.size()), storage_offset);
  }

  /// `chunks` pieces of equal extent along `dim` (the last smaller; fewer when it divides badly).
  [[nodiscard]] std::vector<Tensor> chunk(index_t chunks, index_t dim = 0) const {
    return pieces(detail::chunk_pieces(shape_, chunks, dim));
  }
  [[nodiscard]] std::vector<Tensor> split(index_t split_size, index_t dim = 0) const {
    return pieces(detail::split_pieces(shape_, split_size, dim));
  }
  [[nodiscard]] std::vector<Tensor> split(List split_sizes, index_t dim = 0) const {
    return pieces(detail::split_pieces(shape_, split_sizes, dim));
  }
  [[nodiscard]] std::vector<Tensor> split(BracedList split_sizes, index_t dim = 0) const {
    return split(List(split_sizes.begin(), split_sizes.size()), dim);
  }
  [[nodiscard]] std::vector<Tensor> tensor_split(index_t sections, index_t dim = 0) const {
    return pieces(detail::tensor_split_pieces(shape_, sections, dim));
  }
  [[nodiscard]] std::vector<Tensor> tensor_split(List indices, index_t dim = 0) const {
    return pieces(detail::tensor_split_pieces(shape_, indices, dim));
  }
  [[nodiscard]] std::vector<Tensor> tensor_split(BracedList indices, index_t dim = 0) const {
    return tensor_split(List(indices.begin(), indices.size()), dim);
  }
  /// select(dim, i) for every i.
  [[nodiscard]] std::vector<Tensor<T, detail::rank_minus(Rank, 1)>> unbind(index_t dim = 0) const {
    static_assert(Rank != 0, "zt::Tensor::unbind(): a rank-0 tensor has no dimension to unbind.");
    const std::size_t d = detail::unbind_dim(shape_, dim);
    if (shape_[d] == 0) return {};
    // Every entry has the layout of the first, one stride of `d` further on.
    const auto first = derive<detail::rank_minus(Rank, 1)>(rank() - 1, [&](auto shape, auto strides) {
      return detail::selected_layout(shape_, strides_, d, 0, shape, strides);
    });
    std::vector<Tensor<T, detail::rank_minus(Rank, 1)>> out(std::size_t(shape_[d]), first);
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i].data_ = static_cast<T*>(detail::element_address(data_, detail::checked_mul(index_t(i), strides_[d]),
                                                             sizeof(T)));
    return out;
  }

  /// The same bytes as element type U (const when T is): PyTorch's view(dtype) rules.
  template <class U>
  [[nodiscard]] Tensor<detail::same_constness_t<T, U>, Rank> view() const {
    static_assert(Element<U>, "zt::Tensor::view<U>(): U must be one of the element types.");
    using Result = detail::same_constness_t<T, U>;
    return derive<Rank, Result>(rank(), [&](auto shape, auto strides) {
      detail::view_dtype_layout(shape_, strides_, dtype(), dtype_of<Result>, data_, shape, strides);
    });
  }
  /// A complex tensor's real and imaginary parts as a last dimension of extent 2.
  [[nodiscard]] auto view_as_real() const {
    static_assert(detail::is_complex_element<value_type>,
                  "zt::Tensor::view_as_real(): needs a complex element type.");
    using Result = detail::same_constness_t<T, detail::real_part_t<value_type>>;
    return derive<detail::rank_plus(Rank, 1), Result>(rank() + 1, [&](auto shape, auto strides) {
      detail::view_as_real_layout(shape_, strides_, dtype(), shape, strides);
    });
  }
  /// A float16, float or double tensor whose last dimension has extent 2 as complex numbers
  /// (complex32, complex64, complex128).
  [[nodiscard]] auto view_as_complex() const {
    static_assert(complex_dtype(dtype_of<value_type>) != dtype_of<value_type>,
                  "zt::Tensor::view_as_complex(): needs float16, float or double elements.");
    static_assert(Rank != 0, "zt::Tensor::view_as_complex(): needs a last dimension of extent 2.");
    using Result = detail::same_constness_t<T, type_of<complex_dtype(dtype_of<value_type>)>>;
    return derive<detail::rank_minus(Rank, 1), Result>(rank() == 0 ? 0 : rank() - 1, [&](auto shape, auto strides) {
      detail::view_as_complex_layout(shape_, strides_, dtype(), data_, shape, strides);
    });
  }

  /// This tensor (same memory and owner) when C-contiguous, else a contiguous copy in
  /// memory of its own (AnyTensor::clone()).
  [[nodiscard]] Tensor contiguous() const {
    if (is_contiguous()) return *this;
    detail::ContiguousCopy copy = detail::contiguous_copy(dtype(), data_, shape_, strides_, owner_, device_);
    return Tensor(static_cast<T*>(copy.data), shape_, detail::contiguous_strides(shape_), std::move(copy.owner),
                  copy.device);
  }

 private:
  // The views' builders: each result goes through the view constructor.

  /// A view of rank R (`rank` at run time) and element type U whose layout
  /// `layout(shape, strides)` writes, returning its first element in elements from this
  /// one's (a layout that returns nothing keeps the first element). The layout is written
  /// once, into the result's own shape and strides.
  template <std::size_t R, class U = T, class Layout>
  [[nodiscard]] Tensor<U, R> derive(std::size_t rank, Layout&& layout) const {
    Tensor<U, R> view(reinterpret_cast<U*>(data_), rank, owner_, device_);
    const detail::SizesOut shape(view.shape_.data(), rank), strides(view.strides_.data(), rank);
    if constexpr (std::is_void_v<decltype(layout(shape, strides))>)
      layout(shape, strides);
    else
      view.data_ = static_cast<U*>(detail::element_address(data_, layout(shape, strides), sizeof(T)));
    return view;
  }
  /// A view of rank `rank` whose extents are zero until derive() writes them: built in
  /// place, never moved.
  Tensor(T* data, std::size_t rank, const KeepAlive& owner, Device device)
      : data_(data), shape_(detail::extents_of_rank<Rank>(rank)), strides_(detail::extents_of_rank<Rank>(rank)),
        device_(device), owner_(owner) {}
  /// squeeze(dims), or squeeze() without `dims`.
  [[nodiscard]] Tensor<T> squeezed(std::optional<List> dims) const {
    return derive<dynamic>(detail::squeeze_rank(shape_, dims), [&](auto shape, auto strides) {
      detail::squeeze_layout(shape_, strides_, dims, shape, strides);
    });
  }
  template <std::size_t N>
  static std::size_t checked_result_rank(const char* operation, std::size_t rank) {
    if (N != dynamic && rank != N) detail::throw_rank_mismatch(operation, N, rank);
    return rank;
  }
  /// A view of each piece of a split: copies of this tensor, each narrowed in place.
  [[nodiscard]] std::vector<Tensor> pieces(const detail::Pieces& split) const {
    std::vector<Tensor> out(split.count, *this);
    for (std::size_t i = 0; i < split.count; ++i) {
      const detail::Piece piece = split[i];
      const detail::SizesOut shape(out[i].shape_.data(), rank()), strides(out[i].strides_.data(), rank());
      const index_t offset =
          detail::narrowed_layout(shape_, strides_, split.dim, piece.start, piece.length, shape, strides);
      out[i].data_ = static_cast<T*>(detail::element_address(data_, offset, sizeof(T)));
    }
    return out;
  }

  template <class, std::size_t>
  friend class Tensor;
  friend class AnyTensor;

  template <class... Index>
  [[nodiscard]] index_t offset_of(Index... index) const noexcept {
    index_t offset = 0;
    std::size_t dim = 0;
    ((offset += index_t(index) * strides_[dim++]), ...);
    return offset;
  }

  /// `extents` when they have this tensor's rank: checked before they are copied into a
  /// static rank's array.
  static std::span<const index_t> checked_rank(std::span<const index_t> extents) {
    if (Rank != dynamic && extents.size() != Rank)
      detail::throw_rank_mismatch("Tensor conversion", Rank, extents.size());
    return extents;
  }

  void require_host(const char* operation) const {
    if (!device_.is_host_accessible()) detail::throw_not_host_accessible(operation, device_);
  }

  static constexpr bool rank_may_be(std::size_t wanted) noexcept { return Rank == dynamic || Rank == wanted; }

  void require_host_rank(const char* operation, std::size_t expected) const {
    require_host(operation);
    if (rank() != expected) detail::throw_rank_mismatch(operation, expected, rank());
  }

  // The matrix maps of a rank-2 view; the checks are the callers'.
  [[nodiscard]] bool rows_have_unit_stride() const noexcept {
    return detail::has_unit_inner_stride(shape_[1], strides_[1], shape_[0], strides_[0]);
  }
  [[nodiscard]] bool columns_have_unit_stride() const noexcept {
    return detail::has_unit_inner_stride(shape_[0], strides_[0], shape_[1], strides_[1]);
  }
  [[nodiscard]] RowMajorMatrixMap unchecked_row_major() const noexcept {
    return RowMajorMatrixMap(data_, shape_[0], shape_[1],
                             Eigen::OuterStride<>(detail::packed_outer_stride(shape_[1], shape_[0], strides_[0])));
  }
  [[nodiscard]] ColumnMajorMatrixMap unchecked_column_major() const noexcept {
    return ColumnMajorMatrixMap(data_, shape_[0], shape_[1],
                                Eigen::OuterStride<>(detail::packed_outer_stride(shape_[0], shape_[1], strides_[1])));
  }
  template <int StorageOrder>
  [[nodiscard]] StridedMatrixMap<StorageOrder> unchecked_strided() const noexcept {
    constexpr bool row_major = StorageOrder == Eigen::RowMajor;
    return StridedMatrixMap<StorageOrder>(data_, shape_[0], shape_[1],
                                          Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>(
                                              strides_[row_major ? 0 : 1], strides_[row_major ? 1 : 0]));
  }

  T* data_;
  extents_type shape_;
  extents_type strides_;
  Device device_;
  KeepAlive owner_;
};

}  // namespace zt
