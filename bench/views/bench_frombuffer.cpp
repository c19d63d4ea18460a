// View creation cost of frombuffer (borrowed, AnyTensor, shared owner) against a raw
// Eigen::Map, and Eigen work over zt views against owned Eigen arrays and raw Maps.
#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "../ratio.hpp"
#include "zerotensor/frombuffer.hpp"

#if ZT_HAVE_TORCH
#include <ATen/ATen.h>
#endif

namespace {

constexpr std::int64_t largest = 100'000'000;

/// One 1e8-float buffer shared by every creation benchmark; views cover a prefix of it.
const std::shared_ptr<std::vector<float>>& shared_floats() {
  static const auto buffer = std::make_shared<std::vector<float>>(largest, 1.0f);
  return buffer;
}

std::span<float> prefix(std::int64_t n) { return {shared_floats()->data(), std::size_t(n)}; }

void BM_eigen_map(benchmark::State& state) {
  const auto floats = prefix(state.range(0));
  for (auto _ : state) {
    Eigen::Map<Eigen::ArrayXf> view(floats.data(), Eigen::Index(floats.size()));
    benchmark::DoNotOptimize(view.data());
    benchmark::ClobberMemory();
  }
}

void BM_frombuffer_typed(benchmark::State& state) {
  const auto floats = prefix(state.range(0));
  for (auto _ : state) {
    zt::Tensor<float, 1> view = zt::frombuffer<float>(floats);
    benchmark::DoNotOptimize(view.data());
    benchmark::ClobberMemory();
  }
}

void BM_frombuffer_any(benchmark::State& state) {
  const auto floats = prefix(state.range(0));
  for (auto _ : state) {
    zt::AnyTensor view = zt::frombuffer(floats, zt::float32);
    benchmark::DoNotOptimize(view.data_ptr());
    benchmark::ClobberMemory();
  }
}

void BM_frombuffer_shared_owner(benchmark::State& state) {
  const auto n = state.range(0);
  const auto& owner = shared_floats();
  for (auto _ : state) {
    zt::Tensor<float, 1> view = zt::frombuffer<float>(zt::Buffer(owner->data(), std::size_t(n) * sizeof(float), owner));
    benchmark::DoNotOptimize(view.data());
    benchmark::ClobberMemory();
  }
}

#if ZT_HAVE_TORCH
void BM_torch_from_blob(benchmark::State& state) {
  const auto floats = prefix(state.range(0));
  for (auto _ : state) {
    at::Tensor view = at::from_blob(floats.data(), {std::int64_t(floats.size())}, at::kFloat);
    benchmark::DoNotOptimize(view.data_ptr());
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_torch_from_blob)->Arg(1000)->Arg(1'000'000)->Arg(largest);
#endif

BENCHMARK(BM_eigen_map)->Arg(1000)->Arg(1'000'000)->Arg(largest);
BENCHMARK(BM_frombuffer_typed)->Arg(1000)->Arg(1'000'000)->Arg(largest);
BENCHMARK(BM_frombuffer_any)->Arg(1000)->Arg(1'000'000)->Arg(largest);
BENCHMARK(BM_frombuffer_shared_owner)->Arg(1000)->Arg(1'000'000)->Arg(largest);

// Eigen work over 1e7 floats: the same expression over owned arrays, raw Maps and zt views.
constexpr Eigen::Index work_size = 10'000'000;

struct Operands {
  Eigen::ArrayXf a = Eigen::ArrayXf::Zero(work_size);
  Eigen::ArrayXf b = Eigen::ArrayXf::Constant(work_size, 1.5f);
  Eigen::ArrayXf c = Eigen::ArrayXf::Constant(work_size, 0.25f);
};

Operands& operands() {
  static Operands o;
  return o;
}

zt::Tensor<float, 1> view_of(Eigen::ArrayXf& array) { return zt::frombuffer<float>(std::span(array.data(), array.size())); }

void BM_sum_owned(benchmark::State& state) {
  auto& o = operands();
  for (auto _ : state) benchmark::DoNotOptimize(o.b.sum());
}

void BM_sum_eigen_map(benchmark::State& state) {
  auto& o = operands();
  Eigen::Map<const Eigen::ArrayXf> b(o.b.data(), work_size);
  for (auto _ : state) benchmark::DoNotOptimize(b.sum());
}

void BM_sum_zt(benchmark::State& state) {
  auto b = view_of(operands().b);
  for (auto _ : state) benchmark::DoNotOptimize(b.array().sum());
}

void BM_triad_owned(benchmark::State& state) {
  auto& o = operands();
  for (auto _ : state) {
    o.a = o.b + 2.0f * o.c;
    benchmark::ClobberMemory();
  }
}

void BM_triad_eigen_map(benchmark::State& state) {
  auto& o = operands();
  Eigen::Map<Eigen::ArrayXf> a(o.a.data(), work_size);
  Eigen::Map<const Eigen::ArrayXf> b(o.b.data(), work_size), c(o.c.data(), work_size);
  for (auto _ : state) {
    a = b + 2.0f * c;
    benchmark::ClobberMemory();
  }
}

void BM_triad_zt(benchmark::State& state) {
  auto& o = operands();
  auto a = view_of(o.a), b = view_of(o.b), c = view_of(o.c);
  for (auto _ : state) {
    a.array() = b.array() + 2.0f * c.array();
    benchmark::ClobberMemory();
  }
}

BENCHMARK(BM_sum_owned);
BENCHMARK(BM_sum_eigen_map);
BENCHMARK(BM_sum_zt);
BENCHMARK(BM_triad_owned);
BENCHMARK(BM_triad_eigen_map);
BENCHMARK(BM_triad_zt);

}  // namespace

int main(int argc, char** argv) {
  std::vector<zt_bench::Comparison> comparisons;
  for (const char* n : {"1000", "1000000", "100000000"}) {
    const std::string floor = std::string("BM_eigen_map/") + n;
    for (const char* subject : {"BM_frombuffer_typed/", "BM_frombuffer_any/", "BM_frombuffer_shared_owner/",
                                "BM_torch_from_blob/"})
      comparisons.push_back({subject + std::string(n), floor});
  }
  comparisons.push_back({"BM_sum_zt", "BM_sum_owned"});
  comparisons.push_back({"BM_sum_zt", "BM_sum_eigen_map"});
  comparisons.push_back({"BM_triad_zt", "BM_triad_owned"});
  comparisons.push_back({"BM_triad_zt", "BM_triad_eigen_map"});
  return zt_bench::run(argc, argv, comparisons);
}
