// load_safetensors at the scale of a mixture-of-experts shard: files of 2,000, 16,000 and
// 18,000 small tensors (names as such checkpoints spell them). Linear time is 8x from 2,000
// to 16,000. With ZT_SAFETENSORS_FILE set, also the open of that file
// (bench/formats/safetensors_many.py times the safetensors package's own reader on the same file).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "../ratio.hpp"
#include "zerotensor/frombuffer.hpp"
#include "zerotensor/safetensors.hpp"

namespace {

/// A file of `count` float32 tensors of shape (4,), written once per count.
std::filesystem::path many_tensor_file(std::int64_t count) {
  static const std::filesystem::path directory = [] {
    std::string pattern = (std::filesystem::temp_directory_path() / "zt_bench_many.XXXXXX").string();
    return std::filesystem::path(mkdtemp(pattern.data()));
  }();
  static std::map<std::int64_t, std::filesystem::path> made;
  auto& path = made[count];
  if (path.empty()) {
    path = directory / ("many_" + std::to_string(count) + ".safetensors");
    std::map<std::string, zt::AnyTensor, std::less<>> tensors;
    for (std::int64_t i = 0; i < count; ++i) {
      const std::string name = "model.layers." + std::to_string(i / 256) + ".mlp.experts." +
                               std::to_string(i % 256) + ".down_proj.weight";
      tensors.emplace(name, zt::frombuffer(std::vector<float>(4, float(i)), zt::float32));
    }
    zt::save_safetensors(path.string(), tensors);
  }
  return path;
}

void BM_load_safetensors_many(benchmark::State& state) {
  const std::string path = many_tensor_file(state.range(0)).string();
  for (auto _ : state) benchmark::DoNotOptimize(zt::load_safetensors(path));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_load_safetensors_given_file(benchmark::State& state) {
  const char* path = std::getenv("ZT_SAFETENSORS_FILE");
  if (path == nullptr) return state.SkipWithError("ZT_SAFETENSORS_FILE is not set");
  for (auto _ : state) benchmark::DoNotOptimize(zt::load_safetensors(path));
}

}  // namespace

BENCHMARK(BM_load_safetensors_many)->Arg(2000)->Arg(16000)->Arg(18000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_load_safetensors_given_file)->Unit(benchmark::kMillisecond);

int main(int argc, char** argv) {
  return zt_bench::run(argc, argv, {{"BM_load_safetensors_many/16000", "BM_load_safetensors_many/2000"}});
}
