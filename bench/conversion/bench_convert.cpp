// Conversion copies into fresh memory (asarray with a different dtype, i.e. AnyTensor::to
// and copy_into): float64 → float32 and int64 → float32 over 1e7 and 1e8 elements, against
// memcpy of the destination's bytes and Eigen's cast<>() into a fresh array, in the same run,
// and against libtorch's .to() when it is found.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "../ratio.hpp"
#include "zerotensor/asarray.hpp"

#if ZT_HAVE_TORCH
#include <ATen/ATen.h>
#endif

namespace {

constexpr std::int64_t largest = 100'000'000;

template <class T>
const Eigen::Array<T, Eigen::Dynamic, 1>& source() {
  static const Eigen::Array<T, Eigen::Dynamic, 1> values =
      Eigen::Array<T, Eigen::Dynamic, 1>::LinSpaced(largest, T(0), T(largest - 1));
  return values;
}

template <class T>
Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>> prefix(std::int64_t n) {
  return {source<T>().data(), Eigen::Index(n)};
}

void set_bandwidth(benchmark::State& state, std::size_t bytes_per_element) {
  state.SetBytesProcessed(state.iterations() * state.range(0) * std::int64_t(bytes_per_element));
}

/// The floor: copying the destination's bytes (n floats) into fresh memory.
void BM_memcpy_fresh(benchmark::State& state) {
  const auto n = std::size_t(state.range(0));
  const auto* from = source<double>().data();
  for (auto _ : state) {
    auto* to = static_cast<float*>(std::malloc(n * sizeof(float)));
    std::memcpy(to, from, n * sizeof(float));
    benchmark::DoNotOptimize(to);
    benchmark::ClobberMemory();
    std::free(to);
  }
  set_bandwidth(state, sizeof(float));
}

template <class From>
void BM_eigen_cast(benchmark::State& state) {
  const auto in = prefix<From>(state.range(0));
  for (auto _ : state) {
    Eigen::ArrayXf out = in.template cast<float>();
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  set_bandwidth(state, sizeof(From) + sizeof(float));
}

template <class From>
void BM_zt_asarray(benchmark::State& state) {
  const auto in = prefix<From>(state.range(0));
  for (auto _ : state) {
    zt::AnyTensor out = zt::asarray(in, {.dtype = zt::float32});
    benchmark::DoNotOptimize(out.data_ptr());
    benchmark::ClobberMemory();
  }
  set_bandwidth(state, sizeof(From) + sizeof(float));
}

/// A strided source: n elements, every other one of a 2n array (the strided walk).
template <class From>
void BM_zt_asarray_strided(benchmark::State& state) {
  const auto n = state.range(0);
  const zt::AnyTensor in = zt::Tensor<const From, 1>(source<From>().data(), {n}, {2});
  for (auto _ : state) {
    zt::AnyTensor out = zt::asarray(in, {.dtype = zt::float32});
    benchmark::DoNotOptimize(out.data_ptr());
    benchmark::ClobberMemory();
  }
  set_bandwidth(state, sizeof(From) + sizeof(float));
}

#if ZT_HAVE_TORCH
template <class From>
void BM_torch_to(benchmark::State& state) {
  const auto in = prefix<From>(state.range(0));
  const at::Tensor t = at::from_blob(const_cast<From*>(in.data()), {state.range(0)},
                                     std::is_same_v<From, double> ? at::kDouble : at::kLong);
  for (auto _ : state) {
    at::Tensor out = t.to(at::kFloat);
    benchmark::DoNotOptimize(out.data_ptr());
    benchmark::ClobberMemory();
  }
  set_bandwidth(state, sizeof(From) + sizeof(float));
}
BENCHMARK(BM_torch_to<double>)->Name("BM_torch_to_f64_f32")->Arg(10'000'000)->Arg(largest)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_torch_to<std::int64_t>)->Name("BM_torch_to_i64_f32")->Arg(10'000'000)->Arg(largest)->Unit(benchmark::kMillisecond);
#endif

BENCHMARK(BM_memcpy_fresh)->Arg(10'000'000)->Arg(largest)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_eigen_cast<double>)->Name("BM_eigen_cast_f64_f32")->Arg(10'000'000)->Arg(largest)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_eigen_cast<std::int64_t>)->Name("BM_eigen_cast_i64_f32")->Arg(10'000'000)->Arg(largest)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_zt_asarray<double>)->Name("BM_zt_asarray_f64_f32")->Arg(10'000'000)->Arg(largest)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_zt_asarray<std::int64_t>)->Name("BM_zt_asarray_i64_f32")->Arg(10'000'000)->Arg(largest)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_zt_asarray_strided<double>)->Name("BM_zt_asarray_strided_f64_f32")->Arg(10'000'000)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  std::vector<zt_bench::Comparison> comparisons;
  for (const char* n : {"10000000", "100000000"}) {
    const std::string size = n;
    for (const char* pair : {"f64_f32", "i64_f32"}) {
      const std::string subject = std::string("BM_zt_asarray_") + pair + "/" + size;
      comparisons.push_back({subject, "BM_memcpy_fresh/" + size});
      comparisons.push_back({subject, std::string("BM_eigen_cast_") + pair + "/" + size});
      comparisons.push_back({subject, std::string("BM_torch_to_") + pair + "/" + size});
    }
  }
  comparisons.push_back({"BM_zt_asarray_strided_f64_f32/10000000", "BM_zt_asarray_f64_f32/10000000"});
  return zt_bench::run(argc, argv, comparisons);
}
