#include "formats/file_tensor.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <optional>

#include <sys/mman.h>
#include <unistd.h>

#include "vocabulary/concat.hpp"
#include "memory/read_file.hpp"
#include "conversion/staged_transfer.hpp"
#include "zerotensor/empty.hpp"
#include "zerotensor/detail/element_checks.hpp"
#include "zerotensor/mapped_file.hpp"
#include "zerotensor/storage.hpp"

namespace zt::detail {
namespace {

/// The bytes that swap together: a complex part, a whole element, or single bytes of packed values.
std::size_t byte_order_unit(DType dtype) {
  if (is_packed(dtype)) return 1;
  return is_complex(dtype) ? itemsize(dtype) / 2 : itemsize(dtype);
}

void copy_bytes(const std::byte* source, std::byte* destination, std::size_t length, std::size_t swap_unit) {
  if (swap_unit <= 1) {
    std::copy_n(source, length, destination);
    return;
  }
  for (std::size_t at = 0; at < length; at += swap_unit)
    std::reverse_copy(source + at, source + at + swap_unit, destination + at);
}

template <class Unsigned>
void negate_integers(std::span<std::byte> elements) {
  for (std::size_t at = 0; at < elements.size(); at += sizeof(Unsigned)) {
    Unsigned value;
    std::memcpy(&value, elements.data() + at, sizeof value);
    value = Unsigned(Unsigned(0) - value);
    std::memcpy(elements.data() + at, &value, sizeof value);
  }
}

/// Negates the parts `negate` names of whole elements in this machine's byte order (see Negation).
void negate_parts(std::span<std::byte> elements, DType dtype, Negation negate) {
  if (!negate.any()) return;
  const std::size_t size = itemsize(dtype);
  if (!is_floating_point(dtype) && !is_complex(dtype)) {
    switch (size) {
      case 1: return negate_integers<std::uint8_t>(elements);
      case 2: return negate_integers<std::uint16_t>(elements);
      case 4: return negate_integers<std::uint32_t>(elements);
      default: return negate_integers<std::uint64_t>(elements);
    }
  }
  const std::size_t part = is_complex(dtype) ? size / 2 : size;
  const std::size_t sign = std::endian::native == std::endian::little ? part - 1 : 0;  // the byte of the sign bit
  for (std::size_t at = 0; at < elements.size(); at += size) {
    if (negate.real) elements[at + sign] ^= std::byte{0x80};
    if (negate.imaginary) elements[at + part + sign] ^= std::byte{0x80};
  }
}

/// Bytes [offset, offset + out.size()) of the stored elements at `source` as this machine
/// reads them: each swap unit reversed (1: none), then the parts `negate` names negated. An
/// upload's chunk may start or end inside an element: that element is made whole, then cut.
void native_bytes(const std::byte* source, std::size_t offset, std::span<std::byte> out, DType dtype,
                  std::size_t swap_unit, Negation negate) {
  if (swap_unit <= 1 && !negate.any()) {
    std::copy_n(source + offset, out.size(), out.data());
    return;
  }
  const std::size_t size = itemsize(dtype);
  for (std::size_t done = 0; done < out.size();) {
    const std::size_t at = offset + done, within = at % size;
    if (within == 0 && out.size() - done >= size) {  // the whole elements that follow
      const std::size_t length = (out.size() - done) / size * size;
      copy_bytes(source + at, out.data() + done, length, swap_unit);
      negate_parts(out.subspan(done, length), dtype, negate);
      done += length;
    } else {  // an element cut by either end of `out`
      std::array<std::byte, 16> element;
      copy_bytes(source + at - within, element.data(), size, swap_unit);
      negate_parts({element.data(), size}, dtype, negate);
      const std::size_t length = std::min(size - within, out.size() - done);
      std::copy_n(element.data() + within, length, out.data() + done);
      done += length;
    }
  }
}

/// Whether the bytes must be reversed: only multi-byte elements have a byte order, and an
/// empty tensor has no bytes.
bool needs_byte_swap(const StoredTensor& stored, index_t count) {
  return stored.foreign_byte_order && byte_order_unit(stored.dtype) > 1 && count > 0;
}

/// What copy_reason says of a negation.
std::string negated_parts(const StoredTensor& stored) {
  if (!is_complex(stored.dtype)) return "values";
  if (stored.negate.real && stored.negate.imaginary) return "real and imaginary parts";
  return stored.negate.real ? "real parts" : "imaginary parts";
}

/// Why the stored bytes cannot be viewed in place; empty when they can. Alignment is the
/// address's: a file's mapping starts on a page, a caller's buffer anywhere.
std::string copy_reason(const std::byte* source, const StoredTensor& stored, index_t count, std::string_view noun) {
  if (stored.negate.any() && count > 0) return concat("needs a copy with its ", negated_parts(stored), " negated");
  if (needs_byte_swap(stored, count))
    return concat("is stored in the other byte order (", std::endian::native == std::endian::little ? "big" : "little",
                  "-endian) and needs a byte-swapped copy");
  const std::size_t align = alignment(stored.dtype);
  if (reinterpret_cast<std::uintptr_t>(source) % align != 0)
    return concat("starts at byte offset ", stored.offset, " of the ", noun, ", at an address not aligned to ",
                  align, " bytes for ", stored.dtype, ", and needs a copy");
  return {};
}

/// Where the stored bytes lie: `count` runs of `length` bytes, `stride` apart (one run unless
/// the tensor is a slice).
struct Runs {
  std::size_t count;
  std::size_t length;
  std::size_t stride;
};

Runs runs_of(const StoredTensor& stored) {
  const std::size_t bytes = std::size_t(numel(stored.shape)) * itemsize(stored.dtype);
  if (!stored.slice) return {1, bytes, 0};
  const std::size_t count = stored.slice->runs;
  return {count, count == 0 ? 0 : bytes / count, stored.slice->run_stride};
}

/// The stored bytes [offset, offset + out.size()) of the runs, as native_bytes gives them.
void native_run_bytes(const std::byte* source, const Runs& runs, std::size_t offset, std::span<std::byte> out,
                      DType dtype, std::size_t swap_unit, Negation negate) {
  for (std::size_t done = 0; done < out.size();) {
    const std::size_t at = offset + done, run = at / runs.length, within = at % runs.length;
    const std::size_t length = std::min(runs.length - within, out.size() - done);
    native_bytes(source + run * runs.stride, within, out.subspan(done, length), dtype, swap_unit, negate);
    done += length;
  }
}

/// The strides of a copy of the stored tensor.
const DynamicExtents& copy_strides(const StoredTensor& stored) {
  return stored.slice ? stored.slice->copy_strides : stored.strides;
}

/// The whole pages holding [start, start + length).
std::span<std::byte> page_range(const std::byte* start, std::size_t length) {
  static const auto page = std::uintptr_t(::sysconf(_SC_PAGESIZE));
  const auto first = reinterpret_cast<std::uintptr_t>(start) / page * page;
  const auto end = (reinterpret_cast<std::uintptr_t>(start) + length + page - 1) / page * page;
  return {reinterpret_cast<std::byte*>(first), end - first};
}

/// A load with a slice that copies maps the file reading no page ahead of those touched (the
/// kernel's read-around, megabytes on some disks, would read the other ranks' parts; see
/// file_bytes); each tensor to copy is then read ahead over its own runs. Hints only: a failure
/// reads more, never wrongly.
void read_runs_ahead(const std::byte* source, const StoredTensor& stored, const LoadOptions& options) {
  if (options.slice.rules.empty()) return;
  const Runs runs = runs_of(stored);
  for (std::size_t run = 0; run < runs.count; ++run) {
    const std::span<std::byte> pages = page_range(source + run * runs.stride, runs.length);
    ::madvise(pages.data(), pages.size(), MADV_WILLNEED);
  }
}

/// The part of an upload that brings a stored tensor's bytes, in this machine's byte order: from
/// `source`, its bytes in memory, or with `direct` (for a tensor taken as stored) read from its file.
UploadPart upload_part(const std::byte* source, const StoredTensor& stored,
                       const std::shared_ptr<const DirectFile>& direct) {
  const index_t count = numel(stored.shape);
  if (direct) {
    return {std::size_t(count) * itemsize(stored.dtype),
            [direct, start = stored.offset](std::size_t offset, std::span<std::byte> staging) {
              direct->read(start + offset, staging);
            }};
  }
  const std::size_t swap_unit = needs_byte_swap(stored, count) ? byte_order_unit(stored.dtype) : 1;
  const Runs runs = runs_of(stored);
  const auto fill = [source, runs, dtype = stored.dtype, swap_unit, negate = stored.negate](
                        std::size_t offset, std::span<std::byte> staging) {
    native_run_bytes(source, runs, offset, staging, dtype, swap_unit, negate);
  };
  return {std::size_t(count) * itemsize(stored.dtype), fill};
}

/// ValueError when a bool tensor's bytes are not all 0 or 1 (naming the run of a slice).
void check_stored_bools(const std::byte* source, const StoredTensor& stored, const DescribeTensor& describe) {
  if (stored.dtype != bool_) return;
  const Runs runs = runs_of(stored);
  if (runs.count == 1) return check_bool_bytes(source, index_t(runs.length), describe());
  for (std::size_t run = 0; run < runs.count; ++run) {
    try {
      check_bool_bytes(source + run * runs.stride, index_t(runs.length));
    } catch (const ValueError& error) {
      throw ValueError(concat(describe(), ": in run ", run, " of ", runs.count, " of this rank's slice: ", error.what()));
    }
  }
}

/// ValueError for options that contradict each other, whatever the bytes; `noun` ("file",
/// "buffer") names them.
void check_copy_rules(const LoadOptions& options, std::string_view noun) {
  if (options.device != cpu) {
    if (options.copy == false)
      throw ValueError(concat("copy = false cannot be combined with device ", options.device,
                              ": a tensor there is a copy of the ", noun, "'s bytes"));
    if (options.access == MapAccess::shared)
      throw ValueError(concat("shared access cannot be combined with device ", options.device,
                              ": writes to a copy there never reach the ", noun));
  } else if (options.copy.value_or(false) && options.access == MapAccess::shared) {
    throw ValueError(
        concat("copy = true cannot be combined with shared access: writes to copies never reach the ", noun));
  }
}

}  // namespace

void narrow_stored(StoredTensor& stored, const Narrowing& part) {
  // Dense bytes: the dimensions with larger strides are outside `part.dim` (each of its
  // indices one run), those with smaller ones inside it.
  const index_t step = stored.strides[part.dim], extent = stored.shape[part.dim];
  if (extent == 0) return;  // its one part is the whole: empty
  std::size_t runs = 1;
  DynamicExtents copy = stored.strides;
  for (std::size_t d = 0; d < stored.shape.size(); ++d) {
    if (d == part.dim || stored.strides[d] <= step) continue;
    runs *= std::size_t(stored.shape[d]);
    copy[d] = stored.strides[d] / extent * part.length;
  }
  const std::size_t size = itemsize(stored.dtype);
  stored.offset += std::size_t(part.start * step) * size;
  stored.shape[part.dim] = part.length;
  stored.slice = StoredSlice{runs, std::size_t(extent * step) * size, std::move(copy)};
}

void refuse_zip_archive(std::span<const std::byte> file, std::string_view format, std::string_view description) {
  // A local file header starts every archive with members; an empty archive is only its end record.
  constexpr std::string_view local_file_header("PK\x03\x04", 4), empty_archive("PK\x05\x06", 4);
  const std::string_view start(reinterpret_cast<const char*>(file.data()), std::min<std::size_t>(file.size(), 4));
  if (start == local_file_header || start == empty_archive)
    throw ValueError(concat(description, ": is a zip archive (torch.save, np.savez), not a ", format, " file"));
}

LoadContext::LoadContext(std::string_view loader, PathRef path, std::string_view part)
    : LoadContext(loader, path.c_str(), part, "file") {}

LoadContext::LoadContext(std::string_view loader, std::string_view part)
    : LoadContext(loader, "memory", part, "buffer") {}

LoadContext::LoadContext(std::string_view loader, std::string_view source, std::string_view part,
                         std::string_view noun)
    : noun_(noun) {
  const std::string_view pieces[] = {loader, ": <", source, ">", part};
  std::size_t length = 0;
  for (const std::string_view piece : pieces) length += piece.size();
  text_.resize(length, boost::container::default_init);
  char* end = text_.data();
  for (const std::string_view piece : pieces) end = std::copy(piece.begin(), piece.end(), end);
  source_length_ = length - part.size();
}

MapAccess mapping_access(const LoadOptions& options) {
  check_copy_rules(options, "file");
  const bool copies_only = options.device != cpu || options.copy.value_or(false);
  return copies_only ? MapAccess::read_only : options.access;
}

LoadOptions buffer_load_options(const Buffer& bytes, LoadOptions options, std::string_view description) {
  if (!bytes.device().is_host_accessible())
    throw DeviceError(concat(description, ": the buffer is on ", bytes.device(),
                             ", which the host cannot read; copy it to the CPU first"));
  check_copy_rules(options, "buffer");
  if (options.access != MapAccess::read_only && !bytes.is_writable())
    throw ValueError(concat(description, ": ", options.access == MapAccess::shared ? "shared" : "copy_on_write",
                            " access gives writable tensors, but the buffer is read-only"));
  if (options.access == MapAccess::copy_on_write && options.device == cpu) {
    if (options.copy == false)
      throw ValueError(concat(description, ": copy_on_write access copies every tensor, so that writes never "
                                           "reach the buffer, but copy = false"));
    options.copy = true;
  }
  return options;
}

FileBytes file_bytes(PathRef path, const LoadOptions& options, bool read_allowed) {
  const MapAccess access = mapping_access(options);
  const bool copies = options.device != cpu || options.copy.value_or(false);
  if (!options.slice.rules.empty() && copies) {  // read from a mapping, only the pages this rank needs
    Buffer mapping = map_file(path, {.access = access});
    const std::span<std::byte> pages = page_range(view_address(mapping), mapping.nbytes());
    ::madvise(pages.data(), pages.size(), MADV_RANDOM);
    return {std::move(mapping), options, options.direct ? DirectFile::open(path) : nullptr};
  }
  // A direct read reads the whole file: a selection does not forbid it.
  if (!(read_allowed || options.direct) || !copies || options.device != cpu)
    return {map_file(path, {.access = access}), options, options.direct ? DirectFile::open(path) : nullptr};
  LoadOptions copied = options;
  copied.copy.reset();  // copied already: copied again only to swap bytes or align
  return {read_file(path, options.direct), copied};
}

AnyTensor load_stored_tensor(const Buffer& bytes, const StoredTensor& stored, const LoadOptions& options,
                             const DescribeTensor& describe, std::string_view noun,
                             const std::shared_ptr<const DirectFile>& direct) {
  // The views are writable only when the access, and so the bytes, are.
  std::byte* source = view_address(bytes) + stored.offset;
  const index_t count = numel(stored.shape);
  const std::size_t length = std::size_t(count) * itemsize(stored.dtype);
  const bool writable = options.access != MapAccess::read_only;
  if (options.device != cpu) {
    DeviceUploads upload;
    upload.add({}, bytes, stored, options, describe, direct);
    return std::move(upload.run(describe()).front().second);
  }
  check_stored_bools(source, stored, describe);

  const std::string reason = copy_reason(source, stored, count, noun);
  if (reason.empty() && !options.copy.value_or(false))
    return make_view(stored.dtype, source, stored.shape, stored.strides, bytes.owner(), bytes.device(), writable);
  if (!reason.empty() && options.copy == false)
    throw ValueError(concat(describe(), " ", reason, ", but copy = false"));
  if (!reason.empty() && options.access == MapAccess::shared)
    throw ValueError(
        concat(describe(), " ", reason, ", so it cannot share memory with the ", noun, " (shared access)"));

  std::shared_ptr<std::byte> memory = allocate_bytes(length);
  read_runs_ahead(source, stored, options);
  native_run_bytes(source, runs_of(stored), 0, {memory.get(), length}, stored.dtype,
                   needs_byte_swap(stored, count) ? byte_order_unit(stored.dtype) : 1, stored.negate);
  std::byte* copy = memory.get();
  return make_view(stored.dtype, copy, stored.shape, copy_strides(stored), std::move(memory), cpu, writable);
}

FilePart tensor_file_part(const AnyTensor& tensor, std::string_view operation) {
  const auto* bytes = static_cast<const std::byte*>(tensor.data_ptr());
  if (tensor.device().is_host_accessible()) return std::span(bytes, tensor.nbytes());
  return {tensor.nbytes(), [bytes, size = tensor.nbytes(), device = tensor.device(),
                            message = concat(operation, ": saving from ", tensor.device())](const WriteAt& write) {
            download_staged_chunks(bytes, device, size, write, message);
          }};
}

void DeviceUploads::add(std::string name, const Buffer& bytes, const StoredTensor& stored, const LoadOptions& options,
                        const DescribeTensor& describe, const std::shared_ptr<const DirectFile>& direct) {
  try {
    check_copy_rules(options, "file");
  } catch (const ValueError& error) {
    throw ValueError(concat(describe(), ": ", error.what()));
  }
  const std::byte* source = view_address(bytes) + stored.offset;
  check_stored_bools(source, stored, describe);
  read_runs_ahead(source, stored, options);
  bytes_ += std::uint64_t(numel(stored.shape)) * itemsize(stored.dtype);
  const bool as_stored = !stored.slice && !needs_byte_swap(stored, numel(stored.shape)) && !stored.negate.any();
  queued_.push_back({std::move(name), bytes, stored, options.device, options.access != MapAccess::read_only,
                     as_stored ? direct : nullptr});
}

void DeviceUploads::append(DeviceUploads&& other) {
  std::move(other.queued_.begin(), other.queued_.end(), std::back_inserter(queued_));
  bytes_ += other.bytes_;
  other.queued_.clear();
  other.bytes_ = 0;
}

void DeviceUploads::upload_to(Device device, std::string_view description,
                              const std::function<void(std::uint64_t)>& staged,
                              std::vector<std::optional<AnyTensor>>& copies) const {
  std::vector<std::size_t> members;  // the queued tensors for `device`
  std::vector<UploadPart> parts;
  for (std::size_t i = 0; i < queued_.size(); ++i) {
    const Queued& tensor = queued_[i];
    if (tensor.device != device) continue;
    members.push_back(i);
    parts.push_back(upload_part(view_address(tensor.bytes) + tensor.stored.offset, tensor.stored, tensor.direct));
    if (!staged) continue;
    parts.back().fill = [fill = std::move(parts.back().fill), &staged](std::size_t offset, std::span<std::byte> out) {
      fill(offset, out);
      staged(out.size());
    };
  }
  std::vector<std::shared_ptr<std::byte>> memory =
      upload_staged(parts, device, concat(description, ": loading to ", device));
  for (std::size_t k = 0; k < members.size(); ++k) {
    const Queued& tensor = queued_[members[k]];
    std::byte* data = memory[k].get();
    copies[members[k]] = make_view(tensor.stored.dtype, data, tensor.stored.shape, copy_strides(tensor.stored),
                                   std::move(memory[k]), device, tensor.writable);
  }
}

std::vector<std::pair<std::string, AnyTensor>> DeviceUploads::run(std::string_view description,
                                                                  const std::function<void(std::uint64_t)>& staged) {
  std::vector<Device> devices;  // in the order first queued
  for (const Queued& tensor : queued_)
    if (std::find(devices.begin(), devices.end(), tensor.device) == devices.end()) devices.push_back(tensor.device);
  std::vector<std::optional<AnyTensor>> copies(queued_.size());
  for (const Device device : devices) upload_to(device, description, staged, copies);
  std::vector<std::pair<std::string, AnyTensor>> tensors;
  tensors.reserve(queued_.size());
  for (std::size_t i = 0; i < queued_.size(); ++i) tensors.emplace_back(std::move(queued_[i].name), std::move(*copies[i]));
  queued_.clear();
  bytes_ = 0;
  return tensors;
}

}  // namespace zt::detail
