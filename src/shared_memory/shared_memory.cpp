#include "zerotensor/shared_memory.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include <boost/interprocess/exceptions.hpp>
#include <boost/interprocess/mapped_region.hpp>
#include <boost/interprocess/shared_memory_object.hpp>

#include "vocabulary/concat.hpp"
#include "memory/file_io.hpp"
#include "zerotensor/detail/element_checks.hpp"
#include "zerotensor/empty.hpp"

namespace zt {
namespace {

namespace bip = boost::interprocess;
using detail::concat;

/// "ZTSHMTNS" read as a little-endian integer; stored last by the creator (release) and
/// read first by openers (acquire), so a complete header is seen or none.
constexpr std::uint64_t segment_magic = 0x534E544D48535A54ULL;
constexpr std::uint32_t segment_version = 1;
constexpr std::size_t data_alignment = 64;

/// The start of every segment; `rank` extents (int64) follow it, then the data at data_offset.
struct SegmentHeader {
  std::uint64_t magic;
  std::uint32_t version;
  std::uint32_t dtype;
  std::uint64_t rank;
  std::uint64_t data_offset;  // bytes from the start of the segment, a multiple of data_alignment
  std::uint64_t data_bytes;
};

std::uint64_t round_up(std::uint64_t value, std::uint64_t multiple) { return (value + multiple - 1) / multiple * multiple; }

std::string checked_name(std::string_view name) {
  if (name.empty() || name.find('/') != std::string_view::npos)
    throw ValueError(concat("shared tensor name '", name, "' must be non-empty and contain no '/'"));
  return std::string(name);
}

AnyTensor view_of(const std::shared_ptr<bip::mapped_region>& region, const SegmentHeader& header,
                  std::span<const index_t> shape, bool writable) {
  auto* data = static_cast<std::byte*>(region->get_address()) + header.data_offset;
  const auto dtype = static_cast<DType>(header.dtype);
  return detail::make_view(dtype, data, shape, detail::contiguous_strides(DynamicExtents(shape)), region, cpu,
                           writable);
}

std::shared_ptr<bip::mapped_region> map_segment(const bip::shared_memory_object& segment, bip::mode_t mode,
                                                std::size_t size, const std::string& name) {
  try {
    return std::make_shared<bip::mapped_region>(segment, mode, 0, size);
  } catch (const bip::interprocess_exception& e) {
    detail::throw_io_error(concat("unable to map shared tensor '", name, "'"), e.get_native_error(), e.what());
  }
}

/// Checks that the header describes a tensor that fits in `size` bytes; returns its shape.
DynamicExtents validated_shape(const SegmentHeader& header, const std::byte* segment, std::size_t size,
                               const std::string& name) {
  const auto fail = [&](std::string_view what) -> void {
    throw ValueError(concat("shared memory '", name, "' is not a zerotensor tensor: ", what));
  };
  if (header.version != segment_version) fail(concat("version ", header.version, ", expected ", segment_version));
  if (header.dtype >= dtype_count) fail(concat("dtype code ", header.dtype));
  const std::uint64_t extents_end = sizeof(SegmentHeader) + header.rank * sizeof(index_t);
  if (header.rank > size / sizeof(index_t) || header.data_offset % data_alignment != 0 ||
      header.data_offset < extents_end || header.data_offset > size || header.data_bytes > size - header.data_offset)
    fail(concat("rank ", header.rank, ", data offset ", header.data_offset, " and ", header.data_bytes,
                " data bytes do not fit a segment of ", size, " bytes"));
  DynamicExtents shape(header.rank, 0);
  std::memcpy(shape.data(), segment + sizeof(SegmentHeader), header.rank * sizeof(index_t));
  const auto dtype = static_cast<DType>(header.dtype);
  const std::string context = concat("shared memory '", name, "' is not a zerotensor tensor");
  const index_t count = checked_numel(shape, itemsize(dtype), context);
  if (std::uint64_t(count) * itemsize(dtype) != header.data_bytes)
    fail(concat("shape ", detail::shape_string(shape), " of ", dtype, " needs ", std::uint64_t(count) * itemsize(dtype),
                " bytes, the header says ", header.data_bytes));
  if (dtype == bool_) detail::check_bool_bytes(segment + header.data_offset, count, context);
  return shape;
}

}  // namespace

AnyTensor create_shared_tensor(std::string_view name, std::span<const index_t> shape, DType dtype) {
  const std::string segment_name = checked_name(name);
  const index_t count = checked_numel(shape, itemsize(dtype));
  SegmentHeader header{0, segment_version, std::uint32_t(dtype), shape.size(), 0, std::uint64_t(count) * itemsize(dtype)};
  header.data_offset = round_up(sizeof(SegmentHeader) + shape.size() * sizeof(index_t), data_alignment);
  std::uint64_t size = 0;
  if (detail::add_overflows(header.data_offset, header.data_bytes, size))
    throw ValueError(concat("shared tensor '", name, "' of shape ", detail::shape_string(shape), " is too large"));

  bip::shared_memory_object segment;
  try {
    segment = bip::shared_memory_object(bip::create_only, segment_name.c_str(), bip::read_write);
  } catch (const bip::interprocess_exception& e) {
    detail::throw_io_error(concat("unable to create shared tensor '", name, "'"), e.get_native_error(), e.what());
  }
  try {
    try {
      segment.truncate(bip::offset_t(size));
    } catch (const bip::interprocess_exception& e) {
      detail::throw_io_error(concat("unable to size shared tensor '", name, "' to ", size, " bytes"),
                             e.get_native_error(), e.what());
    }
    auto region = map_segment(segment, bip::read_write, size, segment_name);
    auto* base = static_cast<std::byte*>(region->get_address());
    std::memcpy(base, &header, sizeof header);
    // copy_n, not memcpy: a rank-0 shape may be an empty span with a null data pointer.
    std::copy_n(reinterpret_cast<const std::byte*>(shape.data()), shape.size_bytes(), base + sizeof header);
    std::atomic_ref<std::uint64_t>(static_cast<SegmentHeader*>(region->get_address())->magic)
        .store(segment_magic, std::memory_order_release);
    return view_of(region, header, shape, true);
  } catch (...) {
    bip::shared_memory_object::remove(segment_name.c_str());  // do not leave a half-made segment behind
    throw;
  }
}

AnyTensor open_shared_tensor(std::string_view name, OpenSharedOptions options) {
  const std::string segment_name = checked_name(name);
  const bip::mode_t mode = options.writable ? bip::read_write : bip::read_only;
  bip::shared_memory_object segment;
  bip::offset_t size = 0;
  try {
    segment = bip::shared_memory_object(bip::open_only, segment_name.c_str(), mode);
    segment.get_size(size);
  } catch (const bip::interprocess_exception& e) {
    detail::throw_io_error(concat("unable to open shared tensor '", name, "' in ",
                                  options.writable ? "read-write" : "read-only", " mode"),
                           e.get_native_error(), e.what());
  }
  if (size < bip::offset_t(sizeof(SegmentHeader)))
    throw ValueError(concat("shared memory '", name, "' is not a zerotensor tensor: ", size,
                            " bytes is smaller than the ", sizeof(SegmentHeader), "-byte header"));
  auto region = map_segment(segment, mode, std::size_t(size), segment_name);
  auto* base = static_cast<std::byte*>(region->get_address());
  auto* stored = static_cast<SegmentHeader*>(region->get_address());
  if (std::atomic_ref<std::uint64_t>(stored->magic).load(std::memory_order_acquire) != segment_magic)
    throw ValueError(concat("shared memory '", name, "' is not a zerotensor tensor: bad magic"));
  SegmentHeader header{};
  std::memcpy(&header, base, sizeof header);
  const DynamicExtents shape = validated_shape(header, base, std::size_t(size), segment_name);
  return view_of(region, header, shape, options.writable);
}

bool remove_shared_tensor(std::string_view name) {
  return bip::shared_memory_object::remove(checked_name(name).c_str());
}

}  // namespace zt
