// zt::python: zerotensor tensors in and out of Python, without a copy — what the nanobind and
// pybind11 casters (zerotensor/nanobind.hpp, zerotensor/pybind11.hpp) are built on. Header-only:
// it needs Python's headers, which an extension module has, and nothing of Python in the library.
//
// In: `from_object` takes any object that offers its memory — through DLPack 1.3's C exchange API
// found on its type (PyTorch ≥ 2.11; no Python call), else `__dlpack__` (NumPy ≥ 1.22, PyTorch,
// JAX, CuPy; `max_version=(1, 3)` asked for, and a CUDA tensor asked for with `stream=1`, so the
// producer makes CUDA's legacy default stream, which zerotensor's streams synchronise with, wait
// for its queued work), else the buffer protocol (memoryview, bytearray, array.array). The view
// keeps the producer's memory alive (the DLPack deleter, or the held buffer, released under the
// GIL from whichever thread drops the last view) and is read-only where the producer says so
// (DLPack's READ_ONLY flag, a read-only buffer).
//
// Out: `to_object` gives a `zerotensor.Tensor` that owns the tensor (or, for a tensor that
// borrows its memory, borrows it too) and offers it through `__dlpack__` / `__dlpack_device__`
// (numpy.from_dlpack, torch.from_dlpack, and torch.as_tensor in PyTorch 2.x), the buffer
// protocol for host memory of the dtypes the struct module names (numpy.asarray, memoryview), and
// DLPack 1.3's C exchange API on its type. A read-only tensor exports READ_ONLY and a read-only
// buffer.
//
// Every function here needs the GIL.
#pragma once

#include <Python.h>

#include <cstddef>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "zerotensor/any_tensor.hpp"
#include "zerotensor/detail/python_import.hpp"
#include "zerotensor/detail/python_object.hpp"
#include "zerotensor/dtype.hpp"
#include "zerotensor/tensor.hpp"

namespace zt::python {

/// What a bound argument asks of the tensor it takes.
struct Requirements {
  std::optional<DType> dtype;    ///< any dtype when empty
  std::size_t rank = dynamic;    ///< any rank when dynamic
  bool writable = false;         ///< refuse read-only memory
  bool contiguous = false;       ///< refuse anything but C order
  /// The argument only reads (a const element type): the view may be read-only whatever the
  /// producer's memory is, which lets a C exchange API's borrowed description serve (no
  /// allocation in the producer).
  bool read_only_view = false;
};

/// A typed argument that binds only to C-contiguous memory, for code that needs inner stride 1
/// (array(), vector(), an Eigen map with a compile-time inner stride).
template <class T, std::size_t Rank = dynamic>
class Contiguous : public Tensor<T, Rank> {
 public:
  explicit Contiguous(Tensor<T, Rank> tensor) : Tensor<T, Rank>(std::move(tensor)) {}
};

/// Whether `tensor` meets `needs` and is where this build computes: host memory, and in a CUDA
/// build (ZT_CUDA) GPU memory too.
[[nodiscard]] inline bool meets(const AnyTensor& tensor, const Requirements& needs) {
#if defined(ZT_CUDA) && ZT_CUDA
  constexpr bool gpu_allowed = true;
#else
  constexpr bool gpu_allowed = false;
#endif
  return (!needs.dtype || tensor.dtype() == *needs.dtype) && (needs.rank == dynamic || tensor.rank() == needs.rank) &&
         (!needs.writable || tensor.is_writable()) && (!needs.contiguous || tensor.is_contiguous()) &&
         (gpu_allowed || tensor.device().is_host_accessible());
}

/// The tensor `object` shares memory with (see the top of this header), when it has one that
/// meets `needs`; nullopt otherwise, with no Python error set. zerotensor's errors about what a
/// producer described (an unaligned first element, a bool byte other than 0 or 1) propagate.
[[nodiscard]] inline std::optional<AnyTensor> from_object(PyObject* object, const Requirements& needs = {}) {
  std::optional<AnyTensor> tensor = detail::import_object(object, needs.read_only_view);
  if (tensor && !meets(*tensor, needs)) tensor.reset();
  return tensor;
}

/// A new reference to a `zerotensor.Tensor` holding `tensor`; NULL with a Python error set when
/// it could not be made.
[[nodiscard]] inline PyObject* to_object(AnyTensor tensor) { return detail::new_tensor_object(std::move(tensor)); }

/// zerotensor's DLPack 1.3 C exchange API, the one on zerotensor.Tensor's type.
[[nodiscard]] inline const dlpack::ExchangeAPI& exchange_api() noexcept { return detail::exchange_api_table; }

namespace detail {

template <class View>
struct ArgumentTraits;  // what an argument type asks for, and how it is made from an AnyTensor

template <>
struct ArgumentTraits<AnyTensor> {
  static constexpr Requirements needs{};
  static constexpr bool typed = false;
};

template <class T, std::size_t Rank>
struct ArgumentTraits<Tensor<T, Rank>> {
  using element = T;
  static constexpr std::size_t rank = Rank;
  static constexpr Requirements needs{dtype_of<std::remove_const_t<T>>, Rank, !std::is_const_v<T>, false,
                                      std::is_const_v<T>};
  static constexpr bool typed = true;
};

template <class T, std::size_t Rank>
struct ArgumentTraits<Contiguous<T, Rank>> : ArgumentTraits<Tensor<T, Rank>> {
  static constexpr Requirements needs{dtype_of<std::remove_const_t<T>>, Rank, !std::is_const_v<T>, true,
                                      std::is_const_v<T>};
};

/// The argument `object` gives, or nullopt when it does not bind (so overload resolution goes on).
template <class View>
std::optional<View> cast_argument(PyObject* object) {
  using Traits = ArgumentTraits<View>;
  std::optional<AnyTensor> tensor = from_object(object, Traits::needs);
  if (!tensor) return std::nullopt;
  if constexpr (!Traits::typed) {
    return tensor;
  } else {
    auto typed = tensor->template as<typename Traits::element, Traits::rank>();
    if constexpr (std::is_same_v<View, decltype(typed)>) return typed;
    else return View(std::move(typed));
  }
}

/// The name an argument type has in a binding's signatures: `zerotensor.Tensor[float32, ndim=2,
/// writable]` (writable: the function may write, so read-only memory does not bind).
template <class View>
constexpr std::string signature_text() {
  using Traits = ArgumentTraits<View>;
  std::string text = "zerotensor.Tensor";
  if constexpr (Traits::typed) {
    text += "[";
    text += name(*Traits::needs.dtype);
    if (Traits::needs.rank != dynamic) {
      text += ", ndim=";
      std::string digits;
      for (std::size_t rank = Traits::needs.rank; digits.empty() || rank > 0; rank /= 10)
        digits.insert(digits.begin(), char('0' + rank % 10));
      text += digits;
    }
    if (Traits::needs.writable) text += ", writable";
    if (Traits::needs.contiguous) text += ", contiguous";
    text += "]";
  }
  return text;
}

template <std::size_t Size>
struct FixedText {
  char text[Size];
};

/// signature_text as a character array, which the binding libraries' const_name() takes.
template <class View>
struct Signature {
  static constexpr std::size_t size = signature_text<View>().size() + 1;
  static constexpr FixedText<size> name = [] {
    FixedText<size> fixed{};
    const std::string text = signature_text<View>();
    for (std::size_t i = 0; i < text.size(); ++i) fixed.text[i] = text[i];
    return fixed;
  }();
};

}  // namespace detail

}  // namespace zt::python
