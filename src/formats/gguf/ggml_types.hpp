// Internal: the one table of ggml's tensor types (ggml.h's enum ggml_type and ggml.c's
// type_traits): each type's number in a GGUF file, its name, and its block — the values one
// block holds along the innermost dimension and the bytes it takes (1 value for the plain
// types). The numbers ggml has removed (4, 5, 31-33, 36-38) are in no row.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>

namespace zt::detail {

struct GgmlType {
  std::uint32_t number;
  std::string_view name;  // as ggml_type_name gives it
  std::uint32_t block_values;
  std::uint32_t block_bytes;
};

inline constexpr std::array<GgmlType, 35> ggml_types = {{
    {0, "f32", 1, 4},
    {1, "f16", 1, 2},
    {2, "q4_0", 32, 18},
    {3, "q4_1", 32, 20},
    {6, "q5_0", 32, 22},
    {7, "q5_1", 32, 24},
    {8, "q8_0", 32, 34},
    {9, "q8_1", 32, 36},  // two halves and 32 bytes (the gguf package's 40 is the old float layout)
    {10, "q2_K", 256, 84},
    {11, "q3_K", 256, 110},
    {12, "q4_K", 256, 144},
    {13, "q5_K", 256, 176},
    {14, "q6_K", 256, 210},
    {15, "q8_K", 256, 292},
    {16, "iq2_xxs", 256, 66},
    {17, "iq2_xs", 256, 74},
    {18, "iq3_xxs", 256, 98},
    {19, "iq1_s", 256, 50},
    {20, "iq4_nl", 32, 18},
    {21, "iq3_s", 256, 110},
    {22, "iq2_s", 256, 82},
    {23, "iq4_xs", 256, 136},
    {24, "i8", 1, 1},
    {25, "i16", 1, 2},
    {26, "i32", 1, 4},
    {27, "i64", 1, 8},
    {28, "f64", 1, 8},
    {29, "iq1_m", 256, 56},
    {30, "bf16", 1, 2},
    {34, "tq1_0", 256, 54},
    {35, "tq2_0", 256, 66},
    {39, "mxfp4", 32, 17},
    {40, "nvfp4", 64, 36},
    {41, "q1_0", 128, 18},
    {42, "q2_0", 64, 18},
}};

/// The type numbered `number` in a GGUF file, or nullptr when ggml defines none.
constexpr const GgmlType* ggml_type(std::uint32_t number) {
  const auto found = std::ranges::find(ggml_types, number, &GgmlType::number);
  return found == ggml_types.end() ? nullptr : &*found;
}

static_assert(ggml_type(2)->block_bytes == 18 && ggml_type(4) == nullptr && ggml_type(42)->block_values == 64);

}  // namespace zt::detail
