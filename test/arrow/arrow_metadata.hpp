// Arrow's binary key/value metadata (zerotensor/arrow.hpp) as a producer writes it: the one
// encoder of test_arrow, the fuzz harness fuzz_arrow and bench_arrow.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace zt_test {

/// int32 pair count, then per pair int32 key length, key bytes, int32 value length, value bytes.
inline std::string arrow_metadata(const std::vector<std::pair<std::string, std::string>>& pairs) {
  std::string out;
  const auto put = [&out](std::int32_t n) { out.append(reinterpret_cast<const char*>(&n), 4); };
  put(std::int32_t(pairs.size()));
  for (const auto& [key, value] : pairs) {
    put(std::int32_t(key.size()));
    out += key;
    put(std::int32_t(value.size()));
    out += value;
  }
  return out;
}

}  // namespace zt_test
