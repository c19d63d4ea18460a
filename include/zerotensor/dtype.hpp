// The 51 element types (PyTorch's 24 and GGUF's 27 block types), their sizes and names,
// PyTorch's promotion rules, and the process-wide default dtype.
#pragma once

#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <type_traits>

#include <Eigen/Core>

#include "zerotensor/complex32.hpp"
#include "zerotensor/export.hpp"
#include "zerotensor/float8.hpp"
#include "zerotensor/gguf_blocks.hpp"
#include "zerotensor/packed_floats.hpp"

namespace zt {

/// The order is part of the ABI of AnyTensor: it is the index of the variant alternative.
enum class DType : std::uint8_t {
  Bool, UInt8, Int8, Int16, Int32, Int64, UInt16, UInt32, UInt64,
  Float16, BFloat16, Float32, Float64, Complex64, Complex128,
  Float8_e4m3fn, Float8_e5m2, Float8_e4m3fnuz, Float8_e5m2fnuz, Float8_e8m0fnu, Complex32,
  Float4_e2m1fn_x2, Float6_e2m3fn_x4, Float6_e3m2fn_x4,
  Gguf_q4_0, Gguf_q4_1, Gguf_q5_0, Gguf_q5_1, Gguf_q8_0, Gguf_q8_1, Gguf_q2_k, Gguf_q3_k, Gguf_q4_k, Gguf_q5_k, Gguf_q6_k, Gguf_q8_k, Gguf_iq2_xxs, Gguf_iq2_xs, Gguf_iq3_xxs, Gguf_iq1_s, Gguf_iq4_nl, Gguf_iq3_s, Gguf_iq2_s, Gguf_iq4_xs, Gguf_iq1_m, Gguf_tq1_0, Gguf_tq2_0, Gguf_mxfp4, Gguf_nvfp4, Gguf_q1_0, Gguf_q2_0,
};

inline constexpr DType bool_ = DType::Bool;
inline constexpr DType uint8 = DType::UInt8;
inline constexpr DType int8 = DType::Int8;
inline constexpr DType int16 = DType::Int16;
inline constexpr DType int32 = DType::Int32;
inline constexpr DType int64 = DType::Int64;
inline constexpr DType uint16 = DType::UInt16;
inline constexpr DType uint32 = DType::UInt32;
inline constexpr DType uint64 = DType::UInt64;
inline constexpr DType float16 = DType::Float16;
inline constexpr DType bfloat16 = DType::BFloat16;
inline constexpr DType float32 = DType::Float32;
inline constexpr DType float64 = DType::Float64;
inline constexpr DType complex64 = DType::Complex64;
inline constexpr DType complex128 = DType::Complex128;
inline constexpr DType float8_e4m3fn_ = DType::Float8_e4m3fn;
inline constexpr DType float8_e5m2_ = DType::Float8_e5m2;
inline constexpr DType float8_e4m3fnuz_ = DType::Float8_e4m3fnuz;
inline constexpr DType float8_e5m2fnuz_ = DType::Float8_e5m2fnuz;
inline constexpr DType float8_e8m0fnu_ = DType::Float8_e8m0fnu;
inline constexpr DType complex32_ = DType::Complex32;
inline constexpr DType float4_e2m1fn_x2_ = DType::Float4_e2m1fn_x2;
inline constexpr DType float6_e2m3fn_x4_ = DType::Float6_e2m3fn_x4;
inline constexpr DType float6_e3m2fn_x4_ = DType::Float6_e3m2fn_x4;
inline constexpr DType gguf_q4_0_ = DType::Gguf_q4_0;
inline constexpr DType gguf_q4_1_ = DType::Gguf_q4_1;
inline constexpr DType gguf_q5_0_ = DType::Gguf_q5_0;
inline constexpr DType gguf_q5_1_ = DType::Gguf_q5_1;
inline constexpr DType gguf_q8_0_ = DType::Gguf_q8_0;
inline constexpr DType gguf_q8_1_ = DType::Gguf_q8_1;
inline constexpr DType gguf_q2_k_ = DType::Gguf_q2_k;
inline constexpr DType gguf_q3_k_ = DType::Gguf_q3_k;
inline constexpr DType gguf_q4_k_ = DType::Gguf_q4_k;
inline constexpr DType gguf_q5_k_ = DType::Gguf_q5_k;
inline constexpr DType gguf_q6_k_ = DType::Gguf_q6_k;
inline constexpr DType gguf_q8_k_ = DType::Gguf_q8_k;
inline constexpr DType gguf_iq2_xxs_ = DType::Gguf_iq2_xxs;
inline constexpr DType gguf_iq2_xs_ = DType::Gguf_iq2_xs;
inline constexpr DType gguf_iq3_xxs_ = DType::Gguf_iq3_xxs;
inline constexpr DType gguf_iq1_s_ = DType::Gguf_iq1_s;
inline constexpr DType gguf_iq4_nl_ = DType::Gguf_iq4_nl;
inline constexpr DType gguf_iq3_s_ = DType::Gguf_iq3_s;
inline constexpr DType gguf_iq2_s_ = DType::Gguf_iq2_s;
inline constexpr DType gguf_iq4_xs_ = DType::Gguf_iq4_xs;
inline constexpr DType gguf_iq1_m_ = DType::Gguf_iq1_m;
inline constexpr DType gguf_tq1_0_ = DType::Gguf_tq1_0;
inline constexpr DType gguf_tq2_0_ = DType::Gguf_tq2_0;
inline constexpr DType gguf_mxfp4_ = DType::Gguf_mxfp4;
inline constexpr DType gguf_nvfp4_ = DType::Gguf_nvfp4;
inline constexpr DType gguf_q1_0_ = DType::Gguf_q1_0;
inline constexpr DType gguf_q2_0_ = DType::Gguf_q2_0;

inline constexpr std::size_t dtype_count = 51;
/// Every dtype, in DType order.
inline constexpr std::array<DType, dtype_count> all_dtypes = [] {
  std::array<DType, dtype_count> dtypes{};
  for (std::size_t i = 0; i < dtype_count; ++i) dtypes[i] = DType(i);
  return dtypes;
}();

/// The C++ element types, in DType order.
using element_types = std::tuple<bool, std::uint8_t, std::int8_t, std::int16_t, std::int32_t,
                                 std::int64_t, std::uint16_t, std::uint32_t, std::uint64_t,
                                 Eigen::half, Eigen::bfloat16, float, double,
                                 std::complex<float>, std::complex<double>,
                                 float8_e4m3fn, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz, float8_e8m0fnu,
                                 complex32, float4_e2m1fn_x2, float6_e2m3fn_x4, float6_e3m2fn_x4,
                                 gguf_q4_0, gguf_q4_1, gguf_q5_0, gguf_q5_1, gguf_q8_0, gguf_q8_1, gguf_q2_k, gguf_q3_k, gguf_q4_k, gguf_q5_k, gguf_q6_k, gguf_q8_k, gguf_iq2_xxs, gguf_iq2_xs, gguf_iq3_xxs, gguf_iq1_s, gguf_iq4_nl, gguf_iq3_s, gguf_iq2_s, gguf_iq4_xs, gguf_iq1_m, gguf_tq1_0, gguf_tq2_0, gguf_mxfp4, gguf_nvfp4, gguf_q1_0, gguf_q2_0>;

/// The C++ type that stores one element of dtype `D`.
template <DType D>
using type_of = std::tuple_element_t<static_cast<std::size_t>(D), element_types>;

namespace detail {
template <class T, std::size_t... I>
constexpr int dtype_index(std::index_sequence<I...>) {
  int found = -1;
  ((found = std::is_same_v<T, std::tuple_element_t<I, element_types>> ? int(I) : found), ...);
  return found;
}
template <class T>
inline constexpr int dtype_index_v =
    dtype_index<std::remove_const_t<T>>(std::make_index_sequence<dtype_count>{});
}  // namespace detail

/// Whether `T` (const or not) is one of the element types.
template <class T>
concept Element = detail::dtype_index_v<T> >= 0;

/// The dtype of element type `T`; `const T` has the same dtype as `T`.
template <Element T>
inline constexpr DType dtype_of = static_cast<DType>(detail::dtype_index_v<T>);

namespace detail {
template <class... Types>
constexpr std::array<std::uint16_t, sizeof...(Types)> element_sizes(std::type_identity<std::tuple<Types...>>) {
  return {sizeof(Types)...};
}
template <class... Types>
constexpr std::array<std::uint8_t, sizeof...(Types)> element_alignments(std::type_identity<std::tuple<Types...>>) {
  return {alignof(Types)...};
}
inline constexpr auto itemsizes = detail::element_sizes(std::type_identity<element_types>{});
inline constexpr auto alignments = detail::element_alignments(std::type_identity<element_types>{});
}  // namespace detail

namespace detail {
inline constexpr std::array<std::string_view, dtype_count> dtype_names = {
    "bool",   "uint8",   "int8",     "int16",   "int32",   "int64",     "uint16",    "uint32",
    "uint64", "float16", "bfloat16", "float32", "float64", "complex64", "complex128",
    "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu", "complex32",
    "float4_e2m1fn_x2", "float6_e2m3fn_x4", "float6_e3m2fn_x4",
    "gguf_q4_0", "gguf_q4_1", "gguf_q5_0", "gguf_q5_1", "gguf_q8_0", "gguf_q8_1", "gguf_q2_k", "gguf_q3_k", "gguf_q4_k", "gguf_q5_k", "gguf_q6_k", "gguf_q8_k", "gguf_iq2_xxs", "gguf_iq2_xs", "gguf_iq3_xxs", "gguf_iq1_s", "gguf_iq4_nl", "gguf_iq3_s", "gguf_iq2_s", "gguf_iq4_xs", "gguf_iq1_m", "gguf_tq1_0", "gguf_tq2_0", "gguf_mxfp4", "gguf_nvfp4", "gguf_q1_0", "gguf_q2_0"};

[[noreturn]] ZT_API void throw_invalid_dtype(DType dtype);

/// The position of `dtype` in the tables; ValueError for a value that names no dtype
/// (a cast from a bad integer), never an out-of-bounds read.
[[nodiscard]] constexpr std::size_t table_index(DType dtype) {
  const auto index = static_cast<std::size_t>(dtype);
  if (index >= dtype_count) [[unlikely]] throw_invalid_dtype(dtype);
  return index;
}
}  // namespace detail

/// Bytes per element; for the packed types, bytes per group or block of values.
[[nodiscard]] constexpr std::size_t itemsize(DType dtype) { return detail::itemsizes[detail::table_index(dtype)]; }

/// Required address alignment of one element (alignof of its C++ type).
[[nodiscard]] constexpr std::size_t alignment(DType dtype) { return detail::alignments[detail::table_index(dtype)]; }

/// Whether `address` may hold an element of `dtype` (a power of two, as every alignof).
[[nodiscard]] inline bool is_aligned(const void* address, DType dtype) {
  return (reinterpret_cast<std::uintptr_t>(address) & (alignment(dtype) - 1)) == 0;
}

/// PyTorch's name without "torch.": "float32", "bool", "complex128", "float8_e4m3fn".
[[nodiscard]] constexpr std::string_view name(DType dtype) { return detail::dtype_names[detail::table_index(dtype)]; }

namespace detail {
/// What a dtype's elements are: the one fact every "is_*" predicate and element trait reads.
enum class DTypeKind : std::uint8_t { boolean, unsigned_integer, signed_integer, floating, float8, complex, packed };
/// The 24 dtypes before the GGUF blocks; every GGUF block is packed.
inline constexpr std::array<DTypeKind, 24> dtype_kinds = {
    DTypeKind::boolean,          DTypeKind::unsigned_integer, DTypeKind::signed_integer, DTypeKind::signed_integer,
    DTypeKind::signed_integer,   DTypeKind::signed_integer,   DTypeKind::unsigned_integer, DTypeKind::unsigned_integer,
    DTypeKind::unsigned_integer, DTypeKind::floating,         DTypeKind::floating,       DTypeKind::floating,
    DTypeKind::floating,         DTypeKind::complex,          DTypeKind::complex,        DTypeKind::float8,
    DTypeKind::float8,           DTypeKind::float8,           DTypeKind::float8,         DTypeKind::float8,
    DTypeKind::complex,          DTypeKind::packed,           DTypeKind::packed,         DTypeKind::packed};
[[nodiscard]] constexpr DTypeKind kind(DType d) noexcept {
  const auto index = static_cast<std::size_t>(d);
  if (index < dtype_kinds.size()) return dtype_kinds[index];
  return index < dtype_count ? DTypeKind::packed : DTypeKind::boolean;
}
}  // namespace detail

/// complex32, complex64, complex128.
[[nodiscard]] constexpr bool is_complex(DType d) noexcept { return detail::kind(d) == detail::DTypeKind::complex; }
/// The 8-bit floating-point types (float8_*).
[[nodiscard]] constexpr bool is_float8(DType d) noexcept { return detail::kind(d) == detail::DTypeKind::float8; }
/// The packed types, whose one element holds several values: the sub-byte floats
/// (packed_floats.hpp) and GGUF's blocks (gguf_blocks.hpp).
[[nodiscard]] constexpr bool is_packed(DType d) noexcept { return detail::kind(d) == detail::DTypeKind::packed; }
/// GGUF's block-quantized types, gguf_q4_0_ to gguf_q2_0_ (gguf_blocks.hpp).
[[nodiscard]] constexpr bool is_gguf_block(DType d) noexcept {
  return d >= DType::Gguf_q4_0 && std::size_t(d) < dtype_count;
}
/// As torch.dtype.is_floating_point: float16, bfloat16, float32, float64, the 8-bit and
/// the packed floats (GGUF's blocks hold floating-point values too).
[[nodiscard]] constexpr bool is_floating_point(DType d) noexcept {
  return detail::kind(d) == detail::DTypeKind::floating || is_float8(d) || is_packed(d);
}
[[nodiscard]] constexpr bool is_signed_integer(DType d) noexcept {
  return detail::kind(d) == detail::DTypeKind::signed_integer;
}
[[nodiscard]] constexpr bool is_unsigned_integer(DType d) noexcept {
  return detail::kind(d) == detail::DTypeKind::unsigned_integer;
}

namespace detail {
template <class T>
struct parts_of {
  using type = T;
};
template <class T>
  requires(is_complex(dtype_of<T>))
struct parts_of<T> {
  using type = typename T::value_type;
};
template <class... Types>
constexpr std::array<DType, sizeof...(Types)> part_dtypes(std::type_identity<std::tuple<Types...>>) {
  return {dtype_of<typename parts_of<Types>::type>...};
}
inline constexpr auto real_dtypes = part_dtypes(std::type_identity<element_types>{});
}  // namespace detail

/// The dtype of a complex dtype's real and imaginary parts, as c10::toRealValueType:
/// complex32 → float16, complex64 → float32, complex128 → float64; any other dtype itself.
[[nodiscard]] constexpr DType real_dtype(DType d) { return detail::real_dtypes[detail::table_index(d)]; }

/// The complex dtype whose parts are `d`, as c10::toComplexType: float16 → complex32,
/// float32 → complex64, float64 → complex128; any other dtype itself.
[[nodiscard]] constexpr DType complex_dtype(DType d) {
  for (DType candidate : all_dtypes) {
    if (is_complex(candidate) && real_dtype(candidate) == d) return candidate;
  }
  return d;
}

/// The smallest dtype both `a` and `b` convert to without losing their category, as
/// torch.promote_types: bool < integers < floating < complex. Like PyTorch, uint16/32/64
/// promote only with themselves and with floating types, and the 8-bit and packed floats
/// only with themselves; other mixes throw TypeError.
[[nodiscard]] ZT_API DType promote_types(DType a, DType b);

/// The dtype of Python floats: float32 unless changed. Process-wide, thread-safe.
[[nodiscard]] ZT_API DType default_dtype() noexcept;
/// Accepts only floating dtypes (TypeError otherwise), as torch.set_default_dtype.
ZT_API void set_default_dtype(DType dtype);

/// Calls `f(std::type_identity<T>{})` with the element type of `dtype` (ValueError for a
/// value that names no dtype).
template <class F>
decltype(auto) dispatch(DType dtype, F&& f) {
  switch (dtype) {
#define ZT_DISPATCH_CASE(D) \
  case D: return std::forward<F>(f)(std::type_identity<type_of<D>>{});
    ZT_DISPATCH_CASE(DType::Bool)
    ZT_DISPATCH_CASE(DType::UInt8)
    ZT_DISPATCH_CASE(DType::Int8)
    ZT_DISPATCH_CASE(DType::Int16)
    ZT_DISPATCH_CASE(DType::Int32)
    ZT_DISPATCH_CASE(DType::Int64)
    ZT_DISPATCH_CASE(DType::UInt16)
    ZT_DISPATCH_CASE(DType::UInt32)
    ZT_DISPATCH_CASE(DType::UInt64)
    ZT_DISPATCH_CASE(DType::Float16)
    ZT_DISPATCH_CASE(DType::BFloat16)
    ZT_DISPATCH_CASE(DType::Float32)
    ZT_DISPATCH_CASE(DType::Float64)
    ZT_DISPATCH_CASE(DType::Complex64)
    ZT_DISPATCH_CASE(DType::Complex128)
    ZT_DISPATCH_CASE(DType::Float8_e4m3fn)
    ZT_DISPATCH_CASE(DType::Float8_e5m2)
    ZT_DISPATCH_CASE(DType::Float8_e4m3fnuz)
    ZT_DISPATCH_CASE(DType::Float8_e5m2fnuz)
    ZT_DISPATCH_CASE(DType::Float8_e8m0fnu)
    ZT_DISPATCH_CASE(DType::Complex32)
    ZT_DISPATCH_CASE(DType::Float4_e2m1fn_x2)
    ZT_DISPATCH_CASE(DType::Float6_e2m3fn_x4)
    ZT_DISPATCH_CASE(DType::Float6_e3m2fn_x4)
ZT_DISPATCH_CASE(DType::Gguf_q4_0)
    ZT_DISPATCH_CASE(DType::Gguf_q4_1)
    ZT_DISPATCH_CASE(DType::Gguf_q5_0)
    ZT_DISPATCH_CASE(DType::Gguf_q5_1)
    ZT_DISPATCH_CASE(DType::Gguf_q8_0)
    ZT_DISPATCH_CASE(DType::Gguf_q8_1)
    ZT_DISPATCH_CASE(DType::Gguf_q2_k)
    ZT_DISPATCH_CASE(DType::Gguf_q3_k)
    ZT_DISPATCH_CASE(DType::Gguf_q4_k)
    ZT_DISPATCH_CASE(DType::Gguf_q5_k)
    ZT_DISPATCH_CASE(DType::Gguf_q6_k)
    ZT_DISPATCH_CASE(DType::Gguf_q8_k)
    ZT_DISPATCH_CASE(DType::Gguf_iq2_xxs)
    ZT_DISPATCH_CASE(DType::Gguf_iq2_xs)
    ZT_DISPATCH_CASE(DType::Gguf_iq3_xxs)
    ZT_DISPATCH_CASE(DType::Gguf_iq1_s)
    ZT_DISPATCH_CASE(DType::Gguf_iq4_nl)
    ZT_DISPATCH_CASE(DType::Gguf_iq3_s)
    ZT_DISPATCH_CASE(DType::Gguf_iq2_s)
    ZT_DISPATCH_CASE(DType::Gguf_iq4_xs)
    ZT_DISPATCH_CASE(DType::Gguf_iq1_m)
    ZT_DISPATCH_CASE(DType::Gguf_tq1_0)
    ZT_DISPATCH_CASE(DType::Gguf_tq2_0)
    ZT_DISPATCH_CASE(DType::Gguf_mxfp4)
    ZT_DISPATCH_CASE(DType::Gguf_nvfp4)
    ZT_DISPATCH_CASE(DType::Gguf_q1_0)
    ZT_DISPATCH_CASE(DType::Gguf_q2_0)
#undef ZT_DISPATCH_CASE
  }
  detail::throw_invalid_dtype(dtype);
}

/// name(dtype): "float32", "bool", "complex128" (PyTorch's name without "torch.").
inline std::ostream& operator<<(std::ostream& out, DType dtype) { return out << name(dtype); }
/// The text operator<< writes.
[[nodiscard]] inline std::string to_string(DType dtype) { return std::string(name(dtype)); }

}  // namespace zt
