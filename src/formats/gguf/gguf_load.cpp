#include "zerotensor/gguf.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <filesystem>
#include <optional>
#include <ranges>
#include <string>
#include <utility>
#include <vector>

#include "formats/file_tensor.hpp"
#include "formats/gguf/ggml_types.hpp"
#include "formats/gguf/gguf_header.hpp"
#include "formats/gguf/gguf_parts.hpp"
#include "formats/rank_slice.hpp"
#include "vocabulary/concat.hpp"
#include "zerotensor/error.hpp"

namespace zt {
namespace {

namespace fs = std::filesystem;
using detail::concat;

/// The tensor of `info`, as it lies in the file: GGUF's dimensions reversed, and for a block
/// type the innermost one counted in blocks. ValueError for a block tensor of a big-endian file.
detail::StoredTensor stored_tensor(const detail::GgufTensorInfo& info, const detail::GgufHeader& header,
                                   const detail::DescribeTensor& describe) {
  const detail::GgmlType& type = *detail::ggml_type(info.ggml_type);  // the parser knows every type it kept
  if (header.big_endian && type.block_values != 1)
    throw ValueError(concat(describe(), " (at byte ", info.info_offset, "): a ", type.name,
                            " tensor of a big-endian file cannot be read: ggml defines its blocks little-endian only"));
  std::vector<index_t> shape(info.dims.rbegin(), info.dims.rend());
  if (!shape.empty()) shape.back() /= index_t(type.block_values);
  const DynamicExtents extents(std::span<const index_t>(shape.data(), shape.size()));
  return {std::size_t(info.offset), type.dtype, extents, detail::contiguous_strides(extents),
          header.big_endian != (std::endian::native == std::endian::big)};
}

/// The tensors `keep` accepts (unset: all) and the metadata of the GGUF file in `file_bytes`,
/// viewed or copied as its options say, each with `part` as the file it came from; those for a
/// device other than the CPU (`device_of(name)`, unset: the options' device) are queued on
/// `uploads` instead. `context` opens the messages.
GgufFile read_gguf(const detail::FileBytes& file_bytes, const detail::LoadContext& context, const std::string& part,
                   const std::function<bool(std::string_view)>& keep, detail::DeviceUploads& uploads,
                   const detail::DeviceOf& device_of) {
  const Buffer& bytes = file_bytes.bytes;
  const LoadOptions& options = file_bytes.options;
  detail::refuse_zip_archive(bytes.bytes(), ".gguf", context.source());
  detail::GgufHeader header = detail::parse_gguf_header(bytes.bytes(), context.source());
  const std::optional<detail::RankSlice> slice = detail::settle_slice(options.slice, context.source());
  GgufFile file;
  for (detail::GgufTensorInfo& info : header.tensors) {
    if (keep && !keep(info.name)) continue;
    const auto describe = [&] { return concat(context.source(), ": tensor '", info.name, "'"); };
    detail::StoredTensor stored = stored_tensor(info, header, describe);
    detail::narrow_stored_for_rank(slice, info.name, stored, describe);
    file.part_of.emplace(info.name, part);
    LoadOptions placed = options;
    if (device_of) placed.device = device_of(info.name);
    if (placed.device != cpu) {
      uploads.add(info.name, bytes, stored, placed, describe, file_bytes.direct);
      continue;
    }
    AnyTensor tensor = detail::load_stored_tensor(bytes, stored, placed, describe, context.noun());
    file.tensors.emplace(std::move(info.name), std::move(tensor));
  }
  file.metadata = std::move(header.metadata);
  return file;
}

/// `file` with the tensors queued on `uploads` copied to their device in one staged copy.
void add_uploads(GgufFile& file, detail::DeviceUploads& uploads, const detail::LoadContext& context) {
  for (auto& [name, tensor] : uploads.run(context.source())) file.tensors.emplace(std::move(name), std::move(tensor));
}

/// A split model's `split.*` number: any integer type (llama.cpp writes uint16 and int32).
std::optional<std::uint64_t> split_number(const GgufMetadata& metadata, std::string_view key,
                                          std::string_view description) {
  const auto found = metadata.find(key);
  if (found == metadata.end()) return std::nullopt;
  const GgufValue& value = found->second;
  const auto as_count = [&](auto number) -> std::uint64_t {
    if (number < 0) throw ValueError(concat(description, ": metadata ", key, " is negative: ", std::int64_t(number)));
    return std::uint64_t(number);
  };
  switch (value.type()) {
    case GgufType::UInt8: return value.as<std::uint8_t>();
    case GgufType::UInt16: return value.as<std::uint16_t>();
    case GgufType::UInt32: return value.as<std::uint32_t>();
    case GgufType::UInt64: return value.as<std::uint64_t>();
    case GgufType::Int8: return as_count(value.as<std::int8_t>());
    case GgufType::Int16: return as_count(value.as<std::int16_t>());
    case GgufType::Int32: return as_count(value.as<std::int32_t>());
    case GgufType::Int64: return as_count(value.as<std::int64_t>());
    default:
      throw ValueError(concat(description, ": metadata ", key, " must be an integer; found ", name(value.type())));
  }
}

/// "-00001-of-00003.gguf": the end of the name of part `number` (0-based) of `count`.
std::string part_suffix(std::uint64_t number, std::uint64_t count) {
  char suffix[48];
  std::snprintf(suffix, sizeof suffix, "-%05llu-of-%05llu.gguf", static_cast<unsigned long long>(number + 1),
                static_cast<unsigned long long>(count));
  return suffix;
}

/// ValueError, after `description`, when the split.no and split.count of `metadata` do not make
/// it part `number` of `count` (a model of one file: no split.count above 1).
void check_part_number(const GgufMetadata& metadata, std::uint64_t number, std::uint64_t count,
                       std::string_view description) {
  const auto its_number = split_number(metadata, "split.no", description);
  const auto its_count = split_number(metadata, "split.count", description);
  if (count == 1) {
    if (its_count.value_or(1) <= 1) return;
    if (its_number.value_or(0) != 0)
      throw ValueError(concat(description, ": part ", *its_number + 1, " of ", *its_count,
                              " of a split model; load a split model from its first part"));
    throw ValueError(concat(description, ": the first of ", *its_count,
                            " parts of a split model, but its name does not end in ", part_suffix(0, *its_count),
                            " as llama.cpp names the parts"));
  }
  if (its_number != number || its_count != count)
    throw ValueError(concat(description, ": part ", number + 1, " of ", count, " of a split model holds split.no ",
                            its_number ? std::to_string(*its_number) : "(none)", " and split.count ",
                            its_count ? std::to_string(*its_count) : "(none)", "; expected ", number, " and ", count));
}

}  // namespace

const AnyTensor& GgufFile::at(std::string_view name) const {
  const auto found = tensors.find(name);
  if (found == tensors.end())
    throw ValueError(concat("GgufFile::at: no tensor named '", name, "' among ", tensors.size(), " tensors"));
  return found->second;
}

std::vector<fs::path> detail::gguf_part_paths(const fs::path& first) {
  const std::string name = first.filename().string();
  constexpr std::string_view first_part = "-00001-of-";
  constexpr std::size_t digits = 5, suffix_length = first_part.size() + digits + 5;  // 5: ".gguf"
  if (name.size() <= suffix_length || !name.ends_with(".gguf")) return {first};
  const std::string_view suffix = std::string_view(name).substr(name.size() - suffix_length);
  std::uint64_t count = 0;
  const std::string_view count_digits = suffix.substr(first_part.size(), digits);
  if (!suffix.starts_with(first_part) || !std::ranges::all_of(count_digits, [](char c) { return c >= '0' && c <= '9'; }))
    return {first};
  for (const char c : count_digits) count = 10 * count + std::uint64_t(c - '0');
  if (count <= 1) return {first};
  const std::string prefix = name.substr(0, name.size() - suffix_length);
  std::vector<fs::path> parts;
  for (std::uint64_t number = 0; number < count; ++number)
    parts.push_back(first.parent_path() / (prefix + part_suffix(number, count)));
  return parts;
}

GgufFile detail::load_gguf_part(const fs::path& path, const LoadOptions& options,
                                const std::function<bool(std::string_view)>& keep, DeviceUploads& uploads,
                                const DeviceOf& device_of, std::uint64_t number, std::uint64_t count) {
  const LoadContext context("load_gguf", path, ": the header");
  GgufFile part = read_gguf(file_bytes(path, options, !keep), context, path.string(), keep, uploads, device_of);
  check_part_number(part.metadata, number, count, context.source());
  return part;
}

void detail::merge_gguf_part(GgufFile& model, GgufFile&& part, std::string_view description) {
  for (const auto& [name, its_part] : part.part_of) {
    if (const auto other = model.part_of.find(name); other != model.part_of.end())
      throw ValueError(concat(description, ": tensor '", name, "' is in <", other->second, "> and in <", its_part, ">"));
  }
  model.part_of.merge(part.part_of);
  model.tensors.merge(part.tensors);
}

void detail::check_gguf_tensor_count(const GgufFile& model, std::string_view description) {
  const auto expected = split_number(model.metadata, "split.tensors.count", description);
  if (expected && *expected != model.part_of.size())
    throw ValueError(concat(description, ": split.tensors.count is ", *expected, " but the model's parts hold ",
                            model.part_of.size(), " tensors"));
}

GgufFile load_gguf(PathRef path, LoadOptions options) {
  const detail::LoadContext context("load_gguf", path, ": the header");
  const std::vector<fs::path> parts = detail::gguf_part_paths(path.c_str());
  detail::DeviceUploads uploads;
  GgufFile model;
  for (std::size_t number = 0; number < parts.size(); ++number) {
    GgufFile part = detail::load_gguf_part(parts[number], options, {}, uploads, {}, number, parts.size());
    if (number == 0) model = std::move(part);
    else detail::merge_gguf_part(model, std::move(part), context.source());
  }
  detail::check_gguf_tensor_count(model, context.source());
  add_uploads(model, uploads, context);
  return model;
}

GgufFile detail::load_gguf_bytes(const Buffer& bytes, LoadOptions options) {
  const LoadContext context("load_gguf", ": the header");
  DeviceUploads uploads;
  GgufFile model =
      read_gguf({bytes, buffer_load_options(bytes, options, context.source())}, context, "<memory>", {}, uploads, {});
  add_uploads(model, uploads, context);
  return model;
}

}  // namespace zt
