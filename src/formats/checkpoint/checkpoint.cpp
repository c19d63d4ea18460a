#include "zerotensor/checkpoint.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <filesystem>

#include "vocabulary/concat.hpp"
#include "formats/file_tensor.hpp"
#include "formats/checkpoint/checkpoint_index.hpp"
#include "formats/checkpoint/checkpoint_shards.hpp"
#include "memory/file_io.hpp"
#include "formats/safetensors/safetensors_selected.hpp"
#include "formats/torch/torch_load_selected.hpp"

namespace zt {
namespace {

namespace fs = std::filesystem;
using detail::concat;
using Keep = std::function<bool(std::string_view)>;

/// What a path names: an index file, or one checkpoint file.
struct Located {
  fs::path file;
  bool index;
};

/// Whether `path` names something, following symbolic links.
bool names_a_file(const fs::path& path) {
  struct stat status {};
  return ::stat(path.c_str(), &status) == 0;
}

bool has_suffix(const fs::path& path, std::string_view suffix) { return path.native().ends_with(suffix); }

/// The checkpoint of a model directory: per format (safetensors first), its index or its
/// single file; both at once is ambiguous.
Located locate_in_directory(const fs::path& directory) {
  constexpr std::array<std::array<const char*, 2>, 2> formats{
      {{"model.safetensors.index.json", "model.safetensors"}, {"pytorch_model.bin.index.json", "pytorch_model.bin"}}};
  for (const auto& [index, single] : formats) {
    const bool has_index = names_a_file(directory / index);
    const bool has_single = names_a_file(directory / single);
    if (has_index && has_single)
      throw ValueError(concat("load_checkpoint: <", directory.native(), ">: holds both ", index, " and ", single,
                              "; name the one to load"));
    if (has_index || has_single) return {directory / (has_index ? index : single), has_index};
  }
  throw IOError(concat("load_checkpoint: <", directory.native(),
                       ">: no model.safetensors.index.json, model.safetensors, pytorch_model.bin.index.json or "
                       "pytorch_model.bin"));
}

Located locate(const fs::path& path) {
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0)
    detail::throw_io_error(concat("load_checkpoint: <", path.native(), ">"), errno);
  if (S_ISDIR(status.st_mode)) return locate_in_directory(path);
  if (has_suffix(path, ".index.json")) return {path, true};
  if (has_suffix(path, ".safetensors") || has_suffix(path, ".bin")) return {path, false};
  throw ValueError(
      concat("load_checkpoint: <", path.native(),
             ">: not a checkpoint: expected a directory, a *.index.json, a *.safetensors or a *.bin file"));
}

/// The tensors of one checkpoint file that `keep` accepts, with its metadata or values.
LoadedTensors load_file(const fs::path& path, const LoadOptions& options, const Keep& keep) {
  if (!has_suffix(path, ".bin")) return detail::load_safetensors_selected(path, options, keep);
  return detail::load_torch_selected(path, options, keep);
}

/// The shard file at `path`, followed through symbolic links; IOError starting with `context`
/// when it is missing or not a regular file (a device such as /dev/zero would be read forever).
detail::ShardFile shard_file(const fs::path& path, std::string_view context) {
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0) detail::throw_io_error(context, errno);
  if (!S_ISREG(status.st_mode)) throw IOError(concat(context, ": not a regular file"));
  return {path, std::uint64_t(status.st_size)};
}

Keep selection(const CheckpointOptions& options) {
  if (options.names.empty()) return options.filter;
  std::vector<std::string> names = options.names;
  std::sort(names.begin(), names.end());
  return [names = std::move(names), filter = options.filter](std::string_view name) {
    return std::binary_search(names.begin(), names.end(), name) && (!filter || filter(name));
  };
}

void require_names(const CheckpointOptions& options, const Checkpoint& checkpoint, std::string_view description) {
  for (const std::string& name : options.names)
    if (!checkpoint.shard_of.contains(name))
      throw ValueError(concat(description, ": no tensor named '", name, "' among the selected tensors"));
}

Checkpoint load_single(const fs::path& path, const CheckpointOptions& options, const LoadOptions& load) {
  Checkpoint checkpoint;
  const std::string shard = path.filename().native();
  const std::string description = concat("load_checkpoint: <", path.native(), ">");
  detail::ShardReader(options, {shard_file(path, description)}).run([&](std::size_t) {
    checkpoint = load_file(path, load, selection(options));
  });
  for (const auto& entry : checkpoint.tensors) checkpoint.shard_of.emplace(entry.first, shard);
  require_names(options, checkpoint, description);
  return checkpoint;
}

Checkpoint load_sharded(const fs::path& index_path, const CheckpointOptions& options, const LoadOptions& load) {
  const std::string description = concat("load_checkpoint: <", index_path.native(), ">");
  detail::CheckpointIndex index = detail::read_checkpoint_index(index_path, description);
  Checkpoint checkpoint;
  checkpoint.metadata = std::move(index.metadata);
  checkpoint.shard_of = std::move(index.shard_of);
  if (const Keep selected = selection(options))
    std::erase_if(checkpoint.shard_of, [&](const auto& entry) { return !selected(entry.first); });
  require_names(options, checkpoint, description);
  struct Shard {
    std::vector<std::string_view> names;  // the selected tensors the index lists in it, sorted
    std::size_t file = 0;                 // its index in `files`
  };
  std::map<std::string_view, Shard> shards;  // by file name
  std::vector<const Shard*> shard_of_tensor;  // in the order of checkpoint.shard_of
  shard_of_tensor.reserve(checkpoint.shard_of.size());
  for (const auto& [name, shard_name] : checkpoint.shard_of) {
    Shard& shard = shards[shard_name];
    shard.names.push_back(name);
    shard_of_tensor.push_back(&shard);
  }

  const fs::path directory = index_path.parent_path();
  std::vector<detail::ShardFile> files;
  std::vector<const Shard*> shard_of_file;  // as files
  for (auto& [name, shard] : shards) {
    shard.file = files.size();
    files.push_back(shard_file(directory / name, concat(description, ": shard '", name, "' (listed for ",
                                                         shard.names.size(), " tensors)")));
    shard_of_file.push_back(&shard);
  }
  std::vector<std::map<std::string, AnyTensor, std::less<>>> loaded(files.size());
  detail::ShardReader(options, files).run([&](std::size_t i) {
    const auto& names = shard_of_file[i]->names;
    loaded[i] = load_file(files[i].path, load, [&names](std::string_view name) {
                  return std::binary_search(names.begin(), names.end(), name);
                }).tensors;
    if (loaded[i].size() == names.size()) return;  // names are unique and every loaded tensor is one of them
    for (const std::string_view name : names)
      if (!loaded[i].contains(name))
        throw ValueError(concat(description, ": the index lists tensor '", name, "' in shard '",
                                files[i].path.filename().native(), "', which has no tensor of that name"));
  });
  // Each shard's tensors are exactly its names; taken in the order of shard_of (by name),
  // each is the first left in its shard and goes at the end of the result.
  for (const Shard* shard : shard_of_tensor) {
    auto& tensors = loaded[shard->file];
    checkpoint.tensors.insert(checkpoint.tensors.end(), tensors.extract(tensors.begin()));
  }
  return checkpoint;
}

}  // namespace

Checkpoint load_checkpoint(PathRef path, CheckpointOptions options) {
  const Located located = locate(path.c_str());
  const LoadOptions load = options.load_options();
  return located.index ? load_sharded(located.file, options, load) : load_single(located.file, options, load);
}

}  // namespace zt
