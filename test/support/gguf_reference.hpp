// The reference values of GGUF block dequantization (test/data/gguf/dequantize, made by
// make_dequantize_reference.py with the `gguf` package): the types that have them, and each
// type's random blocks with the float32 values the package makes of them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "formats/gguf/ggml_types.hpp"
#include "support/file_test_support.hpp"

namespace zt_test {

/// Every type with a reference file (ggml's names).
inline const std::vector<std::string> covered_ggml_types = {
    "q4_0", "q4_1", "q5_0",    "q5_1",   "q8_0",  "q8_1",    "q2_K",   "q3_K",  "q4_K",
    "q5_K", "q6_K", "q8_K",    "tq1_0",  "tq2_0", "iq4_nl",  "iq4_xs", "mxfp4", "nvfp4",
    "q1_0", "q2_0", "iq2_xxs", "iq2_xs", "iq2_s", "iq3_xxs", "iq3_s",  "iq1_s", "iq1_m"};

inline const zt::detail::GgmlType& ggml_type_named(std::string_view name) {
  for (const auto& type : zt::detail::ggml_types)
    if (type.name == name) return type;
  throw std::runtime_error("no ggml type " + std::string(name));
}

struct DequantizeReference {
  std::vector<std::uint8_t> blocks;
  std::vector<std::uint32_t> values;  // float32 bit patterns
};

/// The blocks and values of the reference files of the ggml type called `name`.
inline DequantizeReference dequantize_reference(const std::string& name) {
  DequantizeReference reference{read_bytes(data_file("gguf/dequantize/" + name + ".blocks")), {}};
  const auto values = read_bytes(data_file("gguf/dequantize/" + name + ".f32"));
  BOOST_TEST_REQUIRE(!reference.blocks.empty());
  BOOST_TEST_REQUIRE(values.size() % 4 == 0);
  reference.values.resize(values.size() / 4);
  for (std::size_t i = 0; i < reference.values.size(); ++i)
    reference.values[i] = std::uint32_t(values[4 * i]) | std::uint32_t(values[4 * i + 1]) << 8 |
                          std::uint32_t(values[4 * i + 2]) << 16 | std::uint32_t(values[4 * i + 3]) << 24;
  return reference;
}

}  // namespace zt_test
