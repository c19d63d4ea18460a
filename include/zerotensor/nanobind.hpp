// nanobind type casters for zerotensor's tensors: a bound function takes and returns
// zt::Tensor<T, Rank> (const T too), zt::Tensor<T> of dynamic rank, zt::python::Contiguous<T, Rank>
// and zt::AnyTensor directly, without a copy (zerotensor/python.hpp says how).
//
//   #include <zerotensor/nanobind.hpp>
//   NB_MODULE(ops, m) {
//     m.def("scale", [](zt::Tensor<float, 2> x, float s) { x.array() *= s; });  // writes reach the caller
//     m.def("norm", [](zt::Tensor<const float> x) { return x.array().matrix().norm(); });
//   }
//
// An argument binds when the object offers a tensor of its dtype and rank, writable unless the
// element type is const, C-contiguous for Contiguous, on the host (or, in a CUDA build, a GPU);
// otherwise overload resolution goes on, and ends in nanobind's TypeError listing the signatures,
// where each argument reads `zerotensor.Tensor[float32, ndim=2, writable]`. A returned tensor
// becomes a zerotensor.Tensor that owns it.
#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>
#include <optional>
#include <utility>

#include "zerotensor/python.hpp"

namespace nanobind::detail {

template <class View>
struct zerotensor_caster {
  static constexpr auto Name = const_name(zt::python::detail::Signature<View>::name.text);
  template <class T>
  using Cast = movable_cast_t<T>;
  template <class T>
  static constexpr bool can_cast() {
    return true;
  }

  std::optional<View> value;

  bool from_python(handle source, std::uint8_t, cleanup_list*) noexcept {
    try {
      value = zt::python::detail::cast_argument<View>(source.ptr());
    } catch (...) {  // what the producer described is malformed: this overload does not bind
      value.reset();
    }
    return value.has_value();
  }

  static handle from_cpp(const View& tensor, rv_policy, cleanup_list*) noexcept {
    try {
      return zt::python::to_object(zt::AnyTensor(tensor));
    } catch (...) {
      zt::python::detail::set_python_error();
      return handle();
    }
  }
  static handle from_cpp(const View* tensor, rv_policy policy, cleanup_list* cleanup) noexcept {
    if (tensor == nullptr) return none().release();
    return from_cpp(*tensor, policy, cleanup);
  }

  explicit operator View*() { return &*value; }
  explicit operator View&() { return *value; }
  explicit operator View&&() { return std::move(*value); }
};

template <class T, std::size_t Rank>
struct type_caster<zt::Tensor<T, Rank>> : zerotensor_caster<zt::Tensor<T, Rank>> {};
template <class T, std::size_t Rank>
struct type_caster<zt::python::Contiguous<T, Rank>> : zerotensor_caster<zt::python::Contiguous<T, Rank>> {};
template <>
struct type_caster<zt::AnyTensor> : zerotensor_caster<zt::AnyTensor> {};

}  // namespace nanobind::detail
