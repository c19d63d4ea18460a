// Internal to zerotensor/python.hpp: how a Python object becomes an AnyTensor that shares its
// memory. Every function here runs with the GIL held.
#pragma once

#include <Python.h>

#include <deque>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "zerotensor/any_tensor.hpp"
#include "zerotensor/dlpack.hpp"
#include "zerotensor/from_dlpack.hpp"

namespace zt::python::detail {

/// Runs `release(p)` under the GIL, from whichever thread drops the last view.
template <class P, void (*release)(P*)>
void under_gil(P* p) noexcept {
  const PyGILState_STATE state = PyGILState_Ensure();
  release(p);
  PyGILState_Release(state);
}

inline void decref(PyObject* object) { Py_DECREF(object); }

/// A keep-alive that holds `object` (a new reference, taken) until the last view dies.
inline KeepAlive keep_object(PyObject* object) { return KeepAlive(object, &under_gil<PyObject, decref>); }

/// A string made once and kept for the life of the process.
inline PyObject* interned(const char* text) { return PyUnicode_InternFromString(text); }

/// What zerotensor learns once about a Python type; the cache keeps the type alive, so its address
/// is never reused by another.
struct TypeFacts {
  PyTypeObject* type;
  const dlpack::ExchangeAPI* exchange_api;  ///< a DLPack 1.x C exchange API, or NULL
  /// The type's `__dlpack__` (a plain method by contract, called with the object as its first
  /// argument, as `type(x).__dlpack__(x)`), or NULL; kept with the type.
  PyObject* dlpack_method;
  bool dlpack_takes_max_version = true;     ///< false once a call with max_version raised TypeError
};

/// The type's C exchange API of major version 1 (walking `prev_api` past newer ones), or NULL.
inline const dlpack::ExchangeAPI* find_exchange_api(PyTypeObject* type) {
  PyObject* capsule = PyObject_GetAttrString(reinterpret_cast<PyObject*>(type), dlpack::exchange_api_attribute);
  if (capsule == nullptr) {
    PyErr_Clear();
    return nullptr;
  }
  auto* header = static_cast<dlpack::ExchangeAPIHeader*>(PyCapsule_GetPointer(capsule, dlpack::exchange_api_capsule_name));
  Py_DECREF(capsule);
  if (header == nullptr) PyErr_Clear();
  while (header != nullptr && header->version.major != dlpack::major_version) header = header->prev_api;
  return reinterpret_cast<const dlpack::ExchangeAPI*>(header);
}

inline TypeFacts& facts_of(PyTypeObject* type) {
  static std::deque<TypeFacts> known;  // few types are ever seen; the GIL guards it
  for (TypeFacts& facts : known)
    if (facts.type == type) return facts;
  Py_INCREF(type);
  PyObject* dlpack_method = PyObject_GetAttrString(reinterpret_cast<PyObject*>(type), "__dlpack__");
  if (dlpack_method == nullptr) PyErr_Clear();
  if (dlpack_method == Py_None) Py_CLEAR(dlpack_method);  // `__dlpack__ = None` opts out
  return known.emplace_back(TypeFacts{type, find_exchange_api(type), dlpack_method});
}

/// The managed tensor in an unused DLPack capsule ("dltensor_versioned" or "dltensor"), read once.
struct CapsuleTensor {
  void* managed = nullptr;  ///< NULL: not an unused DLPack capsule
  bool versioned = false;
  [[nodiscard]] dlpack::DeviceType device_type() const {
    return versioned ? static_cast<dlpack::ManagedTensorVersioned*>(managed)->dl_tensor.device.device_type
                     : static_cast<dlpack::ManagedTensor*>(managed)->dl_tensor.device.device_type;
  }
};

/// The capsule's managed tensor, looked for under the name asked for first (versioned when
/// max_version was given), then under the other.
inline CapsuleTensor open_capsule(PyObject* capsule, bool expect_versioned) {
  static constexpr const char* names[2] = {"dltensor", "dltensor_versioned"};
  for (const bool versioned : {expect_versioned, !expect_versioned}) {
    if (void* managed = PyCapsule_GetPointer(capsule, names[int(versioned)])) return {managed, versioned};
    PyErr_Clear();
  }
  return {};
}

/// Hands the capsule's managed tensor to from_dlpack. The capsule is a new one that no one else
/// holds, so clearing its destructor is what keeps it from returning the tensor to the producer
/// (the "used_dltensor" renaming is for capsules others may still see).
inline std::optional<AnyTensor> take_capsule(PyObject* capsule, const CapsuleTensor& tensor) {
  if (PyCapsule_SetDestructor(capsule, nullptr) != 0) {
    PyErr_Clear();
    return std::nullopt;
  }
  if (tensor.versioned) return from_dlpack(static_cast<dlpack::ManagedTensorVersioned*>(tensor.managed));
  return from_dlpack(static_cast<dlpack::ManagedTensor*>(tensor.managed));
}

/// `object.__dlpack__(max_version=(1, 3))` (or without max_version for producers that predate it,
/// such as NumPy 1.x and PyTorch 1.x), with `stream=1` when `legacy_stream`: the producer then
/// makes CUDA's legacy default stream, which zerotensor's streams synchronise with, wait for its
/// queued work. A new reference, or NULL with the error cleared.
inline PyObject* call_dlpack(PyObject* object, TypeFacts& facts, bool legacy_stream) {
  static PyObject* const max_version = Py_BuildValue("(II)", dlpack::major_version, dlpack::minor_version);
  static PyObject* const one = PyLong_FromLong(1);
  // Interned names: a producer's argument parser (NumPy's) matches them by identity, not by text.
  static PyObject* const max_version_name = interned("max_version");
  static PyObject* const stream_name = interned("stream");
  static PyObject* const names[4] = {nullptr, PyTuple_Pack(1, max_version_name), PyTuple_Pack(1, stream_name),
                                     PyTuple_Pack(2, max_version_name, stream_name)};
  for (;;) {
    const bool versioned = facts.dlpack_takes_max_version;
    PyObject* args[3] = {object};
    std::size_t count = 1;
    if (versioned) args[count++] = max_version;
    if (legacy_stream) args[count++] = one;
    PyObject* capsule = PyObject_Vectorcall(facts.dlpack_method, args, 1, names[int(versioned) + 2 * int(legacy_stream)]);
    if (capsule != nullptr) return capsule;
    const bool refused_max_version = versioned && PyErr_ExceptionMatches(PyExc_TypeError);
    PyErr_Clear();
    if (!refused_max_version) return nullptr;
    facts.dlpack_takes_max_version = false;
  }
}

/// The buffer-protocol route, declared for the routes before it to fall back on.
inline std::optional<AnyTensor> via_buffer(PyObject* object);

/// The `__dlpack__` route, falling back on the buffer protocol (at once when the type has no
/// `__dlpack__`). A CUDA tensor is asked for with the stream argument: at once when the object is
/// `known_cuda`, else again once its first capsule says CUDA (a CPU producer must not be given one).
inline std::optional<AnyTensor> via_dlpack(PyObject* object, TypeFacts& facts, bool known_cuda = false) {
  if (facts.dlpack_method == nullptr) return via_buffer(object);
  PyObject* capsule = call_dlpack(object, facts, known_cuda);
  if (capsule == nullptr) return via_buffer(object);
  CapsuleTensor tensor = open_capsule(capsule, facts.dlpack_takes_max_version);
  if (!known_cuda && tensor.managed != nullptr && tensor.device_type() == dlpack::DeviceType::CUDA) {
    Py_DECREF(capsule);  // its destructor returns the unused tensor to the producer
    capsule = call_dlpack(object, facts, true);
    if (capsule == nullptr) return std::nullopt;
    tensor = open_capsule(capsule, facts.dlpack_takes_max_version);
  }
  std::unique_ptr<PyObject, void (*)(PyObject*)> held(capsule, &decref);
  if (tensor.managed == nullptr) return via_buffer(object);
  return take_capsule(capsule, tensor);
}

/// The exchange API's borrowed description, for a view that is read-only anyway (its flags are
/// not given): the object itself is kept alive. No allocation in the producer, no Python call.
inline std::optional<AnyTensor> via_exchange_description(PyObject* object, TypeFacts& facts) {
  dlpack::Tensor described{};
  if (facts.exchange_api->dltensor_from_py_object_no_sync(object, &described) != 0) {
    PyErr_Clear();
    return via_dlpack(object, facts);
  }
  if (described.device.device_type == dlpack::DeviceType::CUDA) return via_dlpack(object, facts, true);
  Py_INCREF(object);
  return zt::detail::view_from_dlpack(described, dlpack::flag_read_only, keep_object(object));
}

/// The exchange API's route: the producer's owning export (or, for a read-only view, its
/// borrowed description), with no Python call. A CUDA tensor goes the `__dlpack__` route instead,
/// where the producer synchronises the streams (one without `__dlpack__` does not bind: nothing
/// would order its queued work before zerotensor's).
inline std::optional<AnyTensor> via_exchange_api(PyObject* object, TypeFacts& facts, bool read_only_view) {
  if (read_only_view && facts.exchange_api->dltensor_from_py_object_no_sync != nullptr)
    return via_exchange_description(object, facts);
  dlpack::ManagedTensorVersioned* managed = nullptr;
  if (facts.exchange_api->managed_tensor_from_py_object_no_sync(object, &managed) != 0) {
    PyErr_Clear();
    return via_dlpack(object, facts);
  }
  if (managed->dl_tensor.device.device_type == dlpack::DeviceType::CUDA) {
    dlpack::CallDeleter{}(managed);
    return via_dlpack(object, facts, true);
  }
  return from_dlpack(managed);
}

inline void release_buffer(Py_buffer* buffer) {
  PyBuffer_Release(buffer);
  delete buffer;
}

/// The DLPack type of a buffer-protocol element: a struct-module format of native byte order
/// ('@', '=' or '<' on a little-endian machine) whose letter gives the kind and `itemsize` the
/// width; nullopt for anything else.
inline std::optional<dlpack::DataType> buffer_element_type(const char* format, Py_ssize_t itemsize) {
  if (format == nullptr) format = "B";
  const bool little_endian = PY_LITTLE_ENDIAN != 0;
  if (*format == '@' || *format == '=' || (*format == '<' && little_endian) || (*format == '>' && !little_endian))
    ++format;
  const std::string_view letters(format);
  dlpack::TypeCode code;
  if (letters == "?") code = dlpack::TypeCode::Bool;
  else if (letters.size() == 1 && std::string_view("bhilq").find(letters[0]) != std::string_view::npos) code = dlpack::TypeCode::Int;
  else if (letters.size() == 1 && std::string_view("BHILQ").find(letters[0]) != std::string_view::npos) code = dlpack::TypeCode::UInt;
  else if (letters == "e" || letters == "f" || letters == "d") code = dlpack::TypeCode::Float;
  else if (letters == "Zf" || letters == "Zd") code = dlpack::TypeCode::Complex;
  else return std::nullopt;
  if (itemsize <= 0 || itemsize > 16) return std::nullopt;
  return dlpack::DataType{std::uint8_t(code), std::uint8_t(8 * itemsize), 1};
}

/// The buffer-protocol route (memoryview, bytes, bytearray, array.array, ...): the buffer is held
/// until the last view dies, and a read-only buffer gives a read-only tensor.
inline std::optional<AnyTensor> via_buffer(PyObject* object) {
  if (!PyObject_CheckBuffer(object)) return std::nullopt;
  auto buffer = std::make_unique<Py_buffer>();
  if (PyObject_GetBuffer(object, buffer.get(), PyBUF_RECORDS_RO) != 0) {
    PyErr_Clear();
    return std::nullopt;
  }
  Py_buffer& view = *buffer;
  KeepAlive owner(buffer.release(), &under_gil<Py_buffer, release_buffer>);
  const std::optional<dlpack::DataType> type = buffer_element_type(view.format, view.itemsize);
  if (!type) return std::nullopt;
  std::vector<std::int64_t> extents(2 * std::size_t(view.ndim));
  for (int dim = 0; dim < view.ndim; ++dim) {
    extents[std::size_t(dim)] = view.shape[dim];
    const Py_ssize_t stride = view.strides != nullptr ? view.strides[dim] : 0;
    if (stride % view.itemsize != 0) return std::nullopt;  // not a whole number of elements
    extents[std::size_t(view.ndim + dim)] = stride / view.itemsize;
  }
  const dlpack::Tensor descriptor{view.buf,
                                  {dlpack::DeviceType::CPU, 0},
                                  view.ndim,
                                  *type,
                                  extents.data(),
                                  view.strides != nullptr ? extents.data() + view.ndim : nullptr,
                                  0};
  return zt::detail::view_from_dlpack(descriptor, view.readonly ? dlpack::flag_read_only : 0, std::move(owner));
}

/// The tensor `object` shares memory with: through its type's C exchange API, else
/// `__dlpack__`, else the buffer protocol, each route falling back on the next when it gives no
/// tensor (NumPy 1.x's `__dlpack__` refuses read-only arrays, which its buffer gives); nullopt (no
/// Python error set) when none does. With `read_only_view` the view may come back read-only
/// whatever the producer's memory is. zerotensor's errors (an unaligned first element, a bool
/// byte other than 0 or 1, ...) propagate.
inline std::optional<AnyTensor> import_object(PyObject* object, bool read_only_view) {
  TypeFacts& facts = facts_of(Py_TYPE(object));
  if (facts.exchange_api != nullptr) return via_exchange_api(object, facts, read_only_view);
  return via_dlpack(object, facts);
}

}  // namespace zt::python::detail
