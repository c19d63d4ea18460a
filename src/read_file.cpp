#include "read_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>

#include "concat.hpp"
#include "file_io.hpp"
#include "zerotensor/error.hpp"
#include "zerotensor/storage.hpp"

namespace zt::detail {
namespace {

/// Closes the descriptor on every path out of read_file.
struct FileDescriptor {
  int fd;
  ~FileDescriptor() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

Buffer read_file(PathRef path) {
  // Messages are built only on failure: a small file reads in a few microseconds.
  const auto context = [&] { return concat("unable to open file <", path.c_str(), "> in read-only mode"); };
  const auto fail_to_open = [&](int os_error) { throw_io_error(context(), os_error); };
  const FileDescriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) fail_to_open(errno);

  // One pread into a page-sized buffer reads a small file whole (a read that stops short
  // has met the end); only a larger file is sized with fstat, a system call that costs as
  // much as the read. A directory fails that first read with EISDIR.
  std::array<std::byte, 4096> first;
  ssize_t got = 0;
  do got = ::pread(file.fd, first.data(), first.size(), 0);
  while (got < 0 && errno == EINTR);
  if (got < 0) fail_to_open(errno);
  auto size = std::size_t(got);
  if (size == first.size()) {
    struct ::stat status {};
    if (::fstat(file.fd, &status) != 0) fail_to_open(errno);
    if (!S_ISREG(status.st_mode)) throw IOError(concat(context(), ": not a regular file"));
    size = std::max(size, std::size_t(status.st_size));
  }

  std::shared_ptr<std::byte> memory = allocate_bytes(size);
  std::copy_n(first.data(), std::min(size, first.size()), memory.get());
  for (std::size_t done = first.size(); done < size;) {
    got = ::pread(file.fd, memory.get() + done, size - done, off_t(done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      const int os_error = errno;
      throw_io_error(concat("unable to read ", size, " bytes from file <", path.c_str(), ">"), os_error);
    }
    if (got == 0)
      throw IOError(concat("unable to read ", size, " bytes from file <", path.c_str(), ">: it ends after ", done));
    done += std::size_t(got);
  }
  std::byte* data = memory.get();
  return Buffer(data, size, std::move(memory));
}

}  // namespace zt::detail
