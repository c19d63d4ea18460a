// The CUDA path against hand-written CUDA: every way 1e8 floats reach a GPU and come back
// (AnyTensor::to from pageable, pinned-in-place and pinned memory, load_npy, load_safetensors,
// load_checkpoint of 8 shards and from_file straight to the device) against two floors — cudaMemcpy from pinned memory (what the
// link can do) and cudaMemcpy from pageable memory (what a plain copy gets) — and the
// Eigen triad over device tensors against a hand-written kernel. Built only with
// -DZT_CUDA=ON; without a GPU it says why and runs nothing.
#include "zerotensor/cuda.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>

#include "../ratio.hpp"
#include "zerotensor/checkpoint.hpp"
#include "zerotensor/from_file.hpp"
#include "zerotensor/npy.hpp"
#include "zerotensor/pin_memory.hpp"
#include "zerotensor/safetensors.hpp"
#include "zerotensor/staging.hpp"

namespace {

constexpr zt::index_t copy_count = 100'000'000;

void check(const char* what, cudaError_t error) { zt::detail::check_cuda(what, error); }

zt::AnyTensor host_floats(zt::index_t n) {
  const std::vector<zt::index_t> shape{n};
  zt::AnyTensor t = zt::empty(shape, zt::float32);
  auto values = t.as<float, 1>().array();
  values.setConstant(1.0f);  // touched once, so page faults stay out of the timings
  return t;
}

constexpr zt::Device pinned{zt::DeviceKind::CUDAHost, 0};

/// to(cuda(0)) of `host` in a loop: allocates device memory, copies, frees it with the copy.
void time_to_device(benchmark::State& state, const zt::AnyTensor& host) {
  for (auto _ : state) {
    zt::AnyTensor device = host.to(zt::cuda(0));
    benchmark::DoNotOptimize(device.data_ptr());
  }
  state.SetBytesProcessed(state.iterations() * std::int64_t(host.nbytes()));
}

// Host → device from ordinary (pageable) memory: through the pinned staging buffers.
void BM_to_device(benchmark::State& state) { time_to_device(state, host_floats(state.range(0))); }

// The same memory page-locked in place first (once, outside the loop).
void BM_to_device_pinned_in_place(benchmark::State& state) {
  time_to_device(state, zt::pin_memory(host_floats(state.range(0))));
}

// From memory allocated pinned (cudaMallocHost): one cudaMemcpyAsync.
void BM_to_device_from_pinned(benchmark::State& state) {
  time_to_device(state, host_floats(state.range(0)).to(pinned));
}

std::filesystem::path bench_file(const char* extension) {
  return std::filesystem::temp_directory_path() / (std::string("zerotensor_bench_cuda") + extension);
}

/// The files the loaders read, copy_count floats as .npy and as .safetensors (tensor "x"),
/// written at the first call (main removes them); returns the one named by `extension`.
std::filesystem::path written_file(const char* extension) {
  [[maybe_unused]] static const bool written = [] {
    const zt::AnyTensor floats = host_floats(copy_count);
    zt::save_npy(bench_file(".npy"), floats);
    zt::save_safetensors(bench_file(".safetensors"), {{"x", floats}});
    return true;
  }();
  return bench_file(extension);
}

// A file straight to the device (page cache hot after the first iteration): streamed from
// the mapping through the staging buffers, the host threads taking the page faults.
void BM_load_npy_to_device(benchmark::State& state) {
  const std::filesystem::path path = written_file(".npy");
  for (auto _ : state) {
    zt::AnyTensor device = zt::load_npy(path, {.device = zt::cuda(0)});
    benchmark::DoNotOptimize(device.data_ptr());
  }
  state.SetBytesProcessed(state.iterations() * state.range(0) * 4);
}

// safetensors' load_file(device="cuda") done by load_safetensors: mapped, streamed to the device.
void BM_load_safetensors_to_device(benchmark::State& state) {
  const std::filesystem::path path = written_file(".safetensors");
  for (auto _ : state) {
    zt::SafetensorsFile device = zt::load_safetensors(path, {.device = zt::cuda(0)});
    benchmark::DoNotOptimize(device.at("x").data_ptr());
  }
  state.SetBytesProcessed(state.iterations() * state.range(0) * 4);
}

constexpr int model_shards = 8;
constexpr int tensors_per_shard = 4;

/// A model directory of copy_count floats in all: 8 shards of 4 tensors each and its index,
/// written at the first call (main removes it).
std::filesystem::path written_model() {
  const std::filesystem::path dir = bench_file("_model");
  [[maybe_unused]] static const bool written = [&] {
    std::filesystem::create_directory(dir);
    const zt::AnyTensor floats = host_floats(copy_count / (model_shards * tensors_per_shard));
    std::string index = R"({"metadata":{},"weight_map":{)";
    for (int s = 0; s < model_shards; ++s) {
      const std::string shard = "model-" + std::to_string(s + 1) + ".safetensors";
      std::map<std::string, zt::AnyTensor, std::less<>> tensors;
      for (int t = 0; t < tensors_per_shard; ++t) {
        const std::string name = "layers." + std::to_string(s * tensors_per_shard + t) + ".weight";
        tensors.emplace(name, floats);
        index += (s + t ? ",\"" : "\"") + name + "\":\"" + shard + "\"";
      }
      zt::save_safetensors(dir / shard, tensors);
    }
    std::ofstream(dir / "model.safetensors.index.json") << index << "}}";
    return true;
  }();
  return dir;
}

// A sharded checkpoint straight to the device (page cache hot after the first iteration):
// each shard mapped and streamed through the staging buffers, as load_safetensors does, on
// state.range(1) shard threads (0: the default).
void BM_load_checkpoint_to_device(benchmark::State& state) {
  const std::filesystem::path dir = written_model();
  for (auto _ : state) {
    zt::Checkpoint device = zt::load_checkpoint(dir, {.device = zt::cuda(0), .threads = unsigned(state.range(1))});
    benchmark::DoNotOptimize(device.tensors.begin()->second.data_ptr());
  }
  state.SetBytesProcessed(state.iterations() * state.range(0) * 4);
}

/// Runs `body` with the staging options of state's arguments (buffer MiB, buffers, host threads).
template <class Body>
void with_staging(benchmark::State& state, Body&& body) {
  const zt::StagingOptions before = zt::staging_options();
  zt::set_staging_options({.buffer_bytes = std::size_t(state.range(0)) << 20,
                           .buffers = std::size_t(state.range(1)),
                           .host_threads = std::size_t(state.range(2))});
  body();
  zt::set_staging_options(before);
  state.SetBytesProcessed(state.iterations() * copy_count * 4);
}

// The staging options against each other, both ways (how the defaults were chosen: docs/performance.md).
void BM_load_safetensors_staging(benchmark::State& state) {
  with_staging(state, [&] {
    const std::filesystem::path path = written_file(".safetensors");
    for (auto _ : state) benchmark::DoNotOptimize(zt::load_safetensors(path, {.device = zt::cuda(0)}).at("x").data_ptr());
  });
}

void BM_to_host_staging(benchmark::State& state) {
  const zt::AnyTensor device = host_floats(copy_count).to(zt::cuda(0));
  with_staging(state, [&] {
    for (auto _ : state) benchmark::DoNotOptimize(device.to(zt::cpu).data_ptr());
  });
}

/// Buffer MiB x buffers x host threads, at most 64 MiB of pinned staging.
void staging_grid(benchmark::internal::Benchmark* benchmark) {
  for (std::int64_t mib : {2, 4, 8, 16})
    for (std::int64_t buffers : {2, 4, 8})
      for (std::int64_t threads : {1, 2, 4, 8, 12})
        if (mib * buffers <= 64) benchmark->Args({mib, buffers, threads});
}

void BM_from_file_to_device(benchmark::State& state) {
  const std::filesystem::path path = written_file(".npy");
  for (auto _ : state) {
    zt::AnyTensor device = zt::from_file(path, {.size = state.range(0), .dtype = zt::float32, .device = zt::cuda(0)});
    benchmark::DoNotOptimize(device.data_ptr());
  }
  state.SetBytesProcessed(state.iterations() * state.range(0) * 4);
}

/// cudaMalloc, cudaMemcpy from `host`, cudaFree: the floors the copies are measured against.
void copy_to_fresh_device_memory(benchmark::State& state, const zt::AnyTensor& host) {
  const std::size_t bytes = host.nbytes();
  for (auto _ : state) {
    void* device = nullptr;
    check("cudaMalloc", cudaMalloc(&device, bytes));
    check("cudaMemcpy", cudaMemcpy(device, host.data_ptr(), bytes, cudaMemcpyHostToDevice));
    check("cudaFree", cudaFree(device));
  }
  state.SetBytesProcessed(state.iterations() * state.range(0) * 4);
}

// The pinned floor.
void BM_cudaMemcpy_pinned_to_device(benchmark::State& state) {
  copy_to_fresh_device_memory(state, host_floats(state.range(0)).to(pinned));
}

// The pageable floor.
void BM_cudaMemcpy_to_device(benchmark::State& state) {
  copy_to_fresh_device_memory(state, host_floats(state.range(0)));
}

// Device → host: to(zt::cpu) allocates host memory and copies into it through the staging buffers.
void BM_to_host(benchmark::State& state) {
  const zt::AnyTensor device = host_floats(state.range(0)).to(zt::cuda(0));
  for (auto _ : state) {
    zt::AnyTensor host = device.to(zt::cpu);
    benchmark::DoNotOptimize(host.data_ptr());
  }
  state.SetBytesProcessed(state.iterations() * state.range(0) * 4);
}

// The pageable floor: the same host allocator, cudaMemcpy, free.
void BM_cudaMemcpy_to_host(benchmark::State& state) {
  const zt::AnyTensor device = host_floats(state.range(0)).to(zt::cuda(0));
  const std::size_t bytes = device.nbytes();
  for (auto _ : state) {
    std::shared_ptr<std::byte> host = zt::allocate_bytes(bytes);
    check("cudaMemcpy", cudaMemcpy(host.get(), device.data_ptr(), bytes, cudaMemcpyDeviceToHost));
    benchmark::DoNotOptimize(host.get());
  }
  state.SetBytesProcessed(state.iterations() * state.range(0) * 4);
}

// The pinned floor the other way: cudaMemcpy into pinned memory allocated once.
void BM_cudaMemcpy_to_pinned_host(benchmark::State& state) {
  const zt::AnyTensor device = host_floats(state.range(0)).to(zt::cuda(0));
  const zt::AnyTensor host = zt::empty(device.shape(), zt::float32, pinned);
  for (auto _ : state)
    check("cudaMemcpy", cudaMemcpy(host.mutable_data_ptr(), device.data_ptr(), device.nbytes(), cudaMemcpyDeviceToHost));
  state.SetBytesProcessed(state.iterations() * state.range(0) * 4);
}

// cudaMemcpy into memory allocated once: the copy alone, for reference.
void BM_cudaMemcpy_preallocated_to_device(benchmark::State& state) {
  const zt::AnyTensor host = host_floats(state.range(0));
  const zt::AnyTensor device = host.to(zt::cuda(0));
  for (auto _ : state)
    check("cudaMemcpy", cudaMemcpy(device.mutable_data_ptr(), host.data_ptr(), host.nbytes(), cudaMemcpyHostToDevice));
  state.SetBytesProcessed(state.iterations() * state.range(0) * 4);
}

struct TriadOperands {
  explicit TriadOperands(zt::index_t n)
      : a(host_floats(n).to(zt::cuda(0)).as<const float, 1>()),
        b(host_floats(n).to(zt::cuda(0)).as<const float, 1>()),
        c(zt::empty<float>(std::vector<zt::index_t>{n}, zt::cuda(0))) {}
  zt::Tensor<const float, 1> a;
  zt::Tensor<const float, 1> b;
  zt::Tensor<float> c;
};

// c = a + 2 b over device tensors, through Eigen's GpuDevice.
void BM_triad_eigen(benchmark::State& state) {
  const TriadOperands x(state.range(0));
  const zt::GpuContext gpu(0);
  for (auto _ : state) {
    gpu.tensor<1>(x.c).device(gpu.eigen()) = gpu.tensor(x.a) + 2.0f * gpu.tensor(x.b);
    gpu.synchronize();
  }
  state.SetBytesProcessed(state.iterations() * state.range(0) * 12);
}

__global__ void triad_kernel(const float* a, const float* b, float* c, zt::index_t n) {
  for (zt::index_t i = blockIdx.x * zt::index_t(blockDim.x) + threadIdx.x; i < n; i += zt::index_t(gridDim.x) * blockDim.x)
    c[i] = a[i] + 2.0f * b[i];
}

// The same triad as a hand-written grid-stride kernel on the same kind of stream.
void BM_triad_kernel(benchmark::State& state) {
  const TriadOperands x(state.range(0));
  const zt::GpuContext gpu(0);
  int processors = 0;
  check("cudaDeviceGetAttribute", cudaDeviceGetAttribute(&processors, cudaDevAttrMultiProcessorCount, 0));
  for (auto _ : state) {
    triad_kernel<<<processors * 8, 256, 0, gpu.stream()>>>(x.a.data(), x.b.data(), x.c.data(), state.range(0));
    gpu.synchronize();
  }
  state.SetBytesProcessed(state.iterations() * state.range(0) * 12);
}

BENCHMARK(BM_cudaMemcpy_pinned_to_device)->Arg(copy_count)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_cudaMemcpy_to_device)->Arg(copy_count)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_cudaMemcpy_preallocated_to_device)->Arg(copy_count)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_to_device)->Arg(copy_count)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_to_device_pinned_in_place)->Arg(copy_count)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_to_device_from_pinned)->Arg(copy_count)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_load_npy_to_device)->Arg(copy_count)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_load_safetensors_to_device)->Arg(copy_count)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_load_checkpoint_to_device)->ArgsProduct({{copy_count}, {0, 1, 2, 4}})->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_load_safetensors_staging)->Apply(staging_grid)->MinTime(0.05)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_to_host_staging)->Apply(staging_grid)->MinTime(0.05)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_from_file_to_device)->Arg(copy_count)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_cudaMemcpy_to_pinned_host)->Arg(copy_count)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_cudaMemcpy_to_host)->Arg(copy_count)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_to_host)->Arg(copy_count)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_triad_eigen)->Arg(1 << 20)->Arg(copy_count)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_triad_kernel)->Arg(1 << 20)->Arg(copy_count)->UseRealTime()->Unit(benchmark::kMicrosecond);

}  // namespace

int main(int argc, char** argv) {
  int devices = 0;
  const cudaError_t error = cudaGetDeviceCount(&devices);
  if (error != cudaSuccess || devices == 0) {
    // A smoke run on a machine without a GPU is not a failure: say why nothing ran.
    std::printf("bench_cuda: SKIPPED, no benchmark ran: it needs a GPU; cudaGetDeviceCount gave %s (%s) and %d devices\n",
                cudaGetErrorName(error), cudaGetErrorString(error), devices);
    return 0;
  }
  std::vector<zt_bench::Comparison> comparisons;
  const auto name = [](const char* benchmark, const char* size) {
    return std::string(benchmark) + "/" + size + "/real_time";
  };
  constexpr const char* size = "100000000";
  const std::pair<const char*, const char*> subjects[] = {
      {"BM_to_device", size},          {"BM_to_device_pinned_in_place", size},
      {"BM_to_device_from_pinned", size}, {"BM_load_npy_to_device", size},
      {"BM_load_safetensors_to_device", size}, {"BM_load_checkpoint_to_device", "100000000/0"},
      {"BM_load_checkpoint_to_device", "100000000/1"}, {"BM_from_file_to_device", size}};
  for (const auto& [subject, args] : subjects) {
    comparisons.push_back({name(subject, args), name("BM_cudaMemcpy_pinned_to_device", size)});
    comparisons.push_back({name(subject, args), name("BM_cudaMemcpy_to_device", size)});
  }
  comparisons.push_back({name("BM_to_host", size), name("BM_cudaMemcpy_to_pinned_host", size)});
  comparisons.push_back({name("BM_to_host", size), name("BM_cudaMemcpy_to_host", size)});
  comparisons.push_back({name("BM_triad_eigen", "1048576"), name("BM_triad_kernel", "1048576")});
  comparisons.push_back({name("BM_triad_eigen", size), name("BM_triad_kernel", size)});
  const int status = zt_bench::run(argc, argv, comparisons);
  std::error_code ignored;
  std::filesystem::remove(bench_file(".npy"), ignored);
  std::filesystem::remove(bench_file(".safetensors"), ignored);
  std::filesystem::remove_all(bench_file("_model"), ignored);
  return status;
}
