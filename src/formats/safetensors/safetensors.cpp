#include "zerotensor/safetensors.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <limits>
#include <optional>
#include <tuple>
#include <vector>

#include <boost/container/small_vector.hpp>
#include <boost/endian/conversion.hpp>

#include "vocabulary/concat.hpp"
#include "interop/dtype_formats.hpp"
#include "memory/file_io.hpp"
#include "formats/file_tensor.hpp"
#include "vocabulary/json.hpp"
#include "formats/rank_slice.hpp"
#include "formats/safetensors/safetensors_selected.hpp"
#include "zerotensor/empty.hpp"

namespace zt {
namespace {

using detail::concat;
using detail::Json;
using Keep = std::function<bool(std::string_view)>;

constexpr std::size_t length_field = 8;           // little-endian uint64 header length
constexpr std::uint64_t max_header_length = 100'000'000;  // the reference implementation's limit
constexpr std::size_t header_alignment = 8;       // save pads the header so the data area starts aligned
constexpr std::string_view metadata_key = "__metadata__";
/// The header object (level 1) holds tensor objects and "__metadata__" (level 2), which hold
/// shape and offset arrays (level 3).
constexpr int max_header_depth = 3;

/// The fields of a tensor object that the format defines; `other` is any other key.
enum class Field { dtype, shape, data_offsets, other };
constexpr std::array<std::string_view, 3> field_names = {"dtype", "shape", "data_offsets"};

Field field_named(std::string_view key) {
  std::size_t field = 0;
  while (field < field_names.size() && field_names[field] != key) ++field;
  return Field(field);
}

/// One tensor entry of the header, validated against the data area.
struct Entry {
  std::string name;
  DType dtype;
  DynamicExtents shape;
  std::uint64_t begin;  // bytes from the start of the data area
  std::uint64_t end;
};

/// Reads the header's document (ParsedJson has checked its nesting and keys): an object of
/// tensor objects and "__metadata__".
class HeaderReader {
 public:
  /// `description` ("load_safetensors: <file>") must outlive the reader.
  HeaderReader(std::string_view description, std::uint64_t data_size)
      : description_(description), data_size_(data_size) {}

  template <class... Parts>
  [[noreturn]] void fail(const Parts&... what) const {
    throw ValueError(concat(description_, ": ", what...));
  }

  template <class... Parts>
  [[noreturn]] void fail_tensor(std::string_view name, const Parts&... what) const {
    fail("tensor '", name, "'", what...);
  }

  /// "<file>: tensor '<name>'", which opens the messages about a tensor.
  std::string tensor_context(std::string_view name) const { return concat(description_, ": tensor '", name, "'"); }

  /// The tensors' entries of the header `text`, in its order, and its metadata into `file`;
  /// `what` begins the messages about its JSON.
  std::vector<Entry> read(std::string_view text, std::string_view what, SafetensorsFile& file) const {
    const detail::ParsedJson document(text, max_header_depth, what);
    const simdjson::dom::element header = document.root();
    simdjson::dom::object members;
    if (header.get(members) != simdjson::SUCCESS)
      fail("the header must be a JSON object; found ", detail::json_type_name(header));
    std::vector<Entry> entries;
    entries.reserve(members.size());
    for (const simdjson::dom::key_value_pair member : members) {
      if (member.key == metadata_key) {
        file.metadata = metadata(member.value);
      } else {
        entries.push_back(entry(std::string(member.key), member.value));
      }
    }
    return entries;
  }

  /// As the reference implementation: sorted by offsets, the tensors fill the data area
  /// from its first byte to its last, each starting where the one before ends (no holes,
  /// no overlap, an empty tensor only between two others, no bytes after the last).
  void check_layout(std::vector<Entry>& entries) const {
    std::sort(entries.begin(), entries.end(),
              [](const Entry& a, const Entry& b) { return std::tie(a.begin, a.end) < std::tie(b.begin, b.end); });
    const Entry* previous = nullptr;
    for (const Entry& entry : entries) {
      const std::uint64_t expected = previous == nullptr ? 0 : previous->end;
      if (entry.begin < expected)
        fail("tensors '", previous->name, "' [", previous->begin, ", ", previous->end, ") and '", entry.name,
             "' [", entry.begin, ", ", entry.end, ") overlap");
      if (entry.begin > expected)
        fail("bytes [", expected, ", ", entry.begin, ") of the data area belong to no tensor (a hole before '",
             entry.name, "' [", entry.begin, ", ", entry.end, "))");
      previous = &entry;
    }
    const std::uint64_t end = previous == nullptr ? 0 : previous->end;
    if (end != data_size_)
      fail(data_size_ - end, " bytes after the last tensor: the tensors end at byte ", end,
           " of a data area of ", data_size_, " bytes");
  }

 private:
  std::map<std::string, std::string, std::less<>> metadata(simdjson::dom::element value) const {
    simdjson::dom::object members;
    if (value.get(members) != simdjson::SUCCESS)
      fail("\"", metadata_key, "\" must be an object; found ", detail::json_type_name(value));
    std::map<std::string, std::string, std::less<>> result;
    for (const simdjson::dom::key_value_pair member : members) {
      std::string_view text;
      if (member.value.get(text) != simdjson::SUCCESS)
        fail("\"", metadata_key, "\" value \"", member.key, "\" must be a string; found ",
             detail::json_type_name(member.value));
      result.emplace(member.key, text);
    }
    return result;
  }

  Entry entry(std::string&& name, simdjson::dom::element value) const {
    simdjson::dom::object fields;
    if (value.get(fields) != simdjson::SUCCESS)
      fail_tensor(name, " must be an object; found ", detail::json_type_name(value));
    std::optional<DType> dtype;
    std::optional<DynamicExtents> shape;
    std::optional<std::array<std::uint64_t, 2>> offsets;
    for (const simdjson::dom::key_value_pair field : fields) {
      switch (field_named(field.key)) {
        case Field::dtype: dtype = dtype_of(name, field.value); break;
        case Field::shape: shape = shape_of(name, field.value); break;
        case Field::data_offsets: offsets = offsets_of(name, field.value); break;
        case Field::other: break;  // read and ignored, as the reference implementation does
      }
    }
    if (!dtype) fail_tensor(name, " has no \"dtype\"");
    if (!shape) fail_tensor(name, " has no \"shape\"");
    Entry entry{std::move(name), *dtype, std::move(*shape), 0, 0};
    group_packed_values(entry);
    if (!offsets) fail_tensor(entry.name, " has no \"data_offsets\"");
    std::tie(entry.begin, entry.end) = std::pair((*offsets)[0], (*offsets)[1]);
    if (entry.begin > entry.end || entry.end > data_size_)
      fail_tensor(entry.name, ": data_offsets [", entry.begin, ", ", entry.end, "] lie outside the data area of ",
                  data_size_, " bytes");
    index_t count = 0;
    try {
      count = checked_numel(entry.shape, itemsize(entry.dtype));
    } catch (const ValueError& error) {  // named here, so that a valid entry builds no message
      fail_tensor(entry.name, ": ", error.what());
    }
    const std::uint64_t expected = std::uint64_t(count) * itemsize(entry.dtype);
    if (entry.end - entry.begin != expected)
      fail_tensor(entry.name, ": data_offsets [", entry.begin, ", ", entry.end, "] hold ", entry.end - entry.begin,
                  " bytes but shape ", detail::shape_string(entry.shape), " of ", entry.dtype, " needs ", expected);
    return entry;
  }

  DType dtype_of(std::string_view name, simdjson::dom::element value) const {
    std::string_view text;
    if (value.get(text) != simdjson::SUCCESS)
      fail_tensor(name, ": dtype must be a string; found ", detail::json_prefix(value));
    const std::optional<DType> found = detail::dtype_named<&detail::DTypeFormats::safetensors>(text);
    if (!found) fail_tensor(name, ": unsupported dtype '", detail::text_prefix(text), "'");
    return *found;
  }

  DynamicExtents shape_of(std::string_view name, simdjson::dom::element value) const {
    simdjson::dom::array items;
    if (value.get(items) != simdjson::SUCCESS)
      fail_tensor(name, ": shape must be an array; found ", detail::json_prefix(value));
    boost::container::small_vector<index_t, DynamicExtents::inline_capacity> shape;
    for (const simdjson::dom::element item : items) {
      std::uint64_t extent = 0;  // simdjson refuses a negative or fractional number here
      if (item.get(extent) != simdjson::SUCCESS || extent > std::uint64_t(std::numeric_limits<index_t>::max()))
        fail_tensor(name, ": dimension ", shape.size(), " of shape ", detail::json_prefix(value),
                    " is not a non-negative 64-bit integer");
      shape.push_back(index_t(extent));
    }
    return DynamicExtents(std::span<const index_t>(shape.data(), shape.size()));
  }

  std::array<std::uint64_t, 2> offsets_of(std::string_view name, simdjson::dom::element value) const {
    const auto refuse = [&] {
      fail_tensor(name, ": data_offsets must be two non-negative integers; found ", detail::json_prefix(value));
    };
    simdjson::dom::array items;
    if (value.get(items) != simdjson::SUCCESS || items.size() != 2) refuse();
    std::array<std::uint64_t, 2> offsets{};
    std::size_t i = 0;
    for (const simdjson::dom::element item : items)
      if (item.get(offsets[i++]) != simdjson::SUCCESS) refuse();
    return offsets;
  }

  /// The file's shape counts sub-byte values; a packed dtype's element holds `lanes` of
  /// them, so the last extent is divided (PyTorch's rule for F4: float4_e2m1fn_x2 with half
  /// the last dimension).
  void group_packed_values(Entry& entry) const {
    const std::size_t lanes = detail::dtype_formats[std::size_t(entry.dtype)].lanes;
    if (lanes == 1) return;
    const std::string_view stored = detail::dtype_formats[std::size_t(entry.dtype)].safetensors;
    if (entry.shape.size() == 0 || entry.shape[entry.shape.size() - 1] % index_t(lanes) != 0)
      fail_tensor(entry.name, ": shape ", detail::shape_string(entry.shape), " of ", stored,
                  " values cannot be read as ", entry.dtype, ": its last dimension must be a multiple of the ", lanes,
                  " values one element packs");
    entry.shape[entry.shape.size() - 1] /= index_t(lanes);
  }

  std::string_view description_;
  std::uint64_t data_size_;
};

std::uint64_t read_header_length(std::span<const std::byte> file, std::string_view description) {
  detail::refuse_zip_archive(file, ".safetensors", description);
  if (file.size() < length_field)
    throw ValueError(concat(description, ": truncated: ", file.size(), " bytes is too short for the ",
                            length_field, "-byte header length"));
  const std::uint64_t length = boost::endian::load_little_u64(reinterpret_cast<const unsigned char*>(file.data()));
  if (length > max_header_length)
    throw ValueError(concat(description, ": header length ", length, " exceeds the limit of ", max_header_length,
                            " bytes"));
  if (length > file.size() - length_field)
    throw ValueError(concat(description, ": header length ", length, " exceeds the ", file.size() - length_field,
                            " bytes that follow it"));
  return length;
}

std::string_view dtype_name(DType dtype) {
  const std::string_view name = detail::dtype_formats[detail::table_index(dtype)].safetensors;
  if (name.empty()) throw TypeError(concat("save_safetensors: safetensors has no ", dtype, " dtype"));
  return name;
}

/// The shape as the file counts it: values, not packed elements (see group_packed_values).
std::vector<index_t> stored_shape(const AnyTensor& tensor) {
  std::vector<index_t> shape(tensor.shape().begin(), tensor.shape().end());
  const std::size_t lanes = detail::dtype_formats[std::size_t(tensor.dtype())].lanes;
  if (lanes == 1) return shape;
  if (shape.empty())
    throw ValueError(concat("save_safetensors: a 0-dimensional ", tensor.dtype(), " tensor holds ", lanes,
                            " values, which a safetensors shape counts along a dimension it does not have"));
  shape.back() *= index_t(lanes);
  return shape;
}

/// The tensors `keep` accepts (unset: all) of the .safetensors file in `file`'s bytes, viewed or
/// copied as its options say, and its metadata; those for a device other than the CPU
/// (`device_of(name)`, unset: the options' device) are queued on `uploads` instead. `context`
/// opens the messages.
SafetensorsFile read_safetensors(const detail::FileBytes& file_bytes, const detail::LoadContext& context,
                                 const Keep& keep, detail::DeviceUploads& uploads, const detail::DeviceOf& device_of) {
  const Buffer& bytes = file_bytes.bytes;
  const LoadOptions& options = file_bytes.options;
  const std::string_view description = context.source();
  const std::uint64_t header_length = read_header_length(bytes.bytes(), description);
  const std::size_t data_start = length_field + header_length;
  HeaderReader reader(description, bytes.nbytes() - data_start);
  const auto header = bytes.bytes().subspan(length_field, header_length);

  SafetensorsFile file;
  std::vector<Entry> entries =
      reader.read({reinterpret_cast<const char*>(header.data()), header.size()}, context.whole(), file);
  reader.check_layout(entries);

  if (keep) std::erase_if(entries, [&](const Entry& entry) { return !keep(entry.name); });
  const std::optional<detail::RankSlice> slice = detail::settle_slice(options.slice, description);
  for (Entry& entry : entries) {
    const auto describe = [&reader, &entry] { return reader.tensor_context(entry.name); };
    DynamicExtents strides = detail::contiguous_strides(entry.shape);
    detail::StoredTensor stored{data_start + entry.begin, entry.dtype, std::move(entry.shape), std::move(strides),
                                std::endian::native != std::endian::little};
    detail::narrow_stored_for_rank(slice, entry.name, stored, describe);
    LoadOptions placed = options;
    if (device_of) placed.device = device_of(entry.name);
    if (placed.device != cpu) {
      uploads.add(entry.name, bytes, stored, placed, describe, file_bytes.direct);  // describe() reads entry.name
      continue;
    }
    // Writers lay tensors out by dtype, then by name: the end is most often the right place.
    AnyTensor tensor = detail::load_stored_tensor(bytes, stored, placed, describe, context.noun());
    file.tensors.emplace_hint(file.tensors.end(), std::move(entry.name), std::move(tensor));
  }
  return file;
}

/// `file` with the tensors queued on `uploads` copied to their devices, all in one staged copy.
SafetensorsFile with_uploads(SafetensorsFile file, detail::DeviceUploads& uploads, const detail::LoadContext& context) {
  for (auto& [name, tensor] : uploads.run(context.source())) file.tensors.emplace(std::move(name), std::move(tensor));
  return file;
}

}  // namespace

SafetensorsFile load_safetensors(PathRef path, LoadOptions options) {
  const detail::LoadContext context("load_safetensors", path, ": the header");
  detail::DeviceUploads uploads;
  SafetensorsFile file = detail::load_safetensors_selected(path, options, {}, uploads);
  return with_uploads(std::move(file), uploads, context);
}

SafetensorsFile detail::load_safetensors_selected(PathRef path, const LoadOptions& options, const Keep& keep,
                                                  DeviceUploads& uploads, const DeviceOf& device_of) {
  const LoadContext context("load_safetensors", path, ": the header");
  // Loading only some tensors maps the file, so that those left out are never read.
  return read_safetensors(file_bytes(path, options, !keep), context, keep, uploads, device_of);
}

SafetensorsFile detail::load_safetensors_bytes(const Buffer& bytes, LoadOptions options) {
  const LoadContext context("load_safetensors", ": the header");
  detail::DeviceUploads uploads;
  SafetensorsFile file =
      read_safetensors({bytes, buffer_load_options(bytes, options, context.source())}, context, {}, uploads, {});
  return with_uploads(std::move(file), uploads, context);
}

void save_safetensors(PathRef path, const std::map<std::string, AnyTensor, std::less<>>& tensors,
                      const std::map<std::string, std::string, std::less<>>& metadata) {
  if (tensors.contains(metadata_key))
    throw ValueError(concat("save_safetensors: \"", metadata_key, "\" is reserved and cannot name a tensor"));
  // Largest alignment first: with every size a multiple of its alignment, each tensor then
  // starts aligned, without the gaps the format does not allow.
  std::vector<std::pair<std::string_view, AnyTensor>> ordered;
  for (const auto& [name, tensor] : tensors) {
    dtype_name(tensor.dtype());  // refuses complex128 before anything is written
    stored_shape(tensor);
    ordered.emplace_back(name, tensor.is_contiguous() ? tensor : tensor.clone());
  }
  std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) {
    return alignment(a.second.dtype()) > alignment(b.second.dtype());
  });

  Json header = Json::object();
  if (!metadata.empty()) header[std::string(metadata_key)] = metadata;
  std::vector<detail::FilePart> parts(2, std::span<const std::byte>());
  std::uint64_t offset = 0;
  for (const auto& [name, tensor] : ordered) {
    const std::uint64_t end = offset + tensor.nbytes();
    header[std::string(name)] = {{"dtype", dtype_name(tensor.dtype())},
                                 {"shape", stored_shape(tensor)},
                                 {"data_offsets", {offset, end}}};
    parts.push_back(detail::tensor_file_part(tensor, "save_safetensors"));
    offset = end;
  }
  std::string text;
  try {
    text = header.dump();
  } catch (const Json::exception& e) {
    throw ValueError(concat("save_safetensors: tensor names and metadata must be UTF-8: ", e.what()));
  }
  text.append((header_alignment - text.size() % header_alignment) % header_alignment, ' ');
  std::array<std::byte, length_field> length{};
  boost::endian::store_little_u64(reinterpret_cast<unsigned char*>(length.data()), text.size());
  parts[0] = std::span<const std::byte>(length);
  parts[1] = std::span(reinterpret_cast<const std::byte*>(text.data()), text.size());
  detail::write_file(path, parts);
}

}  // namespace zt
