// DLPack exchange cost per call: from_dlpack + destruction of the view (the producer's
// deleter included), and to_dlpack + the consumer's deleter call, next to libtorch's
// at::fromDLPack / at::toDLPack in the same run, and to floors that do only the
// unavoidable work (one shared owner; one allocation holding one owner reference). The
// paired rows time zerotensor's and libtorch's import + release of the same 1-D and 3-D
// tensors in turn in one loop (ratio.hpp).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "../ratio.hpp"
#include "zerotensor/from_dlpack.hpp"
#include "zerotensor/empty.hpp"
#include "zerotensor/to_dlpack.hpp"

#if ZT_HAVE_TORCH
#include <ATen/ATen.h>
#include <ATen/DLConvertor.h>
#endif

namespace {

namespace dl = zt::dlpack;

/// A 4096-element float32 tensor's memory, described once (64 x 64 unless given another
/// C-order shape); the producer's deleter only counts, so one managed struct can be handed
/// over again and again.
struct Producer {
  std::vector<float> memory = std::vector<float>(64 * 64, 1.0f);
  std::vector<std::int64_t> shape = {64, 64};
  std::vector<std::int64_t> strides = {64, 1};
  std::int64_t released = 0;

  Producer() = default;
  Producer(std::vector<std::int64_t> extents, std::vector<std::int64_t> steps)
      : shape(std::move(extents)), strides(std::move(steps)) {}

  template <class M>
  M managed() {
    M m{};
    m.dl_tensor.data = memory.data();
    m.dl_tensor.device.device_type = decltype(m.dl_tensor.device.device_type)(1);
    m.dl_tensor.ndim = std::int32_t(shape.size());
    m.dl_tensor.dtype.code = 2;
    m.dl_tensor.dtype.bits = 32;
    m.dl_tensor.dtype.lanes = 1;
    m.dl_tensor.shape = shape.data();
    m.dl_tensor.strides = strides.data();
    m.manager_ctx = this;
    m.deleter = [](M* self) { ++static_cast<Producer*>(self->manager_ctx)->released; };
    return m;
  }
};

void BM_floor_shared_owner(benchmark::State& state) {
  Producer producer;
  for (auto _ : state) {
    zt::KeepAlive owner(&producer, [](Producer* p) { ++p->released; });
    benchmark::DoNotOptimize(owner.get());
  }
  benchmark::DoNotOptimize(producer.released);
}

void BM_zt_from_dlpack(benchmark::State& state) {
  Producer producer;
  auto managed = producer.managed<dl::ManagedTensorVersioned>();
  managed.version = {1, 1};
  for (auto _ : state) {
    zt::AnyTensor view = zt::from_dlpack(&managed);
    benchmark::DoNotOptimize(view.data_ptr());
  }
  if (producer.released != std::int64_t(state.iterations())) state.SkipWithError("deleter count is wrong");
}

void BM_zt_from_dlpack_legacy(benchmark::State& state) {
  Producer producer;
  auto managed = producer.managed<dl::ManagedTensor>();
  for (auto _ : state) {
    zt::AnyTensor view = zt::from_dlpack(&managed);
    benchmark::DoNotOptimize(view.data_ptr());
  }
  if (producer.released != std::int64_t(state.iterations())) state.SkipWithError("deleter count is wrong");
}

/// One allocation holding a managed struct and one reference to the tensor's owner.
void BM_floor_allocation_with_owner(benchmark::State& state) {
  zt::AnyTensor tensor = zt::empty(std::vector<zt::index_t>{64, 64}, zt::float32);
  struct Block {
    dl::ManagedTensorVersioned managed;
    zt::KeepAlive owner;
    std::int64_t extents[4];
  };
  for (auto _ : state) {
    auto* block = new Block{{}, tensor.owner(), {}};
    benchmark::DoNotOptimize(block);
    delete block;
  }
}

void BM_zt_to_dlpack(benchmark::State& state) {
  zt::AnyTensor tensor = zt::empty(std::vector<zt::index_t>{64, 64}, zt::float32);
  for (auto _ : state) {
    dl::ManagedTensorVersioned* managed = zt::to_dlpack(tensor);
    benchmark::DoNotOptimize(managed->dl_tensor.data);
    managed->deleter(managed);
  }
}

void BM_zt_to_dlpack_legacy(benchmark::State& state) {
  zt::AnyTensor tensor = zt::empty(std::vector<zt::index_t>{64, 64}, zt::float32);
  for (auto _ : state) {
    dl::ManagedTensor* managed = zt::to_dlpack_legacy(tensor);
    benchmark::DoNotOptimize(managed->dl_tensor.data);
    managed->deleter(managed);
  }
}

BENCHMARK(BM_floor_shared_owner);
BENCHMARK(BM_zt_from_dlpack);
BENCHMARK(BM_zt_from_dlpack_legacy);
BENCHMARK(BM_floor_allocation_with_owner);
BENCHMARK(BM_zt_to_dlpack);
BENCHMARK(BM_zt_to_dlpack_legacy);

#if ZT_HAVE_TORCH
void BM_torch_from_dlpack(benchmark::State& state) {
  Producer producer;
  auto managed = producer.managed<::DLManagedTensor>();
  for (auto _ : state) {
    at::Tensor view = at::fromDLPack(&managed);
    benchmark::DoNotOptimize(view.data_ptr());
  }
  if (producer.released != std::int64_t(state.iterations())) state.SkipWithError("deleter count is wrong");
}

void BM_torch_to_dlpack(benchmark::State& state) {
  at::Tensor tensor = at::ones({64, 64}, at::kFloat);
  for (auto _ : state) {
    ::DLManagedTensor* managed = at::toDLPack(tensor);
    benchmark::DoNotOptimize(managed->dl_tensor.data);
    managed->deleter(managed);
  }
}

BENCHMARK(BM_torch_from_dlpack);
BENCHMARK(BM_torch_to_dlpack);

/// Imports per timed call of the paired rows, so that reading the clock weighs little.
constexpr int imports_per_call = 100;

/// zt::from_dlpack against at::fromDLPack of the same ::DLManagedTensor, each view released
/// before the next import, timed in turn in one loop; times are per imports_per_call imports.
void register_paired_import(std::vector<zt_bench::Comparison>& comparisons, const std::string& name,
                            std::vector<std::int64_t> shape, std::vector<std::int64_t> strides) {
  auto producer = std::make_shared<Producer>(std::move(shape), std::move(strides));
  auto managed = std::make_shared<::DLManagedTensor>(producer->managed<::DLManagedTensor>());
  const auto zerotensor = [producer, managed] {
    for (int i = 0; i < imports_per_call; ++i) {
      zt::AnyTensor view = zt::from_dlpack(managed.get());
      benchmark::DoNotOptimize(view.data_ptr());
    }
  };
  const auto torch = [producer, managed] {
    for (int i = 0; i < imports_per_call; ++i) {
      at::Tensor view = at::fromDLPack(managed.get());
      benchmark::DoNotOptimize(view.data_ptr());
    }
  };
  const std::string suffix = name + "_x" + std::to_string(imports_per_call);
  zt_bench::register_paired(comparisons, "BM_paired_zt_from_dlpack_" + suffix, "BM_torch_from_dlpack_" + suffix,
                            zerotensor, torch);
}
#endif

}  // namespace

int main(int argc, char** argv) {
  std::vector<zt_bench::Comparison> comparisons;
#if ZT_HAVE_TORCH
  register_paired_import(comparisons, "1d", {4096}, {1});
  register_paired_import(comparisons, "3d", {16, 16, 16}, {256, 16, 1});
#endif
  comparisons.insert(comparisons.end(),
                     {{"BM_zt_from_dlpack", "BM_floor_shared_owner"},
                        {"BM_zt_from_dlpack_legacy", "BM_floor_shared_owner"},
                        {"BM_zt_from_dlpack", "BM_torch_from_dlpack"},
                        {"BM_zt_to_dlpack", "BM_floor_allocation_with_owner"},
                        {"BM_zt_to_dlpack_legacy", "BM_floor_allocation_with_owner"},
                        {"BM_zt_to_dlpack", "BM_torch_to_dlpack"}});
  return zt_bench::run(argc, argv, comparisons);
}
