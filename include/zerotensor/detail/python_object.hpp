// Internal to zerotensor/python.hpp: `zerotensor.Tensor`, the Python object a zerotensor tensor
// becomes. It holds the AnyTensor (so its owner) and offers it to every consumer without a copy:
// DLPack (`__dlpack__`, `__dlpack_device__`), DLPack 1.3's C exchange API on its type, and the
// buffer protocol for host memory of the dtypes the struct module names. Every function runs with
// the GIL held; the type is made once per extension module.
#pragma once

#include <Python.h>

#include <exception>
#include <new>
#include <string>

#include "zerotensor/any_tensor.hpp"
#include "zerotensor/detail/python_import.hpp"
#include "zerotensor/dlpack.hpp"
#include "zerotensor/error.hpp"
#include "zerotensor/from_dlpack.hpp"
#include "zerotensor/to_dlpack.hpp"

namespace zt::python::detail {

struct TensorObject {
  PyObject_HEAD
  AnyTensor tensor;  // placement-constructed after tp_alloc, destroyed in dealloc
};

/// The Python exception of the error being handled (zt::TypeError → TypeError, ...), set.
inline void set_python_error() {
  try {
    throw;
  } catch (const zt::TypeError& e) {
    PyErr_SetString(PyExc_TypeError, e.what());
  } catch (const zt::IndexError& e) {
    PyErr_SetString(PyExc_IndexError, e.what());
  } catch (const zt::ValueError& e) {
    PyErr_SetString(PyExc_ValueError, e.what());
  } catch (const std::bad_alloc&) {
    PyErr_NoMemory();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  } catch (...) {
    PyErr_SetString(PyExc_RuntimeError, "zerotensor: unknown C++ exception");
  }
}

inline const AnyTensor& tensor_of(PyObject* self) { return reinterpret_cast<TensorObject*>(self)->tensor; }

inline void destroy_versioned_capsule(PyObject* capsule) {
  if (PyCapsule_IsValid(capsule, "dltensor_versioned"))
    dlpack::CallDeleter{}(static_cast<dlpack::ManagedTensorVersioned*>(PyCapsule_GetPointer(capsule, "dltensor_versioned")));
}

inline void destroy_legacy_capsule(PyObject* capsule) {
  if (PyCapsule_IsValid(capsule, "dltensor"))
    dlpack::CallDeleter{}(static_cast<dlpack::ManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor")));
}

/// A Python keyword argument is the Python value `value` (None when not given).
inline bool is_none(PyObject* value) { return value == nullptr || value == Py_None; }

/// `__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None)`, as the Python array
/// API asks. A versioned capsule where max_version allows 1.x, else a legacy one (BufferError for
/// read-only memory, which it cannot mark). `stream` is accepted and ignored: a zerotensor tensor
/// carries no queued work (GpuContext users synchronize() before handing results on).
inline PyObject* dlpack_method(PyObject* self, PyObject* const* args, Py_ssize_t count, PyObject* kwnames) {
  if (PyVectorcall_NARGS(count) != 0) {
    PyErr_SetString(PyExc_TypeError, "__dlpack__() takes keyword arguments only");
    return nullptr;
  }
  PyObject* max_version = nullptr;
  PyObject* dl_device = nullptr;
  PyObject* copy = nullptr;
  const Py_ssize_t keywords = kwnames == nullptr ? 0 : PyTuple_GET_SIZE(kwnames);
  for (Py_ssize_t i = 0; i < keywords; ++i) {
    const char* name = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, i));
    if (name == nullptr) return nullptr;
    const std::string_view key(name);
    if (key == "max_version") max_version = args[i];
    else if (key == "dl_device") dl_device = args[i];
    else if (key == "copy") copy = args[i];
    else if (key != "stream") {
      PyErr_Format(PyExc_TypeError, "__dlpack__() got an unexpected keyword argument '%s'", name);
      return nullptr;
    }
  }
  const AnyTensor& tensor = tensor_of(self);
  if (!is_none(copy) && PyObject_IsTrue(copy) == 1) {
    PyErr_SetString(PyExc_BufferError, "zerotensor.Tensor.__dlpack__: copy=True is not supported; the export shares memory");
    return nullptr;
  }
  if (!is_none(dl_device)) {
    PyObject* own = PyObject_CallMethod(self, "__dlpack_device__", nullptr);
    if (own == nullptr) return nullptr;
    const int same = PyObject_RichCompareBool(own, dl_device, Py_EQ);
    Py_DECREF(own);
    if (same != 1) {
      if (same == 0) PyErr_SetString(PyExc_BufferError, "zerotensor.Tensor.__dlpack__: dl_device differs from the tensor's device; the export does not copy");
      return nullptr;
    }
  }
  long major = 0;
  if (!is_none(max_version)) {
    if (!PyTuple_Check(max_version) || PyTuple_GET_SIZE(max_version) != 2) {
      PyErr_SetString(PyExc_TypeError, "__dlpack__: max_version must be None or a tuple (major, minor)");
      return nullptr;
    }
    major = PyLong_AsLong(PyTuple_GET_ITEM(max_version, 0));
    if (major == -1 && PyErr_Occurred()) return nullptr;
  }
  try {
    if (major >= 1) {
      dlpack::ManagedTensorVersioned* managed = to_dlpack(tensor);
      PyObject* capsule = PyCapsule_New(managed, "dltensor_versioned", &destroy_versioned_capsule);
      if (capsule == nullptr) dlpack::CallDeleter{}(managed);
      return capsule;
    }
    if (!tensor.is_writable()) {
      PyErr_SetString(PyExc_BufferError,
                      "zerotensor.Tensor.__dlpack__: the tensor is read-only, which a legacy capsule cannot mark; "
                      "ask with max_version=(1, 0) or later (DLPack 1.x sets READ_ONLY), or export a copy");
      return nullptr;
    }
    dlpack::ManagedTensor* managed = to_dlpack_legacy(tensor);
    PyObject* capsule = PyCapsule_New(managed, "dltensor", &destroy_legacy_capsule);
    if (capsule == nullptr) dlpack::CallDeleter{}(managed);
    return capsule;
  } catch (const std::bad_alloc&) {
    return PyErr_NoMemory();
  } catch (const std::exception& e) {  // what DLPack cannot carry, as the array API says: BufferError
    PyErr_SetString(PyExc_BufferError, e.what());
    return nullptr;
  }
}

inline PyObject* dlpack_device_method(PyObject* self, PyObject*) {
  const dlpack::Device device = to_dlpack_device(tensor_of(self).device());
  return Py_BuildValue("(ii)", int(device.device_type), int(device.device_id));
}

/// The struct-module format of a dtype the buffer protocol can carry, or NULL.
inline const char* struct_format(DType dtype) {
  switch (dtype) {
    case DType::Bool: return "?";
    case DType::Int8: return "b";
    case DType::UInt8: return "B";
    case DType::Int16: return "h";
    case DType::UInt16: return "H";
    case DType::Int32: return "i";
    case DType::UInt32: return "I";
    case DType::Int64: return "q";
    case DType::UInt64: return "Q";
    case DType::Float16: return "e";
    case DType::Float32: return "f";
    case DType::Float64: return "d";
    case DType::Complex64: return "Zf";
    case DType::Complex128: return "Zd";
    default: return nullptr;
  }
}

inline int buffer_error(const char* reason, const AnyTensor& tensor) {
  PyErr_Format(PyExc_BufferError, "zerotensor.Tensor: %s (dtype %s, device %s); use DLPack", reason,
               std::string(name(tensor.dtype())).c_str(), tensor.device().is_host_accessible() ? "host" : "cuda");
  return -1;
}

/// The buffer protocol: host memory of the dtypes in struct_format, any strides.
inline int get_buffer(PyObject* self, Py_buffer* view, int flags) {
  const AnyTensor& tensor = tensor_of(self);
  const char* format = struct_format(tensor.dtype());
  if (format == nullptr) return buffer_error("the buffer protocol has no format for this dtype", tensor);
  if (!tensor.device().is_host_accessible()) return buffer_error("the memory is on a GPU", tensor);
  if ((flags & PyBUF_WRITABLE) == PyBUF_WRITABLE && !tensor.is_writable())
    return buffer_error("the memory is read-only", tensor);
  const bool wants_strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES;
  const bool wants_contiguous = (flags & PyBUF_C_CONTIGUOUS) == PyBUF_C_CONTIGUOUS ||
                                (flags & PyBUF_F_CONTIGUOUS) == PyBUF_F_CONTIGUOUS ||
                                (flags & PyBUF_ANY_CONTIGUOUS) == PyBUF_ANY_CONTIGUOUS;
  if ((!wants_strides || wants_contiguous) && !tensor.is_contiguous())
    return buffer_error("the tensor is not C-contiguous and the consumer asked for contiguous memory", tensor);
  const std::size_t rank = tensor.rank();
  auto* extents = new (std::nothrow) Py_ssize_t[2 * rank + 1];
  if (extents == nullptr) {
    PyErr_NoMemory();
    return -1;
  }
  for (std::size_t dim = 0; dim < rank; ++dim) {
    extents[dim] = Py_ssize_t(tensor.size(dim));
    extents[rank + dim] = Py_ssize_t(tensor.stride(dim)) * Py_ssize_t(tensor.itemsize());
  }
  static char no_elements = 0;  // a zero-size tensor may have no address
  view->buf = tensor.data_ptr() != nullptr ? const_cast<void*>(tensor.data_ptr()) : &no_elements;
  view->obj = Py_NewRef(self);
  view->len = Py_ssize_t(tensor.nbytes());
  view->itemsize = Py_ssize_t(tensor.itemsize());
  view->readonly = tensor.is_writable() ? 0 : 1;
  view->ndim = int(rank);
  view->format = (flags & PyBUF_FORMAT) == PyBUF_FORMAT ? const_cast<char*>(format) : nullptr;
  view->shape = (flags & PyBUF_ND) == PyBUF_ND ? extents : nullptr;
  view->strides = wants_strides ? extents + rank : nullptr;
  view->suboffsets = nullptr;
  view->internal = extents;
  return 0;
}

inline void release_buffer_extents(PyObject*, Py_buffer* view) { delete[] static_cast<Py_ssize_t*>(view->internal); }

inline PyObject* shape_getter(PyObject* self, void*) {
  const AnyTensor& tensor = tensor_of(self);
  PyObject* shape = PyTuple_New(Py_ssize_t(tensor.rank()));
  for (std::size_t dim = 0; shape != nullptr && dim < tensor.rank(); ++dim)
    PyTuple_SET_ITEM(shape, Py_ssize_t(dim), PyLong_FromLongLong(tensor.size(dim)));
  return shape;
}

inline PyObject* dtype_getter(PyObject* self, void*) {
  const std::string_view dtype = name(tensor_of(self).dtype());
  return PyUnicode_FromStringAndSize(dtype.data(), Py_ssize_t(dtype.size()));
}

inline PyObject* writable_getter(PyObject* self, void*) { return PyBool_FromLong(tensor_of(self).is_writable()); }

inline void dealloc(PyObject* self) {
  PyTypeObject* type = Py_TYPE(self);
  reinterpret_cast<TensorObject*>(self)->tensor.~AnyTensor();
  type->tp_free(self);
  Py_DECREF(type);
}

inline PyObject* new_tensor_object(AnyTensor tensor);

// ---- zerotensor.Tensor's DLPack 1.3 C exchange API ----------------------------------------------

inline int exchange_allocate(dlpack::Tensor* prototype, dlpack::ManagedTensorVersioned** out, void* error_ctx,
                             void (*set_error)(void*, const char*, const char*)) {
  try {
    *out = allocate_dlpack(*prototype);
    return 0;
  } catch (const std::bad_alloc&) {
    set_error(error_ctx, "MemoryError", "zerotensor: out of memory");
  } catch (const zt::TypeError& e) {
    set_error(error_ctx, "TypeError", e.what());
  } catch (const zt::ValueError& e) {
    set_error(error_ctx, "ValueError", e.what());
  } catch (const std::exception& e) {
    set_error(error_ctx, "RuntimeError", e.what());
  }
  *out = nullptr;
  return -1;
}

inline int exchange_from_object(void* object, dlpack::ManagedTensorVersioned** out) {
  try {
    *out = to_dlpack(tensor_of(static_cast<PyObject*>(object)));
    return 0;
  } catch (const std::bad_alloc&) {
    PyErr_NoMemory();
  } catch (const std::exception& e) {  // what DLPack cannot carry: BufferError, as the exchange API asks
    PyErr_SetString(PyExc_BufferError, e.what());
  }
  return -1;
}

inline int exchange_to_object(dlpack::ManagedTensorVersioned* managed, void** out) {
  try {
    *out = new_tensor_object(from_dlpack(managed));
  } catch (...) {
    set_python_error();
    *out = nullptr;
  }
  return *out != nullptr ? 0 : -1;
}

inline int exchange_current_stream(dlpack::DeviceType, std::int32_t, void** out) {
  *out = nullptr;  // the default stream: zerotensor's tensors carry no queued work
  return 0;
}

inline const dlpack::ExchangeAPI exchange_api_table{{{dlpack::major_version, dlpack::minor_version}, nullptr},
                                                    &exchange_allocate,
                                                    &exchange_from_object,
                                                    &exchange_to_object,
                                                    nullptr,
                                                    &exchange_current_stream};


/// The type, made on first use and kept for the life of the process.
inline PyTypeObject* tensor_type() {
  static PyTypeObject* const type = [] {
    static PyMethodDef methods[] = {
        {"__dlpack__", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&dlpack_method)),
         METH_FASTCALL | METH_KEYWORDS, "The tensor as a DLPack capsule, sharing memory."},
        {"__dlpack_device__", &dlpack_device_method, METH_NOARGS, "(DLPack device type, device id)"},
        {nullptr, nullptr, 0, nullptr}};
    static PyGetSetDef properties[] = {
        {"shape", &shape_getter, nullptr, "the extents, a tuple", nullptr},
        {"dtype", &dtype_getter, nullptr, "the dtype's name, as PyTorch spells it", nullptr},
        {"writable", &writable_getter, nullptr, "False for read-only memory", nullptr},
        {nullptr, nullptr, nullptr, nullptr, nullptr}};
    static PyType_Slot slots[] = {{Py_tp_dealloc, reinterpret_cast<void*>(&dealloc)},
                                  {Py_tp_methods, methods},
                                  {Py_tp_getset, properties},
                                  {Py_tp_doc, const_cast<char*>("A zerotensor tensor: its memory, shared through "
                                                                "DLPack and the buffer protocol.")},
                                  {Py_bf_getbuffer, reinterpret_cast<void*>(&get_buffer)},
                                  {Py_bf_releasebuffer, reinterpret_cast<void*>(&release_buffer_extents)},
                                  {0, nullptr}};
    static PyType_Spec spec{"zerotensor.Tensor", int(sizeof(TensorObject)), 0, Py_TPFLAGS_DEFAULT, slots};
    auto* made = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&spec));
    if (made == nullptr) return made;
    PyObject* capsule =
        PyCapsule_New(const_cast<dlpack::ExchangeAPI*>(&exchange_api_table), dlpack::exchange_api_capsule_name, nullptr);
    if (capsule == nullptr || PyObject_SetAttrString(reinterpret_cast<PyObject*>(made), dlpack::exchange_api_attribute, capsule) != 0) {
      Py_XDECREF(capsule);
      Py_DECREF(made);
      return static_cast<PyTypeObject*>(nullptr);
    }
    Py_DECREF(capsule);
    return made;
  }();
  if (type == nullptr && !PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "zerotensor.Tensor: the type could not be made");
  return type;
}

/// A new zerotensor.Tensor holding `tensor`; NULL with a Python error set on failure.
inline PyObject* new_tensor_object(AnyTensor tensor) {
  PyTypeObject* type = tensor_type();
  if (type == nullptr) return nullptr;
  PyObject* self = type->tp_alloc(type, 0);
  if (self == nullptr) return nullptr;
  new (&reinterpret_cast<TensorObject*>(self)->tensor) AnyTensor(std::move(tensor));
  return self;
}

}  // namespace zt::python::detail
