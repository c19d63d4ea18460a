#include "zerotensor/convert.hpp"

#include <complex>
#include <cstring>
#include <limits>

#include "concat.hpp"
#include "strided_walk.hpp"
#include "zerotensor/shares_memory.hpp"

namespace zt {
namespace {

template <class T>
inline constexpr bool is_complex_v = false;
template <class T>
inline constexpr bool is_complex_v<std::complex<T>> = true;

template <class T>
inline constexpr bool is_half_v = std::is_same_v<T, Eigen::half> || std::is_same_v<T, Eigen::bfloat16>;

/// Truncates toward zero. NaN gives 0; values outside int64 saturate (uint64 keeps its
/// upper half), then narrower types wrap modulo 2^n as integer narrowing does.
template <class To, class From>
To float_to_integer(From value) {
  constexpr From two_to_63 = From(9223372036854775808.0);
  if (value != value) return To(0);
  if constexpr (std::is_same_v<To, std::uint64_t>) {
    if (value >= two_to_63) {
      return value >= From(18446744073709551616.0) ? std::numeric_limits<To>::max() : static_cast<To>(value);
    }
  }
  if (value >= two_to_63) return static_cast<To>(std::numeric_limits<std::int64_t>::max());
  if (value < -two_to_63) return static_cast<To>(std::numeric_limits<std::int64_t>::min());
  return static_cast<To>(static_cast<std::int64_t>(value));
}

template <class To, class From>
To convert_value(From value) {
  if constexpr (std::is_same_v<To, From>) {
    return value;
  } else if constexpr (std::is_same_v<To, bool>) {
    if constexpr (is_complex_v<From>) return value.real() != 0 || value.imag() != 0;
    else if constexpr (is_half_v<From>) return static_cast<float>(value) != 0.0f;
    else return value != From(0);
  } else if constexpr (is_complex_v<From> && !is_complex_v<To>) {
    return convert_value<To>(value.real());
  } else if constexpr (is_complex_v<To>) {
    using Real = typename To::value_type;
    if constexpr (is_complex_v<From>) return To(Real(value.real()), Real(value.imag()));
    else return To(convert_value<Real>(value), Real(0));
  } else if constexpr (is_half_v<From>) {
    return convert_value<To>(static_cast<float>(value));
  } else if constexpr (is_half_v<To>) {
    return To(static_cast<float>(value));
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    return float_to_integer<To>(value);
  } else {
    return static_cast<To>(value);
  }
}

/// The contiguous fast path. `__restrict` lets the compiler vectorise without a run-time
/// overlap check: copy_into gives a source that overlaps its destination a copy first.
template <class To, class From>
void convert_contiguous(const From* __restrict in, To* __restrict out, index_t count) {
  if constexpr (std::is_same_v<From, To>) {
    std::memcpy(out, in, std::size_t(count) * sizeof(To));
  } else {
    for (index_t i = 0; i < count; ++i) out[i] = convert_value<To>(in[i]);
  }
}

template <class Source, class To>
void convert_typed(const Tensor<Source>& source, const Tensor<To>& destination) {
  using From = std::remove_const_t<Source>;
  const From* in = source.data();
  To* out = destination.data();
  if (source.is_contiguous() && destination.is_contiguous()) return convert_contiguous(in, out, source.numel());
  const std::size_t inner = source.rank() == 0 ? 0 : source.rank() - 1;
  const index_t in_step = source.rank() == 0 ? 1 : source.stride(inner);
  const index_t out_step = source.rank() == 0 ? 1 : destination.stride(inner);
  detail::for_each_row<2>(source.shape(), {source.strides(), destination.strides()},
                          [&](const std::array<index_t, 2>& offsets, index_t length, std::span<const index_t>) {
                            for (index_t i = 0; i < length; ++i)
                              out[offsets[1] + i * out_step] = convert_value<To>(in[offsets[0] + i * in_step]);
                          });
}

/// Whether the two views are the same elements in the same order (copying is a no-op).
bool same_view(const AnyTensor& a, const AnyTensor& b) {
  return a.data_ptr() == b.data_ptr() && a.dtype() == b.dtype() && a.strides() == b.strides();
}

[[noreturn]] void throw_overflow(const Scalar& value, DType dtype) {
  throw ValueError(detail::concat("value ", value, " cannot be converted to type ", dtype, " without overflow"));
}

/// c10's overflow rule for integer → integer, with its wrap of negative values into
/// unsigned types down to -max.
template <class To>
bool integer_overflows(std::int64_t value) {
  constexpr auto max = std::numeric_limits<To>::max();
  if constexpr (std::is_unsigned_v<To>) {
    if (value < 0) return std::uint64_t(0) - std::uint64_t(value) > std::uint64_t(max);
    return std::uint64_t(value) > std::uint64_t(max);
  } else {
    return value < std::int64_t(std::numeric_limits<To>::lowest()) || value > std::int64_t(max);
  }
}

/// c10's rule for floating → integer: NaN and ±inf overflow, as does anything below the
/// lowest or above the largest value. 2^63 into int64 (and 2^64 into uint64) overflows
/// too, where PyTorch's comparison against a rounded limit lets it through.
template <class To>
bool floating_overflows(double value) {
  const double upper = double(std::numeric_limits<To>::max());
  if (value != value || value < double(std::numeric_limits<To>::lowest()) || value > upper) return true;
  return sizeof(To) == 8 && value >= upper;  // upper is 2^63 or 2^64, one above the true limit
}

template <class To>
To store_value(const Scalar& scalar, DType dtype) {
  return std::visit(
      [&](const auto& value) -> To {
        using From = std::decay_t<decltype(value)>;
        if constexpr (std::is_same_v<To, bool> || std::is_same_v<From, To>) {
          return convert_value<To>(value);
        } else if constexpr (is_complex_v<From> && !is_complex_v<To>) {
          throw TypeError(detail::concat("value ", scalar, " cannot be converted to type ", dtype,
                                         ": must be real number, not complex"));
        } else if constexpr (std::is_integral_v<To> && std::is_same_v<From, std::int64_t>) {
          if (integer_overflows<To>(value)) throw_overflow(scalar, dtype);
          return static_cast<To>(value);
        } else if constexpr (std::is_integral_v<To> && std::is_same_v<From, double>) {
          if (floating_overflows<To>(value)) throw_overflow(scalar, dtype);
          return static_cast<To>(value);
        } else {
          return convert_value<To>(value);
        }
      },
      scalar.value());
}

}  // namespace

namespace detail {
void store_scalar(const Scalar& value, DType dtype, void* destination) {
  dispatch(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T element = store_value<T>(value, dtype);
    std::memcpy(destination, &element, sizeof(T));
  });
}
}  // namespace detail

void copy_into(const AnyTensor& source, const AnyTensor& destination) {
  if (source.shape() != destination.shape())
    throw ValueError(detail::concat("copy_into: source shape ", detail::shape_string(source.shape()),
                                    " differs from destination shape ", detail::shape_string(destination.shape())));
  if (!destination.is_writable()) detail::throw_read_only("copy_into");
  if (!source.device().is_host_accessible()) detail::throw_not_host_accessible("copy_into", source.device());
  if (!destination.device().is_host_accessible())
    detail::throw_not_host_accessible("copy_into", destination.device());
  if (source.numel() == 0 || same_view(source, destination)) return;
  // As NumPy's copyto and PyTorch's copy_: overlapping memory reads as it was before the copy.
  const AnyTensor input = shares_memory(source, destination) ? source.clone() : source;
  dispatch(destination.dtype(), [&](auto tag) {
    const auto out = destination.as<typename decltype(tag)::type>();
    input.visit([&](const auto& in) { convert_typed(in, out); });
  });
}

}  // namespace zt
