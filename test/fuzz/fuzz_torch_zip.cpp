// load_torch on a valid small torch.save file (torch_archive.hpp's small_state_dict) whose zip
// structure the input changes: first its records (dropped, repeated, reordered, renamed,
// resized, added), then, once written (zip64 or not, with or without a comment), the fields of
// its central directory entries, local headers, zip64 extra fields, end of central directory,
// zip64 end record and locator — counts, sizes, offsets, name and extra lengths, signatures,
// disks — set to values near what they were, to another structure's offset, to the limits of
// their width, or to any value; and the file itself truncated, extended, or shifted by bytes
// inserted anywhere. Then torch_archive.hpp's checks: it must load or stop at a zt::Error.
//
// Input: [flags] [record operations: count, then 3 bytes each] [field operations: 3 to 10
// bytes each, until the input ends].
#include "fuzz/torch_archive.hpp"

using namespace zt::fuzz;

namespace {

constexpr std::string_view names[] = {"archive/data.pkl",    "other/data.pkl",   "archive/data/0",
                                      "archive/data/1",      "archive/data/2",   "archive/byteorder",
                                      "archive/version",     "archive/constants.pkl", "archive/code/m.py",
                                      "data.pkl",            "a/b/data.pkl",     "archive/data/"};

/// A field of a zip structure: its byte offset in the structure and its width.
struct Field {
  std::size_t at, width;
};
constexpr Field central_fields[] = {{0, 4},  {8, 2},  {10, 2}, {20, 4}, {24, 4},
                                    {28, 2}, {30, 2}, {32, 2}, {34, 2}, {42, 4}};
constexpr Field local_fields[] = {{0, 4}, {8, 2}, {18, 4}, {22, 4}, {26, 2}, {28, 2}};
constexpr Field end_fields[] = {{0, 4}, {4, 2}, {6, 2}, {8, 2}, {10, 2}, {12, 4}, {16, 4}, {20, 2}};
constexpr Field zip64_end_fields[] = {{0, 4}, {16, 4}, {20, 4}, {24, 8}, {32, 8}, {40, 8}, {48, 8}};
constexpr Field locator_fields[] = {{0, 4}, {4, 4}, {8, 8}, {16, 4}};
/// The zip64 extra field after a central entry's name: id, length, size, stored size, offset.
constexpr Field zip64_extra_fields[] = {{0, 2}, {2, 2}, {4, 8}, {12, 8}, {20, 8}};

class Mutator {
 public:
  explicit Mutator(InputReader& in) : in_(in) {}

  /// small_state_dict's records after the record operations.
  std::vector<Record> records() {
    std::vector<Record> records = small_state_dict();
    for (std::size_t count = byte() % 8; count > 0; --count) {
      const std::uint8_t op = byte();
      const std::size_t i = records.empty() ? 0 : byte() % records.size(), j = byte();
      if (records.empty() && op % 6 != 5) continue;
      switch (op % 6) {
        case 0: records.erase(records.begin() + std::ptrdiff_t(i)); break;
        case 1: records.push_back(records[i]); break;
        case 2: std::swap(records[i], records[j % records.size()]); break;
        case 3: records[i].name = j < 200 ? std::string(names[j % std::size(names)]) : records[i].name + "x"; break;
        case 4: records[i].data.resize(j < 128 ? records[i].data.size() * j / 128 : records[i].data.size() + j); break;
        default: records.push_back({std::string(names[j % std::size(names)]), std::string(j % 64, 'a')}); break;
      }
    }
    return records;
  }

  /// Applies the field operations to `zip`, until the input ends.
  void mutate(ZipLayout& zip) {
    while (!in_.rest().empty()) {
      const std::uint8_t op = byte();
      switch (op % 10) {
        case 0: structure(zip, pick(zip.central_entries), central_fields); break;
        case 1: structure(zip, pick(zip.local_headers), local_fields); break;
        case 2: structure(zip, zip.end_record, end_fields); break;
        case 3: if (zip.zip64_end) structure(zip, zip.zip64_end, zip64_end_fields); break;
        case 4: if (zip.zip64_locator) structure(zip, zip.zip64_locator, locator_fields); break;
        case 5: {
          const std::size_t entry = pick(zip.central_entries);
          const std::size_t name_length = read(zip, {entry + 28, 2});
          if (entry + 30 <= zip.bytes.size()) structure(zip, entry + 46 + name_length, zip64_extra_fields);
          break;
        }
        case 6: zip.bytes.resize(std::size_t(value(zip, zip.bytes.size(), 4)) % (zip.bytes.size() + 1)); break;
        case 7: zip.bytes.resize(zip.bytes.size() + byte(), std::uint8_t(byte())); break;
        case 8: if (!zip.bytes.empty()) zip.bytes[in_.take<std::uint16_t>() % zip.bytes.size()] = byte(); break;
        default: {
          const std::size_t at = in_.take<std::uint16_t>() % (zip.bytes.size() + 1);
          zip.bytes.insert(zip.bytes.begin() + std::ptrdiff_t(at), std::size_t(byte() % 16 + 1), std::uint8_t(byte()));
        }
      }
    }
  }

 private:
  std::uint8_t byte() { return in_.take<std::uint8_t>(); }

  std::size_t pick(const std::vector<std::size_t>& offsets) {
    const std::uint8_t b = byte();
    return offsets.empty() ? 0 : offsets[b % offsets.size()];
  }

  static std::uint64_t read(const ZipLayout& zip, Field field) {
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < field.width && field.at + i < zip.bytes.size(); ++i)
      value |= std::uint64_t(zip.bytes[field.at + i]) << (8 * i);
    return value;
  }

  /// Sets one of `fields` of the structure at `start` (a field past the end is left alone).
  template <std::size_t N>
  void structure(ZipLayout& zip, std::size_t start, const Field (&fields)[N]) {
    const Field field = fields[byte() % N];
    const Field at{start + field.at, field.width};
    if (at.at + at.width > zip.bytes.size()) return;
    const std::uint64_t updated = value(zip, read(zip, at), at.width);
    for (std::size_t i = 0; i < at.width; ++i) zip.bytes[at.at + i] = std::uint8_t(updated >> (8 * i));
  }

  /// A new value for a field of `width` bytes that holds `old`.
  std::uint64_t value(const ZipLayout& zip, std::uint64_t old, std::size_t width) {
    const std::uint64_t all = width == 8 ? ~std::uint64_t(0) : (std::uint64_t(1) << (8 * width)) - 1;
    const std::uint8_t b = byte();
    switch (b % 8) {
      case 0: return 0;
      case 1: return all;
      case 2: return (old + 1 + byte() % 64) & all;
      case 3: return (old - 1 - byte() % 64) & all;
      case 4: return in_.take<std::uint64_t>() & all;
      case 5: {  // where another structure starts
        std::vector<std::size_t> starts = zip.local_headers;
        starts.insert(starts.end(), zip.central_entries.begin(), zip.central_entries.end());
        starts.push_back(zip.end_record);
        return pick(starts) & all;
      }
      case 6: return (zip.bytes.size() - byte() % 64) & all;
      default: return old ^ (std::uint64_t(1) << (byte() % (8 * width)));
    }
  }

  InputReader& in_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  InputReader in(data, size);
  const std::uint8_t flags = in.take<std::uint8_t>();
  Mutator mutator(in);
  ZipLayout zip = write_zip(mutator.records(), flags & 1, flags & 2 ? std::string_view("comment") : "");
  mutator.mutate(zip);
  check_torch_load(zt::Buffer(zip.bytes));
  return 0;
}
