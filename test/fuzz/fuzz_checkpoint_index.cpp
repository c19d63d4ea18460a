// load_checkpoint on any index file: the input is model.safetensors.index.json, in a
// directory that also holds two shards (a.safetensors: "a" and "b"; c.safetensors: "c",
// which c_link.safetensors links to). An index that loads must give exactly the tensors
// its weight_map lists, each equal to the tensor of that name in the shard it names.
#include <map>
#include <system_error>

#include "fuzz/fuzz_support.hpp"

using namespace zt;
using namespace zt::fuzz;

namespace {

namespace fs = std::filesystem;

/// A tensor whose bytes count up from `first`.
AnyTensor numbered(DynamicExtents shape, DType dtype, int first) {
  AnyTensor tensor = empty(shape, dtype);
  auto* bytes = static_cast<std::uint8_t*>(tensor.mutable_data_ptr());
  for (std::size_t i = 0; i < tensor.nbytes(); ++i) bytes[i] = std::uint8_t(first + i);
  return tensor;
}

/// This process's model directory, removed when the harness exits.
class ModelDirectory {
 public:
  ModelDirectory() : path_(fs::temp_directory_path() / ("zt_fuzz_checkpoint_" + std::to_string(::getpid()))) {
    fs::create_directories(path_);
    save_safetensors((path_ / "a.safetensors").string(),
                     {{"a", numbered({2}, float32, 1)}, {"b", numbered({1}, int64, 2)}});
    save_safetensors((path_ / "c.safetensors").string(), {{"c", numbered({3}, uint8, 3)}});
    fs::create_symlink("c.safetensors", path_ / "c_link.safetensors");
    for (const char* shard : {"a.safetensors", "c.safetensors"}) shards_[shard] = load_safetensors((path_ / shard).string());
    shards_["c_link.safetensors"] = shards_["c.safetensors"];
  }
  ModelDirectory(const ModelDirectory&) = delete;
  ModelDirectory& operator=(const ModelDirectory&) = delete;
  ~ModelDirectory() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }

  [[nodiscard]] fs::path index() const { return path_ / "model.safetensors.index.json"; }

  /// The tensor `name` of shard file `shard` as load_safetensors gives it; aborts when there is none.
  [[nodiscard]] const AnyTensor& tensor(const std::string& shard, const std::string& name) const {
    const auto file = shards_.find(shard);
    require(file != shards_.end(), "load_checkpoint returned a tensor of shard '" + shard + "', which is not a shard");
    const auto found = file->second.tensors.find(name);
    require(found != file->second.tensors.end(),
            "load_checkpoint returned tensor '" + name + "', which shard '" + shard + "' does not hold");
    return found->second;
  }

 private:
  fs::path path_;
  std::map<std::string, SafetensorsFile> shards_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const ModelDirectory model;
  write_bytes(model.index(), {data, size});
  const auto loaded = unless_refused([&] { return load_checkpoint(model.index().string(), {.threads = 2}); });
  if (!loaded) return 0;
  require(loaded->tensors.size() == loaded->shard_of.size(), "load_checkpoint returned tensors the index does not list");
  for (const auto& [name, shard] : loaded->shard_of) {
    const auto found = loaded->tensors.find(name);
    require(found != loaded->tensors.end(), "load_checkpoint lists '" + name + "' without returning it");
    inspect(found->second);
    require_same_elements(found->second, model.tensor(shard, name), "tensor '" + name + "' of shard '" + shard + "'");
  }
  return 0;
}
