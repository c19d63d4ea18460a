#include "zerotensor/torch_load.hpp"

#include <bit>
#include <cerrno>
#include <charconv>
#include <set>
#include <tuple>
#include <utility>

#include "vocabulary/concat.hpp"
#include "memory/file_io.hpp"
#include "formats/file_tensor.hpp"
#include "formats/rank_slice.hpp"
#include "formats/torch/torch_load_selected.hpp"
#include "formats/torch/torch_pickle.hpp"
#include "formats/torch/torch_zip.hpp"
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

/// The most bytes of names, values and shapes (two 8-byte numbers a dimension) that the result
/// of a data.pkl of `pickle_bytes` may hold. A file torch.save wrote needs a few per byte of
/// its data.pkl; values shared through the memo can be named without bound.
constexpr std::uint64_t max_output(std::uint64_t pickle_bytes) { return (64u << 20) + 64 * pickle_bytes; }

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
/// all) views of their storages in `bytes`, the archive; the storages of the others are never
/// looked at.
class Loader {
 public:
  Loader(const Buffer& bytes, const PickleGraph& graph, const Records& records, std::string prefix,
         bool foreign, const LoadOptions& options, const detail::LoadContext& context, const Keep& keep,
         std::uint64_t pickle_bytes)
      : bytes_(bytes), graph_(graph), records_(records), prefix_(std::move(prefix)), foreign_(foreign),
        options_(options), description_(context.source()), noun_(context.noun()),
        slice_(detail::settle_slice(options.slice, description_)), keep_(keep),
        pickle_bytes_(pickle_bytes), output_limit_(max_output(pickle_bytes)) {}

  TorchFile load() {
    for (const PickleObject& object : graph_.objects) references_ += object.items.size();
    visit(graph_.root, 0);
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

  /// Names the leaves under `id` below name_, the name of `id` (empty at the root), which
  /// each container extends by its item's key and restores after it.
  void visit(detail::ObjectId id, std::size_t depth) {
    if (depth > max_depth)
      fail(description_, "values nest deeper than ", max_depth, " levels at '", name_.substr(0, 96), "'");
    // Each value is named once per reference to it; containers shared by the memo could
    // otherwise multiply the names without bound.
    if (++visits_ > references_ + 1)
      fail(description_, "data.pkl names its values more often than the ", references_,
           " references it holds: containers shared through the memo");
    const PickleObject& object = graph_.objects[id];
    switch (object.kind) {
      case PickleKind::list:
      case PickleKind::tuple:
        for (std::size_t i = 0; i < object.items.size(); ++i) visit_item(object.items[i], concat(i), depth);
        return;
      case PickleKind::dict:
        for (std::size_t i = 0; i + 1 < object.items.size(); i += 2) {
          std::string number;  // the text of a key that is not a str or bytes
          visit_item(object.items[i + 1], key_text(object.items[i], number), depth);
        }
        return;
      case PickleKind::storage: return;
      case PickleKind::tensor: {
        check_unused();
        const detail::PickleTensor& tensor = graph_.tensors[std::size_t(object.integer)];
        if (keep_ && !keep_(name_)) {
          spend(name_.size());
          left_out_.insert(name_);
        } else {
          spend(name_.size() + 2 * tensor.shape.size() * sizeof(index_t));
          file_.tensors.emplace(name_, make_tensor(tensor));
        }
        return;
      }
      default: {
        check_unused();
        std::string text = leaf_text(object);
        spend(name_.size() + text.size());
        file_.values.emplace(name_, std::move(text));
      }
    }
  }

  /// visit(item) with name_ extended by "." and `key` ("key" at the root).
  void visit_item(detail::ObjectId item, std::string_view key, std::size_t depth) {
    const std::size_t length = name_.size();
    // A name is spent at its leaf; one longer than what is left could never be.
    if (length + 1 + key.size() > output_limit_ - spent_) refuse_output();
    if (length != 0) name_ += '.';
    name_ += key;
    visit(item, depth + 1);
    name_.resize(length);
  }

  /// Counts `bytes` more of names, values and shapes in the result; ValueError past the limit.
  void spend(std::uint64_t bytes) {
    if (bytes > output_limit_ - spent_) refuse_output();
    spent_ += bytes;
  }

  [[noreturn]] void refuse_output() const {
    fail(description_, "names, values and shapes would take more than ", output_limit_,
         " bytes (64 MiB and 64 per byte of the ", pickle_bytes_, " of data.pkl) at '", name_.substr(0, 96),
         "': values shared through the memo, named again and again");
  }

  /// A dict key as its name: a str's or bytes' own text, else written into `text`.
  std::string_view key_text(detail::ObjectId key, std::string& text) const {
    const PickleObject& object = graph_.objects[key];
    switch (object.kind) {
      case PickleKind::list: case PickleKind::tuple: case PickleKind::dict: case PickleKind::storage:
      case PickleKind::tensor:
        fail(description_, "the dict '", name_.substr(0, 96), "' has a key that is not a str, int, float, bool or None");
      case PickleKind::string: case PickleKind::bytes: return object.text;
      default: return text = leaf_text(object);
    }
  }

  void check_unused() const {
    if (file_.tensors.contains(name_) || file_.values.contains(name_) || left_out_.contains(name_))
      fail(description_, "two values are named '", name_.substr(0, 96), "'");
  }

  /// What torch.load negates of the tensor's stored values: neg every part, conj the
  /// imaginary ones, both the real ones.
  static detail::Negation negation(const detail::PickleTensor& tensor) {
    return {.real = tensor.neg, .imaginary = is_complex(tensor.dtype) && tensor.neg != tensor.conj};
  }

  /// " (saved with its conjugate bit)", or the negative bit, or both; empty without either.
  static std::string bits_text(const detail::PickleTensor& tensor) {
    if (!tensor.conj && !tensor.neg) return {};
    const char* bits = tensor.conj && tensor.neg ? "conjugate and negative bits"
                       : tensor.conj             ? "conjugate bit"
                                                 : "negative bit";
    return concat(" (saved with its ", bits, ")");
  }

  /// The tensor as a view of its storage's record, or of the copy that record needs (other
  /// byte order, negated values); tensors of one storage and one copy share it.
  AnyTensor make_tensor(const detail::PickleTensor& tensor) {
    const detail::ZipRecord& found = record(graph_.storages[tensor.storage]);
    const detail::Negation negate = negation(tensor);
    const StorageKey key{found.offset, tensor.dtype, negate.real, negate.imaginary};
    auto cached = storages_.find(key);
    if (cached == storages_.end()) {
      const index_t count = index_t(found.size / itemsize(tensor.dtype));
      const detail::StoredTensor stored{found.offset, tensor.dtype, {count}, {1}, foreign_, negate};
      const auto describe = [&] {
        return concat(description_, ": storage '", graph_.storages[tensor.storage].key, "' of '", name_, "'",
                      bits_text(tensor));
      };
      cached = storages_.emplace(key, detail::load_stored_tensor(bytes_, stored, options_, describe, noun_)).first;
    }
    const AnyTensor& bytes = cached->second;
    std::byte* data = static_cast<std::byte*>(const_cast<void*>(bytes.data_ptr())) +
                      std::size_t(tensor.offset) * itemsize(tensor.dtype);
    const AnyTensor view = detail::make_view(tensor.dtype, data, tensor.shape, tensor.strides,
                                             KeepAlive(bytes.owner()), bytes.device(), bytes.is_writable());
    // A slice is a view of the tensor loaded whole: a storage may hold other tensors' values.
    const auto describe = [&] { return concat(description_, ": tensor '", name_, "'"); };
    if (const auto part = detail::narrowing_of(slice_, name_, view.shape(), describe))
      return view.narrow(index_t(part->dim), part->start, part->length);
    return view;
  }

  /// A storage's record by offset, as each dtype and negation views or copies it.
  using StorageKey = std::tuple<std::uint64_t, DType, bool, bool>;

  const Buffer& bytes_;
  const PickleGraph& graph_;
  const Records& records_;
  std::string prefix_;
  bool foreign_;
  const LoadOptions& options_;
  std::string_view description_;
  std::string_view noun_;  // "file" or "buffer", in messages about the bytes
  std::optional<detail::RankSlice> slice_;
  std::size_t references_ = 0;  // items of every list, tuple and dict
  std::size_t visits_ = 0;
  const Keep& keep_;
  std::uint64_t pickle_bytes_;
  std::uint64_t output_limit_;
  std::uint64_t spent_ = 0;  // bytes of names, values and shapes in file_, see spend
  std::string name_;         // the name of the value being visited
  std::set<std::string, std::less<>> left_out_;  // the tensors keep_ refused, for check_unused
  std::map<StorageKey, AnyTensor> storages_;     // each record viewed or copied once per StorageKey
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

/// The tensors `keep` accepts (unset: all) and the other leaves of the torch.save file in
/// `bytes`, viewed or copied as `options` say; `read_at` reads its zip local headers
/// (read_zip_directory), `context` opens the messages.
TorchFile read_torch(const Buffer& bytes, const LoadOptions& options, const detail::LoadContext& context,
                     const Keep& keep, const detail::ReadAt& read_at) {
  const std::string_view description = context.source();
  const std::span<const std::byte> file = bytes.bytes();
  refuse_legacy_format(file, description);
  const Records records = detail::read_zip_directory(file, description, read_at);
  std::string prefix = archive_prefix(records, description);
  const bool foreign = foreign_byte_order(file, records, prefix, description);
  const detail::ZipRecord& pickle = records.find(prefix + "data.pkl")->second;
  const PickleGraph graph = detail::read_torch_pickle(file.subspan(pickle.offset, pickle.size), description);
  return Loader(bytes, graph, records, std::move(prefix), foreign, options, context, keep, pickle.size).load();
}

}  // namespace

TorchFile load_torch(PathRef path, LoadOptions options) { return detail::load_torch_selected(path, options, {}); }

TorchFile detail::load_torch_selected(PathRef path, const LoadOptions& options, const Keep& keep) {
  const LoadContext context("load_torch", path, "");
  const Buffer mapping = map_file(path, {.access = mapping_access(options)});
  // The local headers are read through the open file, not faulted in through the mapping.
  const InputFile headers(path);
  if (headers.open_error() != 0) throw_io_error(context.source(), headers.open_error());
  const auto read_at = [&](std::uint64_t offset, std::span<std::byte> out) {
    read_header(headers, offset, out, context.source());
  };
  return read_torch(mapping, options, context, keep, read_at);
}

TorchFile detail::load_torch_bytes(const Buffer& bytes, LoadOptions options) {
  const LoadContext context("load_torch", "");
  return read_torch(bytes, buffer_load_options(bytes, options, context.source()), context, {}, {});
}

}  // namespace zt
