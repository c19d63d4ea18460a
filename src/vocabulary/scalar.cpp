#include "zerotensor/scalar.hpp"

#include <limits>
#include "vocabulary/concat.hpp"

namespace zt {

namespace detail {
void throw_scalar_overflow(unsigned long long value) {
  throw ValueError(concat("integer ", value, " does not fit int64, the integer type of zt::Scalar ",
                          "(PyTorch: Overflow when unpacking long)"));
}
}  // namespace detail

DType Scalar::inferred_dtype(ScalarKind kind) {
  switch (kind) {
    case ScalarKind::Bool: return bool_;
    case ScalarKind::Integer: return int64;
    case ScalarKind::Floating: return default_dtype();
    case ScalarKind::Complex: break;
  }
  const DType real = default_dtype();
  if (real == float64) return complex128;
  if (real == float32) return complex64;
  throw TypeError(detail::concat("invalid default dtype for complex: ", real,
                                 " has no complex counterpart here (set the default dtype to float32 or float64)"));
}

std::ostream& operator<<(std::ostream& out, const Scalar& value) {
  const auto precision = out.precision(std::numeric_limits<double>::max_digits10);
  std::visit(
      [&](const auto& v) {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, bool>) out << (v ? "True" : "False");
        else if constexpr (std::is_same_v<V, std::complex<double>>)
          out << '(' << v.real() << (v.imag() < 0 ? "" : "+") << v.imag() << "j)";
        else out << v;
      },
      value.value());
  out.precision(precision);
  return out;
}

}  // namespace zt
