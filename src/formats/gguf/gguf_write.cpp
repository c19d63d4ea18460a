// zt::save_gguf: a GGUF version 3 file, little-endian, written as ggml's gguf.cpp lays it out:
// the header, the metadata, the tensor infos, padding to the alignment, then each tensor's
// bytes at a multiple of the alignment.
#include "zerotensor/gguf.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <boost/endian/conversion.hpp>

#include "formats/file_tensor.hpp"
#include "formats/gguf/ggml_types.hpp"
#include "formats/gguf/gguf_header.hpp"
#include "memory/file_io.hpp"
#include "vocabulary/concat.hpp"
#include "zerotensor/detail/checked_arithmetic.hpp"
#include "zerotensor/error.hpp"

namespace zt {
namespace {

using detail::concat;

constexpr std::string_view operation = "save_gguf";
constexpr std::uint32_t gguf_version = 3;
constexpr std::size_t max_dims = 4;  // ggml's GGML_MAX_DIMS
/// Padding is written from one buffer of zeros at most this long, repeated.
constexpr std::size_t zero_run = std::size_t{1} << 20;

/// The header under construction: numbers appended little-endian.
class HeaderText {
 public:
  template <class T>
  void number(T value) {
    const T little = boost::endian::native_to_little(value);
    text_.append(reinterpret_cast<const char*>(&little), sizeof(T));
  }
  void string(std::string_view value) {
    number(std::uint64_t(value.size()));
    text_ += value;
  }
  /// The value's bytes without its type, as an array's elements and a key's value are written.
  void value(const GgufValue& value) {
    switch (value.type()) {
      case GgufType::UInt8: return number(value.as<std::uint8_t>());
      case GgufType::Int8: return number(value.as<std::int8_t>());
      case GgufType::UInt16: return number(value.as<std::uint16_t>());
      case GgufType::Int16: return number(value.as<std::int16_t>());
      case GgufType::UInt32: return number(value.as<std::uint32_t>());
      case GgufType::Int32: return number(value.as<std::int32_t>());
      case GgufType::Float32: return number(std::bit_cast<std::uint32_t>(value.as<float>()));
      case GgufType::Bool: return number(std::uint8_t(value.as<bool>()));
      case GgufType::String: return string(value.as<std::string_view>());
      case GgufType::UInt64: return number(value.as<std::uint64_t>());
      case GgufType::Int64: return number(value.as<std::int64_t>());
      case GgufType::Float64: return number(std::bit_cast<std::uint64_t>(value.as<double>()));
      case GgufType::Array:
        number(std::uint32_t(value.element_type()));
        number(std::uint64_t(value.size()));
        for (const GgufValue& element : value.elements()) this->value(element);
        return;
    }
  }
  /// Zeros up to the next multiple of `alignment`.
  void pad(std::uint64_t alignment) { text_.append((alignment - text_.size() % alignment) % alignment, '\0'); }
  [[nodiscard]] const std::string& text() const { return text_; }

 private:
  std::string text_;
};

/// `general.alignment` of `metadata` (32 when absent): TypeError for another type than uint32,
/// ValueError for 0 or another number than a power of two.
std::uint64_t alignment_of(const GgufMetadata& metadata) {
  const auto found = metadata.find("general.alignment");
  if (found == metadata.end()) return detail::gguf_default_alignment;
  if (found->second.type() != GgufType::UInt32)
    throw TypeError(concat(operation, ": general.alignment must be a uint32, not a ", name(found->second.type())));
  const std::uint32_t alignment = found->second.as<std::uint32_t>();
  if (!std::has_single_bit(alignment))
    throw ValueError(concat(operation, ": general.alignment ", alignment, " is not a power of two"));
  return alignment;
}

/// A tensor as the file holds it: its ggml type and dimensions (innermost first, a block
/// type's innermost counting values), its C-order bytes and where they start in the data.
struct Stored {
  std::string_view name;
  const detail::GgmlType* type;
  std::vector<std::int64_t> dims;
  AnyTensor tensor;  // contiguous
  std::uint64_t offset;
};

Stored stored(std::string_view name, const AnyTensor& tensor) {
  if (name.empty()) throw ValueError(concat(operation, ": a tensor name is empty"));
  const auto type = std::ranges::find(detail::ggml_types, tensor.dtype(), &detail::GgmlType::dtype);
  if (type == detail::ggml_types.end())
    throw TypeError(concat(operation, ": tensor '", name, "': GGUF has no ", tensor.dtype(), " type"));
  if (tensor.rank() > max_dims)
    throw ValueError(concat(operation, ": tensor '", name, "' has ", tensor.rank(), " dimensions; GGUF holds at most ",
                            max_dims));
  if (tensor.rank() == 0 && type->block_values != 1)
    throw ValueError(concat(operation, ": tensor '", name, "': a 0-dimensional tensor of ", tensor.dtype(),
                            " has no innermost dimension for its ", type->block_values, " values"));
  const std::span<const index_t> shape = tensor.shape().span();
  std::vector<std::int64_t> dims(shape.rbegin(), shape.rend());
  if (!dims.empty() && detail::mul_overflows(dims.front(), std::int64_t(type->block_values), dims.front()))
    throw ValueError(concat(operation, ": tensor '", name, "': its rows of ", tensor.shape()[tensor.rank() - 1],
                            " blocks hold more values than an int64 counts"));
  return {name, &*type, std::move(dims), tensor.is_contiguous() ? tensor : tensor.clone(), 0};
}

/// Parts of `bytes` zeros, each a piece of `zeros`.
void append_zeros(std::vector<detail::FilePart>& parts, std::span<const std::byte> zeros, std::uint64_t bytes) {
  for (std::uint64_t left = bytes; left > 0;) {
    const std::size_t piece = std::size_t(std::min<std::uint64_t>(left, zeros.size()));
    parts.emplace_back(zeros.first(piece));
    left -= piece;
  }
}

}  // namespace

void save_gguf(PathRef path, const std::map<std::string, AnyTensor, std::less<>>& tensors,
               const GgufMetadata& metadata) {
  const std::uint64_t alignment = alignment_of(metadata);
  for (const auto& [key, value] : metadata)
    if (key.empty()) throw ValueError(concat(operation, ": a metadata key is empty"));
  std::vector<Stored> entries;
  std::uint64_t data_size = 0;
  for (const auto& [name, tensor] : tensors) {
    Stored entry = stored(name, tensor);
    entry.offset = data_size;
    data_size += (std::uint64_t(entry.tensor.nbytes()) + alignment - 1) / alignment * alignment;
    entries.push_back(std::move(entry));
  }

  HeaderText header;
  header.number(std::uint32_t(0x46554747));  // "GGUF" read as a little-endian uint32
  header.number(gguf_version);
  header.number(std::uint64_t(entries.size()));
  header.number(std::uint64_t(metadata.size()));
  for (const auto& [key, value] : metadata) {
    header.string(key);
    header.number(std::uint32_t(value.type()));
    header.value(value);
  }
  for (const Stored& entry : entries) {
    header.string(entry.name);
    header.number(std::uint32_t(entry.dims.size()));
    for (const std::int64_t extent : entry.dims) header.number(extent);
    header.number(entry.type->number);
    header.number(entry.offset);
  }
  header.pad(alignment);

  const std::vector<std::byte> zeros(std::size_t(std::min<std::uint64_t>(alignment, zero_run)));
  std::vector<detail::FilePart> parts{std::as_bytes(std::span(header.text()))};
  for (const Stored& entry : entries) {
    parts.push_back(detail::tensor_file_part(entry.tensor, operation));
    append_zeros(parts, zeros, (alignment - std::uint64_t(entry.tensor.nbytes()) % alignment) % alignment);
  }
  detail::write_file(path, parts);
}

}  // namespace zt
