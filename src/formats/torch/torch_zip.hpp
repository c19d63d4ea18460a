// Internal: the central directory of a zip archive (zip64 included), as torch.save writes it:
// every record stored, none compressed or encrypted. Only the directory is read; a record's
// bytes stay where they are in the mapping.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>

namespace zt::detail {

/// Where one record's bytes lie in the archive.
struct ZipRecord {
  std::uint64_t offset;  ///< bytes from the start of the archive to the record's first byte
  std::uint64_t size;    ///< bytes as stored
  std::uint16_t method;  ///< 0: stored, the bytes are the record; else compressed
};

/// The records of `archive` by name. ValueError, after `description`, when the archive is
/// malformed: no end of central directory record, a directory, local header or record
/// outside the archive, an encrypted record, a stored record whose two sizes differ, records
/// that overlap one another or the directory, a name given twice, an archive split over
/// several disks. Compressed records are listed with their method; the caller refuses them.
/// Local headers are scattered over the whole archive (one before each record): reading
/// them through a mapping would fault in a page per record, so a caller that has the file
/// open passes `read_at`, which fills `destination` with the archive's bytes at `offset`
/// (inside the archive, checked before the call); without it they are read from `archive`.
using ReadAt = std::function<void(std::uint64_t offset, std::span<std::byte> destination)>;
std::map<std::string, ZipRecord, std::less<>> read_zip_directory(std::span<const std::byte> archive,
                                                                 std::string_view description,
                                                                 const ReadAt& read_at = {});

}  // namespace zt::detail
