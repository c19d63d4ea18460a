// GGUF block dequantization on one thread: 64 MiB of float32 values from random blocks of each
// block type zt::dequantize decodes, as (4096, 4096) values. Each is timed in one loop with its
// floor (ratio.hpp's paired benchmarks):
//   dequantize (a fresh result) against zt::empty of the 64 MiB and memcpy into it;
//   dequantize_into an output written before against memcpy into that output.
// Goals for gguf_q8_0 and gguf_q4_k: dequantize within 1.2x its floor, dequantize_into within
// 1.5x. The blocks' float16 scales are set to small normal values (random bytes elsewhere), as
// a quantizer writes them.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "../ratio.hpp"
#include "zerotensor/dequantize.hpp"
#include "zerotensor/dtype_sets.hpp"
#include "zerotensor/empty.hpp"
#include "zerotensor/error.hpp"

namespace {

constexpr zt::index_t rows = 4096, row_values = 4096;  // 64 MiB of float32

/// The byte offsets of each type's float16 scales in its block (ggml's block_* structs).
const std::map<zt::DType, std::vector<std::size_t>> half_scales = {
    {zt::gguf_q4_0_, {0}},    {zt::gguf_q4_1_, {0, 2}},   {zt::gguf_q5_0_, {0}},  {zt::gguf_q5_1_, {0, 2}},
    {zt::gguf_q8_0_, {0}},    {zt::gguf_q8_1_, {0, 2}},   {zt::gguf_q2_k_, {80, 82}}, {zt::gguf_q3_k_, {108}},
    {zt::gguf_q4_k_, {0, 2}}, {zt::gguf_q5_k_, {0, 2}},   {zt::gguf_q6_k_, {208}}, {zt::gguf_iq4_nl_, {0}},
    {zt::gguf_iq4_xs_, {0}},  {zt::gguf_tq1_0_, {52}},    {zt::gguf_tq2_0_, {64}}, {zt::gguf_q1_0_, {0}},
    {zt::gguf_q2_0_, {0}}};

/// The values one block of `dtype` holds, or 0 where dequantize does not decode it.
zt::index_t block_values(zt::DType dtype) {
  const zt::AnyTensor one = zt::empty(std::vector<zt::index_t>{1}, dtype);
  std::memset(one.mutable_data_ptr(), 0, one.nbytes());
  try {
    return zt::dequantize(one).numel();
  } catch (const zt::TypeError&) {
    return 0;
  }
}

/// (rows, row_values / values) random blocks of `dtype`, their float16 scales small normal
/// numbers (2^-10 to 2^-4, either sign).
zt::AnyTensor random_blocks(zt::DType dtype, zt::index_t values) {
  const zt::AnyTensor blocks = zt::empty(std::vector<zt::index_t>{rows, row_values / values}, dtype);
  auto* bytes = static_cast<std::uint8_t*>(blocks.mutable_data_ptr());
  std::mt19937 random(7);
  for (std::size_t i = 0; i < blocks.nbytes(); ++i) bytes[i] = std::uint8_t(random());
  const auto scales = half_scales.find(dtype);
  if (scales == half_scales.end()) return blocks;
  for (std::size_t block = 0; block < std::size_t(blocks.numel()); ++block) {
    for (const std::size_t offset : scales->second) {
      const auto half = std::uint16_t((random() & 0x8000u) | (5u + random() % 7u) << 10 | (random() & 0x3ffu));
      bytes[block * blocks.itemsize() + offset] = std::uint8_t(half & 0xff);
      bytes[block * blocks.itemsize() + offset + 1] = std::uint8_t(half >> 8);
    }
  }
  return blocks;
}

/// Registers dequantize (`fresh`) or dequantize_into of `dtype`'s random blocks, paired with
/// memcpy of the 64 MiB into fresh memory or into the output.
void register_type(std::vector<zt_bench::Comparison>& comparisons, zt::DType dtype, zt::index_t values, bool fresh) {
  const std::string name = std::string(fresh ? "BM_dequantize/" : "BM_dequantize_into/") + std::string(zt::name(dtype));
  comparisons.push_back({name + "/manual_time", fresh ? "zt::empty + memcpy" : "memcpy into the output"});
  benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
    const zt::AnyTensor blocks = random_blocks(dtype, values);
    const zt::index_t shape[] = {rows, row_values};
    const zt::AnyTensor out = zt::empty(shape, zt::float32);
    const std::size_t bytes = out.nbytes();
    std::memset(out.mutable_data_ptr(), 0, bytes);
    const std::vector<char> source(bytes, 1);
    const auto subject = [&] {
      if (fresh) {
        const zt::AnyTensor result = zt::dequantize(blocks);
        benchmark::DoNotOptimize(result.data_ptr());
      } else {
        zt::dequantize_into(blocks, out);
        benchmark::DoNotOptimize(out.data_ptr());
      }
      benchmark::ClobberMemory();
    };
    const auto floor = [&] {
      const zt::AnyTensor target = fresh ? zt::empty(shape, zt::float32) : out;
      std::memcpy(target.mutable_data_ptr(), source.data(), bytes);
      benchmark::DoNotOptimize(target.data_ptr());
      benchmark::ClobberMemory();
    };
    zt_bench::run_paired(state, subject, floor);
    state.SetBytesProcessed(state.iterations() * std::int64_t(bytes));
  })->UseManualTime()->Unit(benchmark::kMillisecond);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<zt_bench::Comparison> comparisons;
  for (const bool fresh : {true, false}) {
    for (const zt::DType dtype : zt::dtypes::gguf_blocks::members) {
      const zt::index_t values = block_values(dtype);
      if (values != 0) register_type(comparisons, dtype, values, fresh);
    }
  }
  return zt_bench::run(argc, argv, comparisons);
}
