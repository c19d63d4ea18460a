// Internal: the one table of what each dtype is called in the formats zerotensor reads and
// writes — NumPy's descr type code, safetensors' dtype name, DLPack's type code and width,
// the Arrow C Data Interface's format string, the storage class torch.save names — and the
// look-ups the format readers and writers use.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "zerotensor/dlpack.hpp"
#include "zerotensor/dtype.hpp"

namespace zt::detail {

struct DTypeFormats {
  std::string_view numpy;        ///< descr without its byte-order character; empty: NumPy has none
  std::string_view safetensors;  ///< empty: safetensors has none
  dlpack::TypeCode dlpack_code;
  std::uint8_t dlpack_bits;  ///< per lane; 0: DLPack has no such type (GGUF's blocks)
  /// Values per element: 1, or how many sub-byte values a packed element holds. DLPack's
  /// lanes (as PyTorch exports float4_e2m1fn_x2) and the factor between a packed tensor's
  /// last extent in safetensors (which counts values) and in zerotensor (which counts groups).
  std::uint8_t lanes;
  std::string_view arrow;  ///< empty: no Arrow type shares the memory (Arrow's bool packs bits)
  /// The legacy storage class torch.save names for the dtype's typed storage
  /// (torch.FloatStorage); empty: the dtype has none (torch.save writes such tensors with
  /// torch.UntypedStorage and the dtype).
  std::string_view torch_storage;
};

/// In DType order.
inline constexpr std::array<DTypeFormats, dtype_count> dtype_formats = {{
    {"b1", "BOOL", dlpack::TypeCode::Bool, 8, 1, "", "BoolStorage"},
    {"u1", "U8", dlpack::TypeCode::UInt, 8, 1, "C", "ByteStorage"},
    {"i1", "I8", dlpack::TypeCode::Int, 8, 1, "c", "CharStorage"},
    {"i2", "I16", dlpack::TypeCode::Int, 16, 1, "s", "ShortStorage"},
    {"i4", "I32", dlpack::TypeCode::Int, 32, 1, "i", "IntStorage"},
    {"i8", "I64", dlpack::TypeCode::Int, 64, 1, "l", "LongStorage"},
    {"u2", "U16", dlpack::TypeCode::UInt, 16, 1, "S", ""},
    {"u4", "U32", dlpack::TypeCode::UInt, 32, 1, "I", ""},
    {"u8", "U64", dlpack::TypeCode::UInt, 64, 1, "L", ""},
    {"f2", "F16", dlpack::TypeCode::Float, 16, 1, "e", "HalfStorage"},
    {"", "BF16", dlpack::TypeCode::Bfloat, 16, 1, "", "BFloat16Storage"},
    {"f4", "F32", dlpack::TypeCode::Float, 32, 1, "f", "FloatStorage"},
    {"f8", "F64", dlpack::TypeCode::Float, 64, 1, "g", "DoubleStorage"},
    {"c8", "C64", dlpack::TypeCode::Complex, 64, 1, "", "ComplexFloatStorage"},
    {"c16", "", dlpack::TypeCode::Complex, 128, 1, "", "ComplexDoubleStorage"},
    {"", "F8_E4M3", dlpack::TypeCode::Float8_e4m3fn, 8, 1, "", ""},
    {"", "F8_E5M2", dlpack::TypeCode::Float8_e5m2, 8, 1, "", ""},
    {"", "F8_E4M3FNUZ", dlpack::TypeCode::Float8_e4m3fnuz, 8, 1, "", ""},
    {"", "F8_E5M2FNUZ", dlpack::TypeCode::Float8_e5m2fnuz, 8, 1, "", ""},
    {"", "F8_E8M0", dlpack::TypeCode::Float8_e8m0fnu, 8, 1, "", ""},
    {"", "", dlpack::TypeCode::Complex, 32, 1, "", ""},
    {"", "F4", dlpack::TypeCode::Float4_e2m1fn, 4, 2, "", ""},
    {"", "F6_E2M3", dlpack::TypeCode::Float6_e2m3fn, 6, 4, "", ""},
    {"", "F6_E3M2", dlpack::TypeCode::Float6_e3m2fn, 6, 4, "", ""},
    {"", "", dlpack::TypeCode::OpaqueHandle, 0, 0, "", ""},  // gguf_q4_0
    {"", "", dlpack::TypeCode::OpaqueHandle, 0, 0, "", ""},  // gguf_q4_1
    {"", "", dlpack::TypeCode::OpaqueHandle, 0, 0, "", ""},  // gguf_q5_0
    {"", "", dlpack::TypeCode::OpaqueHandle, 0, 0, "", ""},  // gguf_q5_1
    {"", "", dlpack::TypeCode::OpaqueHandle, 0, 0, "", ""},  // gguf_q8_0
    {"", "", dlpack::TypeCode::OpaqueHandle, 0, 0, "", ""},  // gguf_q8_1
    {"", "", dlpack::TypeCode::OpaqueHandle, 0, 0, "", ""},  // gguf_q2_k
    {"", "", dlpack::TypeCode::OpaqueHandle, 0, 0, "", ""},  // gguf_q3_k
    {"", "", dlpack::TypeCode::OpaqueHandle, 0, 0, "", ""},  // gguf_q4_k
    {"", "", dlpack::TypeCode::OpaqueHandle, 0, 0, "", ""},  // gguf_q5_k
    {"", "", dlpack::TypeCode::OpaqueHandle, 0, 0, "", ""},  // gguf_q6_k
    {"", "", dlpack::TypeCode::OpaqueHandle, 0, 0, "", ""},  // gguf_q8_k
    {"", "", dlpack::TypeCode::OpaqueHandle, 0, 0, "", ""},  // gguf_iq2_xxs
    {"", "", dlpack::TypeCode::OpaqueHandle, 0, 0, "", ""},  // gguf_iq2_xs
    {"", "", dlpack::TypeCode::OpaqueHandle, 0, 0, "", ""},  // gguf_iq3_xxs
    {"", "", dlpack::TypeCode::OpaqueHandle, 0, 0, "", ""},  // gguf_iq1_s
    {"", "", dlpack::TypeCode::OpaqueHandle, 0, 0, "", ""},  // gguf_iq4_nl
    {"", "", dlpack::TypeCode::OpaqueHandle, 0, 0, "", ""},  // gguf_iq3_s
    {"", "", dlpack::TypeCode::OpaqueHandle, 0, 0, "", ""},  // gguf_iq2_s
    {"", "", dlpack::TypeCode::OpaqueHandle, 0, 0, "", ""},  // gguf_iq4_xs
    {"", "", dlpack::TypeCode::OpaqueHandle, 0, 0, "", ""},  // gguf_iq1_m
    {"", "", dlpack::TypeCode::OpaqueHandle, 0, 0, "", ""},  // gguf_tq1_0
    {"", "", dlpack::TypeCode::OpaqueHandle, 0, 0, "", ""},  // gguf_tq2_0
    {"", "", dlpack::TypeCode::OpaqueHandle, 0, 0, "", ""},  // gguf_mxfp4
    {"", "", dlpack::TypeCode::OpaqueHandle, 0, 0, "", ""},  // gguf_nvfp4
    {"", "", dlpack::TypeCode::OpaqueHandle, 0, 0, "", ""},  // gguf_q1_0
    {"", "", dlpack::TypeCode::OpaqueHandle, 0, 0, "", ""},  // gguf_q2_0
}};

static_assert([] {
  for (DType dtype : all_dtypes) {
    const DTypeFormats& formats = dtype_formats[std::size_t(dtype)];
    if (formats.dlpack_bits != 0 && formats.dlpack_bits * formats.lanes != 8 * itemsize(dtype)) return false;
  }
  return true;
}(), "dtype_formats: every dtype's DLPack bits times lanes must equal its itemsize");

/// The dtype whose `Column` names `name`; nullopt when none does (empty names match nothing).
/// A file names a dtype for every tensor, so the names are hashed once, not compared in turn.
template <std::string_view DTypeFormats::*Column>
[[nodiscard]] std::optional<DType> dtype_named(std::string_view name) {
  static const std::unordered_map<std::string_view, DType> by_name = [] {
    std::unordered_map<std::string_view, DType> names;
    for (DType dtype : all_dtypes)
      if (const std::string_view known = dtype_formats[std::size_t(dtype)].*Column; !known.empty())
        names.emplace(known, dtype);
    return names;
  }();
  const auto found = by_name.find(name);
  if (found == by_name.end()) return std::nullopt;
  return found->second;
}

}  // namespace zt::detail
