// The GGUF header reader (zt::detail::parse_gguf_header) and zt::load_gguf on any bytes, a whole
// GGUF file. A header that parses must hold what the reader promises: every metadata value
// readable as its type, arrays of elements of their element type, and every tensor of a known
// ggml type, taking the bytes its dimensions need, aligned, inside the file and overlapping no
// other. load_gguf of the same bytes then gives every tensor, each of the bytes its info names,
// and dequantize decodes a block tensor's every block (any bytes: NaN and infinity are values).
#include <algorithm>
#include <bit>
#include <string_view>
#include <vector>

#include "formats/gguf/ggml_types.hpp"
#include "formats/gguf/gguf_header.hpp"
#include "fuzz/fuzz_support.hpp"
#include "zerotensor/gguf.hpp"

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
  require(info.nbytes == count / type->block_values * type->block_bytes(), "a tensor's byte size is wrong");
  require(info.offset >= header.data_offset && (info.offset - header.data_offset) % header.alignment == 0,
          "a tensor starts before the data section or unaligned");
  require(info.offset <= size && info.nbytes <= size - info.offset, "a tensor reaches past the end of the file");
}

/// load_gguf of `file`, whose header parsed as `header`: a big-endian file's block tensors are
/// refused, and otherwise every tensor loads with the bytes its info names.
void check_load(const std::vector<std::byte>& file, const zt::detail::GgufHeader& header) {
  const auto model = unless_refused([&] { return zt::load_gguf(zt::Buffer(file.data(), file.size())); });
  const bool has_blocks = std::ranges::any_of(
      header.tensors, [](const auto& info) { return zt::detail::ggml_type(info.ggml_type)->block_values != 1; });
  require(model.has_value() != (header.big_endian && has_blocks), "load_gguf refuses a header that parsed");
  if (!model) return;
  require(model->tensors.size() == header.tensors.size(), "load_gguf lost a tensor");
  for (const auto& info : header.tensors) {
    const AnyTensor& tensor = model->at(info.name);
    require(std::uint64_t(tensor.nbytes()) == info.nbytes, "a loaded tensor of another size");
    if (!is_gguf_block(tensor.dtype()) || tensor.numel() > 64) continue;  // a few blocks: every decoder, quickly
    const auto values = unless_refused([&] { return zt::dequantize(tensor); });
    require(!values || values->numel() == tensor.numel() * index_t(zt::detail::ggml_type(info.ggml_type)->block_values),
            "dequantize gives another number of values");
  }
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
  check_load(file, *header);
  return 0;
}
