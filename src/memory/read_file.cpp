#include "memory/read_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <optional>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "vocabulary/concat.hpp"
#include "memory/file_io.hpp"
#include "memory/staging_pool.hpp"
#include "zerotensor/error.hpp"
#include "zerotensor/storage.hpp"

namespace zt::detail {
namespace {

/// IOError when a read of the `size`-byte file at `path`, which got `got` bytes after the first
/// `before`, failed (-1, errno set) or stopped short.
void require_whole_read(ssize_t got, std::size_t before, std::size_t size, PathRef path) {
  if (got >= 0 && before + std::size_t(got) >= size) return;
  const int os_error = errno;
  const std::string failure = concat("unable to read ", size, " bytes from file <", path.c_str(), ">");
  if (got < 0) throw_io_error(failure, os_error);
  throw IOError(concat(failure, ": it ends after ", before + std::size_t(got)));
}

/// The unit of O_DIRECT's offsets, lengths and addresses on Linux file systems.
constexpr std::size_t direct_block = 4096;

/// The file read with O_DIRECT, where it is a regular file of direct_read_min_bytes or more and
/// its file system allows O_DIRECT (tmpfs does not); nullopt otherwise, and for a file that
/// cannot be opened, which the buffered read then reports.
std::optional<Buffer> read_directly(PathRef path) {
  const InputFile file(path, O_DIRECT);
  if (file.open_error() != 0) return std::nullopt;
  struct ::stat status {};
  if (::fstat(file.descriptor(), &status) != 0 || !S_ISREG(status.st_mode) ||
      std::size_t(status.st_size) < direct_read_min_bytes)
    return std::nullopt;
  const auto size = std::size_t(status.st_size);
  const std::size_t whole_blocks = (size + direct_block - 1) / direct_block * direct_block;
  std::shared_ptr<std::byte> memory = allocate_bytes(whole_blocks);  // aligned to 2 MiB
  const ssize_t got = file.read_full(0, {memory.get(), whole_blocks});
  if (got < 0 && errno == EINVAL) return std::nullopt;  // O_DIRECT refused by the read itself
  require_whole_read(got, 0, size, path);
  std::byte* data = memory.get();
  return Buffer(data, size, std::move(memory));
}

/// The bounce buffers of direct reads, each read whole blocks at a time. Idle ones are kept for
/// the next reads, up to one per hardware thread.
constexpr std::size_t bounce_bytes = std::size_t{4} << 20;
using Bounce = std::shared_ptr<std::byte>;

StagingPool<Bounce>& bounce_pool() {
  static StagingPool<Bounce> pool;
  return pool;
}

/// A bounce buffer from the pool (aligned to 2 MiB: allocate_bytes), given back when destroyed.
class PooledBounce {
 public:
  PooledBounce() : held_(bounce_pool().take(1, bounce_bytes, [](std::size_t bytes) { return allocate_bytes(bytes); })) {}
  ~PooledBounce() { bounce_pool().give_back(held_, bounce_bytes, std::max(std::thread::hardware_concurrency(), 1u)); }
  PooledBounce(const PooledBounce&) = delete;
  PooledBounce& operator=(const PooledBounce&) = delete;
  [[nodiscard]] std::byte* get() const { return held_.front().get(); }

 private:
  std::vector<Bounce> held_;
};

}  // namespace

DirectFile::DirectFile(PathRef path) : path_(path.c_str()), file_(path, O_DIRECT) {}

std::shared_ptr<const DirectFile> DirectFile::open(PathRef path) {
  auto direct = std::make_shared<const DirectFile>(path);
  struct ::stat status {};
  if (direct->file_.open_error() != 0 || ::fstat(direct->file_.descriptor(), &status) != 0 ||
      !S_ISREG(status.st_mode))
    return nullptr;
  const PooledBounce probe;  // some file systems open with O_DIRECT and refuse the read itself
  return direct->file_.read_some(0, {probe.get(), direct_block}) < 0 ? nullptr : direct;
}

void DirectFile::read(std::uint64_t offset, std::span<std::byte> out) const {
  const PooledBounce bounce;
  for (std::size_t done = 0; done < out.size();) {
    const std::uint64_t at = offset + done;
    const std::uint64_t start = at / direct_block * direct_block;
    const auto skip = std::size_t(at - start);
    const std::size_t wanted = std::min(out.size() - done, bounce_bytes - skip);
    const std::size_t blocks = (skip + wanted + direct_block - 1) / direct_block * direct_block;
    const ssize_t got = file_.read_full(start, {bounce.get(), blocks});
    if (got < 0 || std::size_t(got) < skip + wanted) {
      const int os_error = errno;
      const std::string failure =
          concat("unable to read ", out.size(), " bytes at offset ", offset, " of file <", path_, ">");
      if (got < 0) throw_io_error(failure, os_error);
      throw IOError(concat(failure, ": it ends after ", start + std::uint64_t(got)));
    }
    std::memcpy(out.data() + done, bounce.get() + skip, wanted);
    done += wanted;
  }
}

Buffer read_file(PathRef path, bool direct) {
  if (direct) {
    if (std::optional<Buffer> read = read_directly(path)) return std::move(*read);
  }
  // Messages are built only on failure: a small file reads in a few microseconds.
  const auto context = [&] { return concat("unable to open file <", path.c_str(), "> in read-only mode"); };
  const auto fail_to_open = [&](int os_error) { throw_io_error(context(), os_error); };
  const InputFile file(path);
  if (file.open_error() != 0) fail_to_open(file.open_error());

  // One pread into a page-sized buffer reads a small file whole (a read that stops short
  // has met the end); only a larger file is sized with fstat, a system call that costs as
  // much as the read. A directory fails that first read with EISDIR.
  std::array<std::byte, 4096> first;
  const ssize_t got = file.read_some(0, first);
  if (got < 0) fail_to_open(errno);
  auto size = std::size_t(got);
  if (size == first.size()) {
    struct ::stat status {};
    if (::fstat(file.descriptor(), &status) != 0) fail_to_open(errno);
    if (!S_ISREG(status.st_mode)) throw IOError(concat(context(), ": not a regular file"));
    size = std::max(size, std::size_t(status.st_size));
  }

  std::shared_ptr<std::byte> memory = allocate_bytes(size);
  std::copy_n(first.data(), std::min(size, first.size()), memory.get());
  if (size > first.size()) {
    const ssize_t rest = file.read_full(first.size(), {memory.get() + first.size(), size - first.size()});
    require_whole_read(rest, first.size(), size, path);
  }
  std::byte* data = memory.get();
  return Buffer(data, size, std::move(memory));
}

}  // namespace zt::detail
