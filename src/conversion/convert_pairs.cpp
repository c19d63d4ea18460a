// The bulk conversion of every pair of dtypes that convert (the only code instantiated per
// pair), looked up by dtype.
#include "conversion/convert_kernels.hpp"
#include "vocabulary/concat.hpp"
#include "zerotensor/error.hpp"

namespace zt::detail {

ContiguousConverter contiguous_converter(DType from, DType to) {
  return dispatch(to, [&](auto to_tag) {
    using To = typename decltype(to_tag)::type;
    return dispatch(from, [&](auto from_tag) -> ContiguousConverter {
      using From = typename decltype(from_tag)::type;
      if constexpr (is_packed_v<From> || is_packed_v<To>) {
        if (is_gguf_block(from) || is_gguf_block(to))
          throw TypeError(concat("copy_into: cannot convert ", from, " to ", to,
                                 "; GGUF blocks convert to no other dtype (zt::dequantize decodes them)"));
        throw TypeError(concat("copy_into: cannot convert ", from, " to ", to,
                               "; as in PyTorch, packed sub-byte types convert to no other dtype"));
      } else {
        return [](const void* in, void* out, index_t count) {
          convert_contiguous(static_cast<const From*>(in), static_cast<To*>(out), count);
        };
      }
    });
  });
}

}  // namespace zt::detail
