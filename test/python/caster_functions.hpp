// The functions test_casters.py calls, defined alike in the nanobind and the pybind11 test module
// (both libraries' modules have `def(name, callable)`).
#pragma once

#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include <Eigen/Core>

#include "zerotensor/empty.hpp"
#include "zerotensor/python.hpp"

namespace zt_test {

/// dtype name, shape, strides, writable, address of the first element.
using Description = std::tuple<std::string, std::vector<std::int64_t>, std::vector<std::int64_t>, bool, std::uintptr_t>;

inline Description describe(const zt::AnyTensor& x) {
  return {std::string(zt::name(x.dtype())), std::vector<std::int64_t>(x.shape().begin(), x.shape().end()),
          std::vector<std::int64_t>(x.strides().begin(), x.strides().end()), x.is_writable(),
          reinterpret_cast<std::uintptr_t>(x.data_ptr())};
}

/// Views kept past the call that received them, and how many owners have been released.
inline std::vector<zt::AnyTensor>& kept() {
  static std::vector<zt::AnyTensor> views;
  return views;
}
inline int released_owners = 0;

template <class T>
zt::Tensor<T, 1> counted(zt::index_t n) {
  auto* memory = new std::vector<T>(std::size_t(n), T(1));
  zt::KeepAlive owner(memory, [](std::vector<T>* p) {
    delete p;
    ++released_owners;
  });
  return zt::Tensor<T, 1>(memory->data(), zt::Extents<1>{n}, zt::Extents<1>{1}, owner);
}

/// echo_<dtype> (a read-only typed argument and result) and first_<dtype> (the first element's
/// bytes as an integer, through a writable rank-1 argument) for each element type.
template <class T, class Module>
void define_typed(Module& m) {
  static const std::string echo = "echo_" + std::string(zt::name(zt::dtype_of<T>));
  static const std::string bump = "bump_" + std::string(zt::name(zt::dtype_of<T>));
  m.def(echo.c_str(), [](zt::Tensor<const T> x) { return x; });
  // Adds one to the first element's lowest byte: the write must reach the caller's memory.
  m.def(bump.c_str(), [](zt::Tensor<T, 1> x) { reinterpret_cast<unsigned char*>(x.data())[0] += 1; });
}

template <class Module>
void define_caster_functions(Module& m) {
  m.def("describe", [](zt::AnyTensor x) { return describe(x); });
  m.def("identity", [](zt::AnyTensor x) { return x; });
  m.def("device_of", [](zt::AnyTensor x) { return zt::to_string(x.device()); });
#if defined(ZT_CUDA) && ZT_CUDA
  m.def("cuda_build", [] { return true; });
#else
  m.def("cuda_build", [] { return false; });
#endif
  m.def("scale", [](zt::Tensor<float, 2> x, float s) {
    for (zt::index_t i = 0; i < x.size(0); ++i)
      for (zt::index_t j = 0; j < x.size(1); ++j) x(i, j) *= s;
  });
  m.def("total", [](zt::Tensor<const float> x) {
    double sum = 0;
    zt::AnyTensor flat = zt::AnyTensor(x).contiguous();
    for (float v : std::span(flat.as<const float>().data(), std::size_t(flat.numel()))) sum += v;
    return sum;
  });
  m.def("norm", [](zt::Tensor<const float> x) { return x.contiguous().array().matrix().norm(); });  // README's
  m.def("contiguous_total", [](zt::python::Contiguous<const float, 1> x) { return double(x.array().sum()); });
  m.def("pick", [](zt::Tensor<const std::int64_t>) { return std::string("int64"); });
  m.def("pick", [](zt::Tensor<const float>) { return std::string("float32"); });
  m.def("ones", [](zt::index_t n) {
    auto t = zt::empty<float>(std::array{n});
    t.array().setOnes();
    return t;
  });
  m.def("const_ones", [](zt::index_t n) {
    auto t = zt::empty<float>(std::array{n});
    t.array().setOnes();
    return zt::Tensor<const float>(t);
  });
  m.def("counted", [](zt::index_t n) { return counted<float>(n); });
  m.def("released_owners", [] { return released_owners; });
  m.def("keep", [](zt::AnyTensor x) { kept().push_back(x); });
  m.def("kept_total", [] {
    double sum = 0;
    for (const zt::AnyTensor& x : kept())
      for (float v : std::span(x.as<const float>().data(), std::size_t(x.numel()))) sum += v;
    return sum;
  });
  m.def("release_kept", [] { kept().clear(); });
  m.def("exchange_api_address", [] { return reinterpret_cast<std::uintptr_t>(&zt::python::exchange_api()); });
  define_typed<bool>(m);
  define_typed<std::int8_t>(m);
  define_typed<std::uint8_t>(m);
  define_typed<std::int16_t>(m);
  define_typed<std::uint16_t>(m);
  define_typed<std::int32_t>(m);
  define_typed<std::uint32_t>(m);
  define_typed<std::int64_t>(m);
  define_typed<std::uint64_t>(m);
  define_typed<Eigen::half>(m);
  define_typed<Eigen::bfloat16>(m);
  define_typed<float>(m);
  define_typed<double>(m);
  define_typed<std::complex<float>>(m);
  define_typed<std::complex<double>>(m);
}

}  // namespace zt_test
