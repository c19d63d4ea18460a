// DLPack import (the checks and the view behind from_dlpack) and export (to_dlpack).
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <new>
#include <span>
#include <utility>
#include <vector>

#include "vocabulary/concat.hpp"
#include "interop/dtype_formats.hpp"
#include "views/strided_walk.hpp"
#include "zerotensor/empty.hpp"
#include "zerotensor/from_dlpack.hpp"
#include "zerotensor/to_dlpack.hpp"

namespace zt {
namespace {

using dlpack::DeviceType;
using dlpack::TypeCode;

// ---- dtype and device mapping, both directions --------------------------------------------

/// "code 2 (float), 8 bits, 1 lane": how a refused DLPack type is named in messages.
std::string describe_type(dlpack::DataType type) {
  constexpr std::array<const char*, 18> names = {
      "int",         "uint",          "float",         "opaque handle",      "bfloat",      "complex",
      "bool",        "float8_e3m4",   "float8_e4m3",   "float8_e4m3b11fnuz", "float8_e4m3fn",
      "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu", "float6_e2m3fn",
      "float6_e3m2fn", "float4_e2m1fn"};
  const char* name = type.code < names.size() ? names[type.code] : "unknown";
  return detail::concat("code ", unsigned(type.code), " (", name, "), ", unsigned(type.bits), " bits, ",
                        type.lanes, type.lanes == 1 ? " lane" : " lanes");
}

[[noreturn]] void throw_unsupported_type(dlpack::DataType type) {
  if (type.code == std::uint8_t(TypeCode::OpaqueHandle))
    throw TypeError(detail::concat("from_dlpack: opaque handles have no element type; got ", describe_type(type)));
  if (type.lanes != 1 && type.bits >= 8)
    throw TypeError(detail::concat("from_dlpack: vector types are not supported; expected 1 lane, got ",
                                   describe_type(type)));
  throw TypeError(detail::concat(
      "from_dlpack: unsupported data type ", describe_type(type),
      "; zerotensor accepts bool 8, int and uint 8/16/32/64, float 16/32/64, bfloat 16 and complex 32/64/128 bits, "
      "float8_e4m3fn, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz and float8_e8m0fnu 8 bits, float4_e2m1fn 4 bits "
      "in 2 lanes, float6_e2m3fn and float6_e3m2fn 6 bits in 4 lanes"));
}

[[noreturn]] void throw_unsupported_device(dlpack::Device device) {
  if (device.device_id < 0)
    throw DeviceError(detail::concat("from_dlpack: device id ", device.device_id, " of device type ",
                                     std::int32_t(device.device_type), " is negative"));
  throw DeviceError(detail::concat("from_dlpack: unsupported device type ", std::int32_t(device.device_type),
                                   "; zerotensor accepts CPU (1), CUDA (2), CUDAHost (3) and CUDAManaged (13)"));
}

/// DType + 1 by DLPack type code and bits (0: no dtype), from dtype_formats' DLPack columns:
/// an import looks its dtype up in one step.
constexpr auto dtypes_by_dlpack_type = [] {
  std::array<std::array<std::uint8_t, 129>, 18> table{};
  for (DType dtype : all_dtypes) {
    const detail::DTypeFormats& formats = detail::dtype_formats[std::size_t(dtype)];
    if (formats.dlpack_bits != 0)
      table[std::size_t(formats.dlpack_code)][formats.dlpack_bits] = std::uint8_t(std::size_t(dtype) + 1);
  }
  return table;
}();

/// The dtype whose DLPack code, bits and lanes are `type`'s.
DType dtype_from_dlpack(dlpack::DataType type) {
  if (type.code < dtypes_by_dlpack_type.size() && type.bits < dtypes_by_dlpack_type[0].size()) {
    const std::uint8_t entry = dtypes_by_dlpack_type[type.code][type.bits];
    if (entry != 0) {
      const auto dtype = DType(entry - 1);
      if (detail::dtype_formats[std::size_t(dtype)].lanes == type.lanes) return dtype;
    }
  }
  throw_unsupported_type(type);
}

Device device_from_dlpack(dlpack::Device device) {
  switch (device.device_type) {
    case DeviceType::CPU: return cpu;  // the id of host memory carries no meaning
    case DeviceType::CUDA:
      if (device.device_id >= 0) return {DeviceKind::CUDA, device.device_id};
      break;
    case DeviceType::CUDAHost:
      if (device.device_id >= 0) return {DeviceKind::CUDAHost, device.device_id};
      break;
    case DeviceType::CUDAManaged:
      if (device.device_id >= 0) return {DeviceKind::CUDAManaged, device.device_id};
      break;
    default: break;
  }
  throw_unsupported_device(device);
}

// ---- import ---------------------------------------------------------------------------------

std::span<const index_t> shape_of(std::int32_t ndim, const index_t* shape) {
  if (ndim < 0) throw ValueError(detail::concat("from_dlpack: ndim is ", ndim, "; it must be 0 or more"));
  if (ndim > 0 && shape == nullptr) throw ValueError(detail::concat("from_dlpack: shape is NULL for ndim ", ndim));
  return {shape, std::size_t(ndim)};
}

/// Bytes from the first element back to the lowest one the view reaches, and forward to
/// the end of the highest; the required span is (below + above) / itemsize elements.
struct ByteReach {
  index_t below;
  index_t above;
};

/// The view's byte reach, every step overflow-checked. Only for views with elements.
ByteReach byte_reach(std::span<const index_t> shape, std::span<const index_t> strides, std::size_t itemsize) {
  index_t low = 0;
  index_t high = 0;
  bool overflow = false;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    index_t reach = 0;
    overflow |= detail::mul_overflows(shape[d] - 1, strides[d], reach);
    overflow |= reach < 0 ? detail::add_overflows(low, reach, low) : detail::add_overflows(high, reach, high);
  }
  const auto size = static_cast<index_t>(itemsize);
  ByteReach bytes{};
  overflow |= detail::mul_overflows(low, -size, bytes.below) || detail::add_overflows(high, index_t{1}, high) ||
              detail::mul_overflows(high, size, bytes.above);
  if (overflow)
    throw ValueError(detail::concat("from_dlpack: shape ", detail::shape_string(shape), " with strides ",
                                    detail::shape_string(strides), " of ", itemsize,
                                    "-byte elements spans more than 2^63 bytes"));
  return bytes;
}

/// The first element's address: data + byte_offset, checked so the whole view lies inside
/// the address space and the element type's alignment holds.
std::byte* first_element(const void* data, std::uint64_t byte_offset, std::span<const index_t> shape,
                         std::span<const index_t> strides, DType dtype, index_t count) {
  const auto address = reinterpret_cast<std::uintptr_t>(data);
  if (count == 0 && address == 0) return nullptr;  // the spec's empty tensor: nothing to offset
  if (address == 0)
    throw ValueError(detail::concat("from_dlpack: data is NULL but shape ", detail::shape_string(shape), " has ",
                                    count, " elements"));
  std::uintptr_t start = 0;
  if (detail::add_overflows(address, byte_offset, start))
    throw ValueError(detail::concat("from_dlpack: byte_offset ", byte_offset, " added to data ", data,
                                    " passes the end of the address space"));
  if (count > 0) {
    const ByteReach reach = byte_reach(shape, strides, itemsize(dtype));
    std::uintptr_t end = 0;
    if (start < std::uintptr_t(reach.below) || detail::add_overflows(start, std::uintptr_t(reach.above), end))
      throw ValueError(detail::concat("from_dlpack: shape ", detail::shape_string(shape), " with strides ",
                                      detail::shape_string(strides), " from address ",
                                      reinterpret_cast<void*>(start), " reaches outside the address space"));
    if (!is_aligned(reinterpret_cast<const void*>(start), dtype))
      throw ValueError(detail::concat("from_dlpack: the first element at ", reinterpret_cast<void*>(start),
                                      " (data ", data, " + byte_offset ", byte_offset, ") is not aligned to ",
                                      alignment(dtype), " bytes, the alignment of ", dtype));
  }
  return reinterpret_cast<std::byte*>(start);
}

/// `bits |= bits shifted by `shift` positions` (toward higher positions when positive), in
/// a bit set of 64 * bits.size() positions; bits shifted past either end are dropped.
void or_shifted(std::vector<std::uint64_t>& bits, index_t shift) {
  const std::vector<std::uint64_t> source = bits;
  const auto words = index_t(bits.size());
  const index_t word_shift = shift >= 0 ? shift / 64 : -((-shift + 63) / 64);  // floor(shift / 64)
  const auto bit_shift = unsigned(shift - word_shift * 64);                    // 0 .. 63
  for (index_t word = 0; word < words; ++word) {
    const index_t from = word - word_shift;  // the source word of this word's upper bits
    if (from >= 0 && from < words) bits[std::size_t(word)] |= source[std::size_t(from)] << bit_shift;
    if (bit_shift != 0 && from >= 1 && from <= words)
      bits[std::size_t(word)] |= source[std::size_t(from - 1)] >> (64 - bit_shift);
  }
}

/// A view with more elements than bytes in its reach overlaps itself: marks the bytes it
/// reaches (positions from the lowest), a dimension at a time, doubling the indices each
/// pass, so the work is proportional to the reach rather than the element count. Then
/// refuses a reached byte other than 0 or 1, naming its offset from the first element.
void check_overlapping_bool_bytes(const std::byte* first, std::span<const index_t> shape,
                                  std::span<const index_t> strides, index_t below, index_t reach) {
  std::vector<std::uint64_t> bits(std::size_t((reach + 63) / 64), 0);
  bits[std::size_t(below / 64)] |= std::uint64_t{1} << (below % 64);
  for (std::size_t d = 0; d < shape.size(); ++d) {
    for (index_t have = 1; have < shape[d];) {
      const index_t step = std::min(have, shape[d] - have);
      or_shifted(bits, step * strides[d]);
      have += step;
    }
  }
  for (index_t position = 0; position < reach; ++position) {
    if ((bits[std::size_t(position / 64)] >> (position % 64) & 1) == 0) continue;
    const auto value = std::to_integer<unsigned>(first[position - below]);
    if (value > 1)
      throw ValueError(detail::concat("from_dlpack: the bool byte at offset ", position - below,
                                      " from the first element is ", value, "; DLPack bool data must be bytes 0 or 1"));
  }
}

/// Refuses a bool element whose byte is not 0 or 1, reading each byte of memory once:
/// extent-1 dimensions are never stepped and broadcast (stride-0) dimensions repeat bytes
/// already read, so the walk leaves both out; a view that still overlaps itself is checked
/// byte by byte over its reach. A bad byte is named by its first index in C order (index 0
/// in every left-out dimension), or by its offset when the view overlaps itself.
void check_bool_elements(const std::byte* first, std::span<const index_t> shape, std::span<const index_t> strides) {
  const auto stepped = [&](std::size_t d) { return shape[d] > 1 && strides[d] != 0; };
  std::size_t rank = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) rank += stepped(d) ? 1 : 0;
  DynamicExtents walked_shape(rank, 0), walked_strides(rank, 0), walked_dims(rank, 0);
  for (std::size_t d = 0, k = 0; d < shape.size(); ++d) {
    if (!stepped(d)) continue;
    walked_shape[k] = shape[d];
    walked_strides[k] = strides[d];
    walked_dims[k++] = index_t(d);
  }
  // The reach fits: the import checked it in bytes, and bools are bytes.
  const detail::ElementReach reach = detail::element_reach(walked_shape, walked_strides);
  const index_t span = reach.below + reach.above + 1;
  index_t walked = 1;
  for (index_t extent : walked_shape) {
    if (detail::mul_overflows(walked, extent, walked) || walked > span)
      return check_overlapping_bool_bytes(first, walked_shape, walked_strides, reach.below, span);
  }
  const index_t inner_stride = rank == 0 ? 0 : walked_strides[rank - 1];
  detail::for_each_row<1>(
      walked_shape, {walked_strides},
      [&](const std::array<index_t, 1>& offset, index_t length, std::span<const index_t> outer) {
        for (index_t i = 0; i < length; ++i) {
          const auto value = std::to_integer<unsigned>(first[offset[0] + i * inner_stride]);
          if (value <= 1) continue;
          DynamicExtents index(shape.size(), 0);
          for (std::size_t k = 0; k < outer.size(); ++k) index[std::size_t(walked_dims[k])] = outer[k];
          if (rank > 0) index[std::size_t(walked_dims[rank - 1])] = i;
          throw ValueError(detail::concat("from_dlpack: bool element ", detail::shape_string(index), " is byte ",
                                          value, "; DLPack bool data must be bytes 0 or 1"));
        }
      });
}

// ---- export ---------------------------------------------------------------------------------

/// The one allocation behind an export: the managed struct, the shared owner, and then
/// 2 * ndim int64 values (shape, then strides). manager_ctx points at it.
template <class Managed>
struct Export {
  Managed managed;
  KeepAlive owner;

  std::int64_t* extents() noexcept { return reinterpret_cast<std::int64_t*>(this + 1); }

  static void release(Managed* self) noexcept {
    auto* block = static_cast<Export*>(self->manager_ctx);
    block->~Export();
    ::operator delete(block);
  }
};

/// Fills one export from the view's layout; the block shares the view's owner.
template <class Managed>
Managed* export_tensor(const AnyTensor& view) {
  using Block = Export<Managed>;
  if (detail::dtype_formats[std::size_t(view.dtype())].dlpack_bits == 0)
    throw TypeError(detail::concat("to_dlpack: DLPack has no ", view.dtype(), " dtype"));
  static_assert(alignof(Block) % alignof(std::int64_t) == 0 && sizeof(Block) % alignof(std::int64_t) == 0);
  const std::size_t rank = view.rank();
  void* memory = ::operator new(sizeof(Block) + 2 * rank * sizeof(std::int64_t));
  auto* block = new (memory) Block{Managed{}, view.owner()};
  std::int64_t* shape = block->extents();
  std::int64_t* strides = shape + rank;
  std::copy_n(view.shape().data(), rank, shape);
  std::copy_n(view.strides().data(), rank, strides);

  const detail::DTypeFormats& formats = detail::dtype_formats[std::size_t(view.dtype())];
  Managed& managed = block->managed;
  // Never NULL, even for an empty view: libtorch 1.13 never calls the deleter of an export
  // whose data is NULL. The block itself is an address that lives as long as the export.
  void* data = view.data_ptr() != nullptr ? const_cast<void*>(view.data_ptr()) : static_cast<void*>(block);
  managed.dl_tensor = {data,
                       to_dlpack_device(view.device()),
                       std::int32_t(rank),
                       {std::uint8_t(formats.dlpack_code), formats.dlpack_bits, formats.lanes},
                       rank == 0 ? nullptr : shape,
                       rank == 0 ? nullptr : strides,
                       0};
  managed.manager_ctx = block;
  managed.deleter = &Block::release;
  return &managed;
}

}  // namespace

namespace detail {

void throw_dlpack_null() { throw ValueError("from_dlpack: the managed tensor pointer is NULL"); }

void throw_dlpack_major_version(std::uint32_t major, std::uint32_t minor) {
  throw ValueError(concat("from_dlpack: DLPack version ", major, ".", minor,
                          " has a different ABI; zerotensor reads major version ", dlpack::major_version));
}

AnyTensor view_from_dlpack(const dlpack::Tensor& descriptor, std::uint64_t flags, KeepAlive owner) {
  if ((flags & dlpack::flag_is_subbyte_type_padded) != 0 && descriptor.dtype.bits < 8)
    throw TypeError(concat("from_dlpack: sub-byte values padded to a byte each (DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED) "
                           "are not supported, zerotensor reads them packed; got ",
                           describe_type(descriptor.dtype)));
  const bool read_only = (flags & dlpack::flag_read_only) != 0;
  const DType dtype = dtype_from_dlpack(descriptor.dtype);
  const std::span<const index_t> shape = shape_of(descriptor.ndim, descriptor.shape);
  const index_t count = checked_numel(shape, itemsize(dtype));
  // NULL strides mean C order; the given ones are read in place.
  const DynamicExtents c_order =
      descriptor.strides == nullptr ? contiguous_strides(DynamicExtents(shape)) : DynamicExtents();
  const std::span<const index_t> strides = descriptor.strides == nullptr
                                               ? std::span<const index_t>(c_order)
                                               : std::span<const index_t>(descriptor.strides, shape.size());
  std::byte* first = first_element(descriptor.data, descriptor.byte_offset, shape, strides, dtype, count);
  const Device device = device_from_dlpack(descriptor.device);
  AnyTensor view = make_view(dtype, first, shape, strides, std::move(owner), device, !read_only);
  // On failure the view dies here and its owner runs the producer's deleter.
  if (dtype == bool_ && count > 0 && device.is_host_accessible()) check_bool_elements(first, shape, strides);
  return view;
}

}  // namespace detail

dlpack::ManagedTensorVersioned* to_dlpack(const AnyTensor& tensor) {
  auto* managed = export_tensor<dlpack::ManagedTensorVersioned>(tensor);
  managed->version = {dlpack::major_version, dlpack::minor_version};
  managed->flags = tensor.is_writable() ? 0 : dlpack::flag_read_only;
  return managed;
}

dlpack::Device to_dlpack_device(Device device) noexcept {
  switch (device.kind) {
    case DeviceKind::CUDA: return {dlpack::DeviceType::CUDA, device.index};
    case DeviceKind::CUDAHost: return {dlpack::DeviceType::CUDAHost, device.index};
    case DeviceKind::CUDAManaged: return {dlpack::DeviceType::CUDAManaged, device.index};
    case DeviceKind::CPU: break;
  }
  return {dlpack::DeviceType::CPU, 0};
}

dlpack::ManagedTensorVersioned* allocate_dlpack(const dlpack::Tensor& prototype) {
  const DType dtype = dtype_from_dlpack(prototype.dtype);
  const std::span<const index_t> shape = shape_of(prototype.ndim, prototype.shape);
  return to_dlpack(empty(shape, dtype, device_from_dlpack(prototype.device)));
}

dlpack::ManagedTensor* to_dlpack_legacy(const AnyTensor& tensor) {
  if (!tensor.is_writable())
    throw TypeError(detail::concat("to_dlpack_legacy: the tensor (",
                                   detail::describe(tensor.dtype(), tensor.shape(), tensor.strides(), tensor.device(),
                                                    false),
                                   "): a legacy DLManagedTensor cannot mark memory read-only; use to_dlpack "
                                   "(DLPack 1.x sets READ_ONLY) or export a clone()"));
  return export_tensor<dlpack::ManagedTensor>(tensor);
}

}  // namespace zt
