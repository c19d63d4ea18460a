// zt::arrow: zerotensor's own declarations of the Apache Arrow C Data Interface and C Device
// Data Interface (arrow/c/abi.h, ABI-stable since Arrow 1.0 and 11.0). Each struct is
// layout-identical to its C counterpart — the static_asserts below pin sizes and offsets —
// so pyarrow's `_export_to_c`, Arrow C++'s ExportArray, nanoarrow, Polars, DuckDB or cuDF
// can write into them, and zt::to_arrow's output can be read by any of them. zerotensor
// links no Arrow library.
//
// Ownership, in one sentence: whoever holds a struct whose `release` is not NULL must call
// `release` exactly once (which sets it to NULL) or move the struct to someone who will;
// moving is a bitwise copy followed by setting the source's `release` to NULL. Only the
// base struct is released by its holder; the producer's release frees the children.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace zt::arrow {

/// ArrowSchema: the type of an array, as a tree (one node per nested type).
struct Schema {
  const char* format;    ///< the type, e.g. "f" float32, "+w:4" fixed-size list of 4; never NULL
  const char* name;      ///< field name (a record batch's column names); may be NULL
  const char* metadata;  ///< binary key/value pairs (see below); NULL when there are none
  std::int64_t flags;    ///< flag_* bits below
  std::int64_t n_children;
  Schema** children;     ///< n_children non-NULL pointers
  Schema* dictionary;    ///< the value type of a dictionary-encoded array; else NULL
  void (*release)(Schema* self);  ///< NULL marks a released (or moved-from) struct
  void* private_data;             ///< the producer's; consumers leave it alone
};

/// ArrowArray: the data of an array, as a tree parallel to its Schema.
struct Array {
  std::int64_t length;      ///< logical slots, counted from `offset`
  std::int64_t null_count;  ///< -1 when not computed
  std::int64_t offset;      ///< logical slots to skip at the start of every buffer (slices)
  std::int64_t n_buffers;
  std::int64_t n_children;
  const void** buffers;     ///< n_buffers pointers; buffer 0 is the validity bitmap (may be NULL)
  Array** children;
  Array* dictionary;
  void (*release)(Array* self);
  void* private_data;
};

/// ArrowDeviceType: the same numbers as DLPack's DLDeviceType.
using DeviceType = std::int32_t;
inline constexpr DeviceType device_cpu = 1;
inline constexpr DeviceType device_cuda = 2;
inline constexpr DeviceType device_cuda_host = 3;   ///< pinned host memory
inline constexpr DeviceType device_cuda_managed = 13;  ///< unified memory

/// ArrowDeviceArray: an Array whose buffers live on one device.
struct DeviceArray {
  Array array;             ///< buffers are device pointers; the struct itself is on the host
  std::int64_t device_id;  ///< the GPU ordinal; 0 for CPU memory
  DeviceType device_type;
  /// CUDA: NULL or a pointer to a cudaEvent_t the consumer waits on before reading.
  void* sync_event;
  std::int64_t reserved[3];  ///< zero
};

/// Schema::flags bits.
inline constexpr std::int64_t flag_dictionary_ordered = 1;
inline constexpr std::int64_t flag_nullable = 2;
inline constexpr std::int64_t flag_map_keys_sorted = 4;

// Schema::metadata is, in native byte order: int32 number of pairs, then per pair int32 key
// length, key bytes, int32 value length, value bytes (no terminators). Extension types put
// their name under "ARROW:extension:name" and their parameters under "ARROW:extension:metadata".

static_assert(sizeof(void*) == 8, "zt::arrow: the offsets below are those of 64-bit targets");
static_assert(offsetof(Schema, format) == 0 && offsetof(Schema, name) == 8 && offsetof(Schema, metadata) == 16 &&
              offsetof(Schema, flags) == 24 && offsetof(Schema, n_children) == 32 &&
              offsetof(Schema, children) == 40 && offsetof(Schema, dictionary) == 48 &&
              offsetof(Schema, release) == 56 && offsetof(Schema, private_data) == 64 && sizeof(Schema) == 72);
static_assert(offsetof(Array, length) == 0 && offsetof(Array, null_count) == 8 && offsetof(Array, offset) == 16 &&
              offsetof(Array, n_buffers) == 24 && offsetof(Array, n_children) == 32 &&
              offsetof(Array, buffers) == 40 && offsetof(Array, children) == 48 &&
              offsetof(Array, dictionary) == 56 && offsetof(Array, release) == 64 &&
              offsetof(Array, private_data) == 72 && sizeof(Array) == 80);
static_assert(offsetof(DeviceArray, array) == 0 && offsetof(DeviceArray, device_id) == 80 &&
              offsetof(DeviceArray, device_type) == 88 && offsetof(DeviceArray, sync_event) == 96 &&
              offsetof(DeviceArray, reserved) == 104 && sizeof(DeviceArray) == 128);
static_assert(std::is_standard_layout_v<Schema> && std::is_trivially_copyable_v<Schema> &&
              std::is_standard_layout_v<Array> && std::is_trivially_copyable_v<Array> &&
              std::is_standard_layout_v<DeviceArray> && std::is_trivially_copyable_v<DeviceArray>);

}  // namespace zt::arrow
