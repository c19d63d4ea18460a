// The functions bench_casters calls from Python, each taking one float32 tensor and doing
// nothing with it: through zerotensor's nanobind caster, through nanobind's own ndarray, and
// (writable, and const), through a hand-written `__dlpack__` call and zt::from_dlpack; `floor` takes any object (the
// cost of the call itself).
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include "zerotensor/from_dlpack.hpp"
#include "zerotensor/nanobind.hpp"

namespace nb = nanobind;

namespace {

/// `x.__dlpack__()` and the capsule's managed tensor imported by hand, as binding code without a
/// caster does it.
void dlpack_by_hand(nb::handle x) {
  nb::object capsule = x.attr("__dlpack__")();
  void* managed = PyCapsule_GetPointer(capsule.ptr(), "dltensor");
  if (managed == nullptr || PyCapsule_SetName(capsule.ptr(), "used_dltensor") != 0) throw nb::python_error();
  zt::AnyTensor tensor = zt::from_dlpack(static_cast<zt::dlpack::ManagedTensor*>(managed));
  if (tensor.dtype() != zt::float32 || tensor.rank() != 1) throw nb::type_error("expected a float32 vector");
}

}  // namespace

NB_MODULE(zt_casters_bench, m) {
  m.def("floor", [](nb::handle) {});
  m.def("zerotensor", [](zt::Tensor<float, 1>) {});
  m.def("zerotensor_const", [](zt::Tensor<const float, 1>) {});
  m.def("ndarray", [](nb::ndarray<float, nb::ndim<1>>) {});
  m.def("dlpack_by_hand", &dlpack_by_hand);
}
