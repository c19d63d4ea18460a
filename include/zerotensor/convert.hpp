// The one place dtypes are converted, with PyTorch's value rules: floating → integer
// truncates toward zero, complex → real keeps the real part, anything → bool is `!= 0`,
// bool → number is 0 or 1, integers narrow modulo 2^n. Where PyTorch's C++ would be
// undefined (NaN or an out-of-range float into an integer) zerotensor defines it: NaN
// gives 0 and a value outside int64 saturates before narrowing.
#pragma once

#include "zerotensor/any_tensor.hpp"

namespace zt {

/// Copies every element of `source` into `destination` (same shape, any strides, any two
/// dtypes), converting each value. ValueError for different shapes, TypeError when the
/// destination is read-only, DeviceError for memory the host cannot touch.
void copy_into(const AnyTensor& source, const AnyTensor& destination);

}  // namespace zt
