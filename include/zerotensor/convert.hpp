// The one place dtypes are converted, with PyTorch's value rules: floating → integer
// truncates toward zero, complex → real keeps the real part, anything → bool is `!= 0`,
// bool → number is 0 or 1, integers narrow modulo 2^n. Where PyTorch's C++ would be
// undefined (NaN or an out-of-range float into an integer) zerotensor defines it: NaN
// gives 0 and a value outside int64 saturates before narrowing.
#pragma once

#include "zerotensor/any_tensor.hpp"
#include "zerotensor/export.hpp"
#include "zerotensor/scalar.hpp"

namespace zt {

/// Copies every element of `source` into `destination` (same shape, any strides, any two
/// dtypes), converting each value. ValueError for different shapes, TypeError when the
/// destination is read-only, DeviceError for memory the host cannot touch. Large copies
/// may run on several threads: `options.threads` (to_options.hpp); the other options are
/// for GPU copies and do nothing here.
ZT_API void copy_into(const AnyTensor& source, const AnyTensor& destination, const ToOptions& options = {});

namespace detail {
/// Stores one number as an element of `dtype` at `destination`, as PyTorch stores a Python
/// number (torch.tensor / asarray of a sequence): checked, unlike copy_into. Floating →
/// integer truncates toward zero; ValueError when the value is outside the integer type
/// (NaN and ±inf included), except that negative integers wrap into unsigned types down
/// to -max; TypeError for complex into a real type; anything → bool is `!= 0`.
ZT_API void store_scalar(const Scalar& value, DType dtype, void* destination);

/// Whether an element of `a` and one of `b` may share a byte; copy_into copies through a
/// temporary when they may. False when the address ranges are apart (shares_memory), or
/// when every byte stride of both views is a multiple of some period and the elements'
/// bytes fall on residues modulo that period that the other's never do, as interleaved
/// columns of one buffer; true otherwise (a view of one element within the other's
/// range included), so that it never misses an overlap.
ZT_API bool elements_may_overlap(const AnyTensor& a, const AnyTensor& b);
}  // namespace detail

}  // namespace zt
