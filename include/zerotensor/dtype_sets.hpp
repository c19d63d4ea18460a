// zt::dtypes: named sets of dtypes, the element types a generic function is compiled for
// (AnyTensor::visit<Set>(f)), as PyTorch's AT_DISPATCH_* type lists. A set never grows under
// its name: a dtype added to zerotensor joins new sets only, so a function that compiled for a
// set keeps compiling.
#pragma once

#include <array>
#include <concepts>
#include <string_view>

#include "zerotensor/dtype.hpp"

namespace zt {

/// A fixed list of dtypes.
template <DType... Members>
struct DTypeSet {
  static constexpr std::array<DType, sizeof...(Members)> members{Members...};
  [[nodiscard]] static constexpr bool contains(DType dtype) noexcept { return ((dtype == Members) || ...); }
};

namespace dtypes {

/// AT_INTEGRAL_TYPES: uint8, int8, int16, int32, int64.
struct integral : DTypeSet<uint8, int8, int16, int32, int64> {
  static constexpr std::string_view name = "integral";
};
/// AT_FLOATING_TYPES: float32, float64.
struct floating : DTypeSet<float32, float64> {
  static constexpr std::string_view name = "floating";
};
/// AT_ALL_TYPES: integral and floating.
struct all_types : DTypeSet<uint8, int8, int16, int32, int64, float32, float64> {
  static constexpr std::string_view name = "all_types";
};
/// AT_ALL_TYPES_AND_COMPLEX: all_types, complex64 and complex128.
struct all_types_and_complex : DTypeSet<uint8, int8, int16, int32, int64, float32, float64, complex64, complex128> {
  static constexpr std::string_view name = "all_types_and_complex";
};
/// The 15 classic dtypes: bool, the eight integers, float16, bfloat16, float32, float64,
/// complex64, complex128. AnyTensor::visit's set when none is named.
struct classic : DTypeSet<bool_, uint8, int8, int16, int32, int64, uint16, uint32, uint64, float16, bfloat16, float32,
                          float64, complex64, complex128> {
  static constexpr std::string_view name = "classic";
};
/// The classic 15, the five 8-bit floats and complex32: every dtype of this version whose
/// element is one number (the packed sub-byte groups are not).
struct numeric : DTypeSet<bool_, uint8, int8, int16, int32, int64, uint16, uint32, uint64, float16, bfloat16, float32,
                          float64, complex64, complex128, float8_e4m3fn_, float8_e5m2_, float8_e4m3fnuz_,
                          float8_e5m2fnuz_, float8_e8m0fnu_, complex32_> {
  static constexpr std::string_view name = "numeric";
};
/// numeric and the three packed sub-byte groups: PyTorch's 24 dtypes.
struct all : DTypeSet<bool_, uint8, int8, int16, int32, int64, uint16, uint32, uint64, float16, bfloat16, float32,
                      float64, complex64, complex128, float8_e4m3fn_, float8_e5m2_, float8_e4m3fnuz_, float8_e5m2fnuz_,
                      float8_e8m0fnu_, complex32_, float4_e2m1fn_x2_, float6_e2m3fn_x4_, float6_e3m2fn_x4_> {
  static constexpr std::string_view name = "all";
};

/// GGUF's 27 block-quantized types, gguf_q4_0_ to gguf_q2_0_ (gguf_blocks.hpp).
struct gguf_blocks : DTypeSet<gguf_q4_0_, gguf_q4_1_, gguf_q5_0_, gguf_q5_1_, gguf_q8_0_, gguf_q8_1_, gguf_q2_k_, gguf_q3_k_, gguf_q4_k_, gguf_q5_k_, gguf_q6_k_, gguf_q8_k_, gguf_iq2_xxs_, gguf_iq2_xs_, gguf_iq3_xxs_, gguf_iq1_s_, gguf_iq4_nl_, gguf_iq3_s_, gguf_iq2_s_, gguf_iq4_xs_, gguf_iq1_m_, gguf_tq1_0_, gguf_tq2_0_, gguf_mxfp4_, gguf_nvfp4_, gguf_q1_0_, gguf_q2_0_> {
  static constexpr std::string_view name = "gguf_blocks";
};
/// all and gguf_blocks: the 51 dtypes of this version.
struct all_and_gguf_blocks
    : DTypeSet<bool_, uint8, int8, int16, int32, int64, uint16, uint32, uint64, float16, bfloat16, float32, float64,
               complex64, complex128, float8_e4m3fn_, float8_e5m2_, float8_e4m3fnuz_, float8_e5m2fnuz_, float8_e8m0fnu_,
               complex32_, float4_e2m1fn_x2_, float6_e2m3fn_x4_, float6_e3m2fn_x4_, gguf_q4_0_, gguf_q4_1_, gguf_q5_0_, gguf_q5_1_, gguf_q8_0_, gguf_q8_1_, gguf_q2_k_, gguf_q3_k_, gguf_q4_k_, gguf_q5_k_, gguf_q6_k_, gguf_q8_k_, gguf_iq2_xxs_, gguf_iq2_xs_, gguf_iq3_xxs_, gguf_iq1_s_, gguf_iq4_nl_, gguf_iq3_s_, gguf_iq2_s_, gguf_iq4_xs_, gguf_iq1_m_, gguf_tq1_0_, gguf_tq2_0_, gguf_mxfp4_, gguf_nvfp4_, gguf_q1_0_, gguf_q2_0_> {
  static constexpr std::string_view name = "all_and_gguf_blocks";
};

}  // namespace dtypes

/// A set visit<Set> takes: a DTypeSet with a name.
template <class Set>
concept DTypeSetType = requires {
  Set::members;
  { Set::name } -> std::convertible_to<std::string_view>;
};

}  // namespace zt
