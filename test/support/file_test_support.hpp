// Shared by the file-backed suites (from_file, npy, safetensors): a fresh temporary
// directory per test, byte-level file helpers, and the message check.
#pragma once

#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "support/message_check.hpp"
#include "zerotensor/buffer.hpp"
#include "zerotensor/storage.hpp"

namespace zt_test {

/// A directory of its own under the system temp dir, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "zerotensor-test-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all, ignored);
    std::filesystem::remove_all(path_, ignored);
  }
  [[nodiscard]] std::filesystem::path operator/(const std::string& name) const { return path_ / name; }
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// A copy of `bytes` starting `shift` bytes into 64-byte aligned memory of its own, which is
/// the buffer's owner.
inline zt::Buffer aligned_buffer(const std::vector<std::uint8_t>& bytes, std::size_t shift = 0) {
  std::shared_ptr<std::byte> memory = zt::allocate_bytes(bytes.size() + shift);
  std::byte* start = memory.get() + shift;
  std::memcpy(start, bytes.data(), bytes.size());
  return zt::Buffer(static_cast<void*>(start), bytes.size(), std::move(memory));
}

/// A writable buffer holding `bytes`, whose owner counts in `deletions` how often it was deleted.
inline zt::Buffer counted_buffer(const std::vector<std::uint8_t>& bytes, int& deletions) {
  auto* memory = new std::vector<std::uint8_t>(bytes);
  zt::KeepAlive owner(memory, [&deletions](std::vector<std::uint8_t>* held) {
    ++deletions;
    delete held;
  });
  return zt::Buffer(static_cast<void*>(memory->data()), memory->size(), std::move(owner));
}

inline void write_bytes(const std::filesystem::path& path, const std::vector<std::uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

inline void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

/// Drops the file's pages from the page cache (written out first), so that the next load reads it.
inline void drop_from_page_cache(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  BOOST_TEST_REQUIRE(fd >= 0);
  ::fdatasync(fd);
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
}

/// How many of the file's pages are in the page cache.
inline std::size_t cached_pages(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  BOOST_TEST_REQUIRE(fd >= 0);
  const auto size = std::size_t(std::filesystem::file_size(path));
  void* mapping = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  BOOST_TEST_REQUIRE(mapping != MAP_FAILED);
  const auto page = std::size_t(::sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> resident((size + page - 1) / page);
  BOOST_TEST_REQUIRE(::mincore(mapping, size, resident.data()) == 0);
  ::munmap(mapping, size);
  std::size_t count = 0;
  for (const unsigned char flags : resident) count += flags & 1u;
  return count;
}

inline std::vector<std::uint8_t> read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// The bytes 1, 2, ..., 8, as the FF cases write to f8.bin.
inline std::vector<std::uint8_t> one_to_eight() { return {1, 2, 3, 4, 5, 6, 7, 8}; }

inline std::filesystem::path data_file(const std::string& relative) {
  return std::filesystem::path(ZT_TEST_DATA_DIR) / relative;
}

/// Whether the test runs with root's privileges, which bypass file permissions.
inline boost::test_tools::assertion_result not_root(boost::unit_test::test_unit_id) {
  boost::test_tools::assertion_result result(::geteuid() != 0);
  result.message() << "skipped: running as root, which may write any file";
  return result;
}

}  // namespace zt_test
