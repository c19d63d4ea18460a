// The GGUF header reader (zt::detail::parse_gguf_header) on any bytes, a whole GGUF file. A header
// that parses must hold what the reader promises: every metadata value readable as its type,
// arrays of elements of their element type, and every tensor of a known ggml type, taking
// the bytes its dimensions need, aligned, inside the file and overlapping no other.
#include <algorithm>
#include <bit>
#include <string_view>
#include <vector>

#include "formats/gguf/ggml_types.hpp"
#include "formats/gguf/gguf_header.hpp"
#include "fuzz/fuzz_support.hpp"

using namespace zt;
using namespace zt::fuzz;

namespace {

/// Reads `value` and everything inside it.
void read_value(const GgufValue& value) {
  switch (value.type()) {
    case GgufType::String: (void)std::ranges::count(value.as<std::string_view>(), '\0'); break;
    case GgufType::Bool: require(GgufValue(value.as<bool>()) == value, "a bool reads back as another"); break;
    case GgufType::Array:
      for (const GgufValue& element : value.elements()) {
        require(element.type() == value.element_type(), "an array holds an element of another type");
        read_value(element);
      }
      break;
    default: require(std::uint32_t(value.type()) <= std::uint32_t(GgufType::Float64), "an unknown value type");
  }
}

void check_tensor(const zt::detail::GgufTensorInfo& info, const zt::detail::GgufHeader& header, std::size_t size) {
  const zt::detail::GgmlType* type = zt::detail::ggml_type(info.ggml_type);
  require(type != nullptr, "a tensor of an unknown ggml type");
  require(info.dims.size() <= 4, "a tensor of more than 4 dimensions");
  unsigned __int128 count = 1;  // kept below 2^63, times an extent below 2^63: 128 bits hold it
  for (const std::int64_t extent : info.dims) {
    require(extent >= 0, "a negative dimension");
    count *= std::uint64_t(extent);
    require(count < (unsigned __int128)1 << 63, "an element count of 2^63 or more");
  }
  require(info.dims.empty() || info.dims[0] % type->block_values == 0, "a row that is not whole blocks");
  require(!info.dims.empty() || type->block_values == 1, "a scalar of a block type");
  require(info.nbytes == count / type->block_values * type->block_bytes, "a tensor's byte size is wrong");
  require(info.offset >= header.data_offset && (info.offset - header.data_offset) % header.alignment == 0,
          "a tensor starts before the data section or unaligned");
  require(info.offset <= size && info.nbytes <= size - info.offset, "a tensor reaches past the end of the file");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // A copy of exactly the input's size, so that AddressSanitizer catches a read past its end.
  const std::vector<std::byte> file(reinterpret_cast<const std::byte*>(data),
                                    reinterpret_cast<const std::byte*>(data) + size);
  const auto header = unless_refused([&] { return zt::detail::parse_gguf_header(file, "fuzz.gguf"); });
  if (!header) return 0;
  require(header->version == 2 || header->version == 3, "a version other than 2 or 3");
  require(std::has_single_bit(header->alignment), "an alignment that is not a power of two");
  for (const auto& [key, value] : header->metadata) {
    require(!key.empty(), "an empty key");
    read_value(value);
  }
  std::vector<const zt::detail::GgufTensorInfo*> by_offset;
  std::vector<std::string_view> names;
  for (const auto& info : header->tensors) {
    check_tensor(info, *header, size);
    if (info.nbytes > 0) by_offset.push_back(&info);
    require(!info.name.empty(), "an empty tensor name");
    names.push_back(info.name);
  }
  std::ranges::sort(names);
  require(std::ranges::adjacent_find(names) == names.end(), "two tensors of one name");
  std::ranges::sort(by_offset, {}, &zt::detail::GgufTensorInfo::offset);
  for (std::size_t i = 1; i < by_offset.size(); ++i)
    require(by_offset[i - 1]->offset + by_offset[i - 1]->nbytes <= by_offset[i]->offset, "two tensors overlap");
  return 0;
}
