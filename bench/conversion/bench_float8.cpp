// The 8-bit float conversions: every 8-bit float format → float32 and → bfloat16
// (decoding) and float32 → float8_e4m3fn (encoding), over 1e6 and 1e7 elements, in GB/s of
// output bytes. Each is timed in one loop with its floor
// (ratio.hpp's paired benchmarks): memcpy of the same output bytes, into memory written
// before for copy_into and into fresh memory for AnyTensor::to. Goal: decoding within 2x of
// memcpy. bench/float8.py times PyTorch's .to() and copy_ for the same jobs.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "../ratio.hpp"
#include "zerotensor/any_tensor.hpp"
#include "zerotensor/convert.hpp"
#include "zerotensor/empty.hpp"

namespace {

/// `n` elements of `dtype`: every code in random order for float8, normally distributed
/// values (sd 100, some beyond 448) for float32.
zt::AnyTensor input(zt::DType dtype, zt::index_t n) {
  const zt::index_t shape[] = {n};
  zt::AnyTensor tensor = zt::empty(shape, dtype);
  std::mt19937 random(22);
  if (dtype == zt::float32) {
    std::normal_distribution<float> normal(0.0f, 100.0f);
    auto* values = static_cast<float*>(tensor.mutable_data_ptr());
    for (zt::index_t i = 0; i < n; ++i) values[i] = normal(random);
  } else {
    auto* codes = static_cast<std::uint8_t*>(tensor.mutable_data_ptr());
    for (zt::index_t i = 0; i < n; ++i) codes[i] = std::uint8_t(random());
  }
  return tensor;
}

/// Registers `name`, the conversion of n elements from `from` to `to` paired with memcpy of
/// its output bytes: into a destination written before (copy_into), or fresh (to()).
void register_conversion(std::vector<zt_bench::Comparison>& comparisons, const std::string& name, zt::DType from,
                         zt::DType to, zt::index_t n, bool fresh) {
  const std::string full = "BM_" + name + "_" + (fresh ? "to" : "copy_into") + "/" + std::to_string(n);
  comparisons.push_back({full + "/manual_time", "memcpy of the output"});
  benchmark::RegisterBenchmark(full.c_str(), [=](benchmark::State& state) {
    const zt::AnyTensor source = input(from, n);
    const zt::index_t shape[] = {n};
    const zt::AnyTensor destination = zt::empty(shape, to);
    const std::size_t bytes = destination.nbytes();
    const std::vector<char> bytes_in(bytes, 1);
    std::vector<char> bytes_out(bytes, 0);
    const auto subject = [&] {
      if (fresh) {
        const zt::AnyTensor out = source.to(to);
        benchmark::DoNotOptimize(out.data_ptr());
      } else {
        zt::copy_into(source, destination);
        benchmark::DoNotOptimize(destination.data_ptr());
      }
    };
    const auto floor = [&] {
      const std::unique_ptr<char[]> fresh_out(fresh ? new char[bytes] : nullptr);
      char* out = fresh ? fresh_out.get() : bytes_out.data();
      std::memcpy(out, bytes_in.data(), bytes);
      benchmark::DoNotOptimize(out);
      benchmark::ClobberMemory();
    };
    zt_bench::run_paired(state, subject, floor);
    state.SetBytesProcessed(state.iterations() * std::int64_t(bytes));
    state.counters["floor_GB/s"] = double(bytes) / state.counters[zt_bench::floor_seconds_counter].value / 1e9;
  })->UseManualTime()->Unit(benchmark::kMillisecond);
}

}  // namespace

int main(int argc, char** argv) {
  const std::pair<std::string, zt::DType> formats[] = {{"e4m3fn", zt::float8_e4m3fn_},
                                                       {"e5m2", zt::float8_e5m2_},
                                                       {"e4m3fnuz", zt::float8_e4m3fnuz_},
                                                       {"e5m2fnuz", zt::float8_e5m2fnuz_},
                                                       {"e8m0fnu", zt::float8_e8m0fnu_}};
  std::vector<zt_bench::Comparison> comparisons;
  for (const bool fresh : {false, true}) {
    for (const zt::index_t n : {1'000'000, 10'000'000}) {
      for (const auto& [name, dtype] : formats) {
        register_conversion(comparisons, name + "_to_f32", dtype, zt::float32, n, fresh);
        register_conversion(comparisons, name + "_to_bf16", dtype, zt::bfloat16, n, fresh);
      }
      register_conversion(comparisons, "f32_to_e4m3fn", zt::float32, zt::float8_e4m3fn_, n, fresh);
    }
  }
  return zt_bench::run(argc, argv, comparisons);
}
