// load_torch on state dicts of 1,000 and 8,000 tensors (and a 1 GB one of 1,000), each paired
// with load_safetensors of the same tensors (a .safetensors copy written at start-up) and,
// where libtorch is found, with libtorch's torch::pickle_load of the same bytes (which copies
// every record). Both sides open the file and view every tensor. Linear time is 8x from 1,000
// to 8,000 (compare the two BM_load_torch rows). The .pt files come from bench/formats/torch_load.py
// (PyTorch's torch.save), which also times torch.load(mmap=True, weights_only=True) on them
// and runs this program; by hand, set ZT_TORCH_BENCH_DIR to the folder of the files.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "../ratio.hpp"
#include "zerotensor/safetensors.hpp"
#include "zerotensor/torch_load.hpp"

#ifdef ZT_HAVE_TORCH
#include <torch/torch.h>
#endif

namespace {

template <class File>
void view_every_tensor(const File& file) {
  for (const auto& [name, tensor] : file.tensors) benchmark::DoNotOptimize(tensor.data_ptr());
}

void register_file(std::vector<zt_bench::Comparison>& comparisons, const std::filesystem::path& torch_file) {
  if (!std::filesystem::exists(torch_file)) return;
  const std::string name = torch_file.stem().string();
  const std::string torch_path = torch_file.string();
  const std::string safetensors_path = (torch_file.parent_path() / (name + ".safetensors")).string();
  zt::save_safetensors(safetensors_path, zt::load_torch(torch_path).tensors);

  const auto load_torch = [torch_path] { view_every_tensor(zt::load_torch(torch_path)); };
  const auto load_safetensors = [safetensors_path] { view_every_tensor(zt::load_safetensors(safetensors_path)); };
  zt_bench::register_paired(comparisons, "BM_load_torch/" + name, "BM_load_safetensors/" + name, load_torch,
                            load_safetensors)
      ->Unit(benchmark::kMillisecond);
#ifdef ZT_HAVE_TORCH
  const auto pickle_load = [torch_path] {
    std::ifstream in(torch_path, std::ios::binary);
    const std::vector<char> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    benchmark::DoNotOptimize(torch::pickle_load(bytes));
  };
  zt_bench::register_paired(comparisons, "BM_torch_pickle_load/" + name, "BM_load_torch/" + name, pickle_load,
                            load_torch)
      ->Unit(benchmark::kMillisecond);
#endif
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<zt_bench::Comparison> comparisons;
  const char* directory = std::getenv("ZT_TORCH_BENCH_DIR");
  if (directory == nullptr) {
    std::printf("bench_torch_load: ZT_TORCH_BENCH_DIR is not set: run bench/formats/torch_load.py, which writes the "
                "torch.save files and runs this program\n");
    return 0;
  }
  for (const char* name : {"many_1000.pt", "many_8000.pt", "large_1000.pt"})
    register_file(comparisons, std::filesystem::path(directory) / name);
  return zt_bench::run(argc, argv, comparisons);
}
