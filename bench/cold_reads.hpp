// Shared by the benchmarks of cold loads: files dropped from the page cache, and the disk's floor,
// the same files read with O_DIRECT in 8 MiB preads into one buffer, as `dd iflag=direct bs=8M`.
#pragma once

#include <benchmark/benchmark.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <span>

namespace zt_bench {

/// Drops the files' pages from the page cache (written back first), so that the next reads come
/// from the disk.
inline void drop_cached_pages(std::span<const std::filesystem::path> files) {
  for (const std::filesystem::path& path : files) {
    const int fd = ::open(path.c_str(), O_RDONLY);
    ::fdatasync(fd);
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    ::close(fd);
  }
}

/// The disk's floor: the files dropped from the page cache, then read with O_DIRECT in 8 MiB preads.
inline void read_direct_in_8_mib(std::span<const std::filesystem::path> files) {
  constexpr std::size_t read_bytes = std::size_t{8} << 20;
  drop_cached_pages(files);
  static const std::unique_ptr<std::byte, decltype(&std::free)> buffer(
      static_cast<std::byte*>(std::aligned_alloc(4096, read_bytes)), &std::free);
  for (const std::filesystem::path& path : files) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECT);
    if (fd < 0) std::abort();
    for (off_t offset = 0;; offset += off_t(read_bytes)) {
      const ssize_t got = ::pread(fd, buffer.get(), read_bytes, offset);
      if (got < 0) std::abort();
      benchmark::DoNotOptimize(buffer.get());
      if (std::size_t(got) < read_bytes) break;
    }
    ::close(fd);
  }
}

}  // namespace zt_bench
