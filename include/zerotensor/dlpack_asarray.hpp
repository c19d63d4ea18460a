// zt::asarray for DLPack managed tensors: from_dlpack, then asarray's options. Ownership is
// from_dlpack's: the managed tensor is taken in every case, and when asarray copies (or
// throws) the producer's deleter runs before asarray returns, since nothing shares its
// memory any more.
#pragma once

#include "zerotensor/asarray.hpp"
#include "zerotensor/from_dlpack.hpp"

namespace zt {

/// A DLPack managed tensor (versioned, legacy, or any layout-compatible struct).
template <dlpack::ManagedTensorLayout M>
[[nodiscard]] AnyTensor asarray(M* managed, AsArrayOptions options = {}) {
  return asarray(from_dlpack(managed), options);
}

/// The same, taken out of its RAII owner.
template <dlpack::ManagedTensorLayout M>
[[nodiscard]] AnyTensor asarray(dlpack::UniqueManagedTensor<M> managed, AsArrayOptions options = {}) {
  return asarray(from_dlpack(std::move(managed)), options);
}

}  // namespace zt
