#include "zerotensor/dtype.hpp"

#include <atomic>

#include "zerotensor/error.hpp"
#include "vocabulary/concat.hpp"

namespace zt {
namespace {

std::atomic<DType> process_default_dtype{float32};

/// PyTorch's "barebones" unsigned types, which promote only with floating types.
bool is_wide_unsigned(DType d) { return is_unsigned_integer(d) && d != uint8; }

/// The types PyTorch promotes only with themselves.
bool promotes_only_with_itself(DType d) { return is_float8(d) || is_packed(d); }

/// Floating dtypes ordered by precision for promotion; float16 and bfloat16 share a rank.
int floating_rank(DType d) { return d == float64 ? 3 : d == float32 ? 2 : 1; }

DType promote_floating(DType a, DType b) {
  if (!is_floating_point(b)) return a;
  if (!is_floating_point(a)) return b;
  if (floating_rank(a) == floating_rank(b)) return float32;  // float16 with bfloat16
  return floating_rank(a) > floating_rank(b) ? a : b;
}

/// As PyTorch: the complex type whose parts hold both (complex32 only with bool, integers,
/// float16 and complex32).
DType promote_complex(DType a, DType b) {
  const auto wide = [](DType d) { return d == complex128 || d == float64; };
  const auto half = [](DType d) { return d == complex32_ || d == float16 || !is_floating_point(d) && !is_complex(d); };
  if (wide(a) || wide(b)) return complex128;
  return half(a) && half(b) ? complex32_ : complex64;
}

DType promote_integers(DType a, DType b) {
  if (a == bool_) return b;
  if (b == bool_) return a;
  if (a == uint8) std::swap(a, b);
  if (b == uint8) return a == int8 ? int16 : a;  // uint8 with a signed type
  return itemsize(a) >= itemsize(b) ? a : b;
}

}  // namespace

namespace detail {
void throw_invalid_dtype(DType dtype) {
  throw ValueError(concat("invalid DType value ", unsigned(dtype), "; the dtypes are 0 (bool) to ", dtype_count - 1,
                          " (", name(all_dtypes.back()), ")"));
}
}  // namespace detail

DType promote_types(DType a, DType b) {
  (void)detail::table_index(a);
  (void)detail::table_index(b);
  if (a == b) return a;
  if (promotes_only_with_itself(a) || promotes_only_with_itself(b))
    throw TypeError(detail::concat("promotion for float8 and sub-byte types is not supported, attempted to promote ",
                                   a, " and ", b));
  if (is_wide_unsigned(a) || is_wide_unsigned(b)) {
    if (is_floating_point(a)) return a;
    if (is_floating_point(b)) return b;
    throw TypeError(detail::concat("promotion for uint16, uint32, uint64 types is not supported, attempted to promote ",
                                   a, " and ", b));
  }
  if (is_complex(a) || is_complex(b)) return promote_complex(a, b);
  if (is_floating_point(a) || is_floating_point(b)) return promote_floating(a, b);
  return promote_integers(a, b);
}

DType default_dtype() noexcept { return process_default_dtype.load(std::memory_order_relaxed); }

void set_default_dtype(DType dtype) {
  (void)detail::table_index(dtype);
  if (!is_floating_point(dtype) || is_float8(dtype) || is_packed(dtype))
    throw TypeError(detail::concat("only floating-point types are supported as the default type; got ", dtype));
  process_default_dtype.store(dtype, std::memory_order_relaxed);
}

}  // namespace zt
