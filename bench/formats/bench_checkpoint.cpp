// load_checkpoint at the scale of real models.
//
// Opening: a 100-shard directory of 2,500 and of 20,000 small tensors (linear is 8x), on
// the default threads and on one. With ZT_CHECKPOINT_DIR set, also the open of that
// directory (bench/formats/checkpoint_many.py times safetensors.safe_open + keys() on the same one).
//
// Cold reads: with ZT_CHECKPOINT_COLD set to a directory (it needs 3 GiB free; the files are
// deleted at the end), a 3 GiB checkpoint of 12 shards is brought into memory from a cold
// page cache (as root: /proc/sys/vm/drop_caches before each read; the methods take turns, three
// rounds, medians and ratios printed as counters) by
//   cat          `cat` of the shard files to /dev/null: the disk's sequential floor
//   dd           `dd bs=8M` of each shard file to /dev/null: the floor with reads as large as prefetch's
//   first_touch  load_checkpoint, then one read per page of every tensor (page faults)
//   prefetch     load_checkpoint with .prefetch (pread into the page cache), then the same reads
//   fadvise      posix_fadvise(WILLNEED) on every shard, then as first_touch
#include <benchmark/benchmark.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "../ratio.hpp"
#include "zerotensor/checkpoint.hpp"
#include "zerotensor/empty.hpp"
#include "zerotensor/frombuffer.hpp"
#include "zerotensor/safetensors.hpp"

namespace {

namespace fs = std::filesystem;
using Tensors = std::map<std::string, zt::AnyTensor, std::less<>>;

std::vector<fs::path> made;  // removed when the program ends

fs::path fresh_directory(const fs::path& parent) {
  std::string pattern = (parent / "zt_bench_checkpoint.XXXXXX").string();
  made.emplace_back(mkdtemp(pattern.data()));
  return made.back();
}

std::string shard_name(int s, int shards) {
  return "model-" + std::to_string(s + 1) + "-of-" + std::to_string(shards) + ".safetensors";
}

/// A model directory: `shards` shards, tensor i in shard i % shards, and its index.
fs::path write_model(const fs::path& dir, int shards, int count, const auto& make_tensor) {
  std::vector<Tensors> contents(shards);
  std::string index = R"({"metadata":{},"weight_map":{)";
  for (int i = 0; i < count; ++i) {
    const std::string name =
        "model.layers." + std::to_string(i / 256) + ".mlp.experts." + std::to_string(i % 256) + ".down_proj.weight";
    contents[i % shards].emplace(name, make_tensor(i));
    index += (i ? ",\"" : "\"") + name + "\":\"" + shard_name(i % shards, shards) + "\"";
  }
  for (int s = 0; s < shards; ++s) zt::save_safetensors((dir / shard_name(s, shards)).string(), contents[s]);
  std::ofstream(dir / "model.safetensors.index.json") << index << "}}";
  return dir;
}

/// 100 shards of `count` float32 tensors of shape (4,) in all, written once per count.
fs::path many_tensor_model(int count) {
  static std::map<int, fs::path> models;
  fs::path& dir = models[count];
  if (dir.empty())
    dir = write_model(fresh_directory(fs::temp_directory_path()), 100, count,
                      [](int i) { return zt::frombuffer(std::vector<float>(4, float(i)), zt::float32); });
  return dir;
}

void BM_open_checkpoint(benchmark::State& state) {
  const std::string dir = many_tensor_model(int(state.range(0))).string();
  for (auto _ : state) benchmark::DoNotOptimize(zt::load_checkpoint(dir));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_open_checkpoint_one_thread(benchmark::State& state) {
  const std::string dir = many_tensor_model(int(state.range(0))).string();
  for (auto _ : state) benchmark::DoNotOptimize(zt::load_checkpoint(dir, {.threads = 1}));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_open_given_directory(benchmark::State& state) {
  const char* dir = std::getenv("ZT_CHECKPOINT_DIR");
  if (dir == nullptr) return state.SkipWithError("ZT_CHECKPOINT_DIR is not set");
  for (auto _ : state) benchmark::DoNotOptimize(zt::load_checkpoint(dir));
}

constexpr int cold_shards = 12;
constexpr std::size_t cold_tensor_bytes = std::size_t{64} << 20;  // 4 per shard: 3 GiB in all

fs::path cold_model() {
  static const fs::path dir = [] {
    const char* parent = std::getenv("ZT_CHECKPOINT_COLD");
    return write_model(fresh_directory(parent), cold_shards, 4 * cold_shards, [](int i) {
      zt::AnyTensor t = zt::empty(zt::DynamicExtents{zt::index_t(cold_tensor_bytes)}, zt::uint8);
      std::memset(t.mutable_data_ptr(), i, t.nbytes());
      return t;
    });
  }();
  return dir;
}

bool drop_page_cache() {
  ::sync();
  std::ofstream control("/proc/sys/vm/drop_caches");
  control << "3";
  control.flush();
  return bool(control);
}

/// One read per page of every tensor: what a first use of the weights costs.
unsigned touch(const zt::Checkpoint& model) {
  unsigned sum = 0;
  for (const auto& [name, tensor] : model.tensors) {
    const auto* bytes = static_cast<const unsigned char*>(tensor.data_ptr());
    for (std::size_t i = 0; i < tensor.nbytes(); i += 4096) sum += bytes[i];
  }
  return sum;
}

/// Brings the cold checkpoint into memory as `method` names (see the top of this file).
void bring_in(const fs::path& dir, std::string_view method) {
  const std::string files = dir.string() + "/*.safetensors";
  if (method == "cat") {
    if (std::system(("cat " + files + " > /dev/null").c_str()) != 0) throw std::runtime_error("cat failed");
  } else if (method == "dd") {
    if (std::system(("for f in " + files + "; do dd if=$f of=/dev/null bs=8M status=none; done").c_str()) != 0)
      throw std::runtime_error("dd failed");
  } else if (method == "prefetch") {
    benchmark::DoNotOptimize(touch(zt::load_checkpoint(dir.string(), {.prefetch = true})));
  } else {
    if (method == "fadvise")
      for (int s = 0; s < cold_shards; ++s) {
        const int fd = ::open((dir / shard_name(s, cold_shards)).c_str(), O_RDONLY);
        ::posix_fadvise(fd, 0, 0, POSIX_FADV_WILLNEED);
        ::close(fd);
      }
    benchmark::DoNotOptimize(touch(zt::load_checkpoint(dir.string())));
  }
}

/// Every method once per round, each after dropping the page cache, in turn: on a shared
/// machine (and a virtual disk with a cache of its own) methods timed one after another see
/// different disks. Reports each method's median seconds and its ratio to cat and to dd.
void BM_cold(benchmark::State& state) {
  if (std::getenv("ZT_CHECKPOINT_COLD") == nullptr) return state.SkipWithError("ZT_CHECKPOINT_COLD is not set");
  const fs::path dir = cold_model();
  const std::vector<std::string> methods = {"cat", "dd", "first_touch", "prefetch", "fadvise"};
  std::map<std::string, std::vector<double>> seconds;
  for (auto _ : state) {
    for (const std::string& method : methods) {
      if (!drop_page_cache()) return state.SkipWithError("cannot drop the page cache (needs root)");
      const auto start = std::chrono::steady_clock::now();
      bring_in(dir, method);
      seconds[method].push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
  }
  std::map<std::string, double> median;
  for (auto& [method, times] : seconds) {
    std::sort(times.begin(), times.end());
    median[method] = times[times.size() / 2];
    state.counters[method + "_s"] = median[method];
  }
  for (const char* method : {"first_touch", "prefetch", "fadvise"}) {
    state.counters[std::string(method) + "/cat"] = median[method] / median["cat"];
    state.counters[std::string(method) + "/dd"] = median[method] / median["dd"];
  }
}

}  // namespace

BENCHMARK(BM_open_checkpoint)->Arg(2500)->Arg(20000)->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_open_checkpoint_one_thread)->Arg(20000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_open_given_directory)->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_cold)->Iterations(3)->Unit(benchmark::kSecond);

int main(int argc, char** argv) {
  const int status = zt_bench::run(argc, argv,
                                   {{"BM_open_checkpoint/20000", "BM_open_checkpoint/2500"},
                                    {"BM_open_checkpoint_one_thread/20000", "BM_open_checkpoint/20000"}});
  for (const fs::path& dir : made) fs::remove_all(dir);
  return status;
}
