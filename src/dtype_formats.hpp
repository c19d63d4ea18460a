// Internal: the one table of what each dtype is called in the formats zerotensor reads and
// writes — NumPy's descr type code, safetensors' dtype name, DLPack's type code and width,
// the Arrow C Data Interface's format string, the storage class torch.save names — and the
// look-ups the format readers and writers use.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "zerotensor/dlpack.hpp"
#include "zerotensor/dtype.hpp"

namespace zt::detail {

struct DTypeFormats {
  std::string_view numpy;        ///< descr without its byte-order character; empty: NumPy has none
  std::string_view safetensors;  ///< empty: safetensors has none
  dlpack::TypeCode dlpack_code;
  std::uint8_t dlpack_bits;
  std::string_view arrow;  ///< empty: no Arrow type shares the memory (Arrow's bool packs bits)
  /// The legacy storage class torch.save names for the dtype's typed storage
  /// (torch.FloatStorage); empty: the dtype has none (torch.save writes such tensors with
  /// torch.UntypedStorage and the dtype).
  std::string_view torch_storage;
};

/// In DType order.
inline constexpr std::array<DTypeFormats, dtype_count> dtype_formats = {{
    {"b1", "BOOL", dlpack::TypeCode::Bool, 8, "", "BoolStorage"},
    {"u1", "U8", dlpack::TypeCode::UInt, 8, "C", "ByteStorage"},
    {"i1", "I8", dlpack::TypeCode::Int, 8, "c", "CharStorage"},
    {"i2", "I16", dlpack::TypeCode::Int, 16, "s", "ShortStorage"},
    {"i4", "I32", dlpack::TypeCode::Int, 32, "i", "IntStorage"},
    {"i8", "I64", dlpack::TypeCode::Int, 64, "l", "LongStorage"},
    {"u2", "U16", dlpack::TypeCode::UInt, 16, "S", ""},
    {"u4", "U32", dlpack::TypeCode::UInt, 32, "I", ""},
    {"u8", "U64", dlpack::TypeCode::UInt, 64, "L", ""},
    {"f2", "F16", dlpack::TypeCode::Float, 16, "e", "HalfStorage"},
    {"", "BF16", dlpack::TypeCode::Bfloat, 16, "", "BFloat16Storage"},
    {"f4", "F32", dlpack::TypeCode::Float, 32, "f", "FloatStorage"},
    {"f8", "F64", dlpack::TypeCode::Float, 64, "g", "DoubleStorage"},
    {"c8", "C64", dlpack::TypeCode::Complex, 64, "", "ComplexFloatStorage"},
    {"c16", "", dlpack::TypeCode::Complex, 128, "", "ComplexDoubleStorage"},
}};

static_assert([] {
  for (DType dtype : all_dtypes) {
    if (dtype_formats[std::size_t(dtype)].dlpack_bits != 8 * itemsize(dtype)) return false;
  }
  return true;
}(), "dtype_formats: every dtype's DLPack width must equal its itemsize");

/// The dtype whose `Column` names `name`; nullopt when none does (empty names match nothing).
template <std::string_view DTypeFormats::*Column>
[[nodiscard]] constexpr std::optional<DType> dtype_named(std::string_view name) noexcept {
  for (DType dtype : all_dtypes) {
    const std::string_view known = dtype_formats[std::size_t(dtype)].*Column;
    if (!known.empty() && known == name) return dtype;
  }
  return std::nullopt;
}

}  // namespace zt::detail
