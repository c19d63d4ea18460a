// detail::dequantize_blocks against the values the `gguf` package makes of random blocks
// (test/data/gguf/dequantize, made by make_dequantize_reference.py), bit for bit, from
// aligned and unaligned bytes and under flush-to-zero; and its refusals.
#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>


#include "formats/gguf/dequantize_blocks.hpp"
#include "formats/gguf/ggml_types.hpp"
#include "support/file_test_support.hpp"
#include "support/flush_denormals.hpp"
#include "support/gguf_reference.hpp"
#include "support/message_check.hpp"
#include "zerotensor/error.hpp"

namespace {

using Reference = zt_test::DequantizeReference;
using zt_test::covered_ggml_types;
using zt_test::ggml_type_named;

Reference reference(const std::string& name) { return zt_test::dequantize_reference(name); }

/// The values decoded from `blocks` (copied `shift` bytes into a buffer of their own) and
/// the expected values compared as bit patterns: the number of mismatches, the first logged.
std::size_t mismatches(const zt::detail::GgmlType& type, const Reference& expected, std::size_t shift) {
  std::vector<std::byte> shifted(shift + expected.blocks.size());
  std::memcpy(shifted.data() + shift, expected.blocks.data(), expected.blocks.size());
  std::vector<float> out(expected.values.size(), -1.0f);
  zt::detail::dequantize_blocks(type.number, std::span(shifted).subspan(shift), out);
  std::size_t count = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const auto got = std::bit_cast<std::uint32_t>(out[i]);
    if (got != expected.values[i] && count++ == 0)
      BOOST_TEST_MESSAGE(type.name << " value " << i << " (block " << i / type.block_values << "): got " << out[i]
                                   << " (0x" << std::hex << got << "), expected "
                                   << std::bit_cast<float>(expected.values[i]) << " (0x" << expected.values[i]
                                   << std::dec << ")");
  }
  return count;
}

std::size_t subnormals(const std::vector<std::uint32_t>& values) {
  std::size_t count = 0;
  for (const auto bits : values) count += std::fpclassify(std::bit_cast<float>(bits)) == FP_SUBNORMAL;
  return count;
}

std::vector<std::byte> zero_bytes(std::size_t n) { return std::vector<std::byte>(n); }

}  // namespace

BOOST_AUTO_TEST_SUITE(gguf_dequantize)

BOOST_DATA_TEST_CASE(each_covered_type_decodes_the_reference_blocks_to_the_gguf_package_s_values_bit_for_bit,
                     boost::unit_test::data::make(covered_ggml_types), name) {
  const auto& type = ggml_type_named(name);
  BOOST_TEST_REQUIRE(zt::detail::dequantizes(type.number));
  const Reference expected = reference(name);
  BOOST_TEST_REQUIRE(expected.blocks.size() % type.block_bytes() == 0);
  BOOST_TEST_REQUIRE(expected.values.size() == expected.blocks.size() / type.block_bytes() * type.block_values);
  BOOST_TEST_MESSAGE(name << ": " << expected.values.size() << " values compared");
  BOOST_TEST(mismatches(type, expected, 0) == 0u);
}

BOOST_DATA_TEST_CASE(blocks_at_any_alignment_decode_to_the_same_values, boost::unit_test::data::make(covered_ggml_types),
                     name) {
  const auto& type = ggml_type_named(name);
  const Reference expected = reference(name);
  for (const std::size_t shift : {1, 2, 3, 5}) BOOST_TEST(mismatches(type, expected, shift) == 0u, "shift " << shift);
}

BOOST_AUTO_TEST_CASE(the_references_of_mxfp4_and_q8_k_hold_subnormal_values) {
  BOOST_TEST(subnormals(reference("mxfp4").values) > 0u);
  BOOST_TEST(subnormals(reference("q8_K").values) > 0u);
}

#if defined(__SSE2__)
BOOST_DATA_TEST_CASE(flush_to_zero_and_denormals_are_zero_change_no_value, boost::unit_test::data::make(covered_ggml_types),
                     name) {
  const auto& type = ggml_type_named(name);
  const Reference expected = reference(name);
  std::size_t count = 0;
  {
    zt_test::FlushDenormals mode;
    count = mismatches(type, expected, 0);
  }
  BOOST_TEST(count == 0u);
}
#endif

BOOST_AUTO_TEST_CASE(mxfp4_s_exponent_255_scales_by_2_to_the_127_and_0_and_1_by_subnormal_halves) {
  // A block of exponent e (scale 2^(e - 127)) whose first value has e2m1 code 1 (0.5) and
  // 17th code 7 (6): 6 * 2^128 overflows.
  for (const auto& [e, first, seventeenth] : {std::tuple{255, 0x1p127f, INFINITY}, std::tuple{0, 0x1p-128f, 0x1.8p-125f},
                                              std::tuple{1, 0x1p-127f, 0x1.8p-124f}}) {
    auto block = zero_bytes(17);
    block[0] = std::byte(e);
    block[1] = std::byte{0x71};
    std::vector<float> out(32);
    zt::detail::dequantize_blocks(ggml_type_named("mxfp4").number, block, out);
    BOOST_TEST(out[0] == first, "e = " << e);
    BOOST_TEST(out[16] == seventeenth, "e = " << e);
    BOOST_TEST(out[1] == 0.0f);
  }
}

BOOST_AUTO_TEST_CASE(bytes_that_are_not_whole_blocks_are_refused_naming_both_sizes) {
  std::vector<float> out(64);
  BOOST_CHECK_EXCEPTION(zt::detail::dequantize_blocks(2, zero_bytes(37), out), zt::ValueError,
                        with_message<zt::ValueError>("37 bytes are not whole q4_0 blocks of 18 bytes"));
  BOOST_CHECK_EXCEPTION(zt::detail::dequantize_blocks(12, zero_bytes(143), out), zt::ValueError,
                        with_message<zt::ValueError>("143 bytes are not whole q4_K blocks of 144 bytes"));
}

BOOST_AUTO_TEST_CASE(an_output_not_the_size_of_the_blocks_values_is_refused_naming_both_sizes) {
  std::vector<float> out(63);
  BOOST_CHECK_EXCEPTION(zt::detail::dequantize_blocks(2, zero_bytes(36), out), zt::ValueError,
                        with_message<zt::ValueError>("2 q4_0 blocks hold 64 values, the output has room for 63"));
  std::vector<float> none;
  BOOST_CHECK_NO_THROW(zt::detail::dequantize_blocks(2, {}, none));
}

BOOST_AUTO_TEST_CASE(every_block_type_decodes_and_plain_or_unknown_types_are_refused_by_name) {
  for (const auto& type : zt::detail::ggml_types)
    BOOST_TEST(zt::detail::dequantizes(type.number) == (type.block_values > 1), type.name);
  std::vector<float> out(256);
  BOOST_CHECK_EXCEPTION(zt::detail::dequantize_blocks(0, zero_bytes(4), out), zt::TypeError,
                        with_message<zt::TypeError>("f32 is not a block-quantized type"));
  BOOST_TEST(!zt::detail::dequantizes(4));
  BOOST_CHECK_EXCEPTION(zt::detail::dequantize_blocks(4, zero_bytes(4), out), zt::TypeError,
                        with_message<zt::TypeError>("ggml type 4 is unknown"));
}

BOOST_AUTO_TEST_CASE(an_iq2_xxs_group_scales_grid_row_0_by_its_4_bit_scale_and_signs_it_by_ksigns) {
  // d = 1; group 0's scale nibble 15 makes 1 * (0.5 + 15) * 0.25 = 3.875, times grid value 8;
  // its first sign index 1 is ksigns 0x81: values 0 and 7 negative.
  auto block = zero_bytes(66);
  block[1] = std::byte{0x3c};
  block[6] = std::byte{0x01};
  block[9] = std::byte{0xf0};
  std::vector<float> out(256);
  zt::detail::dequantize_blocks(ggml_type_named("iq2_xxs").number, block, out);
  const std::vector<float> first(out.begin(), out.begin() + 9);
  BOOST_TEST(first == (std::vector<float>{-31, 31, 31, 31, 31, 31, 31, -31, 31}), boost::test_tools::per_element());
  BOOST_TEST(out[32] == 1.0f);  // group 1: scale nibble 0, (0.5 + 0) * 0.25 * 8
}

BOOST_AUTO_TEST_CASE(an_iq2_xxs_block_of_a_nan_scale_gives_that_nan_with_its_sign_where_values_are_negated) {
  // As the gguf package's multiplication by -1 leaves a NaN: sign index 1 negates value 0.
  auto block = zero_bytes(66);
  block[1] = std::byte{0x7e};  // float16 0x7e00, a positive quiet NaN
  block[6] = std::byte{0x01};
  std::vector<float> out(256);
  zt::detail::dequantize_blocks(ggml_type_named("iq2_xxs").number, block, out);
  BOOST_TEST(std::bit_cast<std::uint32_t>(out[0]) == 0x7fc00000u);
  BOOST_TEST(std::bit_cast<std::uint32_t>(out[1]) == 0x7fc00000u);
}

BOOST_AUTO_TEST_CASE(iq1_m_s_scale_is_the_float16_of_the_top_nibbles_of_its_four_scale_words) {
  // Scale words' top nibbles 0, 0, 0xc, 0x3: float16 0x3c00 = 1. Word 0's low 3 bits 3 make the
  // first 16 values' scale 2 * 3 + 1 = 7; qh bit 3 negates the first 8 values' delta 0.125;
  // grid row 0 is all -1.
  auto block = zero_bytes(56);
  block[53] = std::byte{0xc0};
  block[55] = std::byte{0x30};
  block[48] = std::byte{0x03};
  block[32] = std::byte{0x08};
  std::vector<float> out(256);
  zt::detail::dequantize_blocks(ggml_type_named("iq1_m").number, block, out);
  BOOST_TEST(out[0] == 7 * -1.125f);
  BOOST_TEST(out[8] == 7 * -0.875f);
  BOOST_TEST(out[16] == -0.875f);
}

BOOST_AUTO_TEST_CASE(dequantizes_says_yes_for_exactly_the_covered_types) {
  for (const auto& type : zt::detail::ggml_types) {
    const bool listed = std::find(covered_ggml_types.begin(), covered_ggml_types.end(), type.name) != covered_ggml_types.end();
    BOOST_TEST(zt::detail::dequantizes(type.number) == listed, type.name);
  }
}

BOOST_AUTO_TEST_SUITE_END()
