#include "memory/file_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <random>
#include <string>
#include <utility>

#include "vocabulary/concat.hpp"
#include "zerotensor/error.hpp"

namespace zt::detail {

void throw_io_error(std::string_view context, int os_error) {
  throw IOError(concat(context, ": ", std::strerror(os_error), " (", os_error, ")"));
}

void throw_io_error(std::string_view context, int os_error, std::string_view message) {
  if (os_error != 0) throw_io_error(context, os_error);
  throw IOError(concat(context, ": ", message));
}

InputFile::InputFile(PathRef path, int flags) : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC | flags)) {
  if (fd_ < 0) open_error_ = errno;
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

ssize_t InputFile::read_some(std::uint64_t offset, std::span<std::byte> destination) const {
  ssize_t got = 0;
  do got = ::pread(fd_, destination.data(), destination.size(), off_t(offset));
  while (got < 0 && errno == EINTR);
  return got;
}

ssize_t InputFile::read_full(std::uint64_t offset, std::span<std::byte> destination) const {
  std::size_t done = 0;
  while (done < destination.size()) {
    const ssize_t got = read_some(offset + done, destination.subspan(done));
    if (got < 0) return got;
    if (got == 0) break;
    done += std::size_t(got);
  }
  return ssize_t(done);
}

namespace {

/// The file a save replaces: the target of a symbolic link rather than the link itself.
std::filesystem::path replaced_file(const std::filesystem::path& path) {
  std::error_code error;
  if (!std::filesystem::is_symlink(std::filesystem::symlink_status(path, error))) return path;
  std::filesystem::path target = std::filesystem::weakly_canonical(path, error);
  if (error) throw_io_error(concat("unable to resolve the symbolic link <", path.native(), "> to save through it"),
                            error.value());
  return target;
}

/// A name no other save (of this or another process) is using, beside `target`: the
/// target's name, shortened where needed to keep the whole within NAME_MAX, and a suffix.
std::filesystem::path temporary_name(const std::filesystem::path& target) {
  static std::atomic<unsigned> counter{0};
  thread_local std::minstd_rand random(std::random_device{}());
  const std::string suffix =
      concat(".", ::getpid(), ".", counter.fetch_add(1, std::memory_order_relaxed), ".", random(), ".tmp");
  const std::string name = target.filename().native().substr(0, NAME_MAX - suffix.size());
  return target.parent_path() / (name + suffix);
}

/// A new file beside the target, written completely and flushed to disk before it takes
/// the target's name: readers of the old file (and its mappings) keep the old contents,
/// and a failed save leaves the old file as it was. Where the filesystem allows, the file
/// has no name until it is complete (O_TMPFILE), so a killed save leaves nothing behind;
/// elsewhere it has a temporary name, removed unless committed. Either way only the owner
/// can read it while it is written: a new file gets 0666 less the umask (its final mode),
/// a replacing one 0600 until it takes the replaced file's owner and permissions.
class TemporaryFile {
 public:
  explicit TemporaryFile(const std::filesystem::path& target) : target_(target) {
    replaces_ = ::stat(target_.c_str(), &replaced_) == 0;
    const mode_t mode = replaces_ ? 0600 : 0666;
    if (open_unnamed(mode)) return;
    create_named([&](const char* name) { return fd_ = ::open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode); });
    if (fd_ < 0) fail_open(errno);
  }
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  ~TemporaryFile() {
    if (fd_ >= 0) ::close(fd_);
    if (named_ && !committed_) ::unlink(path_.c_str());
  }

  /// Writes `bytes` at byte `offset` of the file; from several threads at once for different bytes.
  void write_at(std::uint64_t offset, std::span<const std::byte> bytes) const {
    while (!bytes.empty()) {
      const ssize_t written = ::pwrite(fd_, bytes.data(), bytes.size(), off_t(offset));
      if (written < 0 && errno == EINTR) continue;
      if (written < 0) fail("unable to write to file", errno);
      bytes = bytes.subspan(std::size_t(written));
      offset += std::uint64_t(written);
    }
  }

  /// Gives the file the owner and permissions of the file it replaces, flushes it, names
  /// it and renames it over the target; then flushes the directory so the new name
  /// survives a crash.
  void commit() {
    if (replaces_) take_owner_and_mode();
    if (::fsync(fd_) != 0) fail("unable to flush file", errno);
    if (path_.empty()) give_name();
    // close() reports errors that delayed writes (NFS, full disks) found.
    if (::close(std::exchange(fd_, -1)) != 0) fail("unable to close file", errno);
    if (::rename(path_.c_str(), target_.c_str()) != 0) fail("unable to rename the temporary file over", errno);
    committed_ = true;
    sync_directory();
  }

 private:
  std::filesystem::path directory() const { return target_.has_parent_path() ? target_.parent_path() : "."; }

  /// Opens a file without a name (O_TMPFILE), which give_name names through /proc/self/fd
  /// once it is complete. False, with no file open, where the system cannot do that: the
  /// kernel or the file system refuses O_TMPFILE, or /proc is not mounted (a chroot, some
  /// containers); a named temporary file does the job there.
  bool open_unnamed(mode_t mode) {
    fd_ = ::open(directory().c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
    if (fd_ < 0) {
      // Kernels and file systems without O_TMPFILE say so with one of these.
      if (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL) return false;
      fail_open(errno);
    }
    if (::access(fd_link().c_str(), F_OK) == 0) return true;
    ::close(std::exchange(fd_, -1));
    return false;
  }

  /// The unnamed file's link in /proc, through which open(2) documents naming it.
  std::string fd_link() const { return concat("/proc/self/fd/", fd_); }

  [[noreturn]] void fail_open(int os_error) const {
    const std::string context = concat("unable to open file <", target_.native(), "> for writing");
    if (path_.empty()) throw_io_error(context, os_error);
    throw_io_error(concat(context, " (saving through <", path_.native(), ">)"), os_error);
  }

  /// Calls `create` with fresh temporary names until one is free. `path_` is the last
  /// name tried; `named_` says whether `create` made it (errno says why not).
  template <class Create>
  void create_named(Create create) {
    int result = -1;
    do {
      path_ = temporary_name(target_);
      result = create(path_.c_str());
    } while (result < 0 && errno == EEXIST);
    named_ = result >= 0;
  }

  /// The unnamed file's name, through its /proc/self/fd link as open(2) documents.
  void give_name() {
    const std::string link = fd_link();
    create_named([&](const char* name) { return ::linkat(AT_FDCWD, link.c_str(), AT_FDCWD, name, AT_SYMLINK_FOLLOW); });
    if (named_) return;
    const int os_error = errno;
    path_.clear();  // the name tried was never made: the message names the directory instead
    fail("unable to name the temporary file for", os_error);
  }

  /// Only root may give a file to another owner; chown before chmod, which it would undo.
  void take_owner_and_mode() {
    if (::geteuid() == 0 && ::fchown(fd_, replaced_.st_uid, replaced_.st_gid) != 0)
      fail("unable to set the owner of file", errno);
    if (::fchmod(fd_, replaced_.st_mode & 07777) != 0) fail("unable to set the permissions of file", errno);
  }

  [[noreturn]] void fail(std::string_view operation, int os_error) const {
    const std::string temporary =
        path_.empty() ? concat("an unnamed file in <", directory().native(), ">") : concat("<", path_.native(), ">");
    throw_io_error(concat(operation, " <", target_.native(), "> (saving through ", temporary, ")"), os_error);
  }

  void sync_directory() const {
    const int fd = ::open(directory().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;  // the file is in place; only its durability across a crash is unconfirmed
    ::fsync(fd);
    ::close(fd);
  }

  std::filesystem::path target_;
  std::filesystem::path path_;  // the temporary name; empty while an O_TMPFILE file has none
  bool named_ = false;
  struct ::stat replaced_ {};
  bool replaces_ = false;
  int fd_ = -1;
  bool committed_ = false;
};

}  // namespace

void write_file(PathRef path, const std::vector<FilePart>& parts) {
  TemporaryFile file(replaced_file(path.c_str()));
  std::uint64_t start = 0;  // of the part
  for (const FilePart& part : parts) {
    if (!part.stream) {
      file.write_at(start, part.bytes);
    } else {
      part.stream([&file, start](std::size_t offset, std::span<const std::byte> bytes) {
        file.write_at(start + offset, bytes);
      });
    }
    start += part.size;
  }
  file.commit();
}

}  // namespace zt::detail
