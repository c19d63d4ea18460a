// zt::asarray / zt::as_tensor for Arrow arrays: from_arrow, then asarray's options (dtype,
// device, copy, with PyTorch's rules). Ownership is from_arrow's: both structs are taken in
// every case; when asarray copies (or throws), the producer's release runs before asarray
// returns. The view is read-only (Arrow memory is immutable), so a dtype-preserving asarray
// without copy is read-only too.
#pragma once

#include "zerotensor/asarray.hpp"
#include "zerotensor/from_arrow.hpp"

namespace zt {

/// An exported Arrow array, both halves of the C Data Interface, for asarray and as_tensor.
struct ArrowData {
  arrow::Array* array;
  arrow::Schema* schema;
};

/// copy = false refuses what from_arrow would copy (bool, unaligned data) and what asarray
/// would copy (another dtype or device).
[[nodiscard]] inline AnyTensor asarray(ArrowData data, AsArrayOptions options = {}) {
  return asarray(from_arrow(data.array, data.schema, {.copy = options.copy == false ? options.copy : std::nullopt}),
                 options);
}

}  // namespace zt
