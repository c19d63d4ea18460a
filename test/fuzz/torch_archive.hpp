// What the torch.save harnesses share: a data.pkl writer, a zip writer that lays records out
// as torch.save does (and says where each structure lies, for a harness that mutates them),
// a small valid state dict, and the checks run on every file that loads.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/fuzz_support.hpp"

namespace zt::fuzz {

/// A pickle program, opcode by opcode (little-endian arguments, as pickle has them).
class PickleWriter {
 public:
  void op(unsigned char code) { bytes_ += char(code); }
  void number(std::uint64_t value, std::size_t width) {
    for (std::size_t i = 0; i < width; ++i) bytes_ += char((value >> (8 * i)) & 0xFF);
  }
  void raw(std::string_view bytes) { bytes_ += bytes; }
  /// BINUNICODE
  void text(std::string_view value) {
    op('X');
    number(value.size(), 4);
    raw(value);
  }
  /// BININT
  void integer(std::int32_t value) {
    op('J');
    number(std::uint32_t(value), 4);
  }
  /// GLOBAL "module\nname\n"
  void global(std::string_view module, std::string_view name) {
    op('c');
    raw(module);
    raw("\n");
    raw(name);
    raw("\n");
  }

  [[nodiscard]] const std::string& bytes() const noexcept { return bytes_; }
  [[nodiscard]] std::size_t size() const noexcept { return bytes_.size(); }

 private:
  std::string bytes_;
};

/// One record of an archive.
struct Record {
  std::string name;
  std::string data;
};

/// Where the structures of a written archive lie, by byte offset.
struct ZipLayout {
  std::vector<std::uint8_t> bytes;
  std::vector<std::size_t> local_headers;    ///< one per record, in order
  std::vector<std::size_t> central_entries;  ///< one per record, in order
  std::size_t end_record = 0;
  std::size_t zip64_end = 0, zip64_locator = 0;  ///< 0 without zip64
};

namespace detail {

inline void put(std::vector<std::uint8_t>& out, std::uint64_t value, std::size_t width) {
  for (std::size_t i = 0; i < width; ++i) out.push_back(std::uint8_t(value >> (8 * i)));
}

inline void put(std::vector<std::uint8_t>& out, std::string_view bytes) {
  out.insert(out.end(), bytes.begin(), bytes.end());
}

}  // namespace detail

/// The records stored (method 0), each one's data aligned to 64 bytes by padding in its local
/// header's extra field as torch.save does, then the central directory and its end record;
/// with `zip64`, the sizes and offsets in zip64 extra fields and records, as torch.save writes
/// them. `comment` ends the archive. CRCs are 0: load_torch does not read them.
inline ZipLayout write_zip(const std::vector<Record>& records, bool zip64, std::string_view comment = {}) {
  using detail::put;
  ZipLayout layout;
  std::vector<std::uint8_t>& out = layout.bytes;
  for (const Record& record : records) {
    layout.local_headers.push_back(out.size());
    const std::size_t start = out.size() + 30 + record.name.size() + 4;
    const std::size_t padding = (64 - start % 64) % 64;
    put(out, 0x04034B50, 4);
    put(out, 45, 2), put(out, 0, 2), put(out, 0, 2), put(out, 0, 4), put(out, 0, 4);  // version ... time, crc
    put(out, record.data.size(), 4), put(out, record.data.size(), 4);
    put(out, record.name.size(), 2), put(out, 4 + padding, 2);
    put(out, record.name);
    put(out, 0x4B46, 2), put(out, padding, 2), put(out, std::string(padding, 'Z'));
    put(out, record.data);
  }
  const std::size_t directory = out.size();
  for (std::size_t i = 0; i < records.size(); ++i) {
    const Record& record = records[i];
    layout.central_entries.push_back(out.size());
    const std::uint64_t size = record.data.size(), offset = layout.local_headers[i];
    put(out, 0x02014B50, 4);
    put(out, 45, 2), put(out, 45, 2), put(out, 0, 2), put(out, 0, 2), put(out, 0, 4), put(out, 0, 4);
    put(out, zip64 ? 0xFFFFFFFF : size, 4), put(out, zip64 ? 0xFFFFFFFF : size, 4);
    put(out, record.name.size(), 2), put(out, zip64 ? 28 : 0, 2), put(out, 0, 2);  // name, extra, comment
    put(out, 0, 2), put(out, 0, 2), put(out, 0, 4);                                  // disk, attributes
    put(out, zip64 ? 0xFFFFFFFF : offset, 4);
    put(out, record.name);
    if (zip64) put(out, 0x0001, 2), put(out, 24, 2), put(out, size, 8), put(out, size, 8), put(out, offset, 8);
  }
  const std::size_t directory_size = out.size() - directory;
  if (zip64) {
    layout.zip64_end = out.size();
    put(out, 0x06064B50, 4), put(out, 44, 8), put(out, 45, 2), put(out, 45, 2), put(out, 0, 4), put(out, 0, 4);
    put(out, records.size(), 8), put(out, records.size(), 8), put(out, directory_size, 8), put(out, directory, 8);
    layout.zip64_locator = out.size();
    put(out, 0x07064B50, 4), put(out, 0, 4), put(out, layout.zip64_end, 8), put(out, 1, 4);
  }
  layout.end_record = out.size();
  put(out, 0x06054B50, 4), put(out, 0, 2), put(out, 0, 2);
  put(out, zip64 ? 0xFFFF : records.size(), 2), put(out, zip64 ? 0xFFFF : records.size(), 2);
  put(out, zip64 ? 0xFFFFFFFF : directory_size, 4), put(out, zip64 ? 0xFFFFFFFF : directory, 4);
  put(out, comment.size(), 2), put(out, comment);
  return layout;
}

/// The records of a torch.save file holding `pickle` and the given storages (archive/data/<key>).
inline std::vector<Record> torch_records(std::string pickle, std::vector<Record> storages,
                                         std::string byteorder = "little") {
  std::vector<Record> records{{"archive/data.pkl", std::move(pickle)}, {"archive/byteorder", std::move(byteorder)}};
  for (Record& storage : storages) records.push_back({"archive/data/" + storage.name, std::move(storage.data)});
  records.push_back({"archive/version", "3\n"});
  return records;
}

/// ('storage', torch.<storage_class>, key, 'cpu', numel), then BINPERSID.
inline void write_storage(PickleWriter& out, std::string_view storage_class, std::string_view key, std::int32_t numel) {
  out.op('(');
  out.text("storage");
  out.global(storage_class == "UntypedStorage" ? "torch.storage" : "torch", storage_class);
  out.text(key);
  out.text("cpu");
  out.integer(numel);
  out.op('t');
  out.op('Q');
}

/// A state dict as torch.save writes it: {'w': 2 x 3 float32 over storage '0', 'v': a view of
/// its elements 2 and 4, 'i': 3 int64 over storage '1', 'n': 7, 's': 'text'}.
inline std::vector<Record> small_state_dict() {
  PickleWriter out;
  const auto tensor = [&](std::string_view storage_class, std::string_view key, std::int32_t numel,
                          std::int32_t offset, std::vector<std::int32_t> shape, std::vector<std::int32_t> strides) {
    out.global("torch._utils", "_rebuild_tensor_v2");
    out.op('(');
    write_storage(out, storage_class, key, numel);
    out.integer(offset);
    for (const auto& list : {shape, strides}) {
      out.op('(');
      for (std::int32_t value : list) out.integer(value);
      out.op('t');
    }
    out.op(0x89);  // requires_grad False
    out.global("collections", "OrderedDict");
    out.op(')');
    out.op('R');
    out.op('t');
    out.op('R');
  };
  out.op(0x80), out.number(2, 1);
  out.op('}'), out.op('(');
  out.text("w"), tensor("FloatStorage", "0", 6, 0, {2, 3}, {3, 1});
  out.text("v"), tensor("FloatStorage", "0", 6, 2, {2}, {2});
  out.text("i"), tensor("LongStorage", "1", 3, 0, {3}, {1});
  out.text("n"), out.integer(7);
  out.text("s"), out.text("text");
  out.op('u'), out.op('.');
  std::string floats, longs;
  for (int i = 0; i < 6; ++i) floats += std::string("\x00\x00\x80\x3f", 4);  // 1.0f
  for (int i = 0; i < 3; ++i) longs += std::string("\x05\x00\x00\x00\x00\x00\x00\x00", 8);
  return torch_records(out.bytes(), {{"0", floats}, {"1", longs}});
}

/// The most elements check_torch_load reads or compares in one file: thousands of tensors
/// rebuilt from one storage would otherwise time the harness, not the loader.
inline constexpr index_t max_checked_elements = index_t{1} << 22;

namespace detail {

/// `a` and `b` name the same values and tensors, of the same dtypes and shapes, with the same
/// elements as far as max_checked_elements reaches.
inline void require_same_files(const TorchFile& a, const TorchFile& b, const std::string& what) {
  require(a.values == b.values, what + ": the values changed");
  require(a.tensors.size() == b.tensors.size(), what + ": the number of tensors changed");
  index_t compared = 0;
  for (const auto& [name, tensor] : a.tensors) {
    const auto found = b.tensors.find(name);
    require(found != b.tensors.end(), what + ": tensor '" + name + "' is missing");
    require(tensor.dtype() == found->second.dtype() && tensor.shape() == found->second.shape(),
            what + ": tensor '" + name + "' changed its dtype or shape");
    if (tensor.numel() > max_checked_elements - compared) continue;
    compared += tensor.numel();
    require_same_elements(tensor, found->second, what + ", tensor '" + name + "'");
  }
}

}  // namespace detail

/// load_torch of `bytes`, a writable buffer (the checks ask for copy_on_write and shared access);
/// a file that loads must read in full, load the same as copies (tied storages still shared),
/// and the same again without copies where no copy is needed.
inline void check_torch_load(const Buffer& bytes) {
  require(bytes.is_writable(), "check_torch_load needs writable bytes");
  const auto loaded = unless_refused([&] { return load_torch(bytes); });
  if (!loaded) return;
  index_t read = 0;
  for (const auto& [name, tensor] : loaded->tensors) {
    if (read >= max_checked_elements) break;
    inspect(tensor);
    read += std::min(tensor.numel(), max_read_elements);
  }

  const auto copied = unless_refused([&] { return load_torch(bytes, copy_every_tensor); });
  require(copied.has_value(), "a file that loads as views must also load as copies");
  detail::require_same_files(*loaded, *copied, "load_torch with copy = true");
  std::map<std::pair<const void*, DType>, const void*> copy_of;  // a view's first element -> the copy's
  for (const auto& [name, tensor] : loaded->tensors) {
    const void* copy = copied->at(name).data_ptr();
    const auto [found, first] = copy_of.emplace(std::pair(tensor.data_ptr(), tensor.dtype()), copy);
    require(first || found->second == copy,
            "tensor '" + name + "' and another of its storage must stay together in copies");
  }
  // Refusing is allowed here (misaligned, big-endian or negated data needs a copy); loading something else is not.
  if (const auto viewed = unless_refused([&] { return load_torch(bytes, never_copy); }))
    detail::require_same_files(*loaded, *viewed, "load_torch with copy = false");
}

}  // namespace zt::fuzz
