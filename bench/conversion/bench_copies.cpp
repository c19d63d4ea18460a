// The copies a user makes (contiguous, strided, converting), each timed in one loop with its floors (ratio.hpp's paired
// benchmarks): memcpy of the output bytes, memcpy of the bytes the source spans where the
// copy reads more than it writes, and, where libtorch is found, the same copy by
// libtorch's copy_ / .contiguous(), on one thread (ZT_BENCH_TORCH_THREADS=0: its default).
// copy_ writes into the same memory as copy_into, so that both sides store to the same
// alignment and pages.
//   conversions of 1e6 elements: float32 → int32, float32 → float16, float16 → float32
//   one column: shape (1e6, 1), strides (2, 1), float32, copied into a fresh (1e6, 1)
//   clone() of a transposed 4096 x 4096 float32
//   copy_into from the even to the odd columns of one 4096 x 4096 float32 buffer (disjoint)
//   load_npy(copy = true) of a 1 KB file, against open + pread of the same file, on 1 and 2
//   threads (each thread times both in turn); the same for load_safetensors(copy = true) of a
//   1 KB file on 1 thread
//   ToOptions::threads: the transposed clone, a 1.5 MiB one (just above one thread's MiB)
//   and float32 -> int32 of 4e6 elements on 2 threads against the same copy on 1
#include <benchmark/benchmark.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "../ratio.hpp"
#include "zerotensor/convert.hpp"
#include "zerotensor/npy.hpp"
#include "zerotensor/safetensors.hpp"

#if ZT_HAVE_TORCH
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#endif

namespace {

/// One row: a zerotensor copy, its output's byte count, whether it writes fresh memory
/// (clone) or memory written before (copy_into), and (with libtorch) the same copy. Where
/// the copy must read more bytes than it writes (the cache lines its source spans), memcpy
/// of that many bytes is a second floor.
struct Row {
  std::string name;
  std::function<void()> zerotensor;
  std::size_t output_bytes;
  bool fresh_output;
  std::function<void()> torch;
  std::size_t source_span_bytes = 0;
};

template <class T>
std::vector<T> filled(std::size_t n) {
  std::vector<T> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = T(float(i % 1000) - 500.5f);
  return values;
}

constexpr zt::index_t million = 1'000'000;
constexpr zt::index_t side = 4096;

#if ZT_HAVE_TORCH
template <class T>
at::ScalarType torch_type() {
  if constexpr (std::is_same_v<T, Eigen::half>) return at::kHalf;
  else return at::CppTypeToScalarType<T>::value;
}
#endif

template <class From, class To>
Row conversion(const std::string& name) {
  static std::vector<From> in = filled<From>(million);
  static std::vector<To> out(million);
  Row row{name, [] { zt::copy_into(zt::Tensor<From, 1>(in.data(), {million}, {1}), zt::Tensor<To, 1>(out.data(), {million}, {1})); },
          million * sizeof(To), false, nullptr, million * sizeof(From)};
#if ZT_HAVE_TORCH
  row.torch = [] {
    static at::Tensor source = at::from_blob(in.data(), {million}, torch_type<From>());
    static at::Tensor destination = at::from_blob(out.data(), {million}, torch_type<To>());
    destination.copy_(source);
  };
#endif
  return row;
}

Row column() {
  static std::vector<float> in = filled<float>(2 * million);
  static std::vector<float> out(million);
  Row row{"column_n1_strides_2_1",
          [] { zt::copy_into(zt::Tensor<float, 2>(in.data(), {million, 1}, {2, 1}), zt::Tensor<float, 2>(out.data(), {million, 1}, {1, 1})); },
          million * sizeof(float), false, nullptr, 2 * million * sizeof(float)};
#if ZT_HAVE_TORCH
  row.torch = [] {
    static at::Tensor source = at::from_blob(in.data(), {million, 1}, {2, 1}, at::kFloat);
    static at::Tensor destination = at::from_blob(out.data(), {million, 1}, at::kFloat);
    destination.copy_(source);
  };
#endif
  return row;
}

Row transposed_clone() {
  static std::vector<float> in = filled<float>(side * side);
  Row row{"clone_transposed_4096",
          [] {
            zt::AnyTensor copy = zt::AnyTensor(zt::Tensor<float, 2>(in.data(), {side, side}, {1, side})).clone();
            benchmark::DoNotOptimize(copy.data_ptr());
          },
          side * side * sizeof(float), true, nullptr};
#if ZT_HAVE_TORCH
  row.torch = [] {
    static at::Tensor source = at::from_blob(in.data(), {side, side}, at::kFloat).t();
    at::Tensor copy = source.contiguous();
    benchmark::DoNotOptimize(copy.data_ptr());
  };
#endif
  return row;
}

Row even_to_odd_columns() {
  static std::vector<float> buffer = filled<float>(side * side);
  Row row{"copy_into_even_to_odd_columns_4096",
          [] {
            zt::copy_into(zt::Tensor<float, 2>(buffer.data(), {side, side / 2}, {side, 2}),
                          zt::Tensor<float, 2>(buffer.data() + 1, {side, side / 2}, {side, 2}));
          },
          side * side / 2 * sizeof(float), false, nullptr, side * side * sizeof(float)};
#if ZT_HAVE_TORCH
  row.torch = [] {
    static at::Tensor all = at::from_blob(buffer.data(), {side, side}, at::kFloat);
    static at::Tensor even = all.slice(1, 0, side, 2), odd = all.slice(1, 1, side, 2);
    odd.copy_(even);
  };
#endif
  return row;
}

/// A 1 KB .npy file (float32), written once.
const std::string& small_npy() {
  static const std::string path = [] {
    const std::string file = (std::filesystem::temp_directory_path() / "zt_bench_copies_1k.npy").string();
    std::vector<float> values = filled<float>(224);  // 896 data bytes after a 128-byte header
    zt::save_npy(file, zt::Tensor<float, 1>(values.data(), {224}, {1}));
    return file;
  }();
  return path;
}

/// A 1 KB .safetensors file (one float32 tensor), written once.
const std::string& small_safetensors() {
  static const std::string path = [] {
    const std::string file = (std::filesystem::temp_directory_path() / "zt_bench_copies_1k.safetensors").string();
    std::vector<float> values = filled<float>(240);  // 960 data bytes after a header of about 70
    zt::save_safetensors(file, {{"x", zt::Tensor<float, 1>(values.data(), {240}, {1})}});
    return file;
  }();
  return path;
}

void open_pread(const std::string& path, std::size_t bytes) {
  thread_local std::vector<char> into(1 << 16);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  benchmark::DoNotOptimize(::pread(fd, into.data(), bytes, 0));
  ::close(fd);
}

/// The floor of a row: its output's bytes copied into fresh memory (as clone writes) or
/// into memory written before (as copy_into does).
void copy_bytes(std::size_t bytes, bool fresh) {
  static std::vector<char> from(std::size_t(side * side * sizeof(float))), written(from.size());
  const std::unique_ptr<char[]> to(fresh ? new char[bytes] : nullptr);
  std::memcpy(fresh ? to.get() : written.data(), from.data(), bytes);
  benchmark::DoNotOptimize(fresh ? to.get() : written.data());
}

/// A copy on `threads` threads (ToOptions::threads) of a view made once.
std::function<void()> clone_on_threads(const zt::AnyTensor& source, unsigned threads) {
  return [source, threads] {
    zt::AnyTensor copy = source.clone({.threads = threads});
    benchmark::DoNotOptimize(copy.data_ptr());
  };
}

std::function<void()> convert_on_threads(const zt::AnyTensor& source, const zt::AnyTensor& destination,
                                         unsigned threads) {
  return [source, destination, threads] { zt::copy_into(source, destination, {.threads = threads}); };
}

/// The rows of ToOptions::threads: each copy on 2 threads against the same copy on 1.
void register_threads(std::vector<zt_bench::Comparison>& comparisons) {
  static std::vector<float> in = filled<float>(side * side);
  static std::vector<std::int32_t> out(side * side);
  const zt::AnyTensor transposed = zt::Tensor<float, 2>(in.data(), {side, side}, {1, side});
  constexpr zt::index_t small = 627;  // 627^2 float32: 1.5 MiB, 2 threads at 1 MiB each
  const zt::AnyTensor small_transposed = zt::Tensor<float, 2>(in.data(), {small, small}, {1, small});
  const zt::AnyTensor floats = zt::Tensor<float, 1>(in.data(), {4 * million}, {1});
  const zt::AnyTensor ints = zt::Tensor<std::int32_t, 1>(out.data(), {4 * million}, {1});
  const struct {
    std::string name;
    std::function<void()> two, one;
  } rows[] = {{"clone_transposed_4096", clone_on_threads(transposed, 2), clone_on_threads(transposed, 1)},
              {"clone_transposed_627", clone_on_threads(small_transposed, 2), clone_on_threads(small_transposed, 1)},
              {"f32_to_i32_4e6", convert_on_threads(floats, ints, 2), convert_on_threads(floats, ints, 1)}};
  for (const auto& row : rows)
    zt_bench::register_paired(comparisons, "BM_" + row.name + "_2_threads_vs_1", "the same copy on 1 thread", row.two,
                              row.one)
        ->Unit(benchmark::kMillisecond);
}

}  // namespace

int main(int argc, char** argv) {
#if ZT_HAVE_TORCH
  // libtorch on one thread unless ZT_BENCH_TORCH_THREADS says otherwise (0: its default).
  const char* threads = std::getenv("ZT_BENCH_TORCH_THREADS");
  if (threads == nullptr || std::atoi(threads) != 0) at::set_num_threads(threads == nullptr ? 1 : std::atoi(threads));
#endif
  std::vector<zt_bench::Comparison> comparisons;
  const std::vector<Row> rows = {conversion<float, std::int32_t>("f32_to_i32_1e6"),
                                 conversion<float, Eigen::half>("f32_to_f16_1e6"),
                                 conversion<Eigen::half, float>("f16_to_f32_1e6"),
                                 column(),
                                 transposed_clone(),
                                 even_to_odd_columns()};
  for (const Row& row : rows) {
    const std::size_t bytes = row.output_bytes;
    const bool fresh = row.fresh_output;
    zt_bench::register_paired(comparisons, "BM_" + row.name + "_vs_memcpy", "memcpy of the output",
                              row.zerotensor, [bytes, fresh] { copy_bytes(bytes, fresh); })
        ->Unit(benchmark::kMillisecond);
    const std::size_t span = row.source_span_bytes;
    if (span > bytes)
      zt_bench::register_paired(comparisons, "BM_" + row.name + "_vs_memcpy_of_source_span",
                                "memcpy of the source's span", row.zerotensor, [span] { copy_bytes(span, false); })
          ->Unit(benchmark::kMillisecond);
#if ZT_HAVE_TORCH
    const std::string label = "torch_" + std::to_string(at::get_num_threads()) + "_threads";
    zt_bench::register_paired(comparisons, "BM_" + row.name + "_vs_" + label, label, row.zerotensor, row.torch)
        ->Unit(benchmark::kMillisecond);
#endif
  }
  const std::string& npy = small_npy();
  const auto load_npy_copy = [&npy] {
    zt::AnyTensor loaded = zt::load_npy(npy, {.copy = true});
    benchmark::DoNotOptimize(loaded.data_ptr());
  };
  const auto open_pread_npy = [&npy] { open_pread(npy, 1024); };
  zt_bench::register_paired(comparisons, "BM_load_npy_copy_1k_vs_open_pread", "open + pread", load_npy_copy,
                            open_pread_npy);
  zt_bench::register_paired(comparisons, "BM_load_npy_copy_1k_2_threads", "open + pread", load_npy_copy,
                            open_pread_npy, 2);
  const std::string& safetensors = small_safetensors();
  zt_bench::register_paired(
      comparisons, "BM_load_safetensors_copy_1k_vs_open_pread", "open + pread",
      [&safetensors] {
        zt::SafetensorsFile loaded = zt::load_safetensors(safetensors, {.copy = true});
        benchmark::DoNotOptimize(&loaded);
      },
      [&safetensors] { open_pread(safetensors, 1024); });
  register_threads(comparisons);
  const int status = zt_bench::run(argc, argv, comparisons);
  std::filesystem::remove(npy);
  std::filesystem::remove(safetensors);
  return status;
}
