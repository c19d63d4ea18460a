// Triad and sum on the GPU over device memory this program allocated itself: zerotensor
// borrows it (no copy, no ownership taken), Eigen computes on it through a GpuContext,
// and the host checks the results. Built only with -DZT_CUDA=ON.
#include "zerotensor/cuda.hpp"

#include <cmath>
#include <cstdio>
#include <vector>

namespace {

int run() {
  if (!zt::cuda_is_available()) {
    std::puts("cuda_triad: no usable GPU or CUDA driver here, so nothing to compute");
    return 0;
  }
  constexpr zt::index_t n = 1 << 20;
  std::vector<float> a_host(n), b_host(n);
  for (zt::index_t i = 0; i < n; ++i) {
    a_host[i] = float(i % 1000);
    b_host[i] = 0.25f;
  }

  // Device memory from elsewhere (another library, a kernel of yours): raw pointers.
  float *a = nullptr, *b = nullptr, *c = nullptr, *total = nullptr;
  zt::check_cuda("cudaMalloc", cudaMalloc(&a, n * sizeof(float)));
  zt::check_cuda("cudaMalloc", cudaMalloc(&b, n * sizeof(float)));
  zt::check_cuda("cudaMalloc", cudaMalloc(&c, n * sizeof(float)));
  zt::check_cuda("cudaMalloc", cudaMalloc(&total, sizeof(float)));
  zt::check_cuda("cudaMemcpy", cudaMemcpy(a, a_host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  zt::check_cuda("cudaMemcpy", cudaMemcpy(b, b_host.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  bool correct = true;
  {
    // Borrowed views (empty owner): the memory must outlive them, as it does here.
    const zt::Tensor<const float, 1> ta(a, {n}, {1}, {}, zt::cuda(0));
    const zt::Tensor<const float, 1> tb(b, {n}, {1}, {}, zt::cuda(0));
    const zt::Tensor<float, 1> tc(c, {n}, {1}, {}, zt::cuda(0));
    const zt::Tensor<float, 0> tsum(total, {}, {}, {}, zt::cuda(0));

    const zt::GpuContext gpu(0);
    gpu.tensor(tc).device(gpu.eigen()) = gpu.tensor(ta) + 2.0f * gpu.tensor(tb);
    gpu.tensor(tsum).device(gpu.eigen()) = gpu.tensor(tc).sum();
    gpu.synchronize();

    // Checked on the host: to(zt::cpu) copies into memory the result owns.
    const auto c_back = zt::AnyTensor(tc).to(zt::cpu).as<const float, 1>();
    const float sum = zt::AnyTensor(tsum).to(zt::cpu).as<const float, 0>().array()(0);
    double expected_sum = 0;
    for (zt::index_t i = 0; i < n; ++i) {
      const float expected = a_host[i] + 2.0f * b_host[i];
      expected_sum += expected;
      if (c_back(i) != expected) {
        std::printf("c[%lld] = %g, expected %g\n", static_cast<long long>(i), c_back(i), expected);
        correct = false;
        break;
      }
    }
    const double relative_error = std::abs(sum - expected_sum) / expected_sum;
    std::printf("triad c = a + 2 b over %lld floats on %s: %s\n", static_cast<long long>(n),
                zt::to_string(gpu.device()).c_str(), correct ? "correct" : "WRONG");
    std::printf("sum(c) = %.1f on the GPU, %.1f on the host (relative difference %.1e)\n", sum, expected_sum,
                relative_error);
    correct = correct && relative_error < 1e-5;
  }
  for (float* p : {a, b, c, total}) zt::check_cuda("cudaFree", cudaFree(p));
  return correct ? 0 : 1;
}

}  // namespace

int main() {
  try {
    return run();
  } catch (const zt::Error& e) {
    std::fprintf(stderr, "cuda_triad: %s\n", e.what());
    return 1;
  }
}
