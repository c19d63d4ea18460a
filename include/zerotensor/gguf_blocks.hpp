// The element types of GGUF's block-quantized tensors (ggml's Q4_0 ... Q8_K, the IQ types,
// TQ1_0, TQ2_0, MXFP4, NVFP4, Q1_0, Q2_0): one element is one whole block, the bytes ggml
// stores for a run of values along a row (32 to 256 of them, with their scales). A tensor's
// last extent counts blocks, so views never split one and a copy moves blocks as bytes.
// zerotensor converts them to no other dtype; zt::dequantize (gguf.hpp) decodes them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <type_traits>

#include "zerotensor/packed_floats.hpp"

namespace zt {

/// One block of the ggml type numbered `GgmlType` in a GGUF file, `Bytes` bytes as stored.
template <std::uint32_t GgmlType, std::size_t Bytes>
struct gguf_block {
  static constexpr std::uint32_t ggml_type = GgmlType;
  std::array<std::uint8_t, Bytes> bytes;
  friend bool operator==(const gguf_block&, const gguf_block&) = default;
};

using gguf_q4_0 = gguf_block<2, 18>;
using gguf_q4_1 = gguf_block<3, 20>;
using gguf_q5_0 = gguf_block<6, 22>;
using gguf_q5_1 = gguf_block<7, 24>;
using gguf_q8_0 = gguf_block<8, 34>;
using gguf_q8_1 = gguf_block<9, 36>;
using gguf_q2_k = gguf_block<10, 84>;
using gguf_q3_k = gguf_block<11, 110>;
using gguf_q4_k = gguf_block<12, 144>;
using gguf_q5_k = gguf_block<13, 176>;
using gguf_q6_k = gguf_block<14, 210>;
using gguf_q8_k = gguf_block<15, 292>;
using gguf_iq2_xxs = gguf_block<16, 66>;
using gguf_iq2_xs = gguf_block<17, 74>;
using gguf_iq3_xxs = gguf_block<18, 98>;
using gguf_iq1_s = gguf_block<19, 50>;
using gguf_iq4_nl = gguf_block<20, 18>;
using gguf_iq3_s = gguf_block<21, 110>;
using gguf_iq2_s = gguf_block<22, 82>;
using gguf_iq4_xs = gguf_block<23, 136>;
using gguf_iq1_m = gguf_block<29, 56>;
using gguf_tq1_0 = gguf_block<34, 54>;
using gguf_tq2_0 = gguf_block<35, 66>;
using gguf_mxfp4 = gguf_block<39, 17>;
using gguf_nvfp4 = gguf_block<40, 36>;
using gguf_q1_0 = gguf_block<41, 18>;
using gguf_q2_0 = gguf_block<42, 18>;

/// The block's bytes in hexadecimal, first byte first.
template <std::uint32_t GgmlType, std::size_t Bytes>
std::ostream& operator<<(std::ostream& out, const gguf_block<GgmlType, Bytes>& block) {
  return detail::print_packed_bytes(out, block.bytes.data(), Bytes);
}

static_assert(sizeof(gguf_q8_k) == 292 && alignof(gguf_q4_k) == 1 && std::is_trivially_copyable_v<gguf_q4_k>);

}  // namespace zt
