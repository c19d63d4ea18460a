// File-backed tensors: from_file open + map + drop against a raw open/fstat/mmap/munmap of
// the same file (and libtorch's from_file when available), a hot-cache sum over a mapped
// file against the same sum over memory, and load_npy / load_safetensors open times for
// 1 MiB, 100 MiB and 1 GiB files against mapping the file and reading its first page (they
// must not grow with the size beyond what the kernel's mmap/munmap itself costs). Files
// live in a temporary directory removed at exit; the large ones are sparse, which mapping
// cannot tell apart.
#include <benchmark/benchmark.h>

#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "../ratio.hpp"
#include "zerotensor/from_file.hpp"
#include "zerotensor/npy.hpp"
#include "zerotensor/safetensors.hpp"

#if ZT_HAVE_TORCH
#include <ATen/ATen.h>
#endif

namespace {

constexpr std::int64_t mib = std::int64_t{1} << 20;
constexpr std::int64_t hot_file_mib = 64;  // beyond the last-level cache: a bandwidth-bound sum

/// The benchmark files, created on first use in one temporary directory.
class BenchFiles {
 public:
  static BenchFiles& instance() {
    static BenchFiles files;
    return files;
  }
  BenchFiles(const BenchFiles&) = delete;
  BenchFiles& operator=(const BenchFiles&) = delete;
  ~BenchFiles() { std::filesystem::remove_all(directory_); }

  /// `size_mib` MiB of zero bytes (sparse).
  const std::filesystem::path& raw(std::int64_t size_mib) {
    return cached(raw_, size_mib, "raw", [&](const std::filesystem::path& path) { write_sparse(path, "", size_mib * mib); });
  }

  /// A float32 .npy array of `size_mib` MiB.
  const std::filesystem::path& npy(std::int64_t size_mib) {
    return cached(npy_, size_mib, "npy", [&](const std::filesystem::path& path) {
      std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(size_mib * mib / 4) + ",), }";
      header.resize(128 - 10 - 1, ' ');
      header += '\n';
      const std::string preamble("\x93NUMPY\x01\x00\x76\x00", 10);  // header length 118
      write_sparse(path, preamble + header, 128 + size_mib * mib);
    });
  }

  /// A .safetensors file with one float32 tensor of `size_mib` MiB and a small one.
  const std::filesystem::path& safetensors(std::int64_t size_mib) {
    return cached(safetensors_, size_mib, "safetensors", [&](const std::filesystem::path& path) {
      const std::int64_t bytes = size_mib * mib;
      std::string header = R"({"__metadata__":{"format":"pt"},"bias":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},)"
                           R"("weight":{"dtype":"F32","shape":[)" + std::to_string(bytes / 4) +
                           R"(],"data_offsets":[16,)" + std::to_string(16 + bytes) + "]}}";
      header.resize((header.size() + 7) / 8 * 8, ' ');
      std::string prefix(8, '\0');
      for (int i = 0; i < 8; ++i) prefix[std::size_t(i)] = char((header.size() >> (8 * i)) & 0xFF);
      write_sparse(path, prefix + header, std::int64_t(prefix.size() + header.size()) + 16 + bytes);
    });
  }

  /// `hot_file_mib` MiB of float 1.0 values, written for real so the page cache holds them.
  const std::filesystem::path& hot() {
    return cached(hot_, hot_file_mib, "hot", [](const std::filesystem::path& path) {
      const std::vector<float> ones(std::size_t(hot_file_mib * mib / 4), 1.0f);
      std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(ones.data()), std::streamsize(hot_file_mib * mib));
    });
  }

 private:
  BenchFiles() {
    std::string pattern = (std::filesystem::temp_directory_path() / "zerotensor-bench-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    directory_ = pattern;
  }

  template <class Make>
  const std::filesystem::path& cached(std::map<std::int64_t, std::filesystem::path>& files, std::int64_t size_mib,
                                      const char* kind, Make make) {
    auto found = files.find(size_mib);
    if (found != files.end()) return found->second;
    auto path = directory_ / (std::string(kind) + "-" + std::to_string(size_mib) + "MiB");
    make(path);
    return files.emplace(size_mib, std::move(path)).first->second;
  }

  static void write_sparse(const std::filesystem::path& path, const std::string& prefix, std::int64_t size) {
    std::ofstream(path, std::ios::binary) << prefix;
    std::filesystem::resize_file(path, std::uintmax_t(size));
  }

  std::filesystem::path directory_;
  std::map<std::int64_t, std::filesystem::path> raw_, npy_, safetensors_, hot_;
};

/// The floor: what any mapping costs — open, fstat, mmap (private, as from_file's default), munmap, close.
void BM_raw_mmap(benchmark::State& state) {
  const auto& path = BenchFiles::instance().raw(state.range(0));
  const auto length = std::size_t(state.range(0) * mib);
  for (auto _ : state) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    struct ::stat status {};
    if (fd < 0 || ::fstat(fd, &status) != 0 || std::size_t(status.st_size) < length) state.SkipWithError("open");
    void* address = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    ::close(fd);
    benchmark::DoNotOptimize(address);
    ::munmap(address, length);
  }
}

/// The loaders' floor: map a whole .npy file read-only and read its first byte (the header).
void BM_raw_mmap_read_header(benchmark::State& state) {
  const auto& path = BenchFiles::instance().npy(state.range(0));
  for (auto _ : state) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    struct ::stat status {};
    if (fd < 0 || ::fstat(fd, &status) != 0) state.SkipWithError("open");
    const auto length = std::size_t(status.st_size);
    void* address = ::mmap(nullptr, length, PROT_READ, MAP_SHARED, fd, 0);
    ::close(fd);
    benchmark::DoNotOptimize(*static_cast<const volatile char*>(address));
    ::munmap(address, length);
  }
}

void BM_from_file(benchmark::State& state) {
  const auto& path = BenchFiles::instance().raw(state.range(0));
  const zt::index_t count = state.range(0) * mib / 4;
  for (auto _ : state) {
    zt::AnyTensor t = zt::from_file(path, {.size = count, .dtype = zt::float32});
    benchmark::DoNotOptimize(t.data_ptr());
  }
}

#if ZT_HAVE_TORCH
void BM_torch_from_file(benchmark::State& state) {
  const auto path = BenchFiles::instance().raw(state.range(0)).string();
  const std::int64_t count = state.range(0) * mib / 4;
  for (auto _ : state) {
    at::Tensor t = at::from_file(path, false, count, at::TensorOptions().dtype(at::kFloat));
    benchmark::DoNotOptimize(t.data_ptr());
  }
}
BENCHMARK(BM_torch_from_file)->Arg(1)->Arg(100)->Arg(1024);
#endif

void BM_sum_memory(benchmark::State& state) {
  const std::vector<float> ones(std::size_t(hot_file_mib * mib / 4), 1.0f);
  const Eigen::Map<const Eigen::ArrayXf> values(ones.data(), Eigen::Index(ones.size()));
  for (auto _ : state) benchmark::DoNotOptimize(values.sum());
  state.SetBytesProcessed(state.iterations() * hot_file_mib * mib);
}

/// The file is mapped once and its pages faulted in before timing: the page cache is hot.
void BM_sum_mapped(benchmark::State& state) {
  const auto t = zt::from_file(BenchFiles::instance().hot(), {.size = hot_file_mib * mib / 4, .dtype = zt::float32,
                                                              .writable = false})
                     .as<const float, 1>();
  benchmark::DoNotOptimize(t.array().sum());
  for (auto _ : state) benchmark::DoNotOptimize(t.array().sum());
  state.SetBytesProcessed(state.iterations() * hot_file_mib * mib);
}

void BM_load_npy(benchmark::State& state) {
  const auto& path = BenchFiles::instance().npy(state.range(0));
  for (auto _ : state) {
    zt::AnyTensor t = zt::load_npy(path);
    benchmark::DoNotOptimize(t.data_ptr());
  }
}

void BM_load_safetensors(benchmark::State& state) {
  const auto& path = BenchFiles::instance().safetensors(state.range(0));
  for (auto _ : state) {
    zt::SafetensorsFile file = zt::load_safetensors(path);
    benchmark::DoNotOptimize(file.tensors.begin()->second.data_ptr());
  }
}

}  // namespace

BENCHMARK(BM_raw_mmap)->Arg(1)->Arg(100)->Arg(1024);
BENCHMARK(BM_from_file)->Arg(1)->Arg(100)->Arg(1024);
BENCHMARK(BM_sum_memory)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_sum_mapped)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_raw_mmap_read_header)->Arg(1)->Arg(100)->Arg(1024);
BENCHMARK(BM_load_npy)->Arg(1)->Arg(100)->Arg(1024);
BENCHMARK(BM_load_safetensors)->Arg(1)->Arg(100)->Arg(1024);

int main(int argc, char** argv) {
  return zt_bench::run(argc, argv,
                       {
                           {"BM_from_file/1", "BM_raw_mmap/1"},
                           {"BM_from_file/100", "BM_raw_mmap/100"},
                           {"BM_from_file/1024", "BM_raw_mmap/1024"},
                           {"BM_from_file/1024", "BM_from_file/1"},
                           {"BM_torch_from_file/1", "BM_raw_mmap/1"},
                           {"BM_torch_from_file/1024", "BM_raw_mmap/1024"},
                           {"BM_sum_mapped", "BM_sum_memory"},
                           {"BM_raw_mmap_read_header/1024", "BM_raw_mmap_read_header/1"},
                           {"BM_load_npy/1", "BM_raw_mmap_read_header/1"},
                           {"BM_load_npy/1024", "BM_raw_mmap_read_header/1024"},
                           {"BM_load_npy/1024", "BM_load_npy/1"},
                           {"BM_load_safetensors/1", "BM_raw_mmap_read_header/1"},
                           {"BM_load_safetensors/1024", "BM_raw_mmap_read_header/1024"},
                           {"BM_load_safetensors/1024", "BM_load_safetensors/1"},
                       });
}
