// Internal: the one way an operating-system error becomes zt::IOError, the one file opened
// for reading with pread (the copy = true loaders, load_torch's zip headers, checkpoint
// prefetching), and plain file output for the format writers (save_npy, save_safetensors).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "zerotensor/path_ref.hpp"

namespace zt::detail {

/// Throws IOError "<context>: <OS reason> (<errno>)"; `context` names the path and the operation.
[[noreturn]] void throw_io_error(std::string_view context, int os_error);

/// The same for a library error (Boost.Interprocess) that may carry no OS error number;
/// then `message` gives the reason.
[[noreturn]] void throw_io_error(std::string_view context, int os_error, std::string_view message);

/// A file open for reading, closed when this is destroyed. It reports failures as errno
/// values, so that each caller names its own operation in its message.
class InputFile {
 public:
  /// Opens `path` read-only, with more `flags` (O_DIRECT); where it cannot, open_error() is
  /// the OS error (not 0).
  explicit InputFile(PathRef path, int flags = 0);
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  ~InputFile();

  int open_error() const { return open_error_; }
  int descriptor() const { return fd_; }

  /// One pread of up to destination.size() bytes at `offset`, repeated where a signal
  /// interrupts it: the bytes read (fewer at the end of a regular file), or -1 with errno set.
  ssize_t read_some(std::uint64_t offset, std::span<std::byte> destination) const;

  /// Reads until `destination` is full or the file ends: the bytes read, or -1 with errno set.
  ssize_t read_full(std::uint64_t offset, std::span<std::byte> destination) const;

 private:
  int fd_;
  int open_error_ = 0;
};

/// Writes bytes [offset, offset + bytes.size()) of a streamed part (FilePart); thread-safe.
using WriteAt = std::function<void(std::size_t offset, std::span<const std::byte> bytes)>;

/// One part of a file being written: bytes in host memory or, with `stream` set, `size` bytes
/// that `stream(write)` hands to `write` piece by piece (from any threads, in any order), so
/// that memory the host cannot read (a GPU's) is written without a copy of it all on the host.
struct FilePart {
  FilePart(std::span<const std::byte> host_bytes) : bytes(host_bytes), size(host_bytes.size()) {}  // NOLINT: a span is a part
  FilePart(std::size_t streamed_size, std::function<void(const WriteAt&)> producer)
      : size(streamed_size), stream(std::move(producer)) {}

  std::span<const std::byte> bytes;
  std::size_t size;
  std::function<void(const WriteAt& write)> stream;
};

/// Writes `parts` one after another to a temporary file beside `path` and renames it over
/// `path` (the target of a symbolic link): atomic and durable. Readers and mappings of the
/// old file keep its contents; the new file keeps the old one's permissions, and its owner
/// when the caller is root (a new file gets 0666 less the umask). No other user can read
/// the temporary file while it is written, and where the filesystem has O_TMPFILE (and /proc
/// is mounted, to name it) it has no name until it is complete. IOError with the path, the temporary file and the OS
/// reason when any step fails; then the old file is untouched and the temporary file removed.
void write_file(PathRef path, const std::vector<FilePart>& parts);

}  // namespace zt::detail
