// Cold loads: load_safetensors(copy = true) of a 256 MiB file whose pages were just dropped from
// the page cache (posix_fadvise DONTNEED before every load), read with O_DIRECT (direct = true)
// and through the page cache, each timed in one loop with the disk's floor: the same file
// read with O_DIRECT in 8 MiB preads into one buffer, as `dd iflag=direct bs=8M` reads it.
#include <benchmark/benchmark.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "../ratio.hpp"
#include "zerotensor/empty.hpp"
#include "zerotensor/safetensors.hpp"

namespace {

constexpr std::size_t file_bytes = std::size_t{256} << 20;
constexpr std::size_t floor_read_bytes = std::size_t{8} << 20;

/// The benchmark file in a temporary directory of its own, removed with it.
struct ColdFile {
  std::filesystem::path directory, path;
  ColdFile() {
    std::string pattern = (std::filesystem::temp_directory_path() / "zerotensor-bench-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) std::abort();
    directory = pattern;
    path = directory / "cold.safetensors";
    zt::AnyTensor weights = zt::empty(zt::DynamicExtents{zt::index_t(file_bytes / 4)}, zt::float32);
    auto* values = static_cast<float*>(weights.mutable_data_ptr());
    for (std::size_t i = 0; i < file_bytes / 4; ++i) values[i] = float(i % 4096);
    zt::save_safetensors(path, {{"weights", weights}});
  }
  ColdFile(const ColdFile&) = delete;
  ColdFile& operator=(const ColdFile&) = delete;
  ~ColdFile() {
    std::error_code ignored;
    std::filesystem::remove_all(directory, ignored);
  }
};

/// The file, written on first use.
const std::filesystem::path& cold_file() {
  static const ColdFile file;
  return file.path;
}

/// Drops the file's pages from the page cache, so that the next read comes from the disk.
void drop_cached_pages() {
  const int fd = ::open(cold_file().c_str(), O_RDONLY);
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
}

/// The disk's floor: the whole file in 8 MiB O_DIRECT preads into one aligned buffer.
void read_direct_in_8_mib() {
  drop_cached_pages();
  static const std::unique_ptr<std::byte, decltype(&std::free)> buffer(
      static_cast<std::byte*>(std::aligned_alloc(4096, floor_read_bytes)), &std::free);
  const int fd = ::open(cold_file().c_str(), O_RDONLY | O_DIRECT);
  if (fd < 0) std::abort();
  for (off_t offset = 0;; offset += off_t(floor_read_bytes)) {
    const ssize_t got = ::pread(fd, buffer.get(), floor_read_bytes, offset);
    if (got < 0) std::abort();
    benchmark::DoNotOptimize(buffer.get());
    if (std::size_t(got) < floor_read_bytes) break;
  }
  ::close(fd);
}

void load_cold(bool direct) {
  drop_cached_pages();
  zt::SafetensorsFile file = zt::load_safetensors(cold_file(), {.copy = true, .direct = direct});
  benchmark::DoNotOptimize(file.at("weights").data_ptr());
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<zt_bench::Comparison> comparisons;
  const std::string floor = "O_DIRECT preads of 8 MiB (dd)";
  zt_bench::register_paired(comparisons, "BM_cold_load_copy_direct", floor, [] { load_cold(true); },
                            read_direct_in_8_mib)
      ->Unit(benchmark::kMillisecond);
  zt_bench::register_paired(comparisons, "BM_cold_load_copy_page_cache", floor, [] { load_cold(false); },
                            read_direct_in_8_mib)
      ->Unit(benchmark::kMillisecond);
  return zt_bench::run(argc, argv, comparisons);
}
