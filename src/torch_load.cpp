#include "zerotensor/torch_load.hpp"

#include <bit>
#include <cerrno>
#include <charconv>
#include <set>
#include <utility>

#include "concat.hpp"
#include "file_io.hpp"
#include "file_tensor.hpp"
#include "torch_load_selected.hpp"
#include "torch_pickle.hpp"
#include "torch_zip.hpp"
#include "zerotensor/mapped_file.hpp"

namespace zt {
namespace {

using detail::concat;
using detail::PickleGraph;
using detail::PickleKind;
using detail::PickleObject;
using Records = std::map<std::string, detail::ZipRecord, std::less<>>;
using Keep = std::function<bool(std::string_view)>;

constexpr std::size_t max_depth = 1000;

template <class... Parts>
[[noreturn]] void fail(std::string_view description, const Parts&... what) {
  throw ValueError(concat(description, ": ", what...));
}

/// PyTorch before 1.6 (and torch.save with _use_new_zipfile_serialization=False) wrote a bare
/// pickle stream, which starts with PROTO 2.
void refuse_legacy_format(std::span<const std::byte> file, std::string_view description) {
  if (file.size() >= 2 && file[0] == std::byte{0x80} && file[1] == std::byte{0x02})
    fail(description, "is in PyTorch's legacy format (torch.save with _use_new_zipfile_serialization=False, or "
                      "PyTorch before 1.6), which load_torch does not read; re-save it with torch.save in "
                      "PyTorch 1.6 or later");
}

/// The directory holding data.pkl ("archive/"), which every record of the file shares;
/// ValueError for a TorchScript archive and for compressed records.
std::string archive_prefix(const Records& records, std::string_view description) {
  std::string prefix;
  for (const auto& [name, record] : records) {
    const std::size_t slash = name.find('/');
    if (name.ends_with("/data.pkl") && slash == name.size() - 9) {
      if (!prefix.empty()) fail(description, "holds data.pkl in two directories, '", prefix, "' and '", name, "'");
      prefix = name.substr(0, slash + 1);
    }
  }
  if (prefix.empty()) fail(description, "is a zip archive without <archive>/data.pkl, not a torch.save file");
  const auto code = records.lower_bound(prefix + "code/");
  const bool has_code = code != records.end() && code->first.starts_with(prefix + "code/");
  if (records.contains(prefix + "constants.pkl") || has_code)
    fail(description, "is a TorchScript archive (torch.jit.save), not a torch.save file: load it with "
                      "torch.jit.load, or save the module's state_dict() with torch.save");
  for (const auto& [name, record] : records) {
    if (record.method != 0)
      fail(description, "zip record '", name.substr(0, 64), "' is compressed (method ", record.method,
           "); torch.save stores every record uncompressed");
  }
  return prefix;
}

/// Whether the storages are stored in the byte order opposite to this machine's.
bool foreign_byte_order(std::span<const std::byte> file, const Records& records, const std::string& prefix,
                        std::string_view description) {
  const auto found = records.find(prefix + "byteorder");
  if (found == records.end()) return std::endian::native != std::endian::little;  // before PyTorch 1.10: little
  const auto bytes = file.subspan(found->second.offset, found->second.size);
  const std::string_view order(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  if (order != "little" && order != "big")
    fail(description, "the byteorder record says '", order.substr(0, 16), "'; it must be 'little' or 'big'");
  return (order == "little") != (std::endian::native == std::endian::little);
}

/// Python's str() of a leaf; a float in its shortest round-trip form.
std::string leaf_text(const PickleObject& leaf) {
  switch (leaf.kind) {
    case PickleKind::none: return "None";
    case PickleKind::boolean: return leaf.integer != 0 ? "True" : "False";
    case PickleKind::integer: return concat(leaf.integer);
    case PickleKind::floating: {
      char text[32];
      return {text, std::to_chars(text, text + sizeof text, leaf.floating).ptr};
    }
    default: return leaf.text;
  }
}

/// Names every leaf of the pickled graph and makes the tensors that `keep` accepts (unset:
/// all) views of their storages; the storages of the others are never looked at.
class Loader {
 public:
  Loader(const Buffer& mapping, const PickleGraph& graph, const Records& records, std::string prefix,
         bool foreign, const LoadOptions& options, std::string_view description, const Keep& keep)
      : mapping_(mapping), graph_(graph), records_(records), prefix_(std::move(prefix)), foreign_(foreign),
        options_(options), description_(description), keep_(keep) {}

  TorchFile load() {
    for (const PickleObject& object : graph_.objects) references_ += object.items.size();
    visit(graph_.root, "", 0);
    return std::move(file_);
  }

 private:
  /// The record of `storage`, checked to hold exactly its numel elements.
  const detail::ZipRecord& record(const detail::PickleStorage& storage) const {
    const std::string name = prefix_ + "data/" + storage.key;
    const auto found = records_.find(name);
    if (found == records_.end())
      fail(description_, "a persistent id names the record '", name.substr(0, 96), "', which is not in the archive");
    const std::size_t size = storage.dtype ? itemsize(*storage.dtype) : 1;
    std::int64_t bytes = 0;
    if (detail::mul_overflows(storage.numel, std::int64_t(size), bytes) || std::uint64_t(bytes) != found->second.size)
      fail(description_, "storage '", storage.key.substr(0, 96), "' of ", storage.numel, " ",
           storage.dtype ? concat(*storage.dtype, " elements") : std::string("bytes"), " needs ", storage.numel,
           " x ", size, " bytes, but its record holds ", found->second.size);
    return found->second;
  }

  void visit(detail::ObjectId id, const std::string& name, std::size_t depth) {
    if (depth > max_depth)
      fail(description_, "values nest deeper than ", max_depth, " levels at '", name.substr(0, 96), "'");
    // Each value is named once per reference to it; containers shared by the memo could
    // otherwise multiply the names without bound.
    if (++visits_ > references_ + 1)
      fail(description_, "data.pkl names its values more often than the ", references_,
           " references it holds: containers shared through the memo");
    const PickleObject& object = graph_.objects[id];
    switch (object.kind) {
      case PickleKind::list:
      case PickleKind::tuple:
        for (std::size_t i = 0; i < object.items.size(); ++i) visit(object.items[i], join(name, concat(i)), depth + 1);
        return;
      case PickleKind::dict:
        for (std::size_t i = 0; i + 1 < object.items.size(); i += 2)
          visit(object.items[i + 1], join(name, key_text(object.items[i], name)), depth + 1);
        return;
      case PickleKind::storage: return;
      case PickleKind::tensor:
        check_unused(name);
        if (keep_ && !keep_(name)) {
          left_out_.insert(name);
        } else {
          file_.tensors.emplace(name, tensor(graph_.tensors[std::size_t(object.integer)], name));
        }
        return;
      default:
        check_unused(name);
        file_.values.emplace(name, leaf_text(object));
    }
  }

  static std::string join(const std::string& prefix, const std::string& name) {
    return prefix.empty() ? name : prefix + "." + name;
  }

  std::string key_text(detail::ObjectId key, const std::string& dict) const {
    const PickleObject& object = graph_.objects[key];
    switch (object.kind) {
      case PickleKind::list: case PickleKind::tuple: case PickleKind::dict: case PickleKind::storage:
      case PickleKind::tensor:
        fail(description_, "the dict '", dict.substr(0, 96), "' has a key that is not a str, int, float, bool or None");
      default: return leaf_text(object);
    }
  }

  void check_unused(const std::string& name) const {
    if (file_.tensors.contains(name) || file_.values.contains(name) || left_out_.contains(name))
      fail(description_, "two values are named '", name.substr(0, 96), "'");
  }

  AnyTensor tensor(const detail::PickleTensor& tensor, const std::string& name) {
    const detail::ZipRecord& found = record(graph_.storages[tensor.storage]);
    auto cached = storages_.find({found.offset, tensor.dtype});
    if (cached == storages_.end()) {
      const index_t count = index_t(found.size / itemsize(tensor.dtype));
      const detail::StoredTensor stored{found.offset, tensor.dtype, {count}, {1}, foreign_};
      const auto describe = [&] {
        return std::string(description_) + ": storage '" + graph_.storages[tensor.storage].key + "' of '" + name + "'";
      };
      cached = storages_.emplace(std::pair(found.offset, tensor.dtype),
                                 detail::load_stored_tensor(mapping_, stored, options_, describe)).first;
    }
    const AnyTensor& bytes = cached->second;
    std::byte* data = static_cast<std::byte*>(const_cast<void*>(bytes.data_ptr())) +
                      std::size_t(tensor.offset) * itemsize(tensor.dtype);
    return detail::make_view(tensor.dtype, data, tensor.shape, tensor.strides, KeepAlive(bytes.owner()),
                             bytes.device(), bytes.is_writable());
  }

  const Buffer& mapping_;
  const PickleGraph& graph_;
  const Records& records_;
  std::string prefix_;
  bool foreign_;
  const LoadOptions& options_;
  std::string_view description_;
  std::size_t references_ = 0;  // items of every list, tuple and dict
  std::size_t visits_ = 0;
  const Keep& keep_;
  std::set<std::string, std::less<>> left_out_;  // the tensors keep_ refused, for check_unused
  std::map<std::pair<std::uint64_t, DType>, AnyTensor> storages_;  // by record offset: each viewed once per dtype
  TorchFile file_;
};

/// One zip local header from `file` (read_zip_directory's read_at).
void read_header(const detail::InputFile& file, std::uint64_t offset, std::span<std::byte> destination,
                 std::string_view description) {
  const ssize_t read = file.read_full(offset, destination);
  if (read < 0) detail::throw_io_error(concat(description, ": reading a zip local header"), errno);
  if (std::size_t(read) != destination.size())
    throw IOError(concat(description, ": the file ends at byte ", offset + std::uint64_t(read),
                         " while its zip directory is read (it changed on disk)"));
}

}  // namespace

const AnyTensor& TorchFile::at(std::string_view name) const {
  return detail::tensor_named(tensors, name, "TorchFile");
}

TorchFile load_torch(PathRef path, LoadOptions options) { return detail::load_torch_selected(path, options, {}); }

TorchFile detail::load_torch_selected(PathRef path, const LoadOptions& options, const Keep& keep) {
  const std::string description = concat("load_torch: <", path.c_str(), ">");
  const Buffer mapping = map_file(path, {.access = detail::mapping_access(options)});
  const std::span<const std::byte> file = mapping.bytes();
  refuse_legacy_format(file, description);
  const detail::InputFile headers(path);
  if (headers.open_error() != 0) detail::throw_io_error(description, headers.open_error());
  const Records records = detail::read_zip_directory(file, description, [&](std::uint64_t offset, std::span<std::byte> out) {
    read_header(headers, offset, out, description);
  });
  std::string prefix = archive_prefix(records, description);
  const bool foreign = foreign_byte_order(file, records, prefix, description);
  const detail::ZipRecord& pickle = records.find(prefix + "data.pkl")->second;
  const PickleGraph graph = detail::read_torch_pickle(file.subspan(pickle.offset, pickle.size), description);
  return Loader(mapping, graph, records, std::move(prefix), foreign, options, description, keep).load();
}

}  // namespace zt
