#include "memory/read_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <optional>
#include <string>

#include "vocabulary/concat.hpp"
#include "memory/file_io.hpp"
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

}  // namespace

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
