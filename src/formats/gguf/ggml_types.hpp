// Internal: the one table of ggml's tensor types (ggml.h's enum ggml_type and ggml.c's
// type_traits): each type's number in a GGUF file, its name, its zerotensor dtype, and its
// block — the values one block holds along the innermost dimension and the bytes it takes
// (the dtype's itemsize; 1 value for the plain types). The numbers ggml has removed (4, 5,
// 31-33, 36-38) are in no row.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>

#include "zerotensor/dtype.hpp"

namespace zt::detail {

struct GgmlType {
  std::uint32_t number;
  std::string_view name;  // as ggml_type_name gives it
  DType dtype;            // whose element is one block (one value for the plain types)
  std::uint32_t block_values;
  [[nodiscard]] constexpr std::uint32_t block_bytes() const { return std::uint32_t(itemsize(dtype)); }
};

inline constexpr std::array<GgmlType, 35> ggml_types = {{
    {0, "f32", float32, 1},
    {1, "f16", float16, 1},
    {2, "q4_0", gguf_q4_0_, 32},
    {3, "q4_1", gguf_q4_1_, 32},
    {6, "q5_0", gguf_q5_0_, 32},
    {7, "q5_1", gguf_q5_1_, 32},
    {8, "q8_0", gguf_q8_0_, 32},
    {9, "q8_1", gguf_q8_1_, 32},  // two halves and 32 bytes (the gguf package's 40 is the old float layout)
    {10, "q2_K", gguf_q2_k_, 256},
    {11, "q3_K", gguf_q3_k_, 256},
    {12, "q4_K", gguf_q4_k_, 256},
    {13, "q5_K", gguf_q5_k_, 256},
    {14, "q6_K", gguf_q6_k_, 256},
    {15, "q8_K", gguf_q8_k_, 256},
    {16, "iq2_xxs", gguf_iq2_xxs_, 256},
    {17, "iq2_xs", gguf_iq2_xs_, 256},
    {18, "iq3_xxs", gguf_iq3_xxs_, 256},
    {19, "iq1_s", gguf_iq1_s_, 256},
    {20, "iq4_nl", gguf_iq4_nl_, 32},
    {21, "iq3_s", gguf_iq3_s_, 256},
    {22, "iq2_s", gguf_iq2_s_, 256},
    {23, "iq4_xs", gguf_iq4_xs_, 256},
    {24, "i8", int8, 1},
    {25, "i16", int16, 1},
    {26, "i32", int32, 1},
    {27, "i64", int64, 1},
    {28, "f64", float64, 1},
    {29, "iq1_m", gguf_iq1_m_, 256},
    {30, "bf16", bfloat16, 1},
    {34, "tq1_0", gguf_tq1_0_, 256},
    {35, "tq2_0", gguf_tq2_0_, 256},
    {39, "mxfp4", gguf_mxfp4_, 32},
    {40, "nvfp4", gguf_nvfp4_, 64},
    {41, "q1_0", gguf_q1_0_, 128},
    {42, "q2_0", gguf_q2_0_, 64},
}};

/// The type numbered `number` in a GGUF file, or nullptr when ggml defines none.
constexpr const GgmlType* ggml_type(std::uint32_t number) {
  const auto found = std::ranges::find(ggml_types, number, &GgmlType::number);
  return found == ggml_types.end() ? nullptr : &*found;
}

static_assert(ggml_type(2)->block_bytes() == 18 && ggml_type(15)->block_bytes() == 292 && ggml_type(4) == nullptr &&
              ggml_type(42)->block_values == 64);

}  // namespace zt::detail
