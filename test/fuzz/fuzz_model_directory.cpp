// load_checkpoint on whole model directories that the input describes: one to four shards,
// each a file zerotensor wrote (tensors of several dtypes and shapes), raw bytes, a symbolic
// link to another shard or to /dev/zero, a directory or nothing; an index that lists each
// tensor under its own shard, another shard or not at all, with names that no shard holds;
// and the options (names, prefetch with small chunks, threads, copies, progress). What loads
// must be exactly the listed tensors, each equal to the tensor written under that name in the
// shard the index names, and the progress must end at its total.
#include <map>
#include <set>
#include <system_error>

#include "fuzz/fuzz_support.hpp"

using namespace zt;
using namespace zt::fuzz;

namespace {

namespace fs = std::filesystem;

constexpr DType shard_dtypes[] = {bool_, uint8, int32, float16, float32, float8_e4m3fn_};

/// What the input asks for, read from its front.
class ModelWriter {
 public:
  ModelWriter(InputReader& input, fs::path directory) : input_(input), directory_(std::move(directory)) {}

  /// Writes the shards and the index; returns the path of the index.
  fs::path write() {
    const int shards = 1 + input_.take<std::uint8_t>() % 4;
    for (int s = 0; s < shards; ++s) shard_names_.push_back("model-" + std::to_string(s + 1) + ".safetensors");
    for (int s = 0; s < shards; ++s) write_shard(s);
    return write_index();
  }

  /// Whether the shard file `shard` (or the one it links to) is the input's raw bytes.
  [[nodiscard]] bool raw(const std::string& shard) const { return raw_.contains(resolved(shard)); }

  /// The tensor zerotensor wrote as `name` in the shard file `shard`, if any.
  [[nodiscard]] const AnyTensor* written(const std::string& shard, const std::string& name) const {
    const auto file = contents_.find(resolved(shard));
    if (file == contents_.end()) return nullptr;
    const auto found = file->second.find(name);
    return found == file->second.end() ? nullptr : &found->second;
  }

  [[nodiscard]] const std::vector<std::string>& listed() const { return listed_; }

 private:
  [[nodiscard]] std::string resolved(const std::string& shard) const {
    const auto target = links_.find(shard);
    return target == links_.end() ? shard : target->second;
  }

  AnyTensor tensor() {
    const DType dtype = shard_dtypes[input_.take<std::uint8_t>() % std::size(shard_dtypes)];
    DynamicExtents shape(input_.take<std::uint8_t>() % 3, 0);
    for (index_t& extent : shape) extent = input_.take<std::uint8_t>() % 4;
    AnyTensor made = empty(shape, dtype);
    auto* bytes = static_cast<std::uint8_t*>(made.mutable_data_ptr());
    for (std::size_t i = 0; i < made.nbytes(); ++i) {
      const auto byte = input_.take<std::uint8_t>();
      bytes[i] = dtype == bool_ ? byte & 1 : byte;
    }
    return made;
  }

  void write_shard(int s) {
    const std::string& name = shard_names_[std::size_t(s)];
    const fs::path path = directory_ / name;
    switch (input_.take<std::uint8_t>() % 8) {
      case 4: {  // raw bytes
        const std::size_t length = input_.take<std::uint16_t>() % 512;
        std::vector<std::uint8_t> bytes(length);
        for (auto& byte : bytes) byte = input_.take<std::uint8_t>();
        write_bytes(path, bytes);
        raw_.insert(name);
        return;
      }
      case 5: {  // a link to another shard
        const std::string& target = shard_names_[input_.take<std::uint8_t>() % shard_names_.size()];
        if (target != name) links_[name] = target;
        fs::create_symlink(target, path);
        return;
      }
      case 6: fs::create_symlink("/dev/zero", path); return;
      case 7:
        if (input_.take<std::uint8_t>() % 2 == 0) fs::create_directory(path);
        return;
      default: {
        std::map<std::string, AnyTensor, std::less<>>& tensors = contents_[name];
        const int count = input_.take<std::uint8_t>() % 4;
        for (int i = 0; i < count; ++i) tensors.emplace("w" + std::to_string(s) + "_" + std::to_string(i), tensor());
        save_safetensors(path.string(), tensors);
      }
    }
  }

  /// Lists each written tensor under its shard, another shard or nowhere, and names that no
  /// shard holds; now and then a shard name that is no plain file name.
  fs::path write_index() {
    std::string weight_map;
    const auto list = [&](const std::string& name, const std::string& shard) {
      weight_map += (weight_map.empty() ? "\"" : ",\"") + name + "\":\"" + shard + "\"";
      listed_.push_back(name);
    };
    for (const auto& [shard, tensors] : contents_) {
      for (const auto& [name, unused] : tensors) {
        const std::uint8_t choice = input_.take<std::uint8_t>() % 8;
        if (choice < 5) list(name, shard);
        else if (choice == 5) list(name, shard_names_[input_.take<std::uint8_t>() % shard_names_.size()]);
      }
    }
    const int extra = input_.take<std::uint8_t>() % 4;
    for (int i = 0; i < extra; ++i) {
      const std::uint8_t choice = input_.take<std::uint8_t>();
      list("x" + std::to_string(i), choice % 16 == 0 ? "../" + shard_names_[0] : shard_names_[choice % shard_names_.size()]);
    }
    const fs::path index = directory_ / "model.safetensors.index.json";
    const std::string text = R"({"metadata":{"total_size":1},"weight_map":{)" + weight_map + "}}";
    write_bytes(index, {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
    return index;
  }

  InputReader& input_;
  fs::path directory_;
  std::vector<std::string> shard_names_;
  std::map<std::string, std::map<std::string, AnyTensor, std::less<>>> contents_;  // shards zerotensor wrote
  std::map<std::string, std::string> links_;  // shard -> the shard it links to
  std::set<std::string> raw_;                 // shards of raw bytes
  std::vector<std::string> listed_;           // names in the index, in order
};

CheckpointOptions options_from(InputReader& input, const std::vector<std::string>& listed) {
  const std::uint8_t flags = input.take<std::uint8_t>();
  CheckpointOptions options{.copy = flags & 1 ? std::optional<bool>(flags & 2) : std::nullopt};
  options.prefetch = (flags & 4) != 0;
  options.prefetch_chunk = 1 + input.take<std::uint16_t>() % 4096;
  options.threads = 1 + (flags >> 3) % 3;
  if ((flags & 0x40) != 0 && !listed.empty()) {
    const std::uint8_t pick = input.take<std::uint8_t>();
    for (std::size_t i = 0; i < listed.size(); ++i)
      if ((pick >> (i % 8)) & 1) options.names.push_back(listed[i]);
  }
  if ((flags & 0x80) != 0) options.names.push_back("not_in_the_index");
  return options;
}

/// This process's directory, emptied for each input and removed when the harness exits.
class ScratchDirectory {
 public:
  ScratchDirectory() : path_(fs::temp_directory_path() / ("zt_fuzz_model_" + std::to_string(::getpid()))) {}
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;
  ~ScratchDirectory() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& fresh() const {
    fs::remove_all(path_);
    fs::create_directories(path_);
    return path_;
  }

 private:
  fs::path path_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const ScratchDirectory scratch;
  InputReader input(data, size);
  ModelWriter model(input, scratch.fresh());
  const fs::path index = model.write();
  CheckpointOptions options = options_from(input, model.listed());
  std::uint64_t done = 0, total = 0;
  options.progress = [&](std::uint64_t now, std::uint64_t all) {
    require(now >= done && now <= all, "progress went back or past its total");
    done = now;
    total = all;
  };
  const auto loaded = unless_refused([&] { return load_checkpoint(index.string(), options); });
  if (!loaded) return 0;
  require(done == total, "progress ended at " + std::to_string(done) + " of " + std::to_string(total));
  require(loaded->tensors.size() == loaded->shard_of.size(), "load_checkpoint returned tensors it does not place");
  for (const auto& [name, shard] : loaded->shard_of) {
    const auto found = loaded->tensors.find(name);
    require(found != loaded->tensors.end(), "load_checkpoint lists '" + name + "' without returning it");
    inspect(found->second);
    if (model.raw(shard)) continue;  // what raw bytes hold is whatever they parse as
    const AnyTensor* expected = model.written(shard, name);
    require(expected != nullptr, "tensor '" + name + "' was loaded from shard '" + shard + "', which holds none");
    require_same_elements(found->second, *expected, "tensor '" + name + "' of shard '" + shard + "'");
  }
  return 0;
}
