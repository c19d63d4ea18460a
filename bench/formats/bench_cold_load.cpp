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

#include "../cold_reads.hpp"
#include "../ratio.hpp"
#include "zerotensor/empty.hpp"
#include "zerotensor/safetensors.hpp"

namespace {

constexpr std::size_t file_bytes = std::size_t{256} << 20;

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

void load_cold(bool direct) {
  zt_bench::drop_cached_pages({&cold_file(), 1});
  zt::SafetensorsFile file = zt::load_safetensors(cold_file(), {.copy = true, .direct = direct});
  benchmark::DoNotOptimize(file.at("weights").data_ptr());
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<zt_bench::Comparison> comparisons;
  const std::string floor = "O_DIRECT preads of 8 MiB (dd)";
  zt_bench::register_paired(comparisons, "BM_cold_load_copy_direct", floor, [] { load_cold(true); },
                            [] { zt_bench::read_direct_in_8_mib({&cold_file(), 1}); })
      ->Unit(benchmark::kMillisecond);
  zt_bench::register_paired(comparisons, "BM_cold_load_copy_page_cache", floor, [] { load_cold(false); },
                            [] { zt_bench::read_direct_in_8_mib({&cold_file(), 1}); })
      ->Unit(benchmark::kMillisecond);
  return zt_bench::run(argc, argv, comparisons);
}
