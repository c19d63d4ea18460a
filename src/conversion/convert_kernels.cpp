// The bulk conversions that need an instruction C++ cannot express, on Google Highway: one
// version per CPU target in this file, the best the CPU runs chosen at run time.
//
// float <-> float16 with the CPU's conversions (F16C and AVX-512 on x86-64, NEON and SVE on
// AArch64), which give Eigen::half's values (round to nearest even, subnormals kept) except
// for NaNs: float -> half keeps a NaN's payload where Eigen gives the quiet NaN 0x7e00 with
// its sign, and half -> float quiets a signaling NaN where Eigen keeps it signaling. Float ->
// int32 truncates as float_to_integer does for every value within int32; C++ cannot say this
// without undefined behaviour for the others (casting such a value). So each converts in
// chunks of chunk_values, and a chunk that held a NaN (float -> half), an infinity or a NaN
// (half -> float: exponent all ones), or a value outside int32 (float -> int32) is converted
// again value by value with Eigen or float_to_integer.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "conversion/convert_kernels.cpp"  // this file, from the src/ include root
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>

#include <cstdlib>
#include <string_view>

#include "conversion/convert_kernels.hpp"

HWY_BEFORE_NAMESPACE();
namespace zt::detail::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The targets with the CPU's own float16 conversions. Elsewhere (the x86-64 baseline, SSE4,
// 32-bit Arm) Highway may emulate them by truncating, which is not Eigen::half's rounding:
// there the kernels convert nothing and their callers' loops convert every value.
#if (HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2) || (HWY_ARCH_ARM_A64 && HWY_TARGET <= HWY_NEON)

/// Converts the whole chunks of `count` values: `convert(i)` converts the vector at value i
/// and returns the mask (of `d`'s lanes) of the values it may not have given exactly; a chunk
/// with any is converted again by `exact(i)`, value by value. Returns how many it converted.
template <class D, class Convert, class Exact>
HWY_INLINE index_t in_chunks(D d, index_t count, const Convert& convert, const Exact& exact) {
  const auto lanes = index_t(hn::Lanes(d));  // a power of two, at most 64 (2048-bit SVE)
  index_t start = 0;
  for (; start + chunk_values <= count; start += chunk_values) {
    auto flagged = convert(start);
    for (index_t i = start + lanes; i < start + chunk_values; i += lanes) flagged = hn::Or(flagged, convert(i));
    if (!hn::AllFalse(d, flagged))
      for (index_t i = start; i < start + chunk_values; ++i) exact(i);
  }
  return start;
}

index_t floats_to_halves_in_chunks(const float* in, Eigen::half* out, index_t count) {
  const hn::ScalableTag<float> df;
  const hn::Rebind<hwy::float16_t, decltype(df)> dh;
  auto* halves = reinterpret_cast<hwy::float16_t*>(out);
  return in_chunks(
      df, count,
      [&](index_t i) HWY_ATTR {
        const auto x = hn::LoadU(df, in + i);
        hn::StoreU(hn::DemoteTo(dh, x), dh, halves + i);
        return hn::IsNaN(x);
      },
      [&](index_t i) HWY_ATTR { out[i] = Eigen::half(in[i]); });
}

index_t halves_to_floats_in_chunks(const Eigen::half* in, float* out, index_t count) {
  const hn::ScalableTag<float> df;
  const hn::Rebind<hwy::float16_t, decltype(df)> dh;
  const hn::RebindToUnsigned<decltype(dh)> bits;
  const auto exponent = hn::Set(bits, std::uint16_t{0x7c00});
  const auto* halves = reinterpret_cast<const hwy::float16_t*>(in);
  return in_chunks(
      bits, count,
      [&](index_t i) HWY_ATTR {
        const auto h = hn::LoadU(dh, halves + i);
        hn::StoreU(hn::PromoteTo(df, h), df, out + i);
        return hn::Eq(hn::And(hn::BitCast(bits, h), exponent), exponent);
      },
      [&](index_t i) HWY_ATTR { out[i] = static_cast<float>(in[i]); });
}

index_t floats_to_int32s_in_chunks(const float* in, std::int32_t* out, index_t count) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  // |x| >= 2^31, an infinity or a NaN: its magnitude's bits as an integer above those of the
  // largest float below 2^31 (one comparison, where the float one needs another for NaN).
  const auto largest_within = hn::Set(di, std::bit_cast<std::int32_t>(2147483520.0f));
  return in_chunks(
      di, count,
      [&](index_t i) HWY_ATTR {
        const auto x = hn::LoadU(df, in + i);
        hn::StoreU(hn::ConvertTo(di, x), di, out + i);
        return hn::Gt(hn::BitCast(di, hn::Abs(x)), largest_within);
      },
      [&](index_t i) HWY_ATTR { out[i] = float_to_integer<std::int32_t>(in[i]); });
}

#else

index_t floats_to_halves_in_chunks(const float*, Eigen::half*, index_t) { return 0; }
index_t halves_to_floats_in_chunks(const Eigen::half*, float*, index_t) { return 0; }
index_t floats_to_int32s_in_chunks(const float*, std::int32_t*, index_t) { return 0; }

#endif

}  // namespace zt::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace zt::detail {
namespace {

/// The environment variable ZT_CPU_CAPABILITY ("default", "avx2" or "avx512", as PyTorch's
/// ATEN_CPU_CAPABILITY; read once; another value caps nothing) caps the targets Highway may
/// choose, so that every version can be run and tested on one machine: "default" leaves the
/// baseline the library is built for, "avx2" no AVX-512. Highway's cap is one for the process.
void apply_cpu_capability() {
  static const bool applied = [] {
    const char* asked = std::getenv("ZT_CPU_CAPABILITY");
    const std::string_view cap = asked == nullptr ? "" : asked;
    if (cap == "default") hwy::DisableTargets(~HWY_STATIC_TARGET);
    else if (cap == "avx2") hwy::DisableTargets(HWY_AVX2 - 1);  // the targets above AVX2 have the lower bits
    return true;
  }();
  (void)applied;
}

}  // namespace

HWY_EXPORT(floats_to_halves_in_chunks);
HWY_EXPORT(halves_to_floats_in_chunks);
HWY_EXPORT(floats_to_int32s_in_chunks);

void floats_to_halves(const float* in, Eigen::half* out, index_t count) {
  apply_cpu_capability();
  for (index_t i = HWY_DYNAMIC_DISPATCH(floats_to_halves_in_chunks)(in, out, count); i < count; ++i)
    out[i] = Eigen::half(in[i]);
}

void halves_to_floats(const Eigen::half* in, float* out, index_t count) {
  apply_cpu_capability();
  for (index_t i = HWY_DYNAMIC_DISPATCH(halves_to_floats_in_chunks)(in, out, count); i < count; ++i)
    out[i] = static_cast<float>(in[i]);
}

template <class To>
index_t floats_to_int32s(const float* in, To* out, index_t count) {
  static_assert(std::is_integral_v<To> && sizeof(To) == 4);
  apply_cpu_capability();
  // float_to_integer gives int32 and uint32 the same bits: both wrap modulo 2^32.
  return HWY_DYNAMIC_DISPATCH(floats_to_int32s_in_chunks)(in, reinterpret_cast<std::int32_t*>(out), count);
}

template index_t floats_to_int32s(const float*, std::int32_t*, index_t);
template index_t floats_to_int32s(const float*, std::uint32_t*, index_t);

}  // namespace zt::detail
#endif
