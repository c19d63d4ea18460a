// A GGUF file built byte by byte in either byte order, for the tests of the GGUF reader and
// loader: its numbers, strings, keys, arrays and tensor infos, appended as the format lays them.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <string>
#include <string_view>

#include "zerotensor/gguf_value.hpp"

namespace zt_test {

using zt::GgufType;

/// A GGUF file under construction: numbers appended in the file's byte order.
struct GgufBytes {
  bool big_endian = false;
  std::string data;

  template <class T>
  GgufBytes& put(T value) {
    char raw[sizeof(T)];
    std::memcpy(raw, &value, sizeof(T));
    if (big_endian != (std::endian::native == std::endian::big)) std::reverse(std::begin(raw), std::end(raw));
    data.append(raw, sizeof(T));
    return *this;
  }

  GgufBytes& text(std::string_view value) {
    put(std::uint64_t(value.size()));
    data += value;
    return *this;
  }

  /// A key and its value type; the value follows.
  GgufBytes& key(std::string_view name, GgufType type) {
    text(name);
    return put(std::uint32_t(type));
  }

  /// An array's element type and count; the elements follow.
  GgufBytes& array(GgufType element_type, std::uint64_t size) {
    put(std::uint32_t(element_type));
    return put(size);
  }

  GgufBytes& info(std::string_view name, std::initializer_list<std::int64_t> dims, std::uint32_t ggml_type,
                  std::uint64_t offset) {
    text(name);
    put(std::uint32_t(dims.size()));
    for (const std::int64_t d : dims) put(d);
    put(ggml_type);
    return put(offset);
  }

  GgufBytes& pad(std::size_t alignment) {
    data.resize((data.size() + alignment - 1) / alignment * alignment, '\0');
    return *this;
  }

  GgufBytes& zeros(std::size_t count) {
    data.append(count, '\0');
    return *this;
  }
};

/// The magic, the version and the counts.
inline GgufBytes preamble(std::uint64_t tensors, std::uint64_t pairs, bool big_endian = false, std::uint32_t version = 3) {
  GgufBytes file{big_endian, "GGUF"};
  return file.put(version).put(tensors).put(pairs);
}

}  // namespace zt_test
