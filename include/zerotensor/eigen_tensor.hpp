// Eigen's Tensor module and zerotensor: `t.tensor()` views of typed tensors as
// Eigen::TensorMap, and asarray of Eigen::Tensor, TensorFixedSize and TensorMap. The one
// public header (with cuda.hpp) that includes the Tensor module, which triples the compile
// time of a file that includes it: only code that uses these pays for it.
#pragma once

#include <cstddef>
#include <span>
#include <type_traits>
#include <utility>

#include <unsupported/Eigen/CXX11/Tensor>

#include "zerotensor/asarray.hpp"
#include "zerotensor/tensor.hpp"

namespace zt {

/// The row-major Eigen::TensorMap of rank `TensorRank` over elements of `T` (const T maps
/// read-only memory), indexed by index_t as zerotensor is.
template <class T, int TensorRank>
using EigenTensorMap = Eigen::TensorMap<std::conditional_t<
    std::is_const_v<T>, const Eigen::Tensor<std::remove_const_t<T>, TensorRank, Eigen::RowMajor, index_t>,
    Eigen::Tensor<std::remove_const_t<T>, TensorRank, Eigen::RowMajor, index_t>>>;

namespace detail {

/// A shape as Eigen's tensor dimensions. Eigen::DSizes, not std::array: compiled for the
/// GPU (nvcc), Eigen's arrays are its own type.
template <int TensorRank>
[[nodiscard]] Eigen::DSizes<index_t, TensorRank> eigen_dimensions(std::span<const index_t> shape) noexcept {
  Eigen::DSizes<index_t, TensorRank> dims;
  for (int d = 0; d < TensorRank; ++d) dims[d] = shape[std::size_t(d)];
  return dims;
}

/// The map of a contiguous view whose rank is `TensorRank`; `operation` names the caller
/// in errors. Host access is the caller's check (the GPU context maps device memory).
template <int TensorRank, class T, std::size_t Rank>
[[nodiscard]] EigenTensorMap<T, TensorRank> contiguous_tensor_map(const char* operation, const Tensor<T, Rank>& t) {
  if (t.rank() != std::size_t(TensorRank)) throw_rank_mismatch(operation, TensorRank, t.rank());
  if (!t.is_contiguous()) throw_not_contiguous(operation, t.shape(), t.strides());
  return EigenTensorMap<T, TensorRank>(t.data(), eigen_dimensions<TensorRank>(t.shape()));
}

template <class T>
struct EigenTensorViews<T, void> {
  template <int TensorRank, std::size_t Rank>
  [[nodiscard]] static EigenTensorMap<T, TensorRank> map(const Tensor<T, Rank>& t) {
    if (!t.device().is_host_accessible()) throw_not_host_accessible("tensor()", t.device());
    return contiguous_tensor_map<TensorRank>("tensor()", t);
  }
};

/// Eigen::Tensor and TensorFixedSize, which own their elements.
template <class X>
inline constexpr bool is_eigen_tensor_storage_v = false;
template <class S, int N, int O, class I>
inline constexpr bool is_eigen_tensor_storage_v<Eigen::Tensor<S, N, O, I>> = true;
template <class S, class D, int O, class I>
inline constexpr bool is_eigen_tensor_storage_v<Eigen::TensorFixedSize<S, D, O, I>> = true;

template <class S, int N, int O, class I>
inline constexpr bool owns_elements_v<Eigen::Tensor<S, N, O, I>> = true;
template <class S, class D, int O, class I>
inline constexpr bool owns_elements_v<Eigen::TensorFixedSize<S, D, O, I>> = true;

template <class X>
inline constexpr bool is_eigen_tensor_v = is_eigen_tensor_storage_v<X>;
template <class P, int O, template <class> class M>
inline constexpr bool is_eigen_tensor_v<Eigen::TensorMap<P, O, M>> = true;

/// Eigen::Tensor, TensorFixedSize and TensorMap: contiguous in their layout.
template <class X>
concept EigenTensorObject = is_eigen_tensor_v<plain_t<X>> && Element<typename plain_t<X>::Scalar>;

template <class X>
AnyTensor eigen_tensor_view(X&& obj) {
  using Plain = plain_t<X>;
  KeepAlive owner;
  auto& held = hold(std::forward<X>(obj), owner);
  DynamicExtents shape(std::size_t(Plain::NumIndices), 0);
  for (std::size_t d = 0; d < shape.size(); ++d) shape[d] = index_t(held.dimension(d));
  DynamicExtents strides = int(Plain::Layout) == int(Eigen::RowMajor) ? contiguous_strides(shape)
                                                                       : column_major_strides(shape);
  return AnyTensor(held.data(), shape, strides, std::move(owner), cpu, writable_data_v<X>);
}

}  // namespace detail

/// Eigen::Tensor, TensorFixedSize, TensorMap (ColMajor or RowMajor) with their strides; an
/// rvalue Tensor is moved into the result's owner.
template <class X>
  requires detail::EigenTensorObject<X>
[[nodiscard]] AnyTensor asarray(X&& obj, AsArrayOptions options = {}) {
  return detail::apply_options(detail::eigen_tensor_view(std::forward<X>(obj)), options, detail::Origin::view);
}

}  // namespace zt
