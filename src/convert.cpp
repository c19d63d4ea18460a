#include "zerotensor/convert.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <numeric>
#include <string_view>
#include <system_error>
#include <thread>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#endif

#include "concat.hpp"
#include "strided_walk.hpp"
#include "zerotensor/shares_memory.hpp"

namespace zt {
namespace {

template <class T>
inline constexpr bool is_complex_v = is_complex(dtype_of<T>);

/// The floating types that convert through float, as c10's do.
template <class T>
inline constexpr bool is_half_v =
    std::is_same_v<T, Eigen::half> || std::is_same_v<T, Eigen::bfloat16> || detail::is_float8_v<T>;

template <class T>
inline constexpr bool is_packed_v = is_packed(dtype_of<T>);

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
    if constexpr (is_complex_v<From>) return convert_value<bool>(value.real()) || convert_value<bool>(value.imag());
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

/// The bulk loops below convert in chunks of this many values; a chunk that held a value the
/// vector instructions do not give exactly (NaN, infinity, out of range) is converted again
/// value by value.
constexpr index_t chunk_values = 64;

// float <-> float16 in bulk. On x86-64 the F16C instructions convert 8 values at once (and
// AVX-512's 16 from float; from float16 it measured no faster), where the CPU has them,
// chosen at run time, since the library is built for baseline x86-64. They give Eigen::half's
// values (round to nearest even, subnormals kept), except for NaNs: float -> half keeps a
// NaN's payload where Eigen gives the quiet NaN 0x7e00 with its sign, and half -> float
// quiets a signaling NaN where Eigen keeps it signaling. So a chunk that holds a NaN
// (float -> half), or an infinity or a NaN (half -> float: exponent all ones), is converted
// again value by value with Eigen. Each returns how many values it converted (whole chunks).
#if defined(__x86_64__) && defined(__GNUC__)
/// The widest vectors the hand-written x86-64 loops may use: what the CPU has, capped by the
/// environment variable ZT_CPU_CAPABILITY ("default", "avx2" or "avx512", as PyTorch's
/// ATEN_CPU_CAPABILITY; read once; another value caps nothing), so that every version can be
/// run and tested on one machine. AVX2 counts only with F16C, as every AVX2 CPU has it.
enum class VectorWidth { none, avx2, avx512 };

VectorWidth vector_width() {
  static const VectorWidth width = [] {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    // F16C from CPUID itself: clang's __builtin_cpu_supports does not know "f16c".
    const bool f16c = __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && (ecx & bit_F16C) != 0;
    const VectorWidth cpu = __builtin_cpu_supports("avx512f")         ? VectorWidth::avx512
                            : __builtin_cpu_supports("avx2") && f16c ? VectorWidth::avx2
                                                                      : VectorWidth::none;
    const char* asked = std::getenv("ZT_CPU_CAPABILITY");
    const std::string_view cap = asked == nullptr ? "" : asked;
    const VectorWidth allowed = cap == "default" ? VectorWidth::none
                                : cap == "avx2"  ? VectorWidth::avx2
                                                 : VectorWidth::avx512;
    return std::min(cpu, allowed);
  }();
  return width;
}

__attribute__((target("avx,f16c"))) index_t floats_to_halves_f16c(const float* in, Eigen::half* out, index_t count) {
  index_t start = 0;
  for (; start + chunk_values <= count; start += chunk_values) {
    __m256 nan = _mm256_setzero_ps();
    for (index_t i = start; i < start + chunk_values; i += 8) {
      const __m256 x = _mm256_loadu_ps(in + i);
      nan = _mm256_or_ps(nan, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm256_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT));
    }
    if (_mm256_movemask_ps(nan) != 0)
      for (index_t i = start; i < start + chunk_values; ++i) out[i] = Eigen::half(in[i]);
  }
  return start;
}

__attribute__((target("avx512f"))) index_t floats_to_halves_avx512(const float* in, Eigen::half* out, index_t count) {
  index_t start = 0;
  for (; start + chunk_values <= count; start += chunk_values) {
    __mmask16 nan = 0;
    for (index_t i = start; i < start + chunk_values; i += 16) {
      const __m512 x = _mm512_loadu_ps(in + i);
      nan |= _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), _mm512_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT));
    }
    if (nan != 0)
      for (index_t i = start; i < start + chunk_values; ++i) out[i] = Eigen::half(in[i]);
  }
  return start;
}

__attribute__((target("avx,f16c"))) index_t halves_to_floats_f16c(const Eigen::half* in, float* out, index_t count) {
  const __m128i exponent = _mm_set1_epi16(0x7c00);
  index_t start = 0;
  for (; start + chunk_values <= count; start += chunk_values) {
    __m128i flagged = _mm_setzero_si128();
    for (index_t i = start; i < start + chunk_values; i += 8) {
      const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
      flagged = _mm_or_si128(flagged, _mm_cmpeq_epi16(_mm_and_si128(h, exponent), exponent));
      _mm256_storeu_ps(out + i, _mm256_cvtph_ps(h));
    }
    if (_mm_testz_si128(flagged, flagged) == 0)
      for (index_t i = start; i < start + chunk_values; ++i) out[i] = static_cast<float>(in[i]);
  }
  return start;
}
#endif

void floats_to_halves(const float* in, Eigen::half* out, index_t count) {
  index_t done = 0;
#if defined(__x86_64__) && defined(__GNUC__)
  if (vector_width() == VectorWidth::avx512) done = floats_to_halves_avx512(in, out, count);
  else if (vector_width() == VectorWidth::avx2) done = floats_to_halves_f16c(in, out, count);
#endif
  for (index_t i = done; i < count; ++i) out[i] = Eigen::half(in[i]);
}

void halves_to_floats(const Eigen::half* in, float* out, index_t count) {
  index_t done = 0;
#if defined(__x86_64__) && defined(__GNUC__)
  if (vector_width() >= VectorWidth::avx2) done = halves_to_floats_f16c(in, out, count);
#endif
  for (index_t i = done; i < count; ++i) out[i] = static_cast<float>(in[i]);
}

template <class To, class From>
void convert_contiguous(const From* __restrict in, To* __restrict out, index_t count);

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

// The bulk loops get an AVX2 version too, chosen when the library is loaded (GCC's function
// multi-versioning), while the library stays built for baseline x86-64; 8-bit float decoding,
// which works in 16-bit lanes, gets an AVX-512 one as well. Not under ThreadSanitizer: the
// version is chosen by a resolver that runs while the program is being relocated, before the
// sanitizer's runtime exists, and its instrumentation crashes there.
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

/// Float -> int32 or uint32 (the same bits) in chunks of 64 values, 8 at a time, where the
/// CPU has AVX2; returns how many values it converted (whole chunks). VCVTTPS2DQ gives
/// float_to_integer's value for every value within int32 and INT32_MIN for any other (NaN,
/// or one to saturate or wrap), so a chunk that produced INT32_MIN is converted again value
/// by value. C++ cannot say this without undefined behaviour (casting such a value), and
/// its branch-free equivalent (float_to_small_integers) costs twice the instructions.
#if defined(__x86_64__) && defined(__GNUC__)
template <class To>
__attribute__((target("avx2"))) index_t floats_to_int32s_avx2(const float* in, To* out, index_t count) {
  static_assert(std::is_integral_v<To> && sizeof(To) == 4);
  const __m256i int32_min = _mm256_set1_epi32(std::numeric_limits<std::int32_t>::min());
  index_t start = 0;
  for (; start + chunk_values <= count; start += chunk_values) {
    __m256i flagged = _mm256_setzero_si256();
    for (index_t i = start; i < start + chunk_values; i += 8) {
      const __m256i values = _mm256_cvttps_epi32(_mm256_loadu_ps(in + i));
      flagged = _mm256_or_si256(flagged, _mm256_cmpeq_epi32(values, int32_min));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), values);
    }
    if (_mm256_testz_si256(flagged, flagged) == 0)
      for (index_t i = start; i < start + chunk_values; ++i) out[i] = float_to_integer<To>(in[i]);
  }
  return start;
}

/// The same, 16 at a time, where the CPU has AVX-512.
template <class To>
__attribute__((target("avx512f"))) index_t floats_to_int32s_avx512(const float* in, To* out, index_t count) {
  static_assert(std::is_integral_v<To> && sizeof(To) == 4);
  const __m512i int32_min = _mm512_set1_epi32(std::numeric_limits<std::int32_t>::min());
  index_t start = 0;
  for (; start + chunk_values <= count; start += chunk_values) {
    __mmask16 flagged = 0;
    for (index_t i = start; i < start + chunk_values; i += 16) {
      const __m512i values = _mm512_cvttps_epi32(_mm512_loadu_ps(in + i));
      flagged |= _mm512_cmpeq_epi32_mask(values, int32_min);
      _mm512_storeu_si512(out + i, values);
    }
    if (flagged != 0)
      for (index_t i = start; i < start + chunk_values; ++i) out[i] = float_to_integer<To>(in[i]);
  }
  return start;
}
#endif

/// Float -> an integer of at most 32 bits, in chunks of a fixed size (a loop the compiler
/// vectorises and unrolls whole): each value within int32 converts through int32, which
/// gives float_to_integer's value; a chunk that held any other (NaN, or one to saturate) is
/// converted again value by value, as is the tail after the last whole chunk.
template <class To, class From>
ZT_AVX2_CLONES void float_to_small_integers(const From* __restrict in, To* __restrict out, index_t count) {
  constexpr From lowest = From(-2147483648.0), limit = From(2147483648.0);
  index_t start = 0;
#if defined(__x86_64__) && defined(__GNUC__)
  if constexpr (std::is_same_v<From, float> && sizeof(To) == 4) {
    if (vector_width() == VectorWidth::avx512) start = floats_to_int32s_avx512(in, out, count);
    else if (vector_width() == VectorWidth::avx2) start = floats_to_int32s_avx2(in, out, count);
  }
#endif
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
  } else if constexpr (detail::is_float8_v<From> &&
                       (std::is_same_v<To, float> || std::is_same_v<To, Eigen::bfloat16>)) {
    decode_float8(in, out, count);
  } else if constexpr (detail::is_float8_v<From> || std::is_same_v<From, Eigen::half> ||
                       std::is_same_v<To, Eigen::half>) {
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

/// One run of `count` elements, `in_step` and `out_step` apart.
template <class To, class From>
void convert_run(const From* in, index_t in_step, To* out, index_t out_step, index_t count) {
  if (in_step == 1 && out_step == 1) return convert_contiguous(in, out, count);
  if constexpr (std::is_same_v<From, To>) {
    if (in_step == 2 && out_step == 1) return copy_every_other<1>(in, out, count);
    if (in_step == 2 && out_step == 2) return copy_every_other<2>(in, out, count);
  }
  for (index_t i = 0; i < count; ++i) out[i * out_step] = convert_value<To>(in[i * in_step]);
}

/// A rows x columns block. When the source steps further along a row than down a column
/// (a transpose), the block goes in tiles of tiles: 8 x 8 elements read down the source's
/// columns inside 256 x 256 tiles, so that the lines of both sides are read from cache.
template <class To, class From>
void convert_block(const From* in, const std::array<index_t, 2>& in_steps, To* out,
                   const std::array<index_t, 2>& out_steps, index_t rows, index_t columns) {
  constexpr index_t tile = 256, micro = 8;
  if (std::abs(in_steps[1]) <= std::abs(in_steps[0]) || rows < micro || columns < micro) {
    for (index_t r = 0; r < rows; ++r)
      convert_run(in + r * in_steps[0], in_steps[1], out + r * out_steps[0], out_steps[1], columns);
    return;
  }
  for (index_t r0 = 0; r0 < rows; r0 += tile) {
    for (index_t c0 = 0; c0 < columns; c0 += tile) {
      const index_t r1 = std::min(rows, r0 + tile), c1 = std::min(columns, c0 + tile);
      for (index_t r = r0; r < r1; r += micro) {
        for (index_t c = c0; c < c1; c += micro) {
          const index_t r_end = std::min(r1, r + micro), c_end = std::min(c1, c + micro);
          for (index_t j = c; j < c_end; ++j)
            for (index_t i = r; i < r_end; ++i)
              out[i * out_steps[0] + j * out_steps[1]] = convert_value<To>(in[i * in_steps[0] + j * in_steps[1]]);
        }
      }
    }
  }
}

/// One coalesced layout (see convert_typed) from `in` to `out`: blocks of its two innermost
/// dimensions, contiguous runs by memcpy or a vectorised loop.
template <class From, class To>
void convert_layout(const From* in, To* out, const detail::CoalescedLayout<2>& layout) {
  const std::size_t rank = layout.shape.size();
  if (rank == 0) return convert_run(in, 1, out, 1, 1);
  if (rank == 1) return convert_run(in, layout.strides[1][0], out, layout.strides[0][0], layout.shape[0]);
  const std::span<const index_t> outer = layout.shape.span().first(rank - 1);
  const std::array<index_t, 2> in_steps{layout.strides[1][rank - 2], layout.strides[1][rank - 1]};
  const std::array<index_t, 2> out_steps{layout.strides[0][rank - 2], layout.strides[0][rank - 1]};
  detail::for_each_row<2>(outer, {layout.strides[0].span().first(rank - 1), layout.strides[1].span().first(rank - 1)},
                          [&](const std::array<index_t, 2>& offsets, index_t rows, std::span<const index_t>) {
                            convert_block(in + offsets[1], in_steps, out + offsets[0], out_steps, rows,
                                          layout.shape[rank - 1]);
                          });
}

/// The one strided copy: the layout coalesced in the destination's memory order, its
/// outermost dimension split into `threads` equal parts, one per thread (the calling
/// thread takes the last; a thread that cannot be started leaves its part to the caller).
template <class Source, class To>
void convert_typed(const Tensor<Source>& source, const Tensor<To>& destination, unsigned threads) {
  const auto* in = source.data();
  To* out = destination.data();
  const detail::CoalescedLayout<2> layout = detail::coalesce<2>(source.shape(), {destination.strides(), source.strides()});
  if (threads <= 1 || layout.shape.size() == 0) return convert_layout(in, out, layout);
  const index_t extent = layout.shape[0], parts = std::min(index_t(threads), extent);
  std::vector<std::jthread> workers;  // joined when the copy returns or throws
  index_t begin = 0;
  for (index_t part = 0; part < parts; ++part) {
    detail::CoalescedLayout<2> piece = layout;
    piece.shape[0] = extent / parts + (part < extent % parts ? 1 : 0);
    const auto work = [in = in + begin * layout.strides[1][0], out = out + begin * layout.strides[0][0], piece] {
      convert_layout(in, out, piece);
    };
    begin += piece.shape[0];
    if (part + 1 == parts) {
      work();
      continue;
    }
    try {
      workers.emplace_back(work);
    } catch (const std::system_error&) {
      work();
    }
  }
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

/// PyTorch's checked store of a Python number (see detail::store_scalar).
template <class To>
To store_typed(const Scalar& scalar, DType dtype) {
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

template <class To>
To store_value(const Scalar& scalar, DType dtype) {
  if constexpr (is_packed_v<To>) {
    throw TypeError(detail::concat("value ", scalar, " cannot be converted to type ", dtype,
                                   ": packed sub-byte types hold no single number"));
  } else {
    return store_typed<To>(scalar, dtype);
  }
}

}  // namespace

namespace detail {
bool elements_may_overlap(const AnyTensor& a, const AnyTensor& b) {
  if (!shares_memory(a, b)) return false;
  std::uint64_t period = 0;
  for (const AnyTensor* view : {&a, &b})
    for (std::size_t d = 0; d < view->rank(); ++d)
      if (view->shape()[d] > 1) period = std::gcd(period, std::uint64_t(std::abs(view->strides()[d])) * view->itemsize());
  if (period < a.itemsize() + b.itemsize()) return true;
  const auto address = [](const AnyTensor& t) { return std::int64_t(reinterpret_cast<std::uintptr_t>(t.data_ptr())); };
  const auto modulus = std::int64_t(period);
  const auto b_after_a = std::uint64_t(((address(b) - address(a)) % modulus + modulus) % modulus);  // b past a
  return b_after_a < a.itemsize() || b_after_a + b.itemsize() > period;
}

void store_scalar(const Scalar& value, DType dtype, void* destination) {
  dispatch(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T element = store_value<T>(value, dtype);
    std::memcpy(destination, &element, sizeof(T));
  });
}
}  // namespace detail

namespace {

/// Threads for a copy into `destination`: as many as asked (0: one per hardware thread),
/// but no more than one per copy_bytes_per_thread of output, so that starting a thread
/// (tens of microseconds) stays small against its share of the copy.
unsigned copy_threads(const AnyTensor& destination, const ToOptions& options) {
  constexpr std::size_t copy_bytes_per_thread = std::size_t{1} << 20;
  const unsigned asked = options.threads == 0 ? std::max(1u, std::thread::hardware_concurrency()) : options.threads;
  return unsigned(std::min<std::size_t>(asked, std::max<std::size_t>(1, destination.nbytes() / copy_bytes_per_thread)));
}

/// PyTorch's assert_no_internal_overlap: a destination whose elements are the same memory
/// (an extent above 1 with stride 0, as expand() makes) would be written more than once.
void refuse_internal_overlap(const AnyTensor& destination) {
  for (std::size_t d = 0; d < destination.rank(); ++d) {
    if (destination.shape()[d] > 1 && destination.strides()[d] == 0)
      throw ValueError(detail::concat("copy_into: unsupported operation: more than one element of the written-to "
                                      "tensor refers to a single memory location (dimension ", d, " has extent ",
                                      destination.shape()[d], " and stride 0). Please clone() the tensor before "
                                      "performing the operation."));
  }
}

/// Whether no two elements of `view` share memory, by a sufficient test: ordered by stride,
/// each dimension steps past everything the smaller ones reach.
bool provably_distinct_elements(const AnyTensor& view) {
  std::vector<std::pair<index_t, index_t>> steps;  // (|stride|, extent) of the dimensions that step
  for (std::size_t d = 0; d < view.rank(); ++d)
    if (view.shape()[d] > 1) steps.emplace_back(std::abs(view.strides()[d]), view.shape()[d]);
  std::sort(steps.begin(), steps.end());
  index_t reach = 0;  // the furthest element the smaller dimensions reach
  for (const auto& [stride, extent] : steps) {
    index_t step = 0;
    if (stride <= reach || detail::mul_overflows(stride, extent - 1, step) || detail::add_overflows(reach, step, reach))
      return false;
  }
  return true;
}

}  // namespace

void copy_into(const AnyTensor& source, const AnyTensor& destination, const ToOptions& options) {
  if (source.shape() != destination.shape())
    throw ValueError(detail::concat("copy_into: source shape ", detail::shape_string(source.shape()),
                                    " differs from destination shape ", detail::shape_string(destination.shape())));
  if (!destination.is_writable()) detail::throw_read_only("copy_into");
  if (!source.device().is_host_accessible()) detail::throw_not_host_accessible("copy_into", source.device());
  if (!destination.device().is_host_accessible())
    detail::throw_not_host_accessible("copy_into", destination.device());
  if (source.dtype() != destination.dtype() && (is_packed(source.dtype()) || is_packed(destination.dtype())))
    throw TypeError(detail::concat("copy_into: cannot convert ", source.dtype(), " to ", destination.dtype(),
                                   "; as in PyTorch, packed sub-byte types convert to no other dtype"));
  if (source.numel() == 0) return;
  refuse_internal_overlap(destination);
  if (same_view(source, destination)) return;
  // As NumPy's copyto and PyTorch's copy_: overlapping elements read as they were before the
  // copy. The copy walks in its own order, so a source that overlaps is copied first.
  const AnyTensor input = detail::elements_may_overlap(source, destination) ? source.clone(options) : source;
  // Threads write disjoint parts only where the destination's elements are distinct.
  unsigned threads = copy_threads(destination, options);
  if (threads > 1 && !provably_distinct_elements(destination)) threads = 1;
  dispatch(destination.dtype(), [&](auto to_tag) {
    using To = typename decltype(to_tag)::type;
    const auto out = destination.as<To>();
    dispatch(input.dtype(), [&](auto from_tag) {
      using From = typename decltype(from_tag)::type;
      if constexpr (std::is_same_v<From, To> || !(is_packed_v<From> || is_packed_v<To>))
        convert_typed(input.as<const From>(), out, threads);
    });
  });
}

}  // namespace zt
