// Internal: a whole file read into memory of its own with pread, for the loaders' copy = true
// (a copy needs no mapping: mapping and unmapping a small file costs more than reading it),
// and ranges of a file read past the page cache, for loads to a device with `direct`.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "zerotensor/buffer.hpp"
#include "zerotensor/export.hpp"
#include "memory/file_io.hpp"
#include "zerotensor/path_ref.hpp"

namespace zt::detail {

/// Every byte of the file at `path`, in writable memory of its own (allocate_bytes: 64-byte
/// aligned, so offsets into it are aligned as they are in a mapping). IOError with the path
/// and the OS reason for a file that cannot be opened or read (a directory included), a
/// file of 4 KiB or more that is not regular, and one that shrinks while it is read.
/// `direct`: a regular file of direct_read_min_bytes or more is read with O_DIRECT, past the
/// page cache (which it neither fills nor reads), where the file system allows it; otherwise
/// as without.
Buffer read_file(PathRef path, bool direct = false);

/// A file open with O_DIRECT, from which any range of bytes is read past the page cache (which
/// the reads neither fill nor use) into any memory: the unaligned ends of a range come through a
/// block-aligned bounce buffer. Exported, though internal, so that its tests link against the
/// shared library too.
class ZT_API DirectFile {
 public:
  /// The regular file at `path` open with O_DIRECT, where its file system serves direct reads
  /// (tmpfs does not); nullptr otherwise, and where it cannot be opened, which the caller's
  /// other reads then report.
  [[nodiscard]] static std::shared_ptr<const DirectFile> open(PathRef path);

  /// Bytes [offset, offset + out.size()) of the file into `out`; from several threads at once.
  /// IOError naming the file and the OS reason when a read fails, or the file ends before them.
  void read(std::uint64_t offset, std::span<std::byte> out) const;

  explicit DirectFile(PathRef path);  // for open()

 private:
  std::string path_;
  InputFile file_;
};

/// Smaller files are read through the page cache even when asked to read directly: their
/// reads are few, and a block of this size from allocate_bytes is aligned for O_DIRECT.
inline constexpr std::size_t direct_read_min_bytes = std::size_t{2} << 20;

}  // namespace zt::detail
