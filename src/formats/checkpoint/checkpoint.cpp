#include "zerotensor/checkpoint.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <filesystem>
#include <string>
#include <vector>

#include "vocabulary/concat.hpp"
#include "formats/file_tensor.hpp"
#include "formats/checkpoint/checkpoint_index.hpp"
#include "formats/checkpoint/checkpoint_shards.hpp"
#include "formats/gguf/gguf_parts.hpp"
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

/// The GGUF model of a directory holding no other checkpoint: its one *.gguf file, or the first
/// part of its one split model. IOError when it holds none; ValueError when it holds several.
Located locate_gguf_in_directory(const fs::path& directory) {
  std::vector<fs::path> models;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(directory, error))
    if (has_suffix(entry.path(), ".gguf")) models.push_back(entry.path());
  std::vector<fs::path> later_parts;
  for (const fs::path& model : models) {
    const std::vector<fs::path> parts = detail::gguf_part_paths(model);
    later_parts.insert(later_parts.end(), parts.begin() + 1, parts.end());
  }
  std::erase_if(models, [&](const fs::path& model) { return std::ranges::count(later_parts, model) != 0; });
  std::ranges::sort(models);
  if (models.size() == 1) return {models.front(), false};
  if (models.empty())
    throw IOError(concat("load_checkpoint: <", directory.native(),
                         ">: no model.safetensors.index.json, model.safetensors, pytorch_model.bin.index.json, "
                         "pytorch_model.bin or *.gguf model"));
  throw ValueError(concat("load_checkpoint: <", directory.native(), ">: holds ", models.size(), " GGUF models (",
                          models[0].filename().native(), ", ", models[1].filename().native(),
                          models.size() > 2 ? ", ..." : "", "); name the one to load"));
}

/// The checkpoint of a model directory: per format (safetensors first), its index or its
/// single file, both at once being ambiguous; then a GGUF model.
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
  return locate_gguf_in_directory(directory);
}

Located locate(const fs::path& path) {
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0)
    detail::throw_io_error(concat("load_checkpoint: <", path.native(), ">"), errno);
  if (S_ISDIR(status.st_mode)) return locate_in_directory(path);
  if (has_suffix(path, ".index.json")) return {path, true};
  if (has_suffix(path, ".safetensors") || has_suffix(path, ".bin") || has_suffix(path, ".gguf")) return {path, false};
  throw ValueError(concat("load_checkpoint: <", path.native(),
                          ">: not a checkpoint: expected a directory, a *.index.json, a *.safetensors, a *.bin or a "
                          "*.gguf file"));
}

/// A .bin file's tensors that `keep` accepts, each on the device `device_of` names: one load for
/// the CPU, then one per other device named, each copying its tensors in one staged copy.
/// `keep` and `device_of` are called once per tensor.
LoadedTensors load_torch_placed(const fs::path& path, const LoadOptions& options, const Keep& keep,
                                const detail::DeviceOf& device_of) {
  std::map<std::string, Device, std::less<>> elsewhere;  // the kept tensors not for the CPU
  const auto on_cpu = [&](std::string_view name) {
    if (keep && !keep(name)) return false;
    const Device device = device_of(name);
    if (device != cpu) elsewhere.emplace(name, device);
    return device == cpu;
  };
  LoadedTensors file = detail::load_torch_selected(path, options, on_cpu);
  std::vector<Device> devices;
  for (const auto& entry : elsewhere)
    if (std::find(devices.begin(), devices.end(), entry.second) == devices.end()) devices.push_back(entry.second);
  for (const Device device : devices) {
    LoadOptions placed = options;
    placed.device = device;
    const auto on_device = [&elsewhere, device](std::string_view name) {
      const auto found = elsewhere.find(name);
      return found != elsewhere.end() && found->second == device;
    };
    file.tensors.merge(detail::load_torch_selected(path, placed, on_device).tensors);
  }
  return file;
}

/// The tensors of one checkpoint file that `keep` accepts, with its metadata or values. Those
/// whose device (`device_of(name)`, unset: options.device) is not the CPU are, from a
/// .safetensors file, queued on `uploads`; from a .bin file, copied there now.
LoadedTensors load_file(const fs::path& path, const LoadOptions& options, const Keep& keep,
                        const detail::DeviceOf& device_of, detail::DeviceUploads& uploads) {
  if (!has_suffix(path, ".bin")) return detail::load_safetensors_selected(path, options, keep, uploads, device_of);
  if (!device_of) return detail::load_torch_selected(path, options, keep);
  return load_torch_placed(path, options, keep, device_of);
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

/// Adds the tensors queued on `uploads` to `checkpoint`, copied to their devices in one staged
/// copy whose progress `reader` reports.
void add_uploads(Checkpoint& checkpoint, detail::DeviceUploads& uploads, detail::ShardReader& reader,
                 std::string_view description) {
  for (auto& [name, tensor] : uploads.run(description, reader.staged_progress()))
    checkpoint.tensors.emplace(std::move(name), std::move(tensor));
}

/// A GGUF model, its parts read as shards are: every tensor a view of its own part (or a copy,
/// or queued for one staged copy to a device); the metadata is the first part's, as text.
Checkpoint load_gguf_model(const fs::path& first, const CheckpointOptions& options, const LoadOptions& load) {
  const std::string description = concat("load_checkpoint: <", first.native(), ">");
  const std::vector<fs::path> parts = detail::gguf_part_paths(first);
  std::vector<detail::ShardFile> files;
  for (const fs::path& part : parts) files.push_back(shard_file(part, concat("load_checkpoint: <", part.native(), ">")));
  const Keep keep = selection(options);
  std::vector<GgufFile> loaded(parts.size());
  std::vector<detail::DeviceUploads> uploads(parts.size());
  detail::ShardReader reader(options, files);
  reader.run([&](std::size_t i) {
    loaded[i] = detail::load_gguf_part(parts[i], load, keep, uploads[i], options.device_map, i, parts.size());
    return uploads[i].bytes();
  });
  GgufFile& model = loaded.front();
  for (std::size_t i = 1; i < parts.size(); ++i) detail::merge_gguf_part(model, std::move(loaded[i]), description);
  if (!keep) detail::check_gguf_tensor_count(model, description);
  Checkpoint checkpoint;
  checkpoint.tensors = std::move(model.tensors);
  for (const auto& [name, part] : model.part_of) checkpoint.shard_of.emplace(name, fs::path(part).filename().native());
  for (const auto& [key, value] : model.metadata) checkpoint.metadata.emplace(key, to_string(value));
  for (std::size_t i = 1; i < uploads.size(); ++i) uploads[0].append(std::move(uploads[i]));
  add_uploads(checkpoint, uploads[0], reader, description);
  require_names(options, checkpoint, description);
  return checkpoint;
}

Checkpoint load_single(const fs::path& path, const CheckpointOptions& options, const LoadOptions& load) {
  Checkpoint checkpoint;
  const std::string shard = path.filename().native();
  const std::string description = concat("load_checkpoint: <", path.native(), ">");
  detail::DeviceUploads uploads;
  detail::ShardReader reader(options, {shard_file(path, description)});
  reader.run([&](std::size_t) {
    checkpoint = load_file(path, load, selection(options), options.device_map, uploads);
    return uploads.bytes();
  });
  add_uploads(checkpoint, uploads, reader, description);
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
  std::map<std::string_view, std::vector<std::string_view>> shards;  // file name: the selected tensors in it, sorted
  for (const auto& [name, shard_name] : checkpoint.shard_of) shards[shard_name].push_back(name);

  const fs::path directory = index_path.parent_path();
  std::vector<detail::ShardFile> files;
  std::vector<const std::vector<std::string_view>*> names_in_file;  // as files
  for (const auto& [name, names] : shards) {
    files.push_back(shard_file(directory / name, concat(description, ": shard '", name, "' (listed for ",
                                                         names.size(), " tensors)")));
    names_in_file.push_back(&names);
  }
  // Every shard's copies to devices are queued, then made together: one staged copy per device
  // for the whole checkpoint.
  std::vector<detail::DeviceUploads> uploads(files.size());
  std::vector<std::map<std::string, AnyTensor, std::less<>>> loaded(files.size());
  detail::ShardReader reader(options, files);
  reader.run([&](std::size_t i) {
    const auto& names = *names_in_file[i];
    std::vector<std::string_view> present;  // the header's tensors among `names`, each named once there
    const auto listed = [&names, &present](std::string_view name) {
      const auto found = std::lower_bound(names.begin(), names.end(), name);
      const bool kept = found != names.end() && *found == name;
      if (kept) present.push_back(*found);  // the index's name outlives the header's
      return kept;
    };
    loaded[i] = load_file(files[i].path, load, listed, options.device_map, uploads[i]).tensors;
    if (present.size() != names.size()) {
      std::sort(present.begin(), present.end());
      for (const std::string_view name : names)
        if (!std::binary_search(present.begin(), present.end(), name))
          throw ValueError(concat(description, ": the index lists tensor '", name, "' in shard '",
                                  files[i].path.filename().native(), "', which has no tensor of that name"));
    }
    return uploads[i].bytes();
  });
  for (auto& tensors : loaded) checkpoint.tensors.merge(tensors);
  for (std::size_t i = 1; i < uploads.size(); ++i) uploads[0].append(std::move(uploads[i]));
  if (!uploads.empty()) add_uploads(checkpoint, uploads[0], reader, description);
  return checkpoint;
}

}  // namespace

Checkpoint load_checkpoint(PathRef path, CheckpointOptions options) {
  if (options.device_map && options.device != cpu)
    throw ValueError(concat("load_checkpoint: device ", options.device,
                            " and device_map are both set; device_map alone places the tensors"));
  const Located located = locate(path.c_str());
  const LoadOptions load = options.load_options();
  if (located.index) return load_sharded(located.file, options, load);
  if (has_suffix(located.file, ".gguf")) return load_gguf_model(located.file, options, load);
  return load_single(located.file, options, load);
}

}  // namespace zt
