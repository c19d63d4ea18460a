// zt::dlpack: zerotensor's own declarations of the DLPack 1.3 ABI (dmlc/dlpack,
// include/dlpack/dlpack.h), which 1.1 producers also speak (1.2 and 1.3 only added the C
// exchange API below). Every struct is layout-identical to its DL* counterpart — the
// static_asserts below pin sizes and offsets — so a pointer from any producer (libtorch's
// ::DLManagedTensor, NumPy, CuPy, JAX) can be handed to zt::from_dlpack unchanged, and
// zt::to_dlpack's result can be handed to any consumer.
//
// Ownership, in one sentence: whoever holds a managed tensor must call its `deleter`
// exactly once (or hand it to someone who will); the deleter frees the struct itself, its
// shape and strides, and releases the data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>

namespace zt::dlpack {

/// The ABI version zerotensor reads and writes: DLPACK_MAJOR_VERSION / DLPACK_MINOR_VERSION.
inline constexpr std::uint32_t major_version = 1;
inline constexpr std::uint32_t minor_version = 3;

/// DLPackVersion. A different `major` means a different layout: the consumer may call the
/// deleter and read nothing else. A newer `minor` only adds enumeration values.
struct Version {
  std::uint32_t major;
  std::uint32_t minor;
};

/// DLDeviceType (a 32-bit enum in C++).
enum class DeviceType : std::int32_t {
  CPU = 1,
  CUDA = 2,
  CUDAHost = 3,  ///< pinned host memory (cudaMallocHost)
  OpenCL = 4,
  Vulkan = 7,
  Metal = 8,
  VPI = 9,
  ROCM = 10,
  ROCMHost = 11,
  ExtDev = 12,
  CUDAManaged = 13,  ///< unified memory (cudaMallocManaged)
  OneAPI = 14,
  WebGPU = 15,
  Hexagon = 16,
  MAIA = 17,
  Trn = 18,
};

/// DLDevice. `device_id` is the GPU ordinal; 0 for CPU, pinned and managed memory.
struct Device {
  DeviceType device_type;
  std::int32_t device_id;
};

/// DLDataTypeCode: the values of DataType::code.
enum class TypeCode : std::uint8_t {
  Int = 0,
  UInt = 1,
  Float = 2,
  OpaqueHandle = 3,
  Bfloat = 4,
  Complex = 5,  ///< bits counts both parts: complex64 is 64
  Bool = 6,     ///< 8 bits per element
  Float8_e3m4 = 7,
  Float8_e4m3 = 8,
  Float8_e4m3b11fnuz = 9,
  Float8_e4m3fn = 10,
  Float8_e4m3fnuz = 11,
  Float8_e5m2 = 12,
  Float8_e5m2fnuz = 13,
  Float8_e8m0fnu = 14,
  Float6_e2m3fn = 15,  ///< sub-byte: packed unless IS_SUBBYTE_TYPE_PADDED
  Float6_e3m2fn = 16,
  Float4_e2m1fn = 17,
};

/// DLDataType. `code` is a TypeCode value kept as uint8_t, as in dlpack.h. Native byte order.
struct DataType {
  std::uint8_t code;
  std::uint8_t bits;    ///< bits per lane
  std::uint16_t lanes;  ///< 1 for scalars; more for vector types
};

/// DLTensor: a plain view that owns nothing.
struct Tensor {
  void* data;              ///< may be a device pointer; NULL is allowed for zero elements
  Device device;
  std::int32_t ndim;
  DataType dtype;
  std::int64_t* shape;     ///< ndim extents; may be NULL when ndim == 0
  std::int64_t* strides;   ///< ndim strides in elements (not bytes); NULL means C order
  std::uint64_t byte_offset;  ///< bytes from `data` to the first element
};

/// DLManagedTensor, the legacy (pre-1.0) exchange struct: no version, no flags, so it cannot
/// say that memory is read-only.
struct ManagedTensor {
  Tensor dl_tensor;
  void* manager_ctx;                      ///< the producer's; consumers leave it alone
  void (*deleter)(ManagedTensor* self);   ///< may be NULL; frees `self` and everything it owns
};

/// DLPACK_FLAG_BITMASK_*: bits of ManagedTensorVersioned::flags.
inline constexpr std::uint64_t flag_read_only = std::uint64_t{1} << 0;
/// The producer made a copy that the consumer owns alone.
inline constexpr std::uint64_t flag_is_copied = std::uint64_t{1} << 1;
/// A sub-byte type is stored one element per byte rather than packed.
inline constexpr std::uint64_t flag_is_subbyte_type_padded = std::uint64_t{1} << 2;

/// DLManagedTensorVersioned, the DLPack 1.x exchange struct. Everything up to `flags`
/// keeps its place in every future major version, so the deleter can always be called.
struct ManagedTensorVersioned {
  Version version;
  void* manager_ctx;
  void (*deleter)(ManagedTensorVersioned* self);
  std::uint64_t flags;
  Tensor dl_tensor;
};

// The DLPack ABI on LP64 and LLP64 targets; a mismatch here means the declarations are wrong.
static_assert(sizeof(Version) == 8 && offsetof(Version, minor) == 4);
static_assert(sizeof(DeviceType) == 4 && sizeof(Device) == 8 && offsetof(Device, device_id) == 4);
static_assert(sizeof(DataType) == 4 && offsetof(DataType, bits) == 1 && offsetof(DataType, lanes) == 2);
static_assert(sizeof(void*) == 8, "zt::dlpack: the offsets below are those of 64-bit targets");
static_assert(offsetof(Tensor, data) == 0 && offsetof(Tensor, device) == 8 && offsetof(Tensor, ndim) == 16 &&
              offsetof(Tensor, dtype) == 20 && offsetof(Tensor, shape) == 24 && offsetof(Tensor, strides) == 32 &&
              offsetof(Tensor, byte_offset) == 40 && sizeof(Tensor) == 48);
static_assert(offsetof(ManagedTensor, dl_tensor) == 0 && offsetof(ManagedTensor, manager_ctx) == 48 &&
              offsetof(ManagedTensor, deleter) == 56 && sizeof(ManagedTensor) == 64);
static_assert(offsetof(ManagedTensorVersioned, version) == 0 && offsetof(ManagedTensorVersioned, manager_ctx) == 8 &&
              offsetof(ManagedTensorVersioned, deleter) == 16 && offsetof(ManagedTensorVersioned, flags) == 24 &&
              offsetof(ManagedTensorVersioned, dl_tensor) == 32 && sizeof(ManagedTensorVersioned) == 80);
static_assert(std::is_standard_layout_v<ManagedTensor> && std::is_trivially_copyable_v<ManagedTensor> &&
              std::is_standard_layout_v<ManagedTensorVersioned> &&
              std::is_trivially_copyable_v<ManagedTensorVersioned>);

// ---- DLPack 1.3's C exchange API (`__dlpack_c_exchange_api__`) --------------------------------
// A Python tensor type offers it as a class attribute: a PyCapsule named "dlpack_exchange_api"
// holding a pointer to an ExchangeAPI that lives as long as the process. A consumer finds it on
// the type (and may cache it per type), checks `header.version.major`, and then converts objects
// of exactly that type with no Python call. Every function is C: it throws nothing and reports
// failure by returning -1 with a Python exception set (the allocator through `set_error`). The
// `py_object` arguments are PyObject*, kept as void* so that this header needs no Python.

/// The name of the type attribute, and of the capsule it holds.
inline constexpr const char* exchange_api_attribute = "__dlpack_c_exchange_api__";
inline constexpr const char* exchange_api_capsule_name = "dlpack_exchange_api";

/// DLPackExchangeAPIHeader: the part that keeps its place in every version.
struct ExchangeAPIHeader {
  Version version;
  ExchangeAPIHeader* prev_api;  ///< an older table of the same producer, or NULL
};

/// A new C-contiguous tensor of the prototype's dtype, ndim, shape and device (nothing else is
/// read), owned by the producer: DLPackManagedTensorAllocator.
using ManagedTensorAllocator = int (*)(Tensor* prototype, ManagedTensorVersioned** out, void* error_ctx,
                                       void (*set_error)(void* error_ctx, const char* kind, const char* message));
/// The object as an owning managed tensor; no stream synchronisation.
using ManagedTensorFromPyObjectNoSync = int (*)(void* py_object, ManagedTensorVersioned** out);
/// A managed tensor (taken: its deleter becomes the object's to call) as the producer's object.
using ManagedTensorToPyObjectNoSync = int (*)(ManagedTensorVersioned* tensor, void** out_py_object);
/// The object described in `*out`, borrowed: shape, strides and data stay valid only until control
/// returns to the producer (Python code runs, or the object dies). No flags: read-only memory is
/// not marked.
using DLTensorFromPyObjectNoSync = int (*)(void* py_object, Tensor* out);
/// The producer's current work stream on a device (NULL for the CPU and the default stream), on which a
/// consumer launches its work.
using CurrentWorkStream = int (*)(DeviceType device_type, std::int32_t device_id, void** out_current_stream);

/// DLPackExchangeAPI. Only `dltensor_from_py_object_no_sync` may be NULL.
struct ExchangeAPI {
  ExchangeAPIHeader header;
  ManagedTensorAllocator managed_tensor_allocator;
  ManagedTensorFromPyObjectNoSync managed_tensor_from_py_object_no_sync;
  ManagedTensorToPyObjectNoSync managed_tensor_to_py_object_no_sync;
  DLTensorFromPyObjectNoSync dltensor_from_py_object_no_sync;
  CurrentWorkStream current_work_stream;
};

static_assert(sizeof(ExchangeAPIHeader) == 16 && offsetof(ExchangeAPIHeader, prev_api) == 8);
static_assert(offsetof(ExchangeAPI, managed_tensor_allocator) == 16 &&
              offsetof(ExchangeAPI, managed_tensor_from_py_object_no_sync) == 24 &&
              offsetof(ExchangeAPI, managed_tensor_to_py_object_no_sync) == 32 &&
              offsetof(ExchangeAPI, dltensor_from_py_object_no_sync) == 40 &&
              offsetof(ExchangeAPI, current_work_stream) == 48 && sizeof(ExchangeAPI) == 56);

namespace detail {

/// `Field` has the size, signedness class and alignment of `Expected`; enums count as
/// their underlying integer, so dlpack.h's C enums match our enum classes.
template <class Field, class Expected>
constexpr bool same_scalar() {
  using F = std::remove_cv_t<Field>;
  if constexpr (std::is_pointer_v<Expected>) {
    return std::is_pointer_v<F> && sizeof(F) == sizeof(Expected);
  } else {
    return (std::is_integral_v<F> || std::is_enum_v<F>) && sizeof(F) == sizeof(Expected) &&
           alignof(F) == alignof(Expected);
  }
}

template <class D>
constexpr bool tensor_layout_matches() {
  using Dev = decltype(D::device);
  using Type = decltype(D::dtype);
  return std::is_standard_layout_v<D> && sizeof(D) == sizeof(Tensor) && alignof(D) == alignof(Tensor) &&
         offsetof(D, data) == offsetof(Tensor, data) && offsetof(D, device) == offsetof(Tensor, device) &&
         offsetof(D, ndim) == offsetof(Tensor, ndim) && offsetof(D, dtype) == offsetof(Tensor, dtype) &&
         offsetof(D, shape) == offsetof(Tensor, shape) && offsetof(D, strides) == offsetof(Tensor, strides) &&
         offsetof(D, byte_offset) == offsetof(Tensor, byte_offset) &&
         std::is_same_v<std::remove_cv_t<decltype(D::data)>, void*> &&
         std::is_same_v<std::remove_cv_t<decltype(D::shape)>, std::int64_t*> &&
         std::is_same_v<std::remove_cv_t<decltype(D::strides)>, std::int64_t*> &&
         same_scalar<decltype(D::ndim), std::int32_t>() && same_scalar<decltype(D::byte_offset), std::uint64_t>() &&
         std::is_standard_layout_v<Dev> && sizeof(Dev) == sizeof(Device) &&
         offsetof(Dev, device_type) == offsetof(Device, device_type) &&
         offsetof(Dev, device_id) == offsetof(Device, device_id) &&
         same_scalar<decltype(Dev::device_type), std::int32_t>() && same_scalar<decltype(Dev::device_id), std::int32_t>() &&
         std::is_standard_layout_v<Type> && sizeof(Type) == sizeof(DataType) &&
         offsetof(Type, code) == offsetof(DataType, code) && offsetof(Type, bits) == offsetof(DataType, bits) &&
         offsetof(Type, lanes) == offsetof(DataType, lanes) && same_scalar<decltype(Type::code), std::uint8_t>() &&
         same_scalar<decltype(Type::bits), std::uint8_t>() && same_scalar<decltype(Type::lanes), std::uint16_t>();
}

template <class M>
constexpr bool legacy_layout_matches() {
  return std::is_standard_layout_v<M> && sizeof(M) == sizeof(ManagedTensor) &&
         offsetof(M, dl_tensor) == offsetof(ManagedTensor, dl_tensor) &&
         offsetof(M, manager_ctx) == offsetof(ManagedTensor, manager_ctx) &&
         offsetof(M, deleter) == offsetof(ManagedTensor, deleter) &&
         std::is_same_v<decltype(M::manager_ctx), void*> && std::is_same_v<decltype(M::deleter), void (*)(M*)> &&
         tensor_layout_matches<decltype(M::dl_tensor)>();
}

template <class M>
constexpr bool versioned_layout_matches() {
  using V = decltype(M::version);
  return std::is_standard_layout_v<M> && sizeof(M) == sizeof(ManagedTensorVersioned) &&
         offsetof(M, version) == offsetof(ManagedTensorVersioned, version) &&
         offsetof(M, manager_ctx) == offsetof(ManagedTensorVersioned, manager_ctx) &&
         offsetof(M, deleter) == offsetof(ManagedTensorVersioned, deleter) &&
         offsetof(M, flags) == offsetof(ManagedTensorVersioned, flags) &&
         offsetof(M, dl_tensor) == offsetof(ManagedTensorVersioned, dl_tensor) &&
         std::is_same_v<decltype(M::manager_ctx), void*> && std::is_same_v<decltype(M::deleter), void (*)(M*)> &&
         same_scalar<decltype(M::flags), std::uint64_t>() && sizeof(V) == sizeof(Version) &&
         same_scalar<decltype(V::major), std::uint32_t>() && same_scalar<decltype(V::minor), std::uint32_t>() &&
         offsetof(V, minor) == offsetof(Version, minor) && tensor_layout_matches<decltype(M::dl_tensor)>();
}

}  // namespace detail

/// The members both managed-tensor structs share (names only; layouts are checked below).
template <class M>
concept ManagedTensorMembers = std::is_class_v<M> && !std::is_const_v<M> && requires(M& m) {
  m.dl_tensor.data;
  m.dl_tensor.device.device_type;
  m.dl_tensor.device.device_id;
  m.dl_tensor.ndim;
  m.dl_tensor.dtype.code;
  m.dl_tensor.dtype.bits;
  m.dl_tensor.dtype.lanes;
  m.dl_tensor.shape;
  m.dl_tensor.strides;
  m.dl_tensor.byte_offset;
  m.manager_ctx;
  m.deleter;
};

/// A struct laid out as DLManagedTensor: ours, dlpack.h's, libtorch's, any producer's.
/// Checked member by member at compile time (names, types, offsets, sizes).
template <class M>
concept LegacyManagedTensorLayout =
    ManagedTensorMembers<M> && (!requires(M& m) { m.version; }) && detail::legacy_layout_matches<M>();

/// A struct laid out as DLManagedTensorVersioned.
template <class M>
concept VersionedManagedTensorLayout = ManagedTensorMembers<M> && requires(M& m) {
  m.version.major;
  m.version.minor;
  m.flags;
} && detail::versioned_layout_matches<M>();

/// Either exchange struct.
template <class M>
concept ManagedTensorLayout = LegacyManagedTensorLayout<M> || VersionedManagedTensorLayout<M>;

/// Calls a managed tensor's deleter (when it has one): the release step of the protocol.
struct CallDeleter {
  template <ManagedTensorLayout M>
  void operator()(M* managed) const noexcept {
    if (managed->deleter != nullptr) managed->deleter(managed);
  }
};

/// RAII for a managed tensor the caller holds but has not handed over yet: the deleter runs
/// when it goes out of scope, unless release() passed it on (e.g. to zt::from_dlpack,
/// which also accepts this type directly).
template <ManagedTensorLayout M>
using UniqueManagedTensor = std::unique_ptr<M, CallDeleter>;

/// Takes responsibility for `managed` (NULL allowed).
template <ManagedTensorLayout M>
[[nodiscard]] UniqueManagedTensor<M> adopt(M* managed) noexcept {
  return UniqueManagedTensor<M>(managed);
}

}  // namespace zt::dlpack
