// Internal: the bulk conversion loops over contiguous values, each version chosen for the CPU
// at run time.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "conversion/convert_values.hpp"
#include "zerotensor/extents.hpp"

namespace zt::detail {

/// The bulk loops convert in chunks of this many values; a chunk that held a value the vector
/// instructions do not give exactly (NaN, infinity, out of range) is converted again value by
/// value.
constexpr index_t chunk_values = 64;

/// float <-> float16 in bulk, with Eigen::half's values, NaNs included (convert_kernels.cpp).
void floats_to_halves(const float* in, Eigen::half* out, index_t count);
void halves_to_floats(const Eigen::half* in, float* out, index_t count);

/// Float -> int32 or uint32 (the same bits) in whole chunks of chunk_values, with vector
/// instructions where the CPU has them; returns how many values it converted (0 where it has
/// none), each float_to_integer's value. `To` is std::int32_t or std::uint32_t.
template <class To>
index_t floats_to_int32s(const float* in, To* out, index_t count);

template <class To, class From>
void convert_contiguous(const From* __restrict in, To* __restrict out, index_t count);

/// convert_contiguous for one pair of dtypes, over untyped pointers.
using ContiguousConverter = void (*)(const void* in, void* out, index_t count);

/// The converter from `from` to `to`, two different dtypes (convert_pairs.cpp); TypeError
/// where either is packed: as in PyTorch, packed sub-byte types convert to no other dtype.
ContiguousConverter contiguous_converter(DType from, DType to);

/// Any conversion to or from float16, and from an 8-bit float to other than float32 or
/// bfloat16, goes through float (as convert_value does), in chunks of a small buffer so that
/// the float16 or 8-bit float side converts in bulk.
template <class To, class From>
void convert_through_float(const From* in, To* out, index_t count) {
  if constexpr (std::is_same_v<From, Eigen::half> && std::is_same_v<To, float>) {
    halves_to_floats(in, out, count);
  } else if constexpr (std::is_same_v<From, float> && std::is_same_v<To, Eigen::half>) {
    floats_to_halves(in, out, count);
  } else {
    constexpr index_t chunk = 512;
    float floats[chunk];
    for (index_t start = 0; start < count; start += chunk) {
      const index_t n = std::min(chunk, count - start);
      if constexpr (std::is_same_v<From, Eigen::half>) halves_to_floats(in + start, floats, n);
      else convert_contiguous(in + start, floats, n);
      if constexpr (std::is_same_v<To, Eigen::half>) floats_to_halves(floats, out + start, n);
      else convert_contiguous(floats, out + start, n);
    }
  }
}

// The loops written in C++ get an AVX2 version too, chosen when the library is loaded (GCC's
// function multi-versioning), while the library stays built for baseline x86-64; 8-bit float
// decoding, which works in 16-bit lanes, gets an AVX-512 one as well. Not under
// ThreadSanitizer: the version is chosen by a resolver that runs while the program is being
// relocated, before the sanitizer's runtime exists, and its instrumentation crashes there.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__)
#define ZT_AVX2_CLONES __attribute__((target_clones("avx2", "default")))
#define ZT_AVX512_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define ZT_AVX2_CLONES
#define ZT_AVX512_CLONES
#endif

/// Converts value by value, in a loop the compiler vectorises where the types allow.
template <class To, class From>
ZT_AVX2_CLONES void convert_values(const From* __restrict in, To* __restrict out, index_t count) {
  for (index_t i = 0; i < count; ++i) out[i] = convert_value<To>(in[i]);
}

/// Float -> an integer of at most 32 bits, in chunks of a fixed size (a loop the compiler
/// vectorises and unrolls whole): each value within int32 converts through int32, which
/// gives float_to_integer's value; a chunk that held any other (NaN, or one to saturate) is
/// converted again value by value, as is the tail after the last whole chunk. Float ->
/// 32-bit integers take floats_to_int32s first.
template <class To, class From>
ZT_AVX2_CLONES void float_to_small_integers(const From* __restrict in, To* __restrict out, index_t count) {
  constexpr From lowest = From(-2147483648.0), limit = From(2147483648.0);
  index_t start = 0;
  if constexpr (std::is_same_v<From, float> && sizeof(To) == 4) start = floats_to_int32s(in, out, count);
  for (; start + chunk_values <= count; start += chunk_values) {
    int outside = 0;  // an int reduction vectorises where a bool one does not
    for (index_t i = 0; i < chunk_values; ++i) {
      const From value = in[start + i];
      const bool inside = (value >= lowest) & (value < limit);
      outside |= !inside;
      out[start + i] = static_cast<To>(static_cast<std::int32_t>(inside ? value : From(0)));
    }
    if (outside != 0)
      for (index_t i = 0; i < chunk_values; ++i) out[start + i] = float_to_integer<To>(in[start + i]);
  }
  for (; start < count; ++start) out[start] = float_to_integer<To>(in[start]);
}

/// 8-bit floats -> float32 or bfloat16 (exact: the float's top 16 bits), with the element
/// type's own integer decoder, which the compiler vectorises.
template <class To, class From>
ZT_AVX512_CLONES void decode_float8(const From* __restrict in, To* __restrict out, index_t count) {
  for (index_t i = 0; i < count; ++i) {
    const std::uint16_t bits = From::format::bfloat16_bits(in[i].bits());
    if constexpr (std::is_same_v<To, float>) out[i] = std::bit_cast<float>(std::uint32_t(bits) << 16);
    else out[i] = std::bit_cast<Eigen::bfloat16>(bits);
  }
}

/// The contiguous fast path. `__restrict` lets the compiler vectorise without a run-time
/// overlap check: copy_into gives a source that overlaps its destination a copy first.
template <class To, class From>
void convert_contiguous(const From* __restrict in, To* __restrict out, index_t count) {
  if constexpr (std::is_same_v<From, To>) {
    std::memcpy(out, in, std::size_t(count) * sizeof(To));
  } else if constexpr (is_float8_v<From> && (std::is_same_v<To, float> || std::is_same_v<To, Eigen::bfloat16>)) {
    decode_float8(in, out, count);
  } else if constexpr (is_float8_v<From> || std::is_same_v<From, Eigen::half> || std::is_same_v<To, Eigen::half>) {
    convert_through_float(in, out, count);
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To> && !std::is_same_v<To, bool> &&
                       sizeof(To) <= 4) {
    float_to_small_integers(in, out, count);
  } else {
    convert_values(in, out, count);
  }
}

/// Every other element of `in` into every `OutStep`-th element of `out`, of one type (a column
/// of a two-column array, the real parts of complex values; the even columns of a buffer into
/// its odd ones): steps known at compile time let the compiler vectorise the loop with
/// shuffles (into contiguous `out`) or unroll it, where steps known at run time leave it a
/// scalar loop of index multiplications.
template <index_t OutStep, class T>
ZT_AVX2_CLONES void copy_every_other(const T* __restrict in, T* __restrict out, index_t count) {
#pragma GCC unroll 8
  for (index_t i = 0; i < count; ++i) out[OutStep * i] = in[2 * i];
}

}  // namespace zt::detail
