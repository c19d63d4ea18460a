// The CUDA path against hand-written CUDA: AnyTensor::to() copies of 1e8 floats against
// raw cudaMemcpy, and the Eigen triad over device tensors against a hand-written kernel.
// Built only with -DZT_CUDA=ON; without a GPU it says so and runs nothing.
#include "zerotensor/cuda.hpp"

#include <cstdio>
#include <cstdlib>

#include "ratio.hpp"

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

// Host → device: to() allocates device memory, copies, and frees it when the copy dies.
void BM_to_device(benchmark::State& state) {
  const zt::AnyTensor host = host_floats(state.range(0));
  for (auto _ : state) {
    zt::AnyTensor device = host.to(zt::cuda(0));
    benchmark::DoNotOptimize(device.data_ptr());
  }
  state.SetBytesProcessed(state.iterations() * state.range(0) * 4);
}

// The same by hand: cudaMalloc, cudaMemcpy, cudaFree.
void BM_cudaMemcpy_to_device(benchmark::State& state) {
  const zt::AnyTensor host = host_floats(state.range(0));
  const std::size_t bytes = host.nbytes();
  for (auto _ : state) {
    void* device = nullptr;
    check("cudaMalloc", cudaMalloc(&device, bytes));
    check("cudaMemcpy", cudaMemcpy(device, host.data_ptr(), bytes, cudaMemcpyHostToDevice));
    check("cudaFree", cudaFree(device));
  }
  state.SetBytesProcessed(state.iterations() * state.range(0) * 4);
}

// Device → host: to(zt::cpu) allocates host memory and copies into it.
void BM_to_host(benchmark::State& state) {
  const zt::AnyTensor device = host_floats(state.range(0)).to(zt::cuda(0));
  for (auto _ : state) {
    zt::AnyTensor host = device.to(zt::cpu);
    benchmark::DoNotOptimize(host.data_ptr());
  }
  state.SetBytesProcessed(state.iterations() * state.range(0) * 4);
}

// The same by hand: the same host allocator, cudaMemcpy, free.
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

BENCHMARK(BM_to_device)->Arg(copy_count)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_cudaMemcpy_to_device)->Arg(copy_count)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_cudaMemcpy_preallocated_to_device)->Arg(copy_count)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_to_host)->Arg(copy_count)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_cudaMemcpy_to_host)->Arg(copy_count)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_triad_eigen)->Arg(1 << 20)->Arg(copy_count)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_triad_kernel)->Arg(1 << 20)->Arg(copy_count)->UseRealTime()->Unit(benchmark::kMicrosecond);

}  // namespace

int main(int argc, char** argv) {
  if (!zt::cuda_is_available()) {
    std::puts("bench_cuda: no usable GPU or CUDA driver here, so no benchmark ran");
    return 0;
  }
  return zt_bench::run(argc, argv,
                       {{"BM_to_device/100000000/real_time", "BM_cudaMemcpy_to_device/100000000/real_time"},
                        {"BM_to_device/100000000/real_time", "BM_cudaMemcpy_preallocated_to_device/100000000/real_time"},
                        {"BM_to_host/100000000/real_time", "BM_cudaMemcpy_to_host/100000000/real_time"},
                        {"BM_triad_eigen/1048576/real_time", "BM_triad_kernel/1048576/real_time"},
                        {"BM_triad_eigen/100000000/real_time", "BM_triad_kernel/100000000/real_time"}});
}
