// Per call of a bound function taking one 1,000-element float32 tensor, from a NumPy array and
// from a PyTorch tensor, in one embedded Python: zerotensor's nanobind caster against nanobind's
// `nb::ndarray<float, nb::ndim<1>>` argument and a hand-written `__dlpack__` route, each
// function empty (casters_bench_module.cpp), next to the floor, an empty function taking any
// object; zerotensor_const takes a zt::Tensor<const float, 1>. BM_convert rows time
// zt::python::from_object alone (the view made and dropped), for a writable and a const argument:
// for a PyTorch ≥ 2.11 tensor the C exchange API (its owning export; its borrowed description for
// const), for NumPy `__dlpack__`. OPENBLAS_NUM_THREADS=1 keeps NumPy's BLAS threads from spinning
// on the cores being measured. BM_exchange_floor rows time the producer's exchange functions
// alone, the floor of a conversion through them.
// Python is the one CMake built against (ZT_BINDINGS_PYTHON); a current PyTorch is found through
// PYTHONPATH (e.g. a virtual environment's site-packages). Without torch its rows are left out.
#include <Python.h>

#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>
#include <vector>

#include "../ratio.hpp"
#include "zerotensor/python.hpp"

namespace {

PyObject* import(const char* name) {
  PyObject* module = PyImport_ImportModule(name);
  if (module == nullptr) PyErr_Clear();
  return module;
}

void BM_call(benchmark::State& state, PyObject* function, PyObject* argument) {
  for (auto _ : state) {
    PyObject* result = PyObject_CallOneArg(function, argument);
    if (result == nullptr) {
      PyErr_Print();
      state.SkipWithError("the call raised");
      break;
    }
    Py_DECREF(result);
  }
}

void BM_convert(benchmark::State& state, PyObject* argument, zt::python::Requirements needs) {
  for (auto _ : state) {
    std::optional<zt::AnyTensor> tensor = zt::python::from_object(argument, needs);
    if (!tensor) {
      state.SkipWithError("the object did not convert");
      break;
    }
    benchmark::DoNotOptimize(tensor);
  }
}

/// The floor of a conversion through the C exchange API: the producer's own functions alone, its
/// borrowed description (const) or its owning export and the deleter call (writable).
void BM_exchange_floor(benchmark::State& state, PyObject* argument, bool owning) {
  const zt::python::detail::TypeFacts& facts = zt::python::detail::facts_of(Py_TYPE(argument));
  const zt::dlpack::ExchangeAPI* api = facts.exchange_api;
  for (auto _ : state) {
    if (owning) {
      zt::dlpack::ManagedTensorVersioned* managed = nullptr;
      api->managed_tensor_from_py_object_no_sync(argument, &managed);
      benchmark::DoNotOptimize(managed);
      zt::dlpack::CallDeleter{}(managed);
    } else {
      zt::dlpack::Tensor described{};
      api->dltensor_from_py_object_no_sync(argument, &described);
      benchmark::DoNotOptimize(described);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  Py_Initialize();
  PyObject* path = PySys_GetObject("path");
  PyObject* module_dir = PyUnicode_FromString(ZT_BENCH_MODULE_DIR);
  PyList_Insert(path, 0, module_dir);
  Py_DECREF(module_dir);
  PyObject* module = import("zt_casters_bench");
  PyObject* numpy = import("numpy");
  if (module == nullptr || numpy == nullptr) {
    std::printf("bench_casters: needs NumPy and the zt_casters_bench module (%s); nothing measured\n",
                ZT_BENCH_MODULE_DIR);
    return 0;
  }
  PyObject* torch = import("torch");

  struct Source {
    std::string name;
    PyObject* object;
  };
  std::vector<Source> sources = {{"numpy", PyObject_CallMethod(numpy, "ones", "(is)", 1000, "float32")}};
  if (torch != nullptr) sources.push_back({"torch", PyObject_CallMethod(torch, "ones", "(i)", 1000)});
  else std::printf("bench_casters: no torch in this Python (set PYTHONPATH); its rows are left out\n");

  std::vector<zt_bench::Comparison> comparisons;
  for (const Source& source : sources) {
    const std::string call = "BM_call/" + source.name + "/";
    for (const char* function : {"floor", "zerotensor", "zerotensor_const", "ndarray", "dlpack_by_hand"})
      benchmark::RegisterBenchmark((call + function).c_str(), BM_call, PyObject_GetAttrString(module, function),
                                   source.object);
    benchmark::RegisterBenchmark(("BM_convert/" + source.name + "/writable").c_str(), BM_convert, source.object,
                                 zt::python::Requirements{zt::float32, 1, true});
    benchmark::RegisterBenchmark(("BM_convert/" + source.name + "/const").c_str(), BM_convert, source.object,
                                 zt::python::Requirements{zt::float32, 1, false, false, true});
    if (zt::python::detail::facts_of(Py_TYPE(source.object)).exchange_api != nullptr) {
      const std::string floor = "BM_exchange_floor/" + source.name;
      benchmark::RegisterBenchmark((floor + "/writable").c_str(), BM_exchange_floor, source.object, true);
      benchmark::RegisterBenchmark((floor + "/const").c_str(), BM_exchange_floor, source.object, false);
      comparisons.push_back({"BM_convert/" + source.name + "/writable", floor + "/writable"});
      comparisons.push_back({"BM_convert/" + source.name + "/const", floor + "/const"});
    }
    comparisons.push_back({call + "zerotensor", call + "ndarray"});
    comparisons.push_back({call + "dlpack_by_hand", call + "ndarray"});
    comparisons.push_back({call + "zerotensor_const", call + "ndarray"});
    comparisons.push_back({call + "zerotensor", call + "floor"});
    comparisons.push_back({call + "ndarray", call + "floor"});
  }
  std::printf("Python %s, NumPy %s, PyTorch %s\n", Py_GetVersion(),
              PyUnicode_AsUTF8(PyObject_GetAttrString(numpy, "__version__")),
              torch != nullptr ? PyUnicode_AsUTF8(PyObject_GetAttrString(torch, "__version__")) : "none");
  return zt_bench::run(argc, argv, comparisons);
}
