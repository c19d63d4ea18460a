#include "formats/torch/torch_zip.hpp"

#include <algorithm>
#include <array>
#include <tuple>
#include <vector>

#include "vocabulary/concat.hpp"
#include "zerotensor/error.hpp"

namespace zt::detail {
namespace {

constexpr std::uint32_t end_signature = 0x06054b50, locator_signature = 0x07064b50,
                        zip64_end_signature = 0x06064b50, central_signature = 0x02014b50,
                        local_signature = 0x04034b50;
constexpr std::size_t end_size = 22, locator_size = 20, zip64_end_size = 56, central_size = 46, local_size = 30;
constexpr std::uint64_t max_comment = 0xFFFF;
constexpr std::uint16_t zip64_extra_id = 0x0001;

/// What the end record (and its zip64 record) says about the central directory.
struct Directory {
  std::uint64_t count, offset, size;
};

/// One record's span in the archive, from its local header to its last byte.
struct Extent {
  std::uint64_t begin, end;
  std::string_view name;
};

class ZipReader {
 public:
  ZipReader(std::span<const std::byte> archive, std::string_view description, const ReadAt& read_at)
      : archive_(archive), description_(description), read_at_(read_at) {}

  template <class... Parts>
  [[noreturn]] void fail(const Parts&... what) const {
    throw ValueError(concat(description_, ": ", what...));
  }

  /// The `length` bytes at `offset`; ValueError naming `what` when they are not all in the archive.
  std::span<const std::byte> bytes(std::uint64_t offset, std::uint64_t length, std::string_view what) const {
    if (offset > archive_.size() || length > archive_.size() - offset)
      fail(what, " (", length, " bytes at byte ", offset, ") lies outside the archive of ", archive_.size(),
           " bytes");
    return archive_.subspan(offset, length);
  }

  Directory directory() const {
    const std::size_t end = find_end_record();
    const auto record = archive_.subspan(end, end_size);
    if (number(record, 4, 2) != 0 || number(record, 6, 2) != 0) fail("the zip archive spans several disks");
    Directory found{number(record, 10, 2), number(record, 16, 4), number(record, 12, 4)};
    const bool has_locator = end >= locator_size && number(archive_, end - locator_size, 4) == locator_signature;
    if (has_locator) return zip64_directory(archive_.subspan(end - locator_size, locator_size));
    if (found.count == 0xFFFF || found.offset == 0xFFFFFFFF || found.size == 0xFFFFFFFF)
      fail("the end of central directory record needs a zip64 record, and there is none");
    return found;
  }

  std::map<std::string, ZipRecord, std::less<>> records(const Directory& directory) const {
    const auto entries = bytes(directory.offset, directory.size, "the central directory");
    if (directory.count > directory.size / central_size)
      fail("the central directory of ", directory.size, " bytes cannot hold the ", directory.count,
           " records it claims");
    std::map<std::string, ZipRecord, std::less<>> records;
    std::vector<Extent> extents;
    std::uint64_t at = 0;
    for (std::uint64_t i = 0; i < directory.count; ++i) {
      if (entries.size() - at < central_size || number(entries, at, 4) != central_signature)
        fail("central directory entry ", i, " at byte ", directory.offset + at, " is not a directory entry");
      at += entry(entries, at, directory.offset, records, extents);
    }
    check_layout(extents, directory.offset);
    return records;
  }

 private:
  static std::uint64_t number(std::span<const std::byte> bytes, std::uint64_t at, std::size_t width) {
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < width; ++i) value |= std::uint64_t(bytes[at + i]) << (8 * i);
    return value;
  }

  /// The end of central directory record: the last one whose comment ends the archive.
  std::size_t find_end_record() const {
    if (archive_.size() < end_size)
      fail("not a zip archive: ", archive_.size(), " bytes is too short for its end record");
    const std::size_t last = archive_.size() - end_size;
    const std::size_t first = last - std::min<std::size_t>(last, max_comment);
    for (std::size_t at = last + 1; at-- > first;) {
      if (number(archive_, at, 4) == end_signature && at + end_size + number(archive_, at + 20, 2) == archive_.size())
        return at;
    }
    fail("not a zip archive: no end of central directory record");
  }

  Directory zip64_directory(std::span<const std::byte> locator) const {
    if (number(locator, 4, 4) != 0 || number(locator, 16, 4) > 1) fail("the zip archive spans several disks");
    const std::uint64_t offset = number(locator, 8, 8);
    const auto record = bytes(offset, zip64_end_size, "the zip64 end of central directory record");
    if (number(record, 0, 4) != zip64_end_signature)
      fail("no zip64 end of central directory record at byte ", offset);
    if (number(record, 16, 4) != 0 || number(record, 20, 4) != 0) fail("the zip archive spans several disks");
    return {number(record, 32, 8), number(record, 48, 8), number(record, 40, 8)};
  }

  /// Reads the directory entry at `at` into `records` and `extents`; returns its length.
  std::uint64_t entry(std::span<const std::byte> entries, std::uint64_t at, std::uint64_t directory_offset,
                      std::map<std::string, ZipRecord, std::less<>>& records, std::vector<Extent>& extents) const {
    const std::uint64_t name_length = number(entries, at + 28, 2), extra_length = number(entries, at + 30, 2),
                        comment_length = number(entries, at + 32, 2);
    const std::uint64_t length = central_size + name_length + extra_length + comment_length;
    if (length > entries.size() - at)
      fail("central directory entry at byte ", directory_offset + at, " runs past the end of the directory");
    const auto name_bytes = entries.subspan(at + central_size, name_length);
    const std::string name(reinterpret_cast<const char*>(name_bytes.data()), name_bytes.size());
    const std::string what = "zip record '" + name.substr(0, 64) + "'";  // per record: no stream
    if (number(entries, at + 8, 2) & 1) fail(what, " is encrypted");
    const auto method = std::uint16_t(number(entries, at + 10, 2));

    std::uint64_t size = number(entries, at + 24, 4), stored_size = number(entries, at + 20, 4),
                  local = number(entries, at + 42, 4), disk = number(entries, at + 34, 2);
    read_zip64_fields(entries.subspan(at + central_size + name_length, extra_length), what,
                      {&size, &stored_size, &local}, disk);
    if (disk != 0) fail("the zip archive spans several disks");
    if (method == 0 && size != stored_size)
      fail(what, " is stored in ", stored_size, " bytes but claims ", size, " uncompressed ones");

    std::array<std::byte, local_size> header;
    const auto in_archive = bytes(local, local_size, what + "'s local header");
    if (read_at_) {
      read_at_(local, header);
    } else {
      std::copy(in_archive.begin(), in_archive.end(), header.begin());
    }
    if (number(header, 0, 4) != local_signature) fail(what, " has no local header at byte ", local);
    const std::uint64_t data = local + local_size + number(header, 26, 2) + number(header, 28, 2);
    bytes(data, stored_size, what);
    if (!records.emplace(name, ZipRecord{data, stored_size, method}).second) fail(what, " appears twice");
    extents.push_back({local, data + stored_size, records.find(name)->first});
    return length;
  }

  /// The zip64 extra field holds, in this order, each of `fields` (uncompressed size,
  /// compressed size, local header offset) whose 32-bit value is 0xFFFFFFFF, then the disk.
  void read_zip64_fields(std::span<const std::byte> extra, std::string_view what,
                         std::initializer_list<std::uint64_t*> fields, std::uint64_t& disk) const {
    for (std::uint64_t at = 0; extra.size() - at >= 4;) {
      const std::uint64_t id = number(extra, at, 2), length = number(extra, at + 2, 2);
      if (length > extra.size() - at - 4) fail(what, ": an extra field runs past the end of its entry");
      if (id == zip64_extra_id) {
        std::uint64_t used = 0;
        for (std::uint64_t* field : fields) {
          if (*field != 0xFFFFFFFF) continue;
          if (length - used < 8) fail(what, ": its zip64 extra field is too short");
          *field = number(extra, at + 4 + used, 8);
          used += 8;
        }
        if (disk == 0xFFFF && length - used >= 4) disk = number(extra, at + 4 + used, 4);
        return;
      }
      at += 4 + length;
    }
  }

  /// Records lie before the central directory and do not overlap.
  void check_layout(std::vector<Extent>& extents, std::uint64_t directory_offset) const {
    std::sort(extents.begin(), extents.end(), [](const Extent& a, const Extent& b) {
      return std::tie(a.begin, a.end, a.name) < std::tie(b.begin, b.end, b.name);
    });
    for (std::size_t i = 0; i < extents.size(); ++i) {
      if (i > 0 && extents[i].begin < extents[i - 1].end)
        fail("zip records '", extents[i - 1].name.substr(0, 64), "' [", extents[i - 1].begin, ", ",
             extents[i - 1].end, ") and '", extents[i].name.substr(0, 64), "' [", extents[i].begin, ", ",
             extents[i].end, ") overlap");
      if (extents[i].end > directory_offset)
        fail("zip record '", extents[i].name.substr(0, 64), "' [", extents[i].begin, ", ", extents[i].end,
             ") overlaps the central directory at byte ", directory_offset);
    }
  }

  std::span<const std::byte> archive_;
  std::string_view description_;
  const ReadAt& read_at_;
};

}  // namespace

std::map<std::string, ZipRecord, std::less<>> read_zip_directory(std::span<const std::byte> archive,
                                                                 std::string_view description,
                                                                 const ReadAt& read_at) {
  const ZipReader reader(archive, description, read_at);
  return reader.records(reader.directory());
}

}  // namespace zt::detail
