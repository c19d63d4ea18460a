#include "file_io.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "zerotensor/error.hpp"

namespace zt::detail {

void throw_io_error(std::string_view context, int os_error) {
  throw IOError(concat(context, ": ", std::strerror(os_error), " (", os_error, ")"));
}

void throw_io_error(std::string_view context, int os_error, std::string_view message) {
  if (os_error != 0) throw_io_error(context, os_error);
  throw IOError(concat(context, ": ", message));
}

namespace {

class OutputFile {
 public:
  explicit OutputFile(const std::filesystem::path& path)
      : path_(path), fd_(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) {
    if (fd_ < 0) throw_io_error(concat("unable to open file <", path_.native(), "> for writing"), errno);
  }
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile() {
    if (fd_ >= 0) ::close(fd_);
  }

  void write(std::span<const std::byte> bytes) {
    while (!bytes.empty()) {
      const ssize_t written = ::write(fd_, bytes.data(), bytes.size());
      if (written < 0 && errno == EINTR) continue;
      if (written < 0) throw_io_error(concat("unable to write to file <", path_.native(), ">"), errno);
      bytes = bytes.subspan(std::size_t(written));
    }
  }

  /// close() reports errors that delayed writes (NFS, full disks) found.
  void close() {
    const int fd = std::exchange(fd_, -1);
    if (::close(fd) != 0) throw_io_error(concat("unable to close file <", path_.native(), ">"), errno);
  }

 private:
  const std::filesystem::path& path_;
  int fd_;
};

}  // namespace

void write_file(const std::filesystem::path& path, const std::vector<std::span<const std::byte>>& parts) {
  OutputFile file(path);
  for (std::span<const std::byte> part : parts) file.write(part);
  file.close();
}

}  // namespace zt::detail
