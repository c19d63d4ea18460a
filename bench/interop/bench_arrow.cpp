// Arrow import cost per call: from_arrow + destruction of the view (the producer's release
// included) for a 1-D float32 array, a FixedSizeList<float, 64> array and an
// arrow.fixed_shape_tensor (8, 8) array, each next to the DLPack import of a tensor of the
// same shape in the same run (from_dlpack + destruction, for scale). The goal against Arrow
// C++ itself (at least 2x faster) is measured by test/arrow/arrow_cpp_bench.cpp. The schema is borrowed (one schema for a stream of arrays); the taken form adds the
// schema's release call. Record batches are timed at two column counts 8x apart.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

#include "../../test/arrow/arrow_metadata.hpp"
#include "../ratio.hpp"
#include "zerotensor/from_arrow.hpp"
#include "zerotensor/from_dlpack.hpp"

namespace {

namespace ar = zt::arrow;
namespace dl = zt::dlpack;

/// 4096 float32 values; releases are counted so each struct can be handed over again. Both
/// sides hand over a fresh struct per import, as a producer of a stream does (an Arrow
/// import moves the struct out; a DLPack one ends it with the deleter).
struct Producer {
  std::vector<float> memory = std::vector<float>(4096, 1.0f);
  std::int64_t released = 0;

  // DLPack: shape (4096,), (64, 64) or (64, 8, 8), the shapes of the Arrow imports below.
  std::int64_t shape1[1] = {4096};
  std::int64_t shape2[2] = {64, 64};
  std::int64_t strides2[2] = {64, 1};
  std::int64_t shape3[3] = {64, 8, 8};
  std::int64_t strides3[3] = {64, 8, 1};

  dl::ManagedTensorVersioned dlpack(int rank) {
    dl::ManagedTensorVersioned m{};
    m.version = {1, 1};
    m.dl_tensor.data = memory.data();
    m.dl_tensor.device = {dl::DeviceType::CPU, 0};
    m.dl_tensor.ndim = rank;
    m.dl_tensor.dtype = {2, 32, 1};
    m.dl_tensor.shape = rank == 1 ? shape1 : rank == 2 ? shape2 : shape3;
    m.dl_tensor.strides = rank == 1 ? nullptr : rank == 2 ? strides2 : strides3;
    m.manager_ctx = this;
    m.deleter = [](dl::ManagedTensorVersioned* self) { ++static_cast<Producer*>(self->manager_ctx)->released; };
    return m;
  }

  // Arrow: a float32 array of 4096, and 64 rows of an 8 x 8 fixed_shape_tensor over it.
  const void* buffers[2] = {nullptr, memory.data()};
  const void* list_buffers[1] = {nullptr};
  ar::Array leaf{4096, 0, 0, 2, 0, buffers, nullptr, nullptr, &release_child, nullptr};
  ar::Array* leaf_ptr = &leaf;
  static void release_child(ar::Array* self) { self->release = nullptr; }
  static void release_array(ar::Array* self) {
    if (self->n_children > 0) self->children[0]->release = nullptr;
    ++static_cast<Producer*>(self->private_data)->released;
    self->release = nullptr;
  }
  ar::Array primitive() { return {4096, 0, 0, 2, 0, buffers, nullptr, nullptr, &release_array, this}; }
  ar::Array tensor() {
    leaf.release = &release_child;
    return {64, 0, 0, 1, 1, list_buffers, &leaf_ptr, nullptr, &release_array, this};
  }

  static void release_schema(ar::Schema* self) { self->release = nullptr; }
  ar::Schema float_schema{"f", nullptr, nullptr, 0, 0, nullptr, nullptr, &release_schema, nullptr};
  ar::Schema* float_ptr = &float_schema;
  std::string metadata = zt_test::arrow_metadata(
      {{"ARROW:extension:name", "arrow.fixed_shape_tensor"}, {"ARROW:extension:metadata", R"({"shape":[8,8]})"}});
  ar::Schema tensor_schema{"+w:64", nullptr, metadata.c_str(), 0, 1, &float_ptr, nullptr, &release_schema, nullptr};
};

void BM_dlpack_import_1d(benchmark::State& state) {
  Producer producer;
  for (auto _ : state) {
    auto managed = producer.dlpack(1);
    zt::AnyTensor view = zt::from_dlpack(&managed);
    benchmark::DoNotOptimize(view.data_ptr());
  }
  if (producer.released != std::int64_t(state.iterations())) state.SkipWithError("deleter count is wrong");
}

void BM_dlpack_import_2d(benchmark::State& state) {
  Producer producer;
  for (auto _ : state) {
    auto managed = producer.dlpack(2);
    zt::AnyTensor view = zt::from_dlpack(&managed);
    benchmark::DoNotOptimize(view.data_ptr());
  }
  if (producer.released != std::int64_t(state.iterations())) state.SkipWithError("deleter count is wrong");
}

void BM_dlpack_import_3d(benchmark::State& state) {
  Producer producer;
  for (auto _ : state) {
    auto managed = producer.dlpack(3);
    zt::AnyTensor view = zt::from_dlpack(&managed);
    benchmark::DoNotOptimize(view.data_ptr());
  }
  if (producer.released != std::int64_t(state.iterations())) state.SkipWithError("deleter count is wrong");
}

void BM_arrow_import_1d(benchmark::State& state) {
  Producer producer;
  for (auto _ : state) {
    ar::Array array = producer.primitive();
    zt::AnyTensor view = zt::from_arrow(&array, producer.float_schema);
    benchmark::DoNotOptimize(view.data_ptr());
  }
  if (producer.released != std::int64_t(state.iterations())) state.SkipWithError("release count is wrong");
}

void BM_arrow_import_1d_schema_taken(benchmark::State& state) {
  Producer producer;
  for (auto _ : state) {
    ar::Array array = producer.primitive();
    ar::Schema schema = producer.float_schema;
    zt::AnyTensor view = zt::from_arrow(&array, &schema);
    benchmark::DoNotOptimize(view.data_ptr());
  }
  if (producer.released != std::int64_t(state.iterations())) state.SkipWithError("release count is wrong");
}

void BM_arrow_import_fixed_shape_tensor(benchmark::State& state) {
  Producer producer;
  for (auto _ : state) {
    ar::Array array = producer.tensor();
    zt::AnyTensor view = zt::from_arrow(&array, producer.tensor_schema);
    benchmark::DoNotOptimize(view.data_ptr());
  }
  if (producer.released != std::int64_t(state.iterations())) state.SkipWithError("release count is wrong");
}

/// The same storage without the extension: FixedSizeList<float, 64>, shape (64, 64).
void BM_arrow_import_fixed_size_list(benchmark::State& state) {
  Producer producer;
  const ar::Schema schema{"+w:64", nullptr, nullptr, 0, 1, &producer.float_ptr, nullptr, &Producer::release_schema,
                          nullptr};
  for (auto _ : state) {
    ar::Array array = producer.tensor();
    zt::AnyTensor view = zt::from_arrow(&array, schema);
    benchmark::DoNotOptimize(view.data_ptr());
  }
  if (producer.released != std::int64_t(state.iterations())) state.SkipWithError("release count is wrong");
}

/// A record batch of `columns` float32 columns of 4 rows, named c0, c1, …: the structs are
/// built once and handed over again each time (their releases only mark them released).
struct Batch {
  std::vector<float> memory = std::vector<float>(4, 1.0f);
  const void* buffers[2] = {nullptr, memory.data()};
  const void* struct_buffers[1] = {nullptr};
  std::vector<std::string> names;
  std::vector<ar::Array> columns;
  std::vector<ar::Array*> column_ptrs;
  std::vector<ar::Schema> fields;
  std::vector<ar::Schema*> field_ptrs;

  static void release_array(ar::Array* self) { self->release = nullptr; }
  static void release_schema(ar::Schema* self) { self->release = nullptr; }

  explicit Batch(std::int64_t count) : names(std::size_t(count)), columns(std::size_t(count)), fields(std::size_t(count)) {
    for (std::size_t c = 0; c < names.size(); ++c) {
      names[c] = "c" + std::to_string(c);
      columns[c] = {4, 0, 0, 2, 0, buffers, nullptr, nullptr, &release_array, nullptr};
      fields[c] = {"f", names[c].c_str(), nullptr, 0, 0, nullptr, nullptr, &release_schema, nullptr};
      column_ptrs.push_back(&columns[c]);
      field_ptrs.push_back(&fields[c]);
    }
  }
  ar::Array array() {
    for (ar::Array& column : columns) column.release = &release_array;
    return {4, 0, 0, 1, std::int64_t(columns.size()), struct_buffers, column_ptrs.data(), nullptr, &release_array, nullptr};
  }
  ar::Schema schema() {
    for (ar::Schema& field : fields) field.release = &release_schema;
    return {"+s", nullptr, nullptr, 0, std::int64_t(fields.size()), field_ptrs.data(), nullptr, &release_schema, nullptr};
  }
};

/// from_arrow_record_batch and at(name) of every column, at 2,000 and 16,000 columns: the
/// ratio of the two is 8 where both are linear in the column count.
void BM_arrow_record_batch(benchmark::State& state) {
  Batch batch(state.range(0));
  for (auto _ : state) {
    ar::Array array = batch.array();
    ar::Schema schema = batch.schema();
    const zt::RecordBatchTensors tensors = zt::from_arrow_record_batch(&array, &schema);
    for (const std::string& name : batch.names) benchmark::DoNotOptimize(tensors.at(name).data_ptr());
  }
}

BENCHMARK(BM_arrow_record_batch)->Arg(2000)->Arg(16000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_dlpack_import_1d);
BENCHMARK(BM_arrow_import_1d);
BENCHMARK(BM_arrow_import_1d_schema_taken);
BENCHMARK(BM_dlpack_import_2d);
BENCHMARK(BM_arrow_import_fixed_size_list);
BENCHMARK(BM_dlpack_import_3d);
BENCHMARK(BM_arrow_import_fixed_shape_tensor);

}  // namespace

int main(int argc, char** argv) {
  return zt_bench::run(argc, argv,
                       {{"BM_arrow_import_1d", "BM_dlpack_import_1d"},
                        {"BM_arrow_import_1d_schema_taken", "BM_dlpack_import_1d"},
                        {"BM_arrow_import_fixed_size_list", "BM_dlpack_import_2d"},
                        {"BM_arrow_import_fixed_shape_tensor", "BM_dlpack_import_3d"},
                        {"BM_arrow_record_batch/16000", "BM_arrow_record_batch/2000"}});
}
