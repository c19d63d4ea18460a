// The std::variant forms of views: Tensor::matrix(), the Eigen map of whichever layout the
// strides allow, and AnyTensor::variant(), a read-only typed view of whichever dtype.
// Their types are completed here rather than in tensor.hpp and any_tensor.hpp so that
// only code that visits them compiles <variant>.
#pragma once

#include <cstddef>
#include <tuple>
#include <variant>

#include "zerotensor/any_tensor.hpp"
#include "zerotensor/tensor.hpp"

namespace zt {

namespace detail {

template <class T, std::size_t Rank>
struct MatrixVariant<Tensor<T, Rank>> {
  using View = Tensor<T, Rank>;
  /// In matrix()'s order of preference: C order, Fortran order, then both strides at run
  /// time, stored along the smaller stride.
  using type = std::variant<typename View::RowMajorMatrixMap, typename View::ColumnMajorMatrixMap,
                            typename View::template StridedMatrixMap<Eigen::RowMajor>,
                            typename View::template StridedMatrixMap<Eigen::ColMajor>>;
};

template <class Types>
struct ReadOnlyViews;
template <class... Types>
struct ReadOnlyViews<std::tuple<Types...>> {
  using type = std::variant<Tensor<const Types>...>;
};

template <>
struct ReadOnlyVariant<AnyTensor> {
  using type = ReadOnlyViews<element_types>::type;
  /// Compiled once, in the library.
  static type of(const AnyTensor& tensor);
};

}  // namespace detail

/// What `view.matrix()` returns for a `Tensor<T, Rank>` view.
template <class View>
using AnyMatrixMap = typename detail::MatrixVariant<View>::type;

/// What `AnyTensor::variant()` returns: alternative i is a `Tensor<const T>` of dtype i.
using ReadOnlyTensorVariant = detail::ReadOnlyVariant<AnyTensor>::type;

}  // namespace zt
