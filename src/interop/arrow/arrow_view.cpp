// The tensor of an Arrow import: a view that owns the producer's ArrowArray, or a copy (bool
// unpacked, unaligned data, filled nulls); and from_arrow's entry points, which take the
// caller's structs.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "interop/arrow/arrow_import.hpp"
#include "zerotensor/convert.hpp"
#include "zerotensor/detail/checked_arithmetic.hpp"
#include "zerotensor/empty.hpp"
#include "zerotensor/shape.hpp"

#if ZT_CUDA
#include <cuda_runtime_api.h>
#endif

namespace zt {
namespace detail {
namespace {

constexpr std::string_view from_arrow_what = "from_arrow";

/// Shape and strides of the result: the row dimension, then the type's dimensions in logical
/// order, with the strides of the row-major physical layout.
struct Geometry {
  ArrowDims<index_t> physical;
  ArrowDims<index_t> shape;
  ArrowDims<index_t> strides;

  Geometry(const ArrowType& type, const ArrowData& data, std::string_view what) {
    physical.push_back(data.rows);
    physical.insert(physical.end(), type.shape.begin(), type.shape.end());
    static_cast<void>(checked_numel(span_of(physical), itemsize(type.dtype), what));
    const ArrowDims<index_t> physical_strides = contiguous_strides(physical);
    shape.push_back(data.rows);
    strides.push_back(physical_strides[0]);
    for (const std::size_t d : type.permutation) {
      shape.push_back(physical[1 + d]);
      strides.push_back(physical_strides[1 + d]);
    }
  }
};

/// Byte i of entry b is bit i of b: Arrow's bools unpacked eight at a time.
constexpr auto unpacked_bytes = [] {
  std::array<std::array<std::uint8_t, 8>, 256> table{};
  for (std::size_t b = 0; b < 256; ++b)
    for (std::size_t i = 0; i < 8; ++i) table[b][i] = std::uint8_t(b >> i & 1);
  return table;
}();

/// `count` bools from bit `first` of `bits` as bytes 0/1 at `out`.
void unpack_bools(const std::byte* bits, std::int64_t first, std::int64_t count, std::byte* out) {
  std::int64_t i = 0;
  for (; i < count && (first + i) % 8 != 0; ++i) out[i] = std::byte(bit_set(bits, first + i));
  for (; i + 8 <= count; i += 8)
    std::memcpy(out + i, unpacked_bytes[std::to_integer<std::size_t>(bits[(first + i) / 8])].data(), 8);
  for (; i < count; ++i) out[i] = std::byte(bit_set(bits, first + i));
}

/// Elements in one slot of walked level `level`: the product of the list sizes below it (a
/// record batch's struct level holds one row of its column).
std::int64_t slot_elements(const ArrowType& type, const ArrowData& data, std::size_t level) {
  std::int64_t elements = 1;
  const std::size_t first_list = level < data.outer_levels ? 0 : level - data.outer_levels;
  for (std::size_t j = first_list; j < type.list_sizes.size(); ++j) elements *= type.list_sizes[j];
  return elements;  // ≤ the element count, which fits: a level with nulls has slots
}

/// The tensor in memory of its own: the leaf's elements copied (bits unpacked) in physical
/// order, null slots at every level overwritten with `fill`.
AnyTensor copy_out(const ArrowType& type, const ArrowData& data, const Geometry& g, const FromArrowOptions& options) {
  AnyTensor own = empty(span_of(g.physical), type.dtype);
  auto* out = static_cast<std::byte*>(own.mutable_data_ptr());
  const std::size_t size = itemsize(type.dtype);
  if (type.bit_packed) unpack_bools(data.data, data.first, data.count, out);
  else if (data.count > 0) std::memcpy(out, data.data + std::size_t(data.first) * size, std::size_t(data.count) * size);
  if (data.nulls > 0) {
    std::array<std::byte, 16> fill{};
    store_scalar(*options.fill_nulls, type.dtype, fill.data());
    for (const ArrowNullLevel& level : data.null_levels) {
      const std::int64_t inner = slot_elements(type, data, level.level);
      for (std::int64_t slot = 0; slot < level.count; ++slot) {
        if (bit_set(level.validity, level.first + slot)) continue;
        for (std::int64_t e = slot * inner; e < (slot + 1) * inner; ++e)
          std::memcpy(out + std::size_t(e) * size, fill.data(), size);
      }
    }
  }
  return make_view(type.dtype, out, span_of(g.shape), span_of(g.strides), KeepAlive(own.owner()), cpu, true);
}

[[noreturn]] void throw_nulls(const ArrowType& type, const ArrowData& data, std::string_view what) {
  const ArrowNullLevel& level = data.null_levels.front();
  std::int64_t slot = 0;
  while (bit_set(level.validity, level.first + slot)) ++slot;
  const std::string where = level.level < data.outer_levels
                                ? concat("row ", slot, ", a null row of the record batch")
                                : concat("slot ", slot, " of nesting level ", level.level - data.outer_levels);
  throw ValueError(concat(what, ": the ", type.dtype, " array holds ", data.nulls, " nulls (the first at ", where,
                          "); a tensor has no nulls: pass .fill_nulls to copy with a fill value"));
}

template <class... Parts>
[[noreturn]] void throw_no_copy(std::string_view what, const Parts&... why) {
  throw ValueError(concat(what, ": copy = false, but ", why..., " needs a copy"));
}

}  // namespace

AnyTensor arrow_tensor(const ArrowType& type, const ArrowData& data, const Device& device, KeepAlive owner,
                       const FromArrowOptions& options, std::string_view what) {
  const Geometry g(type, data, what);
  // The walk checked count = rows × Π list sizes; here [start, start + count × itemsize)
  // must lie inside the address space.
  std::uintptr_t start = 0, end = 0;
  std::int64_t skip = 0, bytes = 0;
  const auto size = std::int64_t(itemsize(type.dtype));
  if (!type.bit_packed && data.count > 0 &&
      (mul_overflows(data.first, size, skip) || mul_overflows(data.count, size, bytes) ||
       add_overflows(reinterpret_cast<std::uintptr_t>(data.data), std::uintptr_t(skip), start) ||
       add_overflows(start, std::uintptr_t(bytes), end)))
    throw ValueError(concat(what, ": malformed ArrowArray: ", data.count, " elements from offset ", data.first,
                            " of data ", static_cast<const void*>(data.data), " pass the end of the address space"));
  const bool misaligned = (start & (alignment(type.dtype) - 1)) != 0;
  if (data.nulls > 0 && !options.fill_nulls) throw_nulls(type, data, what);
  if (options.copy == false) {
    if (type.bit_packed) throw_no_copy(what, "Arrow's bit-packed bool (one bit per element, a tensor has one byte)");
    if (misaligned)
      throw_no_copy(what, "the first element at ", reinterpret_cast<const void*>(start), ", not aligned to ",
                    alignment(type.dtype), " bytes (the alignment of ", type.dtype, "),");
    if (data.nulls > 0) throw_no_copy(what, "filling ", data.nulls, " nulls");
  }
  const bool copy = type.bit_packed || misaligned || data.nulls > 0 || options.copy == true;
  if (copy && !device.is_host_accessible())
    throw DeviceError(concat(what, ": the ", type.dtype, " array on ", device,
                             " needs a copy (copy = true, bool, unaligned or nulls) that the host cannot make"));
  if (copy) return copy_out(type, data, g, options);  // `owner` releases the producer's array on return
  auto* first = data.count > 0 ? reinterpret_cast<std::byte*>(start) : nullptr;
  return make_view(type.dtype, first, span_of(g.shape), span_of(g.strides), std::move(owner), device, false);
}

namespace {

/// The type, the walk, then the tensor, whose owner takes the caller's struct.
template <class Struct>
AnyTensor import_array(Struct& source, const arrow::Schema& schema, const Device& device,
                       const FromArrowOptions& options) {
  const ReleaseGuard<arrow::Array> release{&array_of(source)};  // until the owner takes it
  const ArrowType type = read_arrow_type(schema, {from_arrow_what, "from_arrow: arrow.fixed_shape_tensor metadata"});
  const ArrowData data = walk_arrow_array(array_of(source), type, device, from_arrow_what);
  return arrow_tensor(type, data, device, std::make_shared<HeldArray<Struct>>(source), options, from_arrow_what);
}

Device device_of(const arrow::DeviceArray& array) {
  const auto id = array.device_id;
  const bool id_ok = id >= 0 && id <= std::int64_t(INT32_MAX);
  switch (array.device_type) {
    case arrow::device_cpu: return cpu;
    case arrow::device_cuda:
      if (id_ok) return {DeviceKind::CUDA, int(id)};
      break;
    case arrow::device_cuda_host:
      if (id_ok) return {DeviceKind::CUDAHost, int(id)};
      break;
    case arrow::device_cuda_managed:
      if (id_ok) return {DeviceKind::CUDAManaged, int(id)};
      break;
    default:
      throw DeviceError(concat("from_arrow: unsupported Arrow device type ", array.device_type,
                               "; zerotensor accepts CPU (1), CUDA (2), CUDA host (3) and CUDA managed (13)"));
  }
  throw DeviceError(
      concat("from_arrow: device id ", id, " of Arrow device type ", array.device_type, " is not a GPU ordinal"));
}

/// The producer's work on the buffers is done once its event has fired.
void wait_for(const arrow::DeviceArray& array, Device device) {
  if (array.sync_event == nullptr || device.kind == DeviceKind::CPU) return;
#if ZT_CUDA
  const cudaError_t status = cudaEventSynchronize(*static_cast<cudaEvent_t*>(array.sync_event));
  if (status != cudaSuccess)
    throw DeviceError(concat("from_arrow: waiting for the array's sync_event failed: ", cudaGetErrorString(status)));
#else
  throw DeviceError(concat("from_arrow: the array on ", device,
                           " has a sync_event to wait for; that needs the CUDA build (ZT_CUDA=ON)"));
#endif
}

AnyTensor import_device(arrow::DeviceArray& array, const arrow::Schema& schema, const FromArrowOptions& options) {
  const ReleaseGuard<arrow::Array> release{&array.array};
  const Device device = device_of(array);
  wait_for(array, device);
  return import_array(array, schema, device, options);
}

/// The taken schema: a NULL pointer releases the array (as on every error) and is refused.
template <class Struct>
const arrow::Schema& taken_schema(Struct& array, const arrow::Schema* schema) {
  if (schema == nullptr) {
    const ReleaseGuard<arrow::Array> release{&array_of(array)};
    throw ValueError("from_arrow: the ArrowSchema pointer is NULL");
  }
  return *schema;
}

}  // namespace
}  // namespace detail

AnyTensor from_arrow(arrow::Array* array, const arrow::Schema& schema, const FromArrowOptions& options) {
  return detail::import_array(detail::caller_struct(array, detail::from_arrow_what), schema, cpu, options);
}

AnyTensor from_arrow(arrow::Array* array, arrow::Schema* schema, const FromArrowOptions& options) {
  const detail::ReleaseGuard<arrow::Schema> release{schema};
  arrow::Array& source = detail::caller_struct(array, detail::from_arrow_what);
  return detail::import_array(source, detail::taken_schema(source, schema), cpu, options);
}

AnyTensor from_arrow(arrow::DeviceArray* array, const arrow::Schema& schema, const FromArrowOptions& options) {
  return detail::import_device(detail::caller_struct(array, detail::from_arrow_what), schema, options);
}

AnyTensor from_arrow(arrow::DeviceArray* array, arrow::Schema* schema, const FromArrowOptions& options) {
  const detail::ReleaseGuard<arrow::Schema> release{schema};
  arrow::DeviceArray& source = detail::caller_struct(array, detail::from_arrow_what);
  return detail::import_device(source, detail::taken_schema(source, schema), options);
}

}  // namespace zt
