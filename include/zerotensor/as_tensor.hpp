// zt::as_tensor: torch.as_tensor for C++. It is asarray with `copy` left unset — the same
// inputs, inference and sharing (see asarray.hpp) — so memory is shared whenever dtype and
// device allow and copied otherwise; there is no way to force or forbid a copy.
//
// Where torch.as_tensor differs from torch.asarray, zerotensor follows asarray: a Buffer is
// viewed as bytes of a dtype (PyTorch's as_tensor reads a bytearray as a list of ints and
// refuses bytes), and a zt tensor is shared (PyTorch returns the same tensor object). DLPack
// managed tensors are accepted as current PyTorch routes __dlpack__ objects through
// from_dlpack (1.13 could not infer their dtype, AT25/AT34).
#pragma once

#include <initializer_list>
#include <optional>
#include <utility>

#include "zerotensor/arrow_asarray.hpp"
#include "zerotensor/asarray.hpp"
#include "zerotensor/dlpack_asarray.hpp"

namespace zt {

struct AsTensorOptions {
  std::optional<DType> dtype{};    ///< unset: the input's own (inferred for numbers and sequences)
  std::optional<Device> device{};  ///< unset: the input's own (cpu for numbers and sequences)
};

namespace detail {
[[nodiscard]] constexpr AsArrayOptions without_copy(const AsTensorOptions& options) noexcept {
  return {.dtype = options.dtype, .device = options.device, .copy = std::nullopt};
}
}  // namespace detail

/// asarray(obj, {.dtype, .device}) for every input asarray accepts.
template <class X>
  requires requires(X&& obj) { asarray(std::forward<X>(obj), AsArrayOptions{}); }
[[nodiscard]] AnyTensor as_tensor(X&& obj, AsTensorOptions options = {}) {
  return asarray(std::forward<X>(obj), detail::without_copy(options));
}

/// A braced nested list of numbers, e.g. `as_tensor({{1, 2.5}, {true, 4}})`.
[[nodiscard]] inline AnyTensor as_tensor(std::initializer_list<NestedScalars> sequence, AsTensorOptions options = {}) {
  return asarray(sequence, detail::without_copy(options));
}

}  // namespace zt
