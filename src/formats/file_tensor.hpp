// Internal: the one place a tensor stored in a file's bytes (.npy, .safetensors, torch.save)
// becomes a view into those bytes or, where it must, a copy — as LoadOptions say. The bytes are
// a file's mapping, the file read into memory, or a zt::Buffer a caller passed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "zerotensor/any_tensor.hpp"
#include "zerotensor/load_options.hpp"
#include "zerotensor/path_ref.hpp"
#include "memory/file_io.hpp"
#include "memory/read_file.hpp"

namespace zt::detail {

/// The parts of each element a copy negates, as torch.load resolves a tensor saved with its
/// conjugate or negative bit: `real` the values (of a complex dtype, the real parts),
/// `imaginary` the imaginary parts. Only integers of 8 to 64 bits, float16, bfloat16, float32,
/// float64 and the complex dtypes are negated: floats by their sign bit, as torch does (-0.0 and
/// NaN included), integers in two's complement (wrapping).
struct Negation {
  bool real = false;
  bool imaginary = false;
  [[nodiscard]] bool any() const noexcept { return real || imaginary; }
};

/// A stored tensor narrowed along one dimension (narrow_stored): its bytes are `runs` equal
/// runs, `run_stride` bytes apart from StoredTensor::offset; a copy of them is dense with
/// `copy_strides`, while a view of the bytes keeps StoredTensor::strides.
struct StoredSlice {
  std::size_t runs;
  std::size_t run_stride;
  DynamicExtents copy_strides;
};

/// Where and how one tensor lies in a file's bytes. The caller has validated that
/// [offset, offset + numel * itemsize) lies inside them and that the shape's byte count does
/// not overflow; the bytes are dense in the order `strides` describe, or, for a slice, its runs are.
struct StoredTensor {
  std::size_t offset;  ///< bytes from the start of the file
  DType dtype;
  DynamicExtents shape;
  DynamicExtents strides;      ///< in elements: C order, or Fortran order for .npy
  bool foreign_byte_order;     ///< stored in the byte order opposite to this machine's
  Negation negate{};           ///< parts negated in the copy that this then needs
  std::optional<StoredSlice> slice{};  ///< set by narrow_stored
};

/// What narrow() takes: a part of one dimension.
struct Narrowing {
  std::size_t dim;
  index_t start;
  index_t length;
};

/// `stored` narrowed to `part`: the view's shape and first byte, and the runs its bytes lie in.
void narrow_stored(StoredTensor& stored, const Narrowing& part);

/// The text that starts every error message about a stored tensor ("<file>: tensor 'w'"),
/// built only when a message needs it: a small load builds no text.
using DescribeTensor = std::function<std::string()>;

/// The tensor as a view of `bytes` (sharing their owner and device, writable when the access is
/// not read_only) or as a copy. `noun` ("file", "buffer") names the bytes in messages. `direct`,
/// where set, is the file of `bytes` open for direct reads, which a copy to a device reads from.
AnyTensor load_stored_tensor(const Buffer& bytes, const StoredTensor& stored, const LoadOptions& options,
                             const DescribeTensor& describe, std::string_view noun,
                             const std::shared_ptr<const DirectFile>& direct = {});

/// A tensor's device as a function of its name (CheckpointOptions::device_map).
using DeviceOf = std::function<Device(std::string_view name)>;

/// Copies of stored tensors for devices other than the CPU, gathered from one file or many and
/// then made together: per device, one staged copy carries them all, laid end to end, so that
/// its buffers stay full across tensors and files and nothing drains between them. The queue
/// keeps the bytes of each queued tensor alive until run() returns. Not thread-safe: a load
/// that reads files on several threads gives each its own queue and appends them.
class DeviceUploads {
 public:
  /// Queues `stored`, in `bytes`, as tensor `name` for options.device (not the CPU): a copy
  /// writable unless options.access is read_only. Checks now what the copy does not depend on
  /// (the options, bool bytes), starting the messages with `describe()`. With `direct` (the
  /// file of `bytes` open for direct reads), a tensor the copy takes as stored (no slice, byte
  /// swap or negation) is read from it, past the page cache.
  void add(std::string name, const Buffer& bytes, const StoredTensor& stored, const LoadOptions& options,
           const DescribeTensor& describe, const std::shared_ptr<const DirectFile>& direct = {});
  /// Moves the tensors queued on `other` to the end of this queue.
  void append(DeviceUploads&& other);
  /// The bytes the queued copies will read.
  [[nodiscard]] std::uint64_t bytes() const noexcept { return bytes_; }

  /// Makes the queued copies, device by device in the order each was first queued, and empties
  /// the queue; the tensors come back in the order they were queued. `description` starts the
  /// messages about the copies. `staged(bytes)`, when set, is called from the copies' host
  /// threads as each piece of the tensors' bytes has been read, one call at a time per thread.
  [[nodiscard]] std::vector<std::pair<std::string, AnyTensor>> run(
      std::string_view description, const std::function<void(std::uint64_t)>& staged = {});

 private:
  /// One staged copy of the tensors queued for `device`, each put in its slot of `copies`.
  void upload_to(Device device, std::string_view description, const std::function<void(std::uint64_t)>& staged,
                 std::vector<std::optional<AnyTensor>>& copies) const;

  struct Queued {
    std::string name;
    Buffer bytes;
    StoredTensor stored;
    Device device;
    bool writable;
    std::shared_ptr<const DirectFile> direct;
  };
  std::vector<Queued> queued_;
  std::uint64_t bytes_ = 0;
};

/// The bytes of `tensor`, whose elements are dense in memory, as a part of a file being saved:
/// host memory as it is; a GPU's streamed through the pinned staging buffers, so that the host
/// never holds more of it than the buffers do. `operation` ("save_npy") starts the messages.
FilePart tensor_file_part(const AnyTensor& tensor, std::string_view operation);

/// ValueError when `file` starts like a zip archive: torch.save and np.savez write zip
/// archives, which reach the loaders by mistake and would otherwise fail on a nonsensical
/// header. `format` (".npy") is what the loader reads.
void refuse_zip_archive(std::span<const std::byte> file, std::string_view format, std::string_view description);

/// What the messages of one load start with, in one string built without a stream and, for a
/// path of usual length, without an allocation: "<loader>: <path>" for a file, "<loader>:
/// <memory>" for bytes in memory, then a part. `source()` opens the messages about the whole
/// file or buffer, `whole()` those about the part ("load_npy: <a.npy>: array"); `noun()` is
/// "file" or "buffer", for messages that speak of the bytes themselves.
class LoadContext {
 public:
  /// A load of the file at `path`.
  LoadContext(std::string_view loader, PathRef path, std::string_view part);
  /// A load of bytes in memory.
  LoadContext(std::string_view loader, std::string_view part);
  std::string_view source() const { return whole().substr(0, source_length_); }
  std::string_view whole() const { return {text_.data(), text_.size()}; }
  std::string_view noun() const { return noun_; }

 private:
  LoadContext(std::string_view loader, std::string_view source, std::string_view part, std::string_view noun);

  boost::container::small_vector<char, 256> text_;
  std::size_t source_length_;
  std::string_view noun_;
};

/// The access to map a file with for `options`: copies only read, so copy = true maps
/// read-only. ValueError for options that contradict each other (load_options.hpp).
MapAccess mapping_access(const LoadOptions& options);

/// The options to read `bytes`, a caller's Buffer, with: `options` checked as mapping_access
/// checks them and against the buffer, and copy = true for copy_on_write access, whose writes
/// must not reach the buffer (load_options.hpp). DeviceError for a buffer the host cannot read;
/// ValueError, after `description`, for writable access to a read-only buffer and for
/// copy_on_write access with copy = false.
LoadOptions buffer_load_options(const Buffer& bytes, LoadOptions options, std::string_view description);

/// The bytes of the file at `path` for a load with `options`, the options to view them with,
/// and, for a mapped file loaded with options.direct, the file open for direct reads where its
/// file system allows them.
struct FileBytes {
  Buffer bytes;
  LoadOptions options;
  std::shared_ptr<const DirectFile> direct{};
};

/// With `read_allowed` (a load of every tensor) or options.direct, a load that copies every tensor
/// to the CPU reads the file into memory of its own (read_file: no mapping to set up and tear
/// down; options.direct: with O_DIRECT), and its tensors are copied again only to swap bytes or
/// align; a load of a slice that copies maps the file reading only the pages it touches; any
/// other maps the file with mapping_access(options).
FileBytes file_bytes(PathRef path, const LoadOptions& options, bool read_allowed);

}  // namespace zt::detail
