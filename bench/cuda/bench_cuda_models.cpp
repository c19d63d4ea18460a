// Whole models onto a GPU, at the scale users load them: one 2 GiB .safetensors file (32 tensors
// of 64 MiB bfloat16) and a 16-shard model directory of 2 GiB (16 shards of 8 tensors of 16 MiB),
// each loaded to cuda:0 in one loop with its floor:
// - page cache hot: the pinned floor, cudaMalloc + cudaMemcpy from pinned memory + cudaFree of
//   the same bytes;
// - cold (each file's pages dropped with POSIX_FADV_DONTNEED before every load), through the page
//   cache and with `direct`: the files read with O_DIRECT in 8 MiB preads, as
//   `dd iflag=direct bs=8M` reads them;
// and save_safetensors of 2 GiB of device tensors against cudaMemcpy of the same bytes into pinned
// memory, and against save_safetensors of the same tensors from host memory (the disk's side).
// Built only with -DZT_CUDA=ON (plain C++ over the CUDA runtime's C API); without a GPU it says why
// and runs nothing. The peers on the same files: bench/cuda/cuda_peers.py.
#include <cuda_runtime_api.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "../cold_reads.hpp"
#include "../ratio.hpp"
#include "zerotensor/checkpoint.hpp"
#include "zerotensor/empty.hpp"
#include "zerotensor/safetensors.hpp"

namespace {

namespace fs = std::filesystem;
using Tensors = std::map<std::string, zt::AnyTensor, std::less<>>;

constexpr std::size_t mib = std::size_t{1} << 20;
constexpr std::size_t model_bytes = std::size_t{2} << 30;
constexpr zt::Device pinned{zt::DeviceKind::CUDAHost, 0};

void check(const char* what, cudaError_t error) {
  if (error == cudaSuccess) return;
  std::fprintf(stderr, "bench_cuda_models: %s: %s\n", what, cudaGetErrorString(error));
  std::abort();
}

/// `count` bfloat16 tensors of `bytes` each, named "layers.<first + i>.weight", of distinct bytes.
Tensors bf16_tensors(int first, int count, std::size_t bytes) {
  Tensors tensors;
  for (int i = 0; i < count; ++i) {
    zt::AnyTensor t = zt::empty(zt::DynamicExtents{zt::index_t(bytes / 2 / 4096), 4096}, zt::bfloat16);
    std::memset(t.mutable_data_ptr(), first + i + 1, t.nbytes());
    tensors.emplace("layers." + std::to_string(first + i) + ".weight", std::move(t));
  }
  return tensors;
}

/// The two models in a temporary directory of their own, written at first use, removed at exit.
struct Models {
  fs::path directory, file, sharded;
  std::vector<fs::path> files;  // every file a load reads: the single file, then the shards

  Models() {
    std::string pattern = (fs::temp_directory_path() / "zerotensor-models-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) std::abort();
    directory = pattern;
    file = directory / "model.safetensors";
    zt::save_safetensors(file, bf16_tensors(0, 32, 64 * mib));
    sharded = directory / "sharded";
    fs::create_directory(sharded);
    std::string index = R"({"metadata":{},"weight_map":{)";
    for (int s = 0; s < 16; ++s) {
      const std::string shard = "model-" + std::to_string(s + 1) + "-of-16.safetensors";
      const Tensors tensors = bf16_tensors(s * 8, 8, 16 * mib);
      for (const auto& entry : tensors) index += (index.back() == '{' ? "\"" : ",\"") + entry.first + "\":\"" + shard + "\"";
      zt::save_safetensors(sharded / shard, tensors);
      files.push_back(sharded / shard);
    }
    std::ofstream(sharded / "model.safetensors.index.json") << index << "}}";
  }
  Models(const Models&) = delete;
  Models& operator=(const Models&) = delete;
  ~Models() {
    std::error_code ignored;
    fs::remove_all(directory, ignored);
  }
};

const Models& models() {
  static const Models written;
  return written;
}

/// The pinned floor: cudaMalloc, cudaMemcpy of model_bytes from pinned memory, cudaFree.
void pinned_floor() {
  static const zt::AnyTensor source = zt::empty(zt::DynamicExtents{zt::index_t(model_bytes)}, zt::uint8, pinned);
  void* device = nullptr;
  check("cudaMalloc", cudaMalloc(&device, model_bytes));
  check("cudaMemcpy", cudaMemcpy(device, source.data_ptr(), model_bytes, cudaMemcpyHostToDevice));
  check("cudaFree", cudaFree(device));
}

void load_file(bool direct) {
  const zt::SafetensorsFile loaded = zt::load_safetensors(models().file, {.device = zt::cuda(0), .direct = direct});
  benchmark::DoNotOptimize(loaded.tensors.begin()->second.data_ptr());
}

void load_sharded(bool direct) {
  const zt::Checkpoint loaded = zt::load_checkpoint(models().sharded, {.device = zt::cuda(0), .direct = direct});
  benchmark::DoNotOptimize(loaded.tensors.begin()->second.data_ptr());
}

/// The single file's tensors on the device and on the host, made once.
const Tensors& tensors_on(zt::Device device) {
  static const Tensors host = zt::load_safetensors(models().file, {.copy = true}).tensors;
  static const Tensors gpu = zt::load_safetensors(models().file, {.device = zt::cuda(0)}).tensors;
  return device == zt::cpu ? host : gpu;
}

void save_from(zt::Device device) { zt::save_safetensors(models().directory / "saved.safetensors", tensors_on(device)); }

/// Device → pinned host, the same bytes: the floor of a save's reads from the device.
void pinned_download_floor() {
  static const zt::AnyTensor host = zt::empty(zt::DynamicExtents{zt::index_t(model_bytes)}, zt::uint8, pinned);
  std::size_t offset = 0;
  for (const auto& entry : tensors_on(zt::cuda(0))) {
    const zt::AnyTensor& tensor = entry.second;
    check("cudaMemcpy", cudaMemcpy(static_cast<std::byte*>(host.mutable_data_ptr()) + offset, tensor.data_ptr(),
                                   tensor.nbytes(), cudaMemcpyDeviceToHost));
    offset += tensor.nbytes();
  }
}

}  // namespace

int main(int argc, char** argv) {
  int devices = 0;
  const cudaError_t error = cudaGetDeviceCount(&devices);
  if (error != cudaSuccess || devices == 0) {
    // A smoke run on a machine without a GPU is not a failure: say why nothing ran.
    std::printf("bench_cuda_models: SKIPPED, no benchmark ran: it needs a GPU; cudaGetDeviceCount gave %s (%s) and "
                "%d devices\n",
                cudaGetErrorName(error), cudaGetErrorString(error), devices);
    return 0;
  }
  std::vector<zt_bench::Comparison> comparisons;
  const std::string pinned_name = "pinned floor (cudaMalloc + cudaMemcpy + cudaFree)";
  const std::string disk_name = "O_DIRECT preads of 8 MiB (dd)";
  const std::vector<fs::path> single{models().file};
  const auto add = [&](const char* name, const std::string& floor_name, auto subject, auto floor) {
    zt_bench::register_paired(comparisons, name, floor_name, subject, floor)
        ->Iterations(5)
        ->Unit(benchmark::kMillisecond);
  };
  add("BM_file_2GiB_hot", pinned_name, [] { load_file(false); }, pinned_floor);
  add("BM_sharded_16x128MiB_hot", pinned_name, [] { load_sharded(false); }, pinned_floor);
  add("BM_file_2GiB_cold", disk_name, [&] { zt_bench::drop_cached_pages(single); load_file(false); },
      [&] { zt_bench::read_direct_in_8_mib(single); });
  add("BM_file_2GiB_cold_direct", disk_name, [&] { zt_bench::drop_cached_pages(single); load_file(true); },
      [&] { zt_bench::read_direct_in_8_mib(single); });
  add("BM_sharded_16x128MiB_cold", disk_name, [] { zt_bench::drop_cached_pages(models().files); load_sharded(false); },
      [] { zt_bench::read_direct_in_8_mib(models().files); });
  add("BM_sharded_16x128MiB_cold_direct", disk_name, [] { zt_bench::drop_cached_pages(models().files); load_sharded(true); },
      [] { zt_bench::read_direct_in_8_mib(models().files); });
  add("BM_save_2GiB_from_gpu", "cudaMemcpy to pinned memory", [] { save_from(zt::cuda(0)); }, pinned_download_floor);
  add("BM_save_2GiB_from_gpu_vs_host", "save_safetensors from host memory", [] { save_from(zt::cuda(0)); },
      [] { save_from(zt::cpu); });
  return zt_bench::run(argc, argv, comparisons);
}
