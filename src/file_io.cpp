#include "concat.hpp"
#include "file_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <random>
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

/// The file a save replaces: the target of a symbolic link rather than the link itself.
std::filesystem::path replaced_file(const std::filesystem::path& path) {
  std::error_code error;
  if (std::filesystem::is_symlink(std::filesystem::symlink_status(path, error)))
    return std::filesystem::weakly_canonical(path);
  return path;
}

/// A name no other save (of this or another process) is using, beside `target`.
std::filesystem::path temporary_name(const std::filesystem::path& target) {
  static std::atomic<unsigned> counter{0};
  thread_local std::minstd_rand random(std::random_device{}());
  std::filesystem::path name = target;
  name += concat(".", ::getpid(), ".", counter.fetch_add(1, std::memory_order_relaxed), ".", random(), ".tmp");
  return name;
}

/// A new file beside the target, written completely and flushed to disk before it takes
/// the target's name: readers of the old file (and its mappings) keep the old contents,
/// and a failed save leaves the old file as it was. Removed unless committed.
class TemporaryFile {
 public:
  explicit TemporaryFile(const std::filesystem::path& target) : target_(target) {
    do {
      path_ = temporary_name(target_);
      fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    } while (fd_ < 0 && errno == EEXIST);
    if (fd_ < 0) throw_io_error(concat("unable to open file <", target_.native(), "> for writing"), errno);
  }
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  ~TemporaryFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_) ::unlink(path_.c_str());
  }

  void write(std::span<const std::byte> bytes) {
    while (!bytes.empty()) {
      const ssize_t written = ::write(fd_, bytes.data(), bytes.size());
      if (written < 0 && errno == EINTR) continue;
      if (written < 0) fail("unable to write to file", errno);
      bytes = bytes.subspan(std::size_t(written));
    }
  }

  /// Gives the file the permissions of the file it replaces, flushes it, and renames it
  /// over the target; then flushes the directory so the new name survives a crash.
  void commit() {
    struct ::stat replaced {};
    if (::stat(target_.c_str(), &replaced) == 0 && ::fchmod(fd_, replaced.st_mode & 07777) != 0)
      fail("unable to set the permissions of file", errno);
    if (::fsync(fd_) != 0) fail("unable to flush file", errno);
    // close() reports errors that delayed writes (NFS, full disks) found.
    if (::close(std::exchange(fd_, -1)) != 0) fail("unable to close file", errno);
    if (::rename(path_.c_str(), target_.c_str()) != 0) fail("unable to rename the temporary file over", errno);
    committed_ = true;
    sync_directory();
  }

 private:
  [[noreturn]] void fail(std::string_view operation, int os_error) const {
    throw_io_error(concat(operation, " <", target_.native(), "> (saving through <", path_.native(), ">)"), os_error);
  }

  void sync_directory() const {
    const std::filesystem::path directory = target_.has_parent_path() ? target_.parent_path() : ".";
    const int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;  // the file is in place; only its durability across a crash is unconfirmed
    ::fsync(fd);
    ::close(fd);
  }

  std::filesystem::path target_;
  std::filesystem::path path_;
  int fd_ = -1;
  bool committed_ = false;
};

}  // namespace

void write_file(PathRef path, const std::vector<std::span<const std::byte>>& parts) {
  TemporaryFile file(replaced_file(path.c_str()));
  for (std::span<const std::byte> part : parts) file.write(part);
  file.commit();
}

}  // namespace zt::detail
