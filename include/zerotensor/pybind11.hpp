// pybind11 type casters for zerotensor's tensors: a bound function takes and returns
// zt::Tensor<T, Rank> (const T too), zt::Tensor<T> of dynamic rank, zt::python::Contiguous<T, Rank>
// and zt::AnyTensor directly, without a copy (zerotensor/python.hpp says how).
//
//   #include <zerotensor/pybind11.hpp>
//   PYBIND11_MODULE(ops, m) {
//     m.def("scale", [](zt::Tensor<float, 2> x, float s) { x.array() *= s; });  // writes reach the caller
//     m.def("norm", [](zt::Tensor<const float> x) { return x.array().matrix().norm(); });
//   }
//
// An argument binds when the object offers a tensor of its dtype and rank, writable unless the
// element type is const, C-contiguous for Contiguous, on the host (or, in a CUDA build, a GPU);
// otherwise overload resolution goes on, and ends in pybind11's TypeError listing the signatures,
// where each argument reads `zerotensor.Tensor[float32, ndim=2, writable]`. A returned tensor
// becomes a zerotensor.Tensor that owns it.
#pragma once

#include <pybind11/pybind11.h>

#include <optional>
#include <utility>

#include "zerotensor/python.hpp"

namespace pybind11::detail {

template <class View>
struct zerotensor_caster {
  static constexpr auto name = const_name(zt::python::detail::Signature<View>::name.text);
  template <class T>
  using cast_op_type = movable_cast_op_type<T>;

  std::optional<View> value;

  bool load(handle source, bool) {
    try {
      value = zt::python::detail::cast_argument<View>(source.ptr());
    } catch (...) {  // what the producer described is malformed: this overload does not bind
      value.reset();
    }
    return value.has_value();
  }

  static handle cast(const View& tensor, return_value_policy, handle) {
    PyObject* object = zt::python::to_object(zt::AnyTensor(tensor));
    if (object == nullptr) throw error_already_set();
    return object;
  }
  static handle cast(const View* tensor, return_value_policy policy, handle parent) {
    if (tensor == nullptr) return none().release();
    return cast(*tensor, policy, parent);
  }

  operator View*() { return &*value; }
  operator View&() { return *value; }
  operator View&&() && { return std::move(*value); }
};

template <class T, std::size_t Rank>
struct type_caster<zt::Tensor<T, Rank>> : zerotensor_caster<zt::Tensor<T, Rank>> {};
template <class T, std::size_t Rank>
struct type_caster<zt::python::Contiguous<T, Rank>> : zerotensor_caster<zt::python::Contiguous<T, Rank>> {};
template <>
struct type_caster<zt::AnyTensor> : zerotensor_caster<zt::AnyTensor> {};

}  // namespace pybind11::detail
