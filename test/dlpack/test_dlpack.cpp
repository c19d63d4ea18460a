// DLPack: the ABI declarations (against Debian's dlpack.h when installed), from_dlpack with
// every DL* case of shared/conformance/pytorch-cases.json that has a C++ meaning, the
// ownership rules, and to_dlpack / to_dlpack_legacy. The libtorch peer is torch_interop.cpp.
#include <boost/test/unit_test.hpp>

#include "support/message_check.hpp"

#include <array>
#include <atomic>
#include <complex>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <iterator>
#include <limits>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "zerotensor/dlpack_asarray.hpp"
#include "zerotensor/from_dlpack.hpp"
#include "zerotensor/shares_memory.hpp"
#include "zerotensor/empty.hpp"
#include "zerotensor/to_dlpack.hpp"

#if __has_include(<dlpack/dlpack.h>)
#include <dlpack/dlpack.h>
#define ZT_TEST_HAVE_DLPACK_H 1
#else
#define ZT_TEST_HAVE_DLPACK_H 0
#endif

namespace dl = zt::dlpack;

namespace {

/// What the test producer puts in a managed tensor; dlp.py's make_capsule in C++.
struct Spec {
  void* data = nullptr;
  std::vector<std::int64_t> shape;
  std::optional<std::vector<std::int64_t>> strides = std::nullopt;  // nullopt: NULL strides
  std::uint8_t code = 1;
  std::uint8_t bits = 8;
  std::uint16_t lanes = 1;
  std::uint64_t byte_offset = 0;
  dl::DeviceType device = dl::DeviceType::CPU;
  std::int32_t device_id = 0;
  std::optional<std::int32_t> ndim = std::nullopt;  // overrides shape.size()
  bool null_shape = false;
  bool null_deleter = false;
  std::uint32_t major = 1;  // versioned only
  std::uint32_t minor = 1;
  std::uint64_t flags = 0;
};

/// Deleter calls and the thread of the last one, per produced tensor.
struct Calls {
  std::atomic<int> count{0};
  std::thread::id thread;
};

/// A producer's allocation: the managed struct plus the shape/strides it points to. The
/// deleter counts the call and frees everything (ASan catches a second call).
template <class M>
struct Produced {
  M managed{};
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> strides;
  Calls* calls;

  static void deleter(M* self) {
    auto* produced = static_cast<Produced*>(self->manager_ctx);
    produced->calls->thread = std::this_thread::get_id();
    ++produced->calls->count;
    delete produced;
  }
};

template <class M>
M* produce(const Spec& spec, Calls& calls) {
  auto* p = new Produced<M>{M{}, spec.shape, spec.strides.value_or(std::vector<std::int64_t>{}), &calls};
  auto& t = p->managed.dl_tensor;
  t.data = spec.data;
  t.device = {spec.device, spec.device_id};
  t.ndim = spec.ndim.value_or(std::int32_t(spec.shape.size()));
  t.dtype = {spec.code, spec.bits, spec.lanes};
  t.shape = spec.null_shape || spec.shape.empty() ? nullptr : p->shape.data();
  t.strides = spec.strides && !spec.strides->empty() ? p->strides.data() : nullptr;
  t.byte_offset = spec.byte_offset;
  p->managed.manager_ctx = p;
  p->managed.deleter = spec.null_deleter ? nullptr : &Produced<M>::deleter;
  if constexpr (dl::VersionedManagedTensorLayout<M>) {
    p->managed.version = {spec.major, spec.minor};
    p->managed.flags = spec.flags;
  }
  return &p->managed;
}

dl::ManagedTensor* legacy(const Spec& spec, Calls& calls) { return produce<dl::ManagedTensor>(spec, calls); }
dl::ManagedTensorVersioned* versioned(const Spec& spec, Calls& calls) {
  return produce<dl::ManagedTensorVersioned>(spec, calls);
}

/// dlp.py's `(ctypes.c_uint8 * 16)(*range(16))`, aligned for any dtype.
struct Bytes16 {
  alignas(16) std::array<std::uint8_t, 16> bytes{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  void* data() { return bytes.data(); }
};

/// Every element of a host tensor as int64, in C order.
std::vector<std::int64_t> values_of(const zt::AnyTensor& t) {
  std::vector<std::int64_t> out;
  t.visit([&](const auto& typed) {
    using T = typename std::remove_cvref_t<decltype(typed)>::value_type;
    if constexpr (std::is_integral_v<T>) {
      const auto& shape = typed.shape();
      zt::DynamicExtents index(shape.size(), 0);
      for (zt::index_t n = 0; n < typed.numel(); ++n) {
        zt::index_t offset = 0;
        for (std::size_t d = 0; d < shape.size(); ++d) offset += index[d] * typed.stride(d);
        out.push_back(std::int64_t(typed.data()[offset]));
        for (std::size_t d = shape.size(); d-- > 0;) {
          if (++index[d] < shape[d]) break;
          index[d] = 0;
        }
      }
    }
  });
  return out;
}

using Shape = zt::DynamicExtents;

}  // namespace

BOOST_AUTO_TEST_SUITE(dlpack_abi)

namespace {
/// The comparisons with dlpack.h run where it is installed and are reported skipped elsewhere.
boost::test_tools::assertion_result dlpack_h_installed(boost::unit_test::test_unit_id) {
  boost::test_tools::assertion_result result(ZT_TEST_HAVE_DLPACK_H != 0);
  result.message() << "skipped: <dlpack/dlpack.h> is not installed (apt-get install libdlpack-dev)";
  return result;
}
}  // namespace

// Debian's libdlpack-dev is 0.6: the legacy structs and enumerations only.
BOOST_AUTO_TEST_CASE(declarations_match_dlpack_h_field_by_field, *boost::unit_test::precondition(dlpack_h_installed)) {
#if ZT_TEST_HAVE_DLPACK_H
  BOOST_TEST(sizeof(dl::Device) == sizeof(::DLDevice));
  BOOST_TEST(offsetof(dl::Device, device_type) == offsetof(::DLDevice, device_type));
  BOOST_TEST(offsetof(dl::Device, device_id) == offsetof(::DLDevice, device_id));
  BOOST_TEST(sizeof(dl::DeviceType) == sizeof(::DLDeviceType));
  BOOST_TEST(sizeof(dl::DataType) == sizeof(::DLDataType));
  BOOST_TEST(offsetof(dl::DataType, code) == offsetof(::DLDataType, code));
  BOOST_TEST(offsetof(dl::DataType, bits) == offsetof(::DLDataType, bits));
  BOOST_TEST(offsetof(dl::DataType, lanes) == offsetof(::DLDataType, lanes));
  BOOST_TEST(sizeof(dl::Tensor) == sizeof(::DLTensor));
  BOOST_TEST(alignof(dl::Tensor) == alignof(::DLTensor));
  BOOST_TEST(offsetof(dl::Tensor, data) == offsetof(::DLTensor, data));
  BOOST_TEST(offsetof(dl::Tensor, device) == offsetof(::DLTensor, device));
  BOOST_TEST(offsetof(dl::Tensor, ndim) == offsetof(::DLTensor, ndim));
  BOOST_TEST(offsetof(dl::Tensor, dtype) == offsetof(::DLTensor, dtype));
  BOOST_TEST(offsetof(dl::Tensor, shape) == offsetof(::DLTensor, shape));
  BOOST_TEST(offsetof(dl::Tensor, strides) == offsetof(::DLTensor, strides));
  BOOST_TEST(offsetof(dl::Tensor, byte_offset) == offsetof(::DLTensor, byte_offset));
  BOOST_TEST(sizeof(dl::ManagedTensor) == sizeof(::DLManagedTensor));
  BOOST_TEST(offsetof(dl::ManagedTensor, dl_tensor) == offsetof(::DLManagedTensor, dl_tensor));
  BOOST_TEST(offsetof(dl::ManagedTensor, manager_ctx) == offsetof(::DLManagedTensor, manager_ctx));
  BOOST_TEST(offsetof(dl::ManagedTensor, deleter) == offsetof(::DLManagedTensor, deleter));

  BOOST_TEST(int(dl::DeviceType::CPU) == int(kDLCPU));
  BOOST_TEST(int(dl::DeviceType::CUDA) == int(kDLCUDA));
  BOOST_TEST(int(dl::DeviceType::CUDAHost) == int(kDLCUDAHost));
  BOOST_TEST(int(dl::DeviceType::OpenCL) == int(kDLOpenCL));
  BOOST_TEST(int(dl::DeviceType::Vulkan) == int(kDLVulkan));
  BOOST_TEST(int(dl::DeviceType::Metal) == int(kDLMetal));
  BOOST_TEST(int(dl::DeviceType::VPI) == int(kDLVPI));
  BOOST_TEST(int(dl::DeviceType::ROCM) == int(kDLROCM));
  BOOST_TEST(int(dl::DeviceType::ROCMHost) == int(kDLROCMHost));
  BOOST_TEST(int(dl::DeviceType::ExtDev) == int(kDLExtDev));
  BOOST_TEST(int(dl::DeviceType::CUDAManaged) == int(kDLCUDAManaged));
  BOOST_TEST(int(dl::TypeCode::Int) == int(kDLInt));
  BOOST_TEST(int(dl::TypeCode::UInt) == int(kDLUInt));
  BOOST_TEST(int(dl::TypeCode::Float) == int(kDLFloat));
  BOOST_TEST(int(dl::TypeCode::OpaqueHandle) == int(kDLOpaqueHandle));
  BOOST_TEST(int(dl::TypeCode::Bfloat) == int(kDLBfloat));
  BOOST_TEST(int(dl::TypeCode::Complex) == int(kDLComplex));
#endif
}

BOOST_AUTO_TEST_CASE(a_dlpack_h_managed_tensor_goes_straight_in, *boost::unit_test::precondition(dlpack_h_installed)) {
#if ZT_TEST_HAVE_DLPACK_H
  static_assert(dl::LegacyManagedTensorLayout<::DLManagedTensor>);
  static_assert(!dl::VersionedManagedTensorLayout<::DLManagedTensor>);
  static Calls calls;  // the C deleter below cannot capture
  alignas(8) float values[3] = {1.5f, 2.5f, 3.5f};
  std::int64_t shape[1] = {3};
  ::DLManagedTensor managed{};
  managed.dl_tensor.data = values;
  managed.dl_tensor.device = {kDLCPU, 0};
  managed.dl_tensor.ndim = 1;
  managed.dl_tensor.dtype = {kDLFloat, 32, 1};
  managed.dl_tensor.shape = shape;
  managed.deleter = [](::DLManagedTensor*) { ++calls.count; };
  {
    zt::AnyTensor t = zt::from_dlpack(&managed);
    BOOST_TEST(t.dtype() == zt::float32);
    BOOST_TEST(t.data_ptr() == values);
    BOOST_TEST((t.as<float, 1>()(2) == 3.5f));
    BOOST_TEST(calls.count == 0);
  }
  BOOST_TEST(calls.count == 1);
#endif
}

namespace layout_probe {
// A producer's own declaration with other type names: same layout, so accepted.
enum ForeignDeviceType : int { foreign_cpu = 1 };
struct ForeignDevice { ForeignDeviceType device_type; int device_id; };
struct ForeignType { std::uint8_t code; std::uint8_t bits; std::uint16_t lanes; };
struct ForeignTensor {
  void* data; ForeignDevice device; int ndim; ForeignType dtype; std::int64_t* shape; std::int64_t* strides;
  std::uint64_t byte_offset;
};
struct ForeignManaged { ForeignTensor dl_tensor; void* manager_ctx; void (*deleter)(ForeignManaged*); };
// 64-bit ndim moves every later field: refused at compile time.
struct WideTensor {
  void* data; ForeignDevice device; std::int64_t ndim; ForeignType dtype; std::int64_t* shape; std::int64_t* strides;
  std::uint64_t byte_offset;
};
struct WideManaged { WideTensor dl_tensor; void* manager_ctx; void (*deleter)(WideManaged*); };
// A deleter taking another type is not the protocol's.
struct WrongDeleter { ForeignTensor dl_tensor; void* manager_ctx; void (*deleter)(void*); };
// Versioned with the flags before the deleter.
struct SwappedVersioned {
  dl::Version version; void* manager_ctx; std::uint64_t flags; void (*deleter)(SwappedVersioned*); dl::Tensor dl_tensor;
};
}  // namespace layout_probe

BOOST_AUTO_TEST_CASE(layout_compatibility_is_checked_at_compile_time) {
  using namespace layout_probe;
  static_assert(dl::LegacyManagedTensorLayout<dl::ManagedTensor>);
  static_assert(dl::VersionedManagedTensorLayout<dl::ManagedTensorVersioned>);
  static_assert(!dl::LegacyManagedTensorLayout<dl::ManagedTensorVersioned>);
  static_assert(dl::LegacyManagedTensorLayout<ForeignManaged>);
  static_assert(!dl::ManagedTensorLayout<WideManaged>);
  static_assert(!dl::ManagedTensorLayout<WrongDeleter>);
  static_assert(!dl::ManagedTensorLayout<SwappedVersioned>);
  static_assert(!dl::ManagedTensorLayout<const dl::ManagedTensor>);
  static_assert(!dl::ManagedTensorLayout<dl::Tensor>);

  alignas(4) std::int32_t values[2] = {7, 8};
  std::int64_t shape[1] = {2};
  static int foreign_calls = 0;
  ForeignManaged managed{{values, {foreign_cpu, 0}, 1, {0, 32, 1}, shape, nullptr, 0}, nullptr,
                         [](ForeignManaged*) { ++foreign_calls; }};
  {
    zt::AnyTensor t = zt::from_dlpack(&managed);
    BOOST_TEST(t.dtype() == zt::int32);
    BOOST_TEST((t.as<std::int32_t, 1>()(1) == 8));
  }
  BOOST_TEST(foreign_calls == 1);
}

BOOST_AUTO_TEST_CASE(version_and_flag_constants) {
  BOOST_TEST(dl::major_version == 1u);
  BOOST_TEST(dl::minor_version == 3u);
  BOOST_TEST(dl::flag_read_only == 1u);
  BOOST_TEST(dl::flag_is_copied == 2u);
  BOOST_TEST(dl::flag_is_subbyte_type_padded == 4u);
  BOOST_TEST(int(dl::TypeCode::Bool) == 6);
  BOOST_TEST(int(dl::TypeCode::Float4_e2m1fn) == 17);
  BOOST_TEST(int(dl::DeviceType::Trn) == 18);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(from_dlpack)

BOOST_AUTO_TEST_CASE(DL01_DL42_export_then_import_shares_memory) {
  zt::AnyTensor t = zt::empty(std::vector<zt::index_t>{2, 3}, zt::int64);
  auto typed = t.as<std::int64_t, 2>();
  for (int i = 0; i < 6; ++i) typed.data()[i] = i;
  zt::AnyTensor r = zt::from_dlpack(zt::to_dlpack(t));
  BOOST_TEST(r.dtype() == zt::int64);
  BOOST_TEST(r.shape() == Shape({2, 3}));
  BOOST_TEST(r.strides() == Shape({3, 1}));
  BOOST_TEST(r.device() == zt::cpu);
  BOOST_TEST(r.data_ptr() == t.data_ptr());  // a new view of the same memory
  BOOST_TEST(values_of(r) == std::vector<std::int64_t>({0, 1, 2, 3, 4, 5}));
  r.as<std::int64_t, 2>()(1, 2) = -9;
  BOOST_TEST(typed(1, 2) == -9);
}

BOOST_AUTO_TEST_CASE(DL02_a_consumed_handle_cannot_be_imported_twice) {
  Calls calls;
  Bytes16 buf;
  auto handle = dl::adopt(legacy({.data = buf.data(), .shape = {4}}, calls));
  zt::AnyTensor first = zt::from_dlpack(std::move(handle));
  BOOST_TEST((handle.get() == nullptr));
  BOOST_CHECK_EXCEPTION((void)zt::from_dlpack(std::move(handle)), zt::ValueError,
                        with_message<zt::ValueError>("from_dlpack: the managed tensor pointer is NULL"));
  BOOST_TEST(calls.count == 0);
}

BOOST_AUTO_TEST_CASE(DL04_read_only_memory_travels_only_in_the_versioned_struct) {
  const std::vector<std::int64_t> ro = {0, 1, 2, 3};
  zt::AnyTensor t = zt::Tensor<const std::int64_t>(ro.data(), {4}, {1});
  BOOST_CHECK_EXCEPTION((void)zt::to_dlpack_legacy(t), zt::TypeError,
                        with_message<zt::TypeError>("to_dlpack_legacy: the tensor (int64, shape (4,), strides (1,), "
                                                    "cpu, read-only): a legacy DLManagedTensor cannot mark memory "
                                                    "read-only"));
  dl::ManagedTensorVersioned* exported = zt::to_dlpack(t);
  BOOST_TEST(exported->flags == dl::flag_read_only);
  zt::AnyTensor r = zt::from_dlpack(exported);
  BOOST_TEST(!r.is_writable());
  BOOST_TEST(r.data_ptr() == ro.data());
  BOOST_CHECK_THROW((void)r.as<std::int64_t>(), zt::TypeError);
  BOOST_TEST((r.as<const std::int64_t, 1>()(3) == 3));
}

BOOST_AUTO_TEST_CASE(DL06_uint16_uint32_uint64_are_accepted) {
  // PyTorch 1.13 refuses uint16 ("Unsupported kUInt bits 16"); current PyTorch and zt accept.
  alignas(8) std::uint64_t raw[2] = {0x0102030405060708ull, 0x1112131415161718ull};
  const std::array<std::pair<std::uint8_t, zt::DType>, 3> cases = {{{16, zt::uint16}, {32, zt::uint32}, {64, zt::uint64}}};
  for (auto [bits, dtype] : cases) {
    Calls calls;
    zt::AnyTensor r = zt::from_dlpack(legacy({.data = raw, .shape = {1}, .code = 1, .bits = bits}, calls));
    BOOST_TEST(r.dtype() == dtype);
    BOOST_TEST(r.data_ptr() == raw);
  }
  Calls calls;
  zt::AnyTensor r = zt::from_dlpack(legacy({.data = raw, .shape = {2}, .code = 1, .bits = 16}, calls));
  BOOST_TEST((r.as<std::uint16_t, 1>()(0) == 0x0708));
}

BOOST_AUTO_TEST_CASE(DL07_DL40_transposed_and_fortran_strides_are_kept) {
  Calls calls;
  Bytes16 buf;
  zt::AnyTensor r = zt::from_dlpack(legacy({.data = buf.data(), .shape = {2, 3}, .strides = {{1, 2}}}, calls));
  BOOST_TEST(r.dtype() == zt::uint8);
  BOOST_TEST(r.shape() == Shape({2, 3}));
  BOOST_TEST(r.strides() == Shape({1, 2}));
  BOOST_TEST(!r.is_contiguous());
  BOOST_TEST(r.data_ptr() == buf.data());
  BOOST_TEST(values_of(r) == std::vector<std::int64_t>({0, 2, 4, 1, 3, 5}));

  alignas(8) std::int64_t a[6] = {0, 1, 2, 3, 4, 5};  // np.arange(6).reshape(2, 3).T
  zt::AnyTensor t = zt::from_dlpack(legacy({.data = a, .shape = {3, 2}, .strides = {{1, 3}}, .code = 0, .bits = 64}, calls));
  BOOST_TEST(t.strides() == Shape({1, 3}));
  BOOST_TEST(values_of(t) == std::vector<std::int64_t>({0, 3, 1, 4, 2, 5}));
  BOOST_TEST((t.as<std::int64_t, 2>().column_major_matrix()(2, 1) == 5));
}

BOOST_AUTO_TEST_CASE(DL08_complex64_values) {
  Calls calls;
  std::complex<float> value(1.0f, 1.0f);
  zt::AnyTensor r = zt::from_dlpack(legacy({.data = &value, .shape = {1}, .code = 5, .bits = 64}, calls));
  BOOST_TEST(r.dtype() == zt::complex64);
  BOOST_TEST(r.strides() == Shape({1}));
  BOOST_TEST((r.as<std::complex<float>, 1>()(0) == std::complex<float>(1.0f, 1.0f)));
}

BOOST_AUTO_TEST_CASE(DL09_DL37_zero_dim_with_null_shape) {
  Calls calls;
  double five = 5.0;
  zt::AnyTensor r = zt::from_dlpack(legacy({.data = &five, .shape = {}, .code = 2, .bits = 64}, calls));
  BOOST_TEST(r.dtype() == zt::float64);
  BOOST_TEST(r.rank() == 0u);
  BOOST_TEST(r.numel() == 1);
  BOOST_TEST(r.strides() == Shape{});
  BOOST_TEST(*r.as<double>().data() == 5.0);

  Bytes16 buf;
  zt::AnyTensor u = zt::from_dlpack(legacy({.data = buf.data(), .shape = {}, .null_shape = true}, calls));
  BOOST_TEST(u.dtype() == zt::uint8);
  BOOST_TEST(values_of(u) == std::vector<std::int64_t>({0}));
  BOOST_TEST(u.data_ptr() == buf.data());
}

BOOST_AUTO_TEST_CASE(DL15_DL28_bool_is_code_6_with_8_bits_both_ways) {
  // PyTorch 1.13 refuses bool both ways; current PyTorch and zt support kDLBool.
  Calls calls;
  bool flags[4] = {true, false, true, true};
  zt::AnyTensor r = zt::from_dlpack(legacy({.data = flags, .shape = {4}, .code = 6, .bits = 8}, calls));
  BOOST_TEST(r.dtype() == zt::bool_);
  BOOST_TEST(r.data_ptr() == flags);
  BOOST_TEST((r.as<bool, 1>()(2) == true));
  BOOST_TEST((r.as<bool, 1>()(1) == false));

  dl::ManagedTensorVersioned* exported = zt::to_dlpack(r);
  BOOST_TEST(exported->dl_tensor.dtype.code == 6);
  BOOST_TEST(exported->dl_tensor.dtype.bits == 8);
  BOOST_TEST(exported->dl_tensor.dtype.lanes == 1);
  exported->deleter(exported);
}

BOOST_AUTO_TEST_CASE(bool_bytes_other_than_0_or_1_are_refused) {
  Calls calls;
  alignas(8) std::uint8_t bytes[6] = {1, 2, 0, 0, 1, 1};
  BOOST_CHECK_EXCEPTION(
      (void)zt::from_dlpack(legacy({.data = bytes, .shape = {2, 3}, .code = 6, .bits = 8}, calls)), zt::ValueError,
      with_message<zt::ValueError>("from_dlpack: bool element (0, 1) is byte 2; DLPack bool data must be bytes 0 or 1"));
  BOOST_TEST(calls.count == 1);
  // Only the elements of the view are read: a stride that skips the bad byte is fine.
  zt::AnyTensor every_other = zt::from_dlpack(legacy({.data = bytes, .shape = {3}, .strides = {{2}}, .code = 6}, calls));
  BOOST_TEST((every_other.as<const bool, 1>()(2) == true));
  BOOST_TEST((every_other.as<const bool, 1>()(1) == false));
  // Reversed: the bad byte is found at its index in the view.
  BOOST_CHECK_EXCEPTION((void)zt::from_dlpack(legacy({.data = bytes + 5, .shape = {6}, .strides = {{-1}}, .code = 6}, calls)),
                        zt::ValueError, with_message<zt::ValueError>("bool element (4,) is byte 2"));
  // Device memory cannot be read by the host: trusted, as the DLPack spec defines kDLBool.
  zt::AnyTensor on_gpu = zt::from_dlpack(
      legacy({.data = bytes, .shape = {6}, .code = 6, .device = dl::DeviceType::CUDA}, calls));
  BOOST_TEST(on_gpu.device() == zt::cuda(0));
}

BOOST_AUTO_TEST_CASE(DL20_export_keeps_the_strides_of_size_one_dims) {
  // PyTorch's export rewrites them to 1 (gh-83069); zt exports the view exactly.
  zt::AnyTensor base = zt::empty(std::vector<zt::index_t>{3, 2}, zt::int64);
  zt::AnyTensor row = zt::Tensor<std::int64_t>(base.as<std::int64_t>().data(), {1, 2}, {2, 1}, base.owner());
  dl::ManagedTensor* exported = zt::to_dlpack_legacy(row);
  BOOST_TEST(exported->dl_tensor.strides[0] == 2);
  BOOST_TEST(exported->dl_tensor.strides[1] == 1);
  zt::AnyTensor r = zt::from_dlpack(exported);
  BOOST_TEST(r.strides() == Shape({2, 1}));
  BOOST_TEST(r.is_contiguous());
}

BOOST_AUTO_TEST_CASE(DL23_export_device_cpu_is_type_1_id_0) {
  zt::AnyTensor t = zt::empty(std::vector<zt::index_t>{2}, zt::int64);
  dl::ManagedTensorVersioned* exported = zt::to_dlpack(t);
  BOOST_TEST(int(exported->dl_tensor.device.device_type) == 1);
  BOOST_TEST(exported->dl_tensor.device.device_id == 0);
  exported->deleter(exported);
}

BOOST_AUTO_TEST_CASE(DL25_byte_offset_is_honoured) {
  // PyTorch 1.13 (and 2.x up to ~2.9) reads from `data` and returns 0, 1, 2, 3.
  Calls calls;
  Bytes16 buf;
  zt::AnyTensor r = zt::from_dlpack(legacy({.data = buf.data(), .shape = {4}, .byte_offset = 4}, calls));
  BOOST_TEST(r.dtype() == zt::uint8);
  BOOST_TEST(r.shape() == Shape({4}));
  BOOST_TEST(r.strides() == Shape({1}));
  BOOST_TEST(values_of(r) == std::vector<std::int64_t>({4, 5, 6, 7}));
  BOOST_TEST(r.data_ptr() == buf.bytes.data() + 4);
  // For wider types too, with the alignment judged at data + byte_offset.
  zt::AnyTensor f = zt::from_dlpack(legacy({.data = buf.data(), .shape = {2}, .code = 1, .bits = 32, .byte_offset = 8}, calls));
  BOOST_TEST(f.data_ptr() == buf.bytes.data() + 8);
}

BOOST_AUTO_TEST_CASE(DL26_lanes_other_than_1_are_refused_and_the_deleter_runs) {
  Calls calls;
  Bytes16 buf;
  BOOST_CHECK_EXCEPTION((void)zt::from_dlpack(legacy({.data = buf.data(), .shape = {4}, .lanes = 4}, calls)),
                        zt::TypeError,
                        with_message<zt::TypeError>(
                            "from_dlpack: vector types are not supported; expected 1 lane, got code 1 (uint), 8 bits, 4 lanes"));
  BOOST_TEST(calls.count == 1);
}

BOOST_AUTO_TEST_CASE(DL27_opaque_handles_are_refused) {
  Calls calls;
  Bytes16 buf;
  BOOST_CHECK_EXCEPTION((void)zt::from_dlpack(legacy({.data = buf.data(), .shape = {4}, .code = 3}, calls)),
                        zt::TypeError,
                        with_message<zt::TypeError>(
                            "from_dlpack: opaque handles have no element type; got code 3 (opaque handle), 8 bits, 1 lane"));
  BOOST_TEST(calls.count == 1);
}

BOOST_AUTO_TEST_CASE(DL29_DL33_DL39_unsupported_widths_are_refused_and_the_deleter_runs) {
  Calls calls;
  Bytes16 buf;
  BOOST_CHECK_EXCEPTION((void)zt::from_dlpack(legacy({.data = buf.data(), .shape = {4}, .code = 4, .bits = 32}, calls)),
                        zt::TypeError,
                        with_message<zt::TypeError>("from_dlpack: unsupported data type code 4 (bfloat), 32 bits, 1 lane"));
  BOOST_TEST(calls.count == 1);
  // DL33: float with 8 bits (the 8-bit floats have codes of their own); the producer's memory
  // is released before the exception arrives.
  BOOST_CHECK_EXCEPTION((void)zt::from_dlpack(versioned({.data = buf.data(), .shape = {4}, .code = 2, .bits = 8}, calls)),
                        zt::TypeError, with_message<zt::TypeError>("code 2 (float), 8 bits, 1 lane"));
  BOOST_TEST(calls.count == 2);
  // DL39: complex with 16 bits (two 8-bit parts) has no dtype; complex32 (two float16) has.
  BOOST_CHECK_EXCEPTION((void)zt::from_dlpack(legacy({.data = buf.data(), .shape = {2}, .code = 5, .bits = 16}, calls)),
                        zt::TypeError, with_message<zt::TypeError>("code 5 (complex), 16 bits"));
  BOOST_TEST(calls.count == 3);
}

BOOST_AUTO_TEST_CASE(float8_sub_byte_bool_widths_and_unknown_codes_are_refused) {
  Calls calls;
  Bytes16 buf;
  const std::array<std::pair<Spec, std::string>, 7> cases = {{
      {{.data = buf.data(), .shape = {4}, .code = 8, .bits = 8}, "code 8 (float8_e4m3), 8 bits"},
      {{.data = buf.data(), .shape = {4}, .code = 17, .bits = 4}, "code 17 (float4_e2m1fn), 4 bits, 1 lane"},
      {{.data = buf.data(), .shape = {4}, .code = 17, .bits = 4, .lanes = 2, .flags = dl::flag_is_subbyte_type_padded},
       "from_dlpack: sub-byte values padded to a byte each (DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED) are not "
       "supported, zerotensor reads them packed; got code 17 (float4_e2m1fn), 4 bits, 2 lanes"},
      {{.data = buf.data(), .shape = {4}, .code = 10, .bits = 8, .lanes = 4}, "vector types are not supported"},
      {{.data = buf.data(), .shape = {4}, .code = 0, .bits = 4}, "code 0 (int), 4 bits"},
      {{.data = buf.data(), .shape = {4}, .code = 6, .bits = 1}, "code 6 (bool), 1 bits"},
      {{.data = buf.data(), .shape = {4}, .code = 99, .bits = 8}, "code 99 (unknown), 8 bits"},
  }};
  int expected_calls = 0;
  for (const auto& [spec, text] : cases) {
    BOOST_CHECK_EXCEPTION((void)zt::from_dlpack(versioned(spec, calls)), zt::TypeError, with_message<zt::TypeError>(text));
    BOOST_TEST(calls.count == ++expected_calls);
  }
}

BOOST_AUTO_TEST_CASE(float8_complex32_and_packed_codes_import_and_export_as_pytorch_writes_them) {
  // torch 2.15's __dlpack__: float8_e4m3fn code 10, 8 bits; float8_e8m0fnu code 14; complex32
  // code 5, 32 bits; float4_e2m1fn_x2 code 17, 4 bits, 2 lanes, its shape counting bytes.
  struct Case {
    std::uint8_t code, bits;
    std::uint16_t lanes;
    zt::DType dtype;
    std::int64_t extent;
  };
  const std::array<Case, 9> cases = {{{10, 8, 1, zt::float8_e4m3fn_, 16},
                                      {12, 8, 1, zt::float8_e5m2_, 16},
                                      {11, 8, 1, zt::float8_e4m3fnuz_, 16},
                                      {13, 8, 1, zt::float8_e5m2fnuz_, 16},
                                      {14, 8, 1, zt::float8_e8m0fnu_, 16},
                                      {5, 32, 1, zt::complex32_, 4},
                                      {17, 4, 2, zt::float4_e2m1fn_x2_, 16},
                                      {15, 6, 4, zt::float6_e2m3fn_x4_, 5},
                                      {16, 6, 4, zt::float6_e3m2fn_x4_, 5}}};
  Bytes16 buf;
  for (const Case& c : cases) {
    Calls calls;
    std::optional<zt::AnyTensor> view = zt::from_dlpack(
        versioned({.data = buf.data(), .shape = {c.extent}, .code = c.code, .bits = c.bits, .lanes = c.lanes}, calls));
    BOOST_TEST(view->dtype() == c.dtype);
    BOOST_TEST(view->shape() == zt::DynamicExtents({c.extent}));
    BOOST_TEST(view->data_ptr() == static_cast<const void*>(buf.data()));
    BOOST_TEST(view->nbytes() == std::size_t(c.extent) * zt::itemsize(c.dtype));
    dl::ManagedTensorVersioned* exported = zt::to_dlpack(*view);
    BOOST_TEST(exported->dl_tensor.dtype.code == c.code);
    BOOST_TEST(exported->dl_tensor.dtype.bits == c.bits);
    BOOST_TEST(exported->dl_tensor.dtype.lanes == c.lanes);
    exported->deleter(exported);
    view.reset();
    BOOST_TEST(calls.count == 1);
  }
}

BOOST_AUTO_TEST_CASE(DL30_cuda_host_and_cuda_managed_memory_are_accepted) {
  // PyTorch refuses device types 3 and 13 ("Unsupported device_type: 13").
  Calls calls;
  Bytes16 buf;
  zt::AnyTensor managed =
      zt::from_dlpack(legacy({.data = buf.data(), .shape = {4}, .device = dl::DeviceType::CUDAManaged}, calls));
  BOOST_TEST((managed.device() == zt::Device{zt::DeviceKind::CUDAManaged, 0}));
  BOOST_TEST(managed.device().is_host_accessible());
  BOOST_TEST(values_of(managed) == std::vector<std::int64_t>({0, 1, 2, 3}));
  zt::AnyTensor pinned =
      zt::from_dlpack(legacy({.data = buf.data(), .shape = {2}, .device = dl::DeviceType::CUDAHost}, calls));
  BOOST_TEST((pinned.device() == zt::Device{zt::DeviceKind::CUDAHost, 0}));
  BOOST_TEST((pinned.as<std::uint8_t, 1>().at(1) == 1));
}

BOOST_AUTO_TEST_CASE(cuda_device_memory_gives_a_view_the_host_cannot_touch) {
  Calls calls;
  Bytes16 buf;  // stands in for a device pointer: never dereferenced
  zt::AnyTensor r = zt::from_dlpack(
      versioned({.data = buf.data(), .shape = {2, 2}, .code = 2, .bits = 32, .device = dl::DeviceType::CUDA, .device_id = 1},
                calls));
  BOOST_TEST(r.device() == zt::cuda(1));
  BOOST_TEST(!r.device().is_host_accessible());
  BOOST_TEST(r.data_ptr() == buf.data());
  BOOST_CHECK_EXCEPTION(((void)r.as<float, 2>().at(0, 0)), zt::DeviceError,
                        with_message<zt::DeviceError>("element access: the memory is on cuda:1"));
  BOOST_CHECK_THROW(((void)r.as<float, 2>().matrix()), zt::DeviceError);
  // And back out with the same device.
  dl::ManagedTensorVersioned* exported = zt::to_dlpack(r);
  BOOST_TEST(int(exported->dl_tensor.device.device_type) == 2);
  BOOST_TEST(exported->dl_tensor.device.device_id == 1);
  exported->deleter(exported);
}

BOOST_AUTO_TEST_CASE(DL31_other_devices_and_negative_ids_are_refused) {
  Calls calls;
  Bytes16 buf;
  BOOST_CHECK_EXCEPTION(
      (void)zt::from_dlpack(legacy({.data = buf.data(), .shape = {4}, .device = dl::DeviceType::OpenCL}, calls)),
      zt::DeviceError,
      with_message<zt::DeviceError>("from_dlpack: unsupported device type 4; zerotensor accepts CPU (1), CUDA (2), "
                                    "CUDAHost (3) and CUDAManaged (13)"));
  BOOST_TEST(calls.count == 1);
  BOOST_CHECK_EXCEPTION(
      (void)zt::from_dlpack(legacy({.data = buf.data(), .shape = {4}, .device = dl::DeviceType(999)}, calls)),
      zt::DeviceError, with_message<zt::DeviceError>("unsupported device type 999"));
  BOOST_TEST(calls.count == 2);
  BOOST_CHECK_EXCEPTION(
      (void)zt::from_dlpack(legacy({.data = buf.data(), .shape = {4}, .device = dl::DeviceType::CUDA, .device_id = -1}, calls)),
      zt::DeviceError, with_message<zt::DeviceError>("from_dlpack: device id -1 of device type 2 is negative"));
  BOOST_TEST(calls.count == 3);
}

BOOST_AUTO_TEST_CASE(DL32_versioned_struct_is_accepted) {
  // PyTorch 1.13 refuses "dltensor_versioned" capsules; 2.x accepts major <= 1.
  Calls calls;
  Bytes16 buf;
  zt::AnyTensor r = zt::from_dlpack(versioned({.data = buf.data(), .shape = {4}, .major = 1, .minor = 0}, calls));
  BOOST_TEST(r.dtype() == zt::uint8);
  BOOST_TEST(r.is_writable());
  BOOST_TEST(values_of(r) == std::vector<std::int64_t>({0, 1, 2, 3}));
  // A newer minor version only adds enumeration values.
  zt::AnyTensor newer = zt::from_dlpack(versioned({.data = buf.data(), .shape = {1}, .minor = 7}, calls));
  BOOST_TEST(newer.numel() == 1);
  BOOST_TEST(calls.count == 0);
}

BOOST_AUTO_TEST_CASE(other_major_versions_are_refused_and_the_deleter_runs_once) {
  Calls calls;
  Bytes16 buf;
  BOOST_CHECK_EXCEPTION((void)zt::from_dlpack(versioned({.data = buf.data(), .shape = {4}, .major = 2, .minor = 3}, calls)),
                        zt::ValueError,
                        with_message<zt::ValueError>(
                            "from_dlpack: DLPack version 2.3 has a different ABI; zerotensor reads major version 1"));
  BOOST_TEST(calls.count == 1);
  BOOST_CHECK_EXCEPTION((void)zt::from_dlpack(versioned({.data = buf.data(), .shape = {4}, .major = 0}, calls)),
                        zt::ValueError, with_message<zt::ValueError>("DLPack version 0.1 has a different ABI"));
  BOOST_TEST(calls.count == 2);
}

BOOST_AUTO_TEST_CASE(read_only_flag_gives_a_read_only_tensor) {
  Calls calls;
  alignas(4) float values[2] = {1.5f, -2.0f};
  zt::AnyTensor r = zt::from_dlpack(
      versioned({.data = values, .shape = {2}, .code = 2, .bits = 32, .flags = dl::flag_read_only}, calls));
  BOOST_TEST(!r.is_writable());
  BOOST_CHECK_EXCEPTION((void)r.as<float>(), zt::TypeError,
                        with_message<zt::TypeError>("expected float32, writable; got float32, shape (2,), strides (1,), cpu, read-only"));
  BOOST_CHECK_THROW((void)r.mutable_data_ptr(), zt::TypeError);
  zt::Tensor<const float, 1> view = r.as<const float, 1>();
  BOOST_TEST(view(1) == -2.0f);
  // IS_COPIED (and flags zt does not know) change nothing.
  zt::AnyTensor copied = zt::from_dlpack(versioned(
      {.data = values, .shape = {2}, .code = 2, .bits = 32, .flags = dl::flag_is_copied | (std::uint64_t{1} << 40)}, calls));
  BOOST_TEST(copied.is_writable());
}

BOOST_AUTO_TEST_CASE(DL34_deleter_runs_when_the_last_view_dies) {
  Calls calls;
  Bytes16 buf;
  std::optional<zt::AnyTensor> r = zt::from_dlpack(legacy({.data = buf.data(), .shape = {4}}, calls));
  std::optional<zt::AnyTensor> copy = *r;
  std::optional<zt::Tensor<std::uint8_t, 1>> typed = r->as<std::uint8_t, 1>();
  r.reset();
  copy.reset();
  BOOST_TEST(calls.count == 0);  // the typed view still holds it
  BOOST_TEST((*typed)(3) == 3);
  typed.reset();
  BOOST_TEST(calls.count == 1);
}

BOOST_AUTO_TEST_CASE(deleter_runs_once_on_the_thread_that_drops_the_last_view) {
  Calls calls;
  Bytes16 buf;
  zt::Tensor<std::uint8_t, 1> typed = zt::from_dlpack(legacy({.data = buf.data(), .shape = {4}}, calls)).as<std::uint8_t, 1>();
  std::thread::id worker_id;
  std::thread worker([view = std::move(typed), &worker_id]() mutable {
    worker_id = std::this_thread::get_id();
    BOOST_TEST(view(2) == 2);
    view = zt::Tensor<std::uint8_t, 1>(nullptr, {0}, {1});  // drops the last reference here
  });
  worker.join();
  BOOST_TEST(calls.count == 1);
  BOOST_TEST((calls.thread == worker_id));
}

BOOST_AUTO_TEST_CASE(deleter_runs_once_with_many_threads_sharing_views) {
  Calls calls;
  Bytes16 buf;
  zt::AnyTensor r = zt::from_dlpack(legacy({.data = buf.data(), .shape = {16}}, calls));
  std::atomic<int> reads{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([copy = r, &reads] {
      for (int k = 0; k < 1000; ++k) {
        zt::AnyTensor again = copy;
        zt::Tensor<const std::uint8_t, 1> view = again.as<const std::uint8_t, 1>();
        if (view(15) == 15) ++reads;
      }
    });
  }
  r = zt::AnyTensor(zt::Tensor<std::uint8_t>(nullptr, {0}, {1}));
  for (auto& t : threads) t.join();
  BOOST_TEST(reads == 8000);
  BOOST_TEST(calls.count == 1);
}

BOOST_AUTO_TEST_CASE(deleters_run_once_after_the_importing_thread_has_exited) {
  // Views imported on a thread that then exits, released here and on a third thread: every
  // deleter runs once, on the thread that drops the last view (LeakSanitizer: nothing leaks).
  Calls kept_calls, handed_calls;
  Bytes16 buf;
  std::vector<zt::AnyTensor> kept, handed;
  std::thread importer([&] {
    for (int i = 0; i < 100; ++i) {
      kept.push_back(zt::from_dlpack(versioned({.data = buf.data(), .shape = {4}}, kept_calls)));
      handed.push_back(zt::from_dlpack(legacy({.data = buf.data(), .shape = {4}}, handed_calls)));
    }
  });
  importer.join();
  BOOST_TEST(kept_calls.count == 0);
  BOOST_TEST(handed_calls.count == 0);

  std::thread::id releaser_id;
  std::thread releaser([views = std::move(handed), &releaser_id]() mutable {
    releaser_id = std::this_thread::get_id();
    BOOST_TEST(values_of(views.back()) == std::vector<std::int64_t>({0, 1, 2, 3}));
    views.clear();
  });
  releaser.join();
  BOOST_TEST(handed_calls.count == 100);
  BOOST_TEST((handed_calls.thread == releaser_id));

  BOOST_TEST(values_of(kept.front()) == std::vector<std::int64_t>({0, 1, 2, 3}));
  kept.clear();
  BOOST_TEST(kept_calls.count == 100);
  BOOST_TEST((kept_calls.thread == std::this_thread::get_id()));
}

BOOST_AUTO_TEST_CASE(DL35_null_strides_mean_c_order) {
  Calls calls;
  Bytes16 buf;
  zt::AnyTensor r = zt::from_dlpack(legacy({.data = buf.data(), .shape = {2, 3}}, calls));
  BOOST_TEST(r.dtype() == zt::uint8);
  BOOST_TEST(r.shape() == Shape({2, 3}));
  BOOST_TEST(r.strides() == Shape({3, 1}));
  BOOST_TEST(r.is_contiguous());
  BOOST_TEST(values_of(r) == std::vector<std::int64_t>({0, 1, 2, 3, 4, 5}));
  BOOST_TEST(r.data_ptr() == buf.data());
}

BOOST_AUTO_TEST_CASE(rank_above_the_inline_extents_keeps_shape_strides_and_owner) {
  // Rank 8 is past DynamicExtents' inline slots: shape and strides live on the heap.
  Calls calls;
  Bytes16 buf;
  const std::vector<std::int64_t> shape = {2, 1, 2, 1, 2, 1, 2, 1};
  {
    const zt::AnyTensor c_order = zt::from_dlpack(versioned({.data = buf.data(), .shape = shape}, calls));
    BOOST_TEST(c_order.rank() == 8u);
    BOOST_TEST(c_order.shape() == Shape({2, 1, 2, 1, 2, 1, 2, 1}));
    BOOST_TEST(c_order.strides() == Shape({8, 8, 4, 4, 2, 2, 1, 1}));
    BOOST_TEST(c_order.is_contiguous());
    BOOST_TEST(values_of(c_order) ==
               std::vector<std::int64_t>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}));
    const zt::AnyTensor reversed = zt::from_dlpack(
        legacy({.data = buf.data(), .shape = shape, .strides = {{1, 1, 2, 2, 4, 4, 8, 8}}}, calls));
    BOOST_TEST(reversed.strides() == Shape({1, 1, 2, 2, 4, 4, 8, 8}));
    BOOST_TEST(!reversed.is_contiguous());
    BOOST_TEST(values_of(reversed) ==
               std::vector<std::int64_t>({0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15}));
    BOOST_TEST(reversed.data_ptr() == buf.data());
    BOOST_TEST(calls.count == 0);
  }
  BOOST_TEST(calls.count == 2);
}

BOOST_AUTO_TEST_CASE(DL36_zero_strides_broadcast) {
  Calls calls;
  Bytes16 buf;
  zt::AnyTensor r = zt::from_dlpack(legacy({.data = buf.data(), .shape = {4}, .strides = {{0}}}, calls));
  BOOST_TEST(r.strides() == Shape({0}));
  BOOST_TEST(values_of(r) == std::vector<std::int64_t>({0, 0, 0, 0}));
  BOOST_TEST(r.data_ptr() == buf.data());
}

BOOST_AUTO_TEST_CASE(DL38_empty_tensor_with_null_data) {
  Calls calls;
  zt::AnyTensor r = zt::from_dlpack(legacy({.data = nullptr, .shape = {0}, .code = 2, .bits = 32}, calls));
  BOOST_TEST(r.dtype() == zt::float32);
  BOOST_TEST(r.shape() == Shape({0}));
  BOOST_TEST(r.strides() == Shape({1}));
  BOOST_TEST(r.numel() == 0);
  BOOST_TEST((r.data_ptr() == nullptr));
  // An empty view may carry any strides and offset; nothing is reached.
  zt::AnyTensor odd = zt::from_dlpack(
      legacy({.data = nullptr, .shape = {0, 5}, .strides = {{1, -1000}}, .code = 2, .bits = 32, .byte_offset = 3}, calls));
  BOOST_TEST(odd.shape() == Shape({0, 5}));
  BOOST_TEST(odd.strides() == Shape({1, -1000}));
}

BOOST_AUTO_TEST_CASE(DL41_null_deleter_is_allowed) {
  Calls calls;
  Bytes16 buf;
  dl::ManagedTensor* managed = legacy({.data = buf.data(), .shape = {4}, .null_deleter = true}, calls);
  auto* producer_block = static_cast<Produced<dl::ManagedTensor>*>(managed->manager_ctx);
  {
    zt::AnyTensor r = zt::from_dlpack(managed);
    BOOST_TEST(values_of(r) == std::vector<std::int64_t>({0, 1, 2, 3}));
    BOOST_TEST(r.data_ptr() == buf.data());
  }
  BOOST_TEST(calls.count == 0);
  delete producer_block;  // with no deleter the producer keeps ownership
}

namespace {
/// C++'s `__dlpack__`: an object that exports itself.
struct Exporter {
  zt::AnyTensor tensor;
  dl::ManagedTensorVersioned* to_dlpack() const { return zt::to_dlpack(tensor); }
};
/// One that hands out a foreign-style legacy struct through the RAII owner.
struct LegacyExporter {
  zt::AnyTensor tensor;
  dl::UniqueManagedTensor<dl::ManagedTensor> to_dlpack() const { return dl::adopt(zt::to_dlpack_legacy(tensor)); }
};
template <class X>
concept Importable = requires(const X& x) { zt::from_dlpack(x); };
}  // namespace

BOOST_AUTO_TEST_CASE(DL17_DL42_DL46_any_object_with_to_dlpack_is_accepted) {
  zt::AnyTensor a = zt::empty(std::vector<zt::index_t>{3}, zt::float64);
  auto typed = a.as<double, 1>();
  for (int i = 0; i < 3; ++i) typed(i) = i;
  const Exporter o{a};
  zt::AnyTensor r = zt::from_dlpack(o);
  BOOST_TEST(r.dtype() == zt::float64);
  BOOST_TEST(r.data_ptr() == a.data_ptr());  // a new view aliasing the same memory (DL42)
  BOOST_TEST((r.as<double, 1>()(2) == 2.0));
  zt::AnyTensor l = zt::from_dlpack(LegacyExporter{a});
  BOOST_TEST(l.data_ptr() == a.data_ptr());
  // DL17: something that is neither a managed tensor nor an exporter does not compile.
  static_assert(Importable<Exporter> && Importable<LegacyExporter>);
  static_assert(!Importable<std::vector<int>>);
  static_assert(!Importable<zt::AnyTensor>);
  static_assert(!Importable<int>);
}

BOOST_AUTO_TEST_CASE(DL44_DL45_sliced_views_export_an_offset_data_pointer) {
  zt::AnyTensor base = zt::empty(std::vector<zt::index_t>{10}, zt::int64);
  auto typed = base.as<std::int64_t, 1>();
  for (int i = 0; i < 10; ++i) typed(i) = i;
  zt::AnyTensor tail = zt::Tensor<std::int64_t>(typed.data() + 3, {7}, {1}, base.owner());
  dl::ManagedTensorVersioned* exported = zt::to_dlpack(tail);
  BOOST_TEST(exported->dl_tensor.byte_offset == 0u);
  BOOST_TEST(exported->dl_tensor.data == static_cast<void*>(typed.data() + 3));
  zt::AnyTensor r = zt::from_dlpack(exported);
  BOOST_TEST(static_cast<const std::byte*>(r.data_ptr()) - static_cast<const std::byte*>(base.data_ptr()) == 24);
  BOOST_TEST((r.as<std::int64_t, 1>()(0) == 3));
  BOOST_TEST(zt::shares_memory(r, base));

  // DL45: a producer that already offset the data pointer (NumPy a[1:]).
  Calls calls;
  zt::AnyTensor v = zt::from_dlpack(legacy({.data = typed.data() + 1, .shape = {5}, .code = 0, .bits = 64}, calls));
  BOOST_TEST(static_cast<const std::byte*>(v.data_ptr()) - static_cast<const std::byte*>(base.data_ptr()) == 8);
  BOOST_TEST(values_of(v) == std::vector<std::int64_t>({1, 2, 3, 4, 5}));
}

BOOST_AUTO_TEST_CASE(negative_strides_are_kept) {
  // PyTorch 1.13 aborts the process on these (known crash); zt keeps them.
  Calls calls;
  Bytes16 buf;
  zt::AnyTensor reversed =
      zt::from_dlpack(legacy({.data = buf.data(), .shape = {4}, .strides = {{-1}}, .byte_offset = 3}, calls));
  BOOST_TEST(reversed.strides() == Shape({-1}));
  BOOST_TEST(reversed.data_ptr() == buf.bytes.data() + 3);
  BOOST_TEST(values_of(reversed) == std::vector<std::int64_t>({3, 2, 1, 0}));
  BOOST_TEST((reversed.as<std::uint8_t, 1>().strided_array()(0) == 3));

  alignas(8) std::int32_t m[6] = {0, 1, 2, 3, 4, 5};  // [[0,1,2],[3,4,5]][::-1, ::-2]
  zt::AnyTensor flipped = zt::from_dlpack(
      legacy({.data = m, .shape = {2, 2}, .strides = {{-3, -2}}, .code = 0, .bits = 32, .byte_offset = 20}, calls));
  BOOST_TEST(values_of(flipped) == std::vector<std::int64_t>({5, 3, 2, 0}));
  BOOST_TEST((flipped.as<std::int32_t, 2>().strided_matrix()(1, 0) == 2));
  // Exported again, they stay as they are.
  dl::ManagedTensor* exported = zt::to_dlpack_legacy(flipped);
  BOOST_TEST(exported->dl_tensor.strides[0] == -3);
  BOOST_TEST(exported->dl_tensor.strides[1] == -2);
  BOOST_TEST(exported->dl_tensor.data == static_cast<void*>(m + 5));
  exported->deleter(exported);
}

BOOST_AUTO_TEST_CASE(bad_shapes_are_refused_and_the_deleter_runs) {
  Calls calls;
  Bytes16 buf;
  BOOST_CHECK_EXCEPTION((void)zt::from_dlpack(legacy({.data = buf.data(), .shape = {4}, .ndim = -1}, calls)),
                        zt::ValueError, with_message<zt::ValueError>("from_dlpack: ndim is -1; it must be 0 or more"));
  BOOST_TEST(calls.count == 1);
  BOOST_CHECK_EXCEPTION((void)zt::from_dlpack(legacy({.data = buf.data(), .shape = {2, 2}, .null_shape = true}, calls)),
                        zt::ValueError, with_message<zt::ValueError>("from_dlpack: shape is NULL for ndim 2"));
  BOOST_TEST(calls.count == 2);
  BOOST_CHECK_EXCEPTION((void)zt::from_dlpack(versioned({.data = buf.data(), .shape = {2, -3}}, calls)), zt::ValueError,
                        with_message<zt::ValueError>("negative extent -3 in dimension 1 of shape (2, -3)"));
  BOOST_TEST(calls.count == 3);
  BOOST_CHECK_EXCEPTION((void)zt::from_dlpack(legacy({.data = nullptr, .shape = {2, 3}}, calls)), zt::ValueError,
                        with_message<zt::ValueError>("from_dlpack: data is NULL but shape (2, 3) has 6 elements"));
  BOOST_TEST(calls.count == 4);
  BOOST_CHECK_EXCEPTION(
      (void)zt::from_dlpack(legacy({.data = buf.data(), .shape = {std::int64_t{1} << 40, std::int64_t{1} << 40}}, calls)),
      zt::ValueError, with_message<zt::ValueError>("shape (1099511627776, 1099511627776) has more than 2^63 elements"));
  BOOST_TEST(calls.count == 5);
}

BOOST_AUTO_TEST_CASE(strides_whose_span_overflows_or_wraps_are_refused) {
  Calls calls;
  Bytes16 buf;
  constexpr std::int64_t huge = std::int64_t{1} << 62;
  BOOST_CHECK_EXCEPTION(
      (void)zt::from_dlpack(legacy({.data = buf.data(), .shape = {3}, .strides = {{huge}}, .code = 2, .bits = 32}, calls)),
      zt::ValueError,
      with_message<zt::ValueError>(
          "from_dlpack: shape (3,) with strides (4611686018427387904,) of 4-byte elements spans more than 2^63 bytes"));
  BOOST_TEST(calls.count == 1);
  BOOST_CHECK_EXCEPTION(
      (void)zt::from_dlpack(legacy({.data = buf.data(), .shape = {2, 2}, .strides = {{huge, huge}}}, calls)),
      zt::ValueError, with_message<zt::ValueError>("spans more than 2^63 bytes"));
  BOOST_TEST(calls.count == 2);
  // Reaching below address 0 with a negative stride.
  BOOST_CHECK_EXCEPTION(
      (void)zt::from_dlpack(legacy({.data = buf.data(), .shape = {2}, .strides = {{-(huge / 2)}}}, calls)), zt::ValueError,
      with_message<zt::ValueError>("from_dlpack: shape (2,) with strides (-2305843009213693952,) from address"));
  BOOST_TEST(calls.count == 3);
  // byte_offset past the end of the address space.
  BOOST_CHECK_EXCEPTION(
      (void)zt::from_dlpack(legacy({.data = buf.data(), .shape = {1}, .byte_offset = ~std::uint64_t{0}}, calls)),
      zt::ValueError, with_message<zt::ValueError>("from_dlpack: byte_offset 18446744073709551615 added to data"));
  BOOST_TEST(calls.count == 4);
}

BOOST_AUTO_TEST_CASE(empty_shapes_whose_c_order_strides_overflow_are_refused) {
  // Zero elements, but C-order strides (asked for by NULL strides, and needed by any copy)
  // that do not fit in 64 bits: refused, with NULL strides or given ones.
  Calls calls;
  const auto refused = with_message<zt::ValueError>(
      "shape (0, 3072, 65815666556993536, 4) is empty, but its C-order strides span more than 2^63 elements");
  BOOST_CHECK_EXCEPTION((void)zt::from_dlpack(legacy({.data = nullptr, .shape = {0, 3072, 65815666556993536, 4}}, calls)),
                        zt::ValueError, refused);
  BOOST_CHECK_EXCEPTION(
      (void)zt::from_dlpack(
          legacy({.data = nullptr, .shape = {0, 3072, 65815666556993536, 4}, .strides = {{1, 1, 1, 1}}}, calls)),
      zt::ValueError, refused);
  BOOST_TEST(calls.count == 2);
  // An empty view whose strides fit can be copied like any other.
  zt::AnyTensor empty = zt::from_dlpack(legacy({.data = nullptr, .shape = {0, 3072, 4}, .strides = {{1, 1, 1}}}, calls));
  BOOST_TEST(empty.clone().shape() == zt::DynamicExtents({0, 3072, 4}));
}

BOOST_AUTO_TEST_CASE(extent_one_dimensions_with_huge_strides_are_never_stepped) {
  // Legal DLPack: a dimension of extent 1 is never stepped, whatever its stride. The bool
  // check on import and the strided copies behind clone() and to() walk these views.
  Calls calls;
  alignas(8) std::uint8_t bytes[6] = {1, 0, 9, 0, 1, 9};  // the view reads bytes 0, 1, 3, 4
  for (const std::int64_t stride : {std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::min()}) {
    BOOST_TEST_CONTEXT("stride " << stride) {
      zt::AnyTensor flags =
          zt::from_dlpack(legacy({.data = bytes, .shape = {2, 1, 2}, .strides = {{3, stride, 1}}, .code = 6}, calls));
      BOOST_TEST(!flags.is_contiguous());
      BOOST_TEST((values_of(flags.to(zt::int64)) == std::vector<std::int64_t>{1, 0, 0, 1}));
      zt::AnyTensor octets =
          zt::from_dlpack(legacy({.data = bytes, .shape = {2, 1, 2}, .strides = {{3, stride, 1}}}, calls));
      BOOST_TEST((values_of(octets.clone()) == std::vector<std::int64_t>{1, 0, 0, 1}));
    }
  }
}

BOOST_AUTO_TEST_CASE(a_broadcast_bool_tensor_is_checked_byte_by_byte_not_element_by_element) {
  // torch.zeros(1, dtype=torch.bool).expand(n): 2^40 elements, one byte. Checking every
  // element would take minutes; each byte of memory is read once.
  Calls calls;
  alignas(8) std::uint8_t bytes[4] = {1, 0, 1, 2};
  const std::int64_t huge = std::int64_t{1} << 40;
  zt::AnyTensor expanded = zt::from_dlpack(legacy({.data = bytes, .shape = {huge}, .strides = {{0}}, .code = 6}, calls));
  BOOST_TEST(expanded.numel() == huge);
  BOOST_TEST((expanded.as<const bool, 1>()(huge - 1) == true));
  zt::AnyTensor rows = zt::from_dlpack(
      legacy({.data = bytes, .shape = {huge, 1, 3}, .strides = {{0, 5, 1}}, .code = 6}, calls));
  BOOST_TEST((rows.as<const bool, 3>()(huge - 1, 0, 1) == false));
  // A bad byte is named by its first index in C order.
  BOOST_CHECK_EXCEPTION(
      (void)zt::from_dlpack(legacy({.data = bytes, .shape = {2, huge, 4}, .strides = {{0, 0, 1}}, .code = 6}, calls)),
      zt::ValueError, with_message<zt::ValueError>("from_dlpack: bool element (0, 0, 3) is byte 2"));
  BOOST_CHECK_EXCEPTION(
      (void)zt::from_dlpack(legacy({.data = bytes, .shape = {4, huge}, .strides = {{1, 0}}, .code = 6}, calls)),
      zt::ValueError, with_message<zt::ValueError>("from_dlpack: bool element (3, 0) is byte 2"));
  BOOST_TEST(calls.count == 2);  // the refused two; `expanded` and `rows` still hold theirs
}

BOOST_AUTO_TEST_CASE(a_bool_view_that_overlaps_itself_is_checked_over_its_reach) {
  // Shape (2^20, 2^20) with strides (1, 1): 2^40 elements over 2^21 - 1 bytes. Each byte
  // is read once, so the import takes as long as the memory, not the element count.
  Calls calls;
  const std::int64_t n = std::int64_t{1} << 20;
  std::vector<std::uint8_t> bytes(std::size_t(2 * n - 1), 1);
  zt::AnyTensor square = zt::from_dlpack(legacy({.data = bytes.data(), .shape = {n, n}, .strides = {{1, 1}}, .code = 6}, calls));
  BOOST_TEST(square.numel() == n * n);
  bytes[std::size_t(n + 5)] = 7;
  BOOST_CHECK_EXCEPTION(
      (void)zt::from_dlpack(legacy({.data = bytes.data(), .shape = {n, n}, .strides = {{1, 1}}, .code = 6}, calls)),
      zt::ValueError,
      with_message<zt::ValueError>("from_dlpack: the bool byte at offset 1048581 from the first element is 7"));
  // Strides (2, 3) reach every byte of 0 .. 4995 but byte 1: a bad byte there is not read.
  std::vector<std::uint8_t> gappy(4996, 0);
  gappy[1] = 9;
  zt::AnyTensor sums = zt::from_dlpack(legacy({.data = gappy.data(), .shape = {1000, 1000}, .strides = {{2, 3}}, .code = 6}, calls));
  BOOST_TEST((sums.as<const bool, 2>()(999, 999) == false));
  gappy[4995] = 9;
  BOOST_CHECK_EXCEPTION(
      (void)zt::from_dlpack(legacy({.data = gappy.data(), .shape = {1000, 1000}, .strides = {{2, 3}}, .code = 6}, calls)),
      zt::ValueError, with_message<zt::ValueError>("the bool byte at offset 4995 from the first element is 9"));
  // Negative strides reach below the first element: from byte 4995 back to 0, all but 4994.
  std::vector<std::uint8_t> backwards(4996, 0);
  backwards[4994] = 9;
  zt::AnyTensor reversed = zt::from_dlpack(
      legacy({.data = backwards.data() + 4995, .shape = {1000, 1000}, .strides = {{-2, -3}}, .code = 6}, calls));
  backwards[0] = 9;
  BOOST_CHECK_EXCEPTION(
      (void)zt::from_dlpack(legacy({.data = backwards.data() + 4995, .shape = {1000, 1000}, .strides = {{-2, -3}}, .code = 6}, calls)),
      zt::ValueError, with_message<zt::ValueError>("the bool byte at offset -4995 from the first element is 9"));
  BOOST_TEST(calls.count == 3);  // the three refused; the others are alive
}

BOOST_AUTO_TEST_CASE(misaligned_first_element_is_refused) {
  Calls calls;
  Bytes16 buf;
  BOOST_CHECK_EXCEPTION(
      (void)zt::from_dlpack(legacy({.data = buf.data(), .shape = {2}, .code = 2, .bits = 32, .byte_offset = 2}, calls)),
      zt::ValueError, with_message<zt::ValueError>("+ byte_offset 2) is not aligned to 4 bytes, the alignment of float32"));
  BOOST_TEST(calls.count == 1);
  BOOST_CHECK_EXCEPTION(
      (void)zt::from_dlpack(legacy({.data = buf.bytes.data() + 1, .shape = {1}, .code = 0, .bits = 64}, calls)),
      zt::ValueError, with_message<zt::ValueError>("is not aligned to 8 bytes, the alignment of int64"));
  BOOST_TEST(calls.count == 2);
}

BOOST_AUTO_TEST_CASE(every_dtype_imports_with_its_code_and_bits_and_round_trips) {
  struct Row {
    zt::DType dtype;
    std::uint8_t code;
    std::uint8_t bits;
  };
  const std::array<Row, 15> rows = {{{zt::bool_, 6, 8},    {zt::uint8, 1, 8},     {zt::int8, 0, 8},
                                     {zt::int16, 0, 16},   {zt::int32, 0, 32},    {zt::int64, 0, 64},
                                     {zt::uint16, 1, 16},  {zt::uint32, 1, 32},   {zt::uint64, 1, 64},
                                     {zt::float16, 2, 16}, {zt::bfloat16, 4, 16}, {zt::float32, 2, 32},
                                     {zt::float64, 2, 64}, {zt::complex64, 5, 64}, {zt::complex128, 5, 128}}};
  alignas(16) std::array<std::uint8_t, 64> zeros{};
  for (const Row& row : rows) {
    BOOST_TEST_CONTEXT(zt::name(row.dtype)) {
      Calls calls;
      zt::AnyTensor r = zt::from_dlpack(versioned({.data = zeros.data(), .shape = {2}, .code = row.code, .bits = row.bits}, calls));
      BOOST_TEST(r.dtype() == row.dtype);
      BOOST_TEST(r.data_ptr() == zeros.data());
      dl::ManagedTensorVersioned* out = zt::to_dlpack(r);
      BOOST_TEST(out->dl_tensor.dtype.code == row.code);
      BOOST_TEST(out->dl_tensor.dtype.bits == row.bits);
      BOOST_TEST(out->dl_tensor.dtype.lanes == 1);
      zt::AnyTensor back = zt::from_dlpack(out);
      BOOST_TEST(back.dtype() == row.dtype);
      BOOST_TEST(back.data_ptr() == zeros.data());
      dl::ManagedTensor* old = zt::to_dlpack_legacy(back);
      BOOST_TEST(zt::from_dlpack(old).dtype() == row.dtype);
    }
  }
}

BOOST_AUTO_TEST_CASE(unique_managed_tensor_runs_the_deleter_unless_released) {
  Calls calls;
  Bytes16 buf;
  { auto held = dl::adopt(versioned({.data = buf.data(), .shape = {4}}, calls)); }
  BOOST_TEST(calls.count == 1);
  auto held = dl::adopt(legacy({.data = buf.data(), .shape = {4}}, calls));
  dl::ManagedTensor* raw = held.release();
  BOOST_TEST(calls.count == 1);
  zt::AnyTensor r = zt::from_dlpack(raw);
  r = zt::AnyTensor(zt::Tensor<std::uint8_t>(nullptr, {0}, {1}));
  BOOST_TEST(calls.count == 2);
  // A NULL deleter and a NULL pointer are both fine to hold.
  dl::ManagedTensor* no_deleter = legacy({.data = buf.data(), .shape = {4}, .null_deleter = true}, calls);
  auto* producer_block = static_cast<Produced<dl::ManagedTensor>*>(no_deleter->manager_ctx);
  { auto quiet = dl::adopt(no_deleter); }
  { auto empty = dl::adopt<dl::ManagedTensor>(nullptr); }
  delete producer_block;
  BOOST_TEST(calls.count == 2);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(to_dlpack)

BOOST_AUTO_TEST_CASE(versioned_export_fields) {
  zt::AnyTensor t = zt::empty(std::vector<zt::index_t>{2, 3}, zt::float32);
  const long owners_before = t.owner().use_count();
  dl::ManagedTensorVersioned* m = zt::to_dlpack(t);
  BOOST_TEST(m->version.major == 1u);
  BOOST_TEST(m->version.minor == 3u);
  BOOST_TEST(m->flags == 0u);
  BOOST_TEST((m->manager_ctx != nullptr));
  BOOST_TEST((m->deleter != nullptr));
  BOOST_TEST(m->dl_tensor.data == t.data_ptr());
  BOOST_TEST(m->dl_tensor.byte_offset == 0u);
  BOOST_TEST(int(m->dl_tensor.device.device_type) == 1);
  BOOST_TEST(m->dl_tensor.ndim == 2);
  BOOST_TEST(m->dl_tensor.dtype.code == 2);
  BOOST_TEST(m->dl_tensor.dtype.bits == 32);
  BOOST_TEST(m->dl_tensor.shape[0] == 2);
  BOOST_TEST(m->dl_tensor.shape[1] == 3);
  BOOST_TEST(m->dl_tensor.strides[0] == 3);
  BOOST_TEST(m->dl_tensor.strides[1] == 1);
  // The export shares the owner; the caller's tensor is untouched.
  BOOST_TEST(t.owner().use_count() == owners_before + 1);
  BOOST_TEST((t.owner() != nullptr));
  m->deleter(m);
  BOOST_TEST(t.owner().use_count() == owners_before);
}

BOOST_AUTO_TEST_CASE(legacy_export_fields) {
  zt::AnyTensor t = zt::empty(std::vector<zt::index_t>{4}, zt::int16);
  dl::ManagedTensor* m = zt::to_dlpack_legacy(t);
  BOOST_TEST(m->dl_tensor.data == t.data_ptr());
  BOOST_TEST(m->dl_tensor.ndim == 1);
  BOOST_TEST(m->dl_tensor.dtype.code == 0);
  BOOST_TEST(m->dl_tensor.dtype.bits == 16);
  BOOST_TEST(m->dl_tensor.shape[0] == 4);
  BOOST_TEST(m->dl_tensor.strides[0] == 1);
  BOOST_TEST(t.owner().use_count() == 2);
  m->deleter(m);
  BOOST_TEST(t.owner().use_count() == 1);
}

BOOST_AUTO_TEST_CASE(exports_of_empty_tensors_carry_a_non_null_data_pointer) {
  // A consumer may skip the deleter of an export whose data is NULL (libtorch 1.13 does).
  for (const std::vector<zt::index_t>& shape : {std::vector<zt::index_t>{0}, std::vector<zt::index_t>{2, 0, 3}}) {
    zt::AnyTensor t = zt::empty(shape, zt::float32);
    const long owners_before = t.owner().use_count();
    dl::ManagedTensor* legacy = zt::to_dlpack_legacy(t);
    dl::ManagedTensorVersioned* versioned = zt::to_dlpack(t.narrow(0, 0, 0));
    BOOST_TEST((legacy->dl_tensor.data != nullptr));
    BOOST_TEST((versioned->dl_tensor.data != nullptr));
    BOOST_TEST(zt::from_dlpack(versioned).numel() == 0);  // its deleter runs with the view
    legacy->deleter(legacy);
    BOOST_TEST(t.owner().use_count() == owners_before);
  }
}

BOOST_AUTO_TEST_CASE(the_export_keeps_memory_alive_after_the_tensor_dies) {
  dl::ManagedTensorVersioned* m = nullptr;
  std::weak_ptr<const void> watch;
  {
    zt::AnyTensor t = zt::empty(std::vector<zt::index_t>{1000}, zt::float64);
    t.as<double, 1>().array().setConstant(2.5);
    watch = t.owner();
    m = zt::to_dlpack(t);
  }
  BOOST_TEST(!watch.expired());
  BOOST_TEST(static_cast<double*>(m->dl_tensor.data)[999] == 2.5);  // ASan would flag a freed block
  BOOST_TEST(m->dl_tensor.shape[0] == 1000);
  zt::AnyTensor r = zt::from_dlpack(m);
  BOOST_TEST((r.as<double, 1>()(0) == 2.5));
  r = zt::AnyTensor(zt::Tensor<double>(nullptr, {0}, {1}));
  BOOST_TEST(watch.expired());  // the consumer's single deleter call dropped the last owner
}

BOOST_AUTO_TEST_CASE(read_only_tensor_sets_the_read_only_flag) {
  const std::array<float, 3> values = {1, 2, 3};
  zt::AnyTensor t = zt::Tensor<const float>(values.data(), {3}, {1});
  dl::ManagedTensorVersioned* m = zt::to_dlpack(t);
  BOOST_TEST(m->flags == dl::flag_read_only);
  BOOST_TEST(m->dl_tensor.data == static_cast<const void*>(values.data()));
  m->deleter(m);
}

BOOST_AUTO_TEST_CASE(zero_dim_and_empty_tensors) {
  zt::AnyTensor scalar = zt::empty(std::vector<zt::index_t>{}, zt::int32);
  *scalar.as<std::int32_t>().data() = 42;
  dl::ManagedTensorVersioned* m = zt::to_dlpack(scalar);
  BOOST_TEST(m->dl_tensor.ndim == 0);
  BOOST_TEST((m->dl_tensor.shape == nullptr));
  BOOST_TEST((m->dl_tensor.strides == nullptr));
  BOOST_TEST(*zt::from_dlpack(m).as<std::int32_t>().data() == 42);

  zt::AnyTensor empty = zt::empty(std::vector<zt::index_t>{3, 0}, zt::float32);
  dl::ManagedTensor* e = zt::to_dlpack_legacy(empty);
  BOOST_TEST((e->dl_tensor.data != nullptr));  // consumers may skip the deleter of a NULL one
  BOOST_TEST(e->dl_tensor.shape[0] == 3);
  BOOST_TEST(e->dl_tensor.shape[1] == 0);
  zt::AnyTensor back = zt::from_dlpack(e);
  BOOST_TEST(back.shape() == Shape({3, 0}));
  BOOST_TEST(back.numel() == 0);
}

BOOST_AUTO_TEST_CASE(high_rank_shape_and_strides_live_in_the_export) {
  std::vector<zt::index_t> shape(9, 1);
  shape[8] = 2;
  zt::AnyTensor t = zt::empty(shape, zt::uint8);
  dl::ManagedTensor* m = zt::to_dlpack_legacy(t);
  BOOST_TEST(m->dl_tensor.ndim == 9);
  for (int d = 0; d < 9; ++d) BOOST_TEST(m->dl_tensor.shape[d] == shape[std::size_t(d)]);
  for (int d = 0; d < 9; ++d) BOOST_TEST(m->dl_tensor.strides[d] == t.stride(std::size_t(d)));
  zt::AnyTensor back = zt::from_dlpack(m);
  BOOST_TEST(back.shape() == t.shape());
  BOOST_TEST(back.strides() == t.strides());
}

BOOST_AUTO_TEST_CASE(borrowed_tensor_exports_a_borrow) {
  std::vector<std::int32_t> values = {1, 2, 3};
  zt::AnyTensor t = zt::Tensor<std::int32_t>(values.data(), {3}, {1});
  BOOST_TEST((t.owner() == nullptr));
  dl::ManagedTensorVersioned* m = zt::to_dlpack(t);
  zt::AnyTensor r = zt::from_dlpack(m);
  r.as<std::int32_t, 1>()(0) = 10;
  BOOST_TEST(values[0] == 10);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(asarray_dlpack)

BOOST_AUTO_TEST_CASE(asarray_of_a_managed_tensor_shares_memory) {
  Calls calls;
  alignas(8) std::int32_t values[4] = {1, 2, 3, 4};
  {
    zt::AnyTensor r = zt::asarray(versioned({.data = values, .shape = {2, 2}, .code = 0, .bits = 32}, calls));
    BOOST_TEST(r.dtype() == zt::int32);
    BOOST_TEST(r.data_ptr() == values);
    BOOST_TEST((r.as<std::int32_t, 2>()(1, 0) == 3));
    zt::AnyTensor same = zt::asarray(legacy({.data = values, .shape = {4}, .code = 0, .bits = 32}, calls),
                                     {.dtype = zt::int32, .copy = false});
    BOOST_TEST(same.data_ptr() == values);
    zt::AnyTensor held = zt::asarray(dl::adopt(legacy({.data = values, .shape = {4}, .code = 0, .bits = 32}, calls)));
    BOOST_TEST(held.data_ptr() == values);
    BOOST_TEST(calls.count == 0);
  }
  BOOST_TEST(calls.count == 3);
}

BOOST_AUTO_TEST_CASE(asarray_copies_release_the_producer_at_once) {
  Calls calls;
  alignas(8) std::int32_t values[3] = {1, 2, 3};
  zt::AnyTensor converted =
      zt::asarray(versioned({.data = values, .shape = {3}, .code = 0, .bits = 32}, calls), {.dtype = zt::float64});
  BOOST_TEST(calls.count == 1);  // nothing shares the producer's memory any more
  BOOST_TEST(converted.dtype() == zt::float64);
  BOOST_TEST((converted.as<double, 1>()(2) == 3.0));
  zt::AnyTensor copied = zt::asarray(legacy({.data = values, .shape = {3}, .code = 0, .bits = 32}, calls), {.copy = true});
  BOOST_TEST(calls.count == 2);
  BOOST_TEST(copied.data_ptr() != static_cast<const void*>(values));
  BOOST_TEST((copied.as<std::int32_t, 1>()(1) == 2));
  // A read-only producer copied is writable memory of zt's own.
  zt::AnyTensor writable = zt::asarray(
      versioned({.data = values, .shape = {3}, .code = 0, .bits = 32, .flags = dl::flag_read_only}, calls), {.copy = true});
  BOOST_TEST(writable.is_writable());
  BOOST_TEST(calls.count == 3);
}

BOOST_AUTO_TEST_CASE(asarray_errors_still_release_the_producer_once) {
  Calls calls;
  alignas(8) std::int32_t values[3] = {1, 2, 3};
  BOOST_CHECK_EXCEPTION(
      (void)zt::asarray(versioned({.data = values, .shape = {3}, .code = 0, .bits = 32}, calls),
                        {.dtype = zt::float32, .copy = false}),
      zt::ValueError,
      with_message<zt::ValueError>("asarray (copy = false): can't alias tensor with dtype 'int32' into dtype 'float32'"));
  BOOST_TEST(calls.count == 1);
  BOOST_CHECK_EXCEPTION((void)zt::asarray(legacy({.data = values, .shape = {3}, .lanes = 2}, calls)), zt::TypeError,
                        with_message<zt::TypeError>("expected 1 lane, got code 1 (uint), 8 bits, 2 lanes"));
  BOOST_TEST(calls.count == 2);
}

BOOST_AUTO_TEST_SUITE_END()
