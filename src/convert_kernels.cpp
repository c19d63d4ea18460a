// The bulk conversions that need an instruction C++ cannot express, with intrinsics, and the
// choice among their versions at run time.
#include "convert_kernels.hpp"

#include <cstdlib>
#include <string_view>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace zt::detail {
namespace {

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

/// Float -> int32 or uint32 (the same bits), 8 at a time with AVX2. VCVTTPS2DQ gives
/// float_to_integer's value for every value within int32 and INT32_MIN for any other (NaN,
/// or one to saturate or wrap), so a chunk that produced INT32_MIN is converted again value
/// by value. C++ cannot say this without undefined behaviour (casting such a value), and
/// its branch-free equivalent (float_to_small_integers) costs twice the instructions.
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

}  // namespace

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

template <class To>
index_t floats_to_int32s([[maybe_unused]] const float* in, [[maybe_unused]] To* out, [[maybe_unused]] index_t count) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (vector_width() == VectorWidth::avx512) return floats_to_int32s_avx512(in, out, count);
  if (vector_width() == VectorWidth::avx2) return floats_to_int32s_avx2(in, out, count);
#endif
  return 0;
}

template index_t floats_to_int32s(const float*, std::int32_t*, index_t);
template index_t floats_to_int32s(const float*, std::uint32_t*, index_t);

}  // namespace zt::detail
