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
/// device other than the CPU are queued on `uploads` instead. `context` opens the messages.
GgufFile read_gguf(const detail::FileBytes& file_bytes, const detail::LoadContext& context, const std::string& part,
                   const std::function<bool(std::string_view)>& keep, detail::DeviceUploads& uploads) {
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
    if (options.device != cpu) {
      uploads.add(info.name, bytes, stored, options, describe, file_bytes.direct);
      continue;
    }
    AnyTensor tensor = detail::load_stored_tensor(bytes, stored, options, describe, context.noun());
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
std::optional<std::uint64_t> split_number(const GgufFile& file, std::string_view key, std::string_view description) {
  const auto found = file.metadata.find(key);
  if (found == file.metadata.end()) return std::nullopt;
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

/// The path of part `number` (0-based) of the `count` parts of a split model whose first part
/// is `first`, named as llama.cpp names them: <prefix>-00001-of-00003.gguf.
fs::path part_path(const fs::path& first, std::uint64_t number, std::uint64_t count) {
  const std::string file_name = first.filename().string();
  char suffix[48];
  std::snprintf(suffix, sizeof suffix, "-%05llu-of-%05llu.gguf", 1ULL, static_cast<unsigned long long>(count));
  if (!file_name.ends_with(suffix))
    throw ValueError(concat("load_gguf: <", first.string(), ">: the first of ", count,
                            " parts of a split model, but its name does not end in ", suffix,
                            " as llama.cpp names the parts"));
  std::snprintf(suffix, sizeof suffix, "-%05llu-of-%05llu.gguf", static_cast<unsigned long long>(number + 1),
                static_cast<unsigned long long>(count));
  const std::string prefix = file_name.substr(0, file_name.size() - std::strlen(suffix));
  return first.parent_path() / (prefix + suffix);
}

/// Loads the parts after the first of a split model of `count` parts into `model`, checking
/// that each names itself as that part, that no tensor is in two parts, and that the parts hold
/// `split.tensors.count` tensors in all.
void load_other_parts(GgufFile& model, const fs::path& first, std::uint64_t count, const LoadOptions& options,
                      detail::DeviceUploads& uploads) {
  for (std::uint64_t number = 1; number < count; ++number) {
    const fs::path path = part_path(first, number, count);
    const detail::LoadContext context("load_gguf", path, ": the header");
    GgufFile part = read_gguf(detail::file_bytes(path, options, true), context, path.string(), {}, uploads);
    const auto its_number = split_number(part, "split.no", context.source());
    const auto its_count = split_number(part, "split.count", context.source());
    if (its_number != number || its_count != count)
      throw ValueError(concat(context.source(), ": part ", number + 1, " of ", count, " of the split model of <",
                              first.string(), "> holds split.no ", its_number ? std::to_string(*its_number) : "(none)",
                              " and split.count ", its_count ? std::to_string(*its_count) : "(none)",
                              "; expected ", number, " and ", count));
    for (const auto& [name, its_part] : part.part_of) {
      if (const auto other = model.part_of.find(name); other != model.part_of.end())
        throw ValueError(concat(context.source(), ": tensor '", name, "' is also in <", other->second, ">"));
    }
    model.part_of.merge(part.part_of);
    model.tensors.merge(part.tensors);
  }
}

}  // namespace

const AnyTensor& GgufFile::at(std::string_view name) const {
  const auto found = tensors.find(name);
  if (found == tensors.end())
    throw ValueError(concat("GgufFile::at: no tensor named '", name, "' among ", tensors.size(), " tensors"));
  return found->second;
}

GgufFile load_gguf(PathRef path, LoadOptions options) {
  const detail::LoadContext context("load_gguf", path, ": the header");
  detail::DeviceUploads uploads;
  const fs::path first(path.c_str());
  GgufFile model = read_gguf(detail::file_bytes(path, options, true), context, first.string(), {}, uploads);
  const std::uint64_t count = split_number(model, "split.count", context.source()).value_or(1);
  if (count > 1) {
    const std::uint64_t number = split_number(model, "split.no", context.source()).value_or(0);
    if (number != 0)
      throw ValueError(concat(context.source(), ": part ", number + 1, " of ", count,
                              " of a split model; load_gguf opens one from its first part"));
    load_other_parts(model, first, count, options, uploads);
    const auto expected = split_number(model, "split.tensors.count", context.source());
    if (expected && *expected != model.part_of.size())
      throw ValueError(concat(context.source(), ": split.tensors.count is ", *expected, " but the ", count,
                              " parts hold ", model.part_of.size(), " tensors"));
  }
  add_uploads(model, uploads, context);
  return model;
}

GgufFile detail::load_gguf_bytes(const Buffer& bytes, LoadOptions options) {
  const LoadContext context("load_gguf", ": the header");
  DeviceUploads uploads;
  GgufFile model =
      read_gguf({bytes, buffer_load_options(bytes, options, context.source())}, context, "<memory>", {}, uploads);
  add_uploads(model, uploads, context);
  return model;
}

}  // namespace zt
