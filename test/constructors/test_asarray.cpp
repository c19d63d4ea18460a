// asarray on zt tensors and raw Buffers, and the options (dtype, device, copy, alignment):
// the AA* cases of shared/conformance/pytorch-cases.json about tensors, NumPy arrays (here
// typed zt views) and buffer-protocol objects (here zt::Buffer).
#include <boost/test/unit_test.hpp>

#include "support/message_check.hpp"

#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "zerotensor/asarray.hpp"
#include "zerotensor/shares_memory.hpp"
#include "zerotensor/storage.hpp"
#if defined(ZT_CUDA) && ZT_CUDA
#include "zerotensor/cuda.hpp"
#endif

namespace {

/// torch.arange(n) as a borrowed int64 view.
zt::Tensor<std::int64_t, 1> arange(std::vector<std::int64_t>& storage, std::int64_t n) {
  storage.resize(std::size_t(n));
  std::iota(storage.begin(), storage.end(), 0);
  return zt::Tensor<std::int64_t, 1>(storage.data(), {n}, {1});
}

#if defined(ZT_CUDA) && ZT_CUDA
bool gpu_present() { return zt::cuda_is_available(); }
#else
bool gpu_present() { return false; }
#endif

/// Restores the default dtype however a test ends.
struct DefaultDTypeGuard {
  zt::DType saved = zt::default_dtype();
  ~DefaultDTypeGuard() { zt::set_default_dtype(saved); }
};

/// The elements in C order (a strided view is copied first); throws if the dtype is not T's.
template <class T>
std::vector<T> values_of(const zt::AnyTensor& t) {
  const zt::AnyTensor flat = t.is_contiguous() ? t : t.clone();
  const T* data = flat.as<const T>().data();
  return std::vector<T>(data, data + flat.numel());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(asarray_tensors)

BOOST_AUTO_TEST_CASE(a_tensor_is_shared_as_it_is) {
  std::vector<float> storage = {1, 2, 3, 4, 5, 6};
  zt::Tensor<float, 2> t(storage.data(), {2, 3}, {3, 1});
  zt::AnyTensor r = zt::asarray(t);
  BOOST_TEST(r.dtype() == zt::float32);
  BOOST_TEST(r.shape() == zt::DynamicExtents({2, 3}));
  BOOST_TEST(r.strides() == zt::DynamicExtents({3, 1}));
  BOOST_TEST(r.data_ptr() == storage.data());
  BOOST_TEST(r.is_writable());
  zt::AnyTensor read_only = zt::asarray(zt::Tensor<const float, 2>(t));
  BOOST_TEST(!read_only.is_writable());
  BOOST_TEST(read_only.data_ptr() == storage.data());
}

BOOST_AUTO_TEST_CASE(a_view_keeps_its_owner_alive) {
  auto storage = std::make_shared<std::vector<double>>(4, 2.5);
  std::weak_ptr<std::vector<double>> watch = storage;
  zt::AnyTensor r = zt::asarray(zt::Tensor<double, 1>(storage->data(), {4}, {1}, storage));
  storage.reset();
  BOOST_TEST(!watch.expired());
  BOOST_TEST((r.as<double, 1>()(3)) == 2.5);
  r = zt::asarray(r, {.copy = true});
  BOOST_TEST(watch.expired());  // the copy owns its memory; the source's owner is released
  BOOST_TEST((r.as<double, 1>()(0)) == 2.5);
}

BOOST_AUTO_TEST_CASE(AA23_a_different_dtype_copies) {
  std::vector<std::int64_t> storage;
  auto t = arange(storage, 4);
  zt::AnyTensor r = zt::asarray(t, {.dtype = zt::float32});
  BOOST_TEST(r.dtype() == zt::float32);
  BOOST_TEST(r.shape() == zt::DynamicExtents({4}));
  BOOST_TEST(r.strides() == zt::DynamicExtents({1}));
  BOOST_TEST(!zt::shares_memory(r, t));
  BOOST_TEST(values_of<float>(r) == std::vector<float>({0, 1, 2, 3}));
}

BOOST_AUTO_TEST_CASE(AA24_copy_false_refuses_a_dtype_change) {
  std::vector<std::int64_t> storage;
  auto t = arange(storage, 4);
  BOOST_CHECK_EXCEPTION((void)zt::asarray(t, {.dtype = zt::float32, .copy = false}), zt::ValueError,
                        with_message<zt::ValueError>("can't alias tensor with dtype 'int64' into dtype 'float32'"));
}

BOOST_AUTO_TEST_CASE(AA25_copy_false_with_the_same_dtype_shares) {
  std::vector<std::int64_t> storage;
  auto t = arange(storage, 4);
  zt::AnyTensor r = zt::asarray(t, {.dtype = zt::int64, .copy = false});
  BOOST_TEST(r.data_ptr() == storage.data());
  BOOST_TEST(values_of<std::int64_t>(r) == std::vector<std::int64_t>({0, 1, 2, 3}));
}

// AA26/AA27/AA71 use device 'meta' and 'cuda'; zerotensor's other device is CUDA.
BOOST_AUTO_TEST_CASE(AA26_copy_false_refuses_a_device_change) {
  std::vector<std::int64_t> storage;
  auto t = arange(storage, 4);
  BOOST_CHECK_EXCEPTION((void)zt::asarray(t, {.device = zt::cuda(0), .copy = false}), zt::ValueError,
                        with_message<zt::ValueError>("can't alias tensor from device 'cpu' to 'cuda:0'"));
  // The device is checked before the dtype, as PyTorch does.
  BOOST_CHECK_EXCEPTION((void)zt::asarray(t, {.dtype = zt::float32, .device = zt::cuda(1), .copy = false}),
                        zt::ValueError, with_message<zt::ValueError>("from device 'cpu' to 'cuda:1'"));
}

BOOST_AUTO_TEST_CASE(AA27_AA71_another_device_goes_through_to_device) {
  std::vector<std::int64_t> storage;
  auto t = arange(storage, 3);
  if (!gpu_present()) {
    // PyTorch (CPU build): "not linked with support for cuda devices"; here the DeviceError
    // of AnyTensor::to(Device) reaches the caller.
    BOOST_CHECK_THROW((void)zt::asarray(t, {.device = zt::cuda(0)}), zt::DeviceError);
    BOOST_CHECK_THROW((void)zt::asarray(t, {.dtype = zt::float16, .device = zt::cuda(0)}), zt::DeviceError);
    BOOST_CHECK_THROW((void)zt::asarray(t, {.device = zt::cuda(0), .copy = true}), zt::DeviceError);
#if !(defined(ZT_CUDA) && ZT_CUDA)
    BOOST_CHECK_EXCEPTION((void)zt::asarray(t, {.device = zt::cuda(0)}), zt::DeviceError,
                          with_message<zt::DeviceError>("cannot copy from cpu to cuda:0"));
#endif
    return;
  }
  zt::AnyTensor on_gpu = zt::asarray(t, {.device = zt::cuda(0)});
  BOOST_TEST(on_gpu.device() == zt::cuda(0));
  BOOST_TEST(on_gpu.dtype() == zt::int64);
  BOOST_TEST(values_of<std::int64_t>(zt::asarray(on_gpu, {.device = zt::cpu})) == std::vector<std::int64_t>({0, 1, 2}));
  zt::AnyTensor half_on_gpu = zt::asarray(t, {.dtype = zt::float16, .device = zt::cuda(0)});
  BOOST_TEST(half_on_gpu.dtype() == zt::float16);
  zt::AnyTensor converted_on_gpu = zt::asarray(on_gpu, {.dtype = zt::float32});  // stays on the GPU
  BOOST_TEST(converted_on_gpu.device() == zt::cuda(0));
  BOOST_TEST(values_of<float>(zt::asarray(converted_on_gpu, {.device = zt::cpu})) == std::vector<float>({0, 1, 2}));
  zt::AnyTensor copied_on_gpu = zt::asarray(on_gpu, {.copy = true});
  BOOST_TEST(copied_on_gpu.device() == zt::cuda(0));
  BOOST_TEST(copied_on_gpu.data_ptr() != on_gpu.data_ptr());
  BOOST_TEST(zt::asarray(on_gpu, {.device = zt::cuda(0), .copy = false}).data_ptr() == on_gpu.data_ptr());
}

BOOST_AUTO_TEST_CASE(device_cpu_keeps_a_cpu_tensor_shared) {
  std::vector<std::int64_t> storage;
  auto t = arange(storage, 3);
  BOOST_TEST(zt::asarray(t, {.device = zt::cpu}).data_ptr() == storage.data());
  BOOST_TEST(zt::asarray(t, {.device = zt::cpu, .copy = false}).data_ptr() == storage.data());
  zt::AnyTensor copied = zt::asarray(t, {.device = zt::cpu, .copy = true});
  BOOST_TEST(copied.device() == zt::cpu);
  BOOST_TEST(!zt::shares_memory(copied, t));
}

BOOST_AUTO_TEST_CASE(host_memory_of_another_kind_comes_to_the_cpu_by_a_copy) {
  std::vector<float> storage = {1, 2};
  const zt::Device pinned{zt::DeviceKind::CUDAHost, 0};
  zt::AnyTensor t = zt::Tensor<float, 1>(storage.data(), {2}, {1}, {}, pinned);
  BOOST_TEST(zt::asarray(t).device() == pinned);
  zt::AnyTensor r = zt::asarray(t, {.device = zt::cpu});
  BOOST_TEST(r.device() == zt::cpu);
  BOOST_TEST(r.data_ptr() != storage.data());
  BOOST_TEST(values_of<float>(r) == std::vector<float>({1, 2}));
  BOOST_CHECK_EXCEPTION((void)zt::asarray(t, {.device = zt::cpu, .copy = false}), zt::ValueError,
                        with_message<zt::ValueError>("can't alias tensor from device 'cuda_host:0' to 'cpu'"));
}

BOOST_AUTO_TEST_CASE(memory_the_host_cannot_touch_is_not_converted_here) {
  alignas(8) std::int64_t fake_device_memory[2] = {};
  zt::AnyTensor t = zt::Tensor<std::int64_t, 1>(fake_device_memory, {2}, {1}, {}, zt::cuda(0));
  BOOST_TEST(zt::asarray(t).data_ptr() == fake_device_memory);  // shared: nothing is touched
  BOOST_TEST(zt::asarray(t, {.device = zt::cuda(0), .copy = false}).device() == zt::cuda(0));
#if !(defined(ZT_CUDA) && ZT_CUDA)
  BOOST_CHECK_THROW((void)zt::asarray(t, {.dtype = zt::float32}), zt::DeviceError);
  BOOST_CHECK_THROW((void)zt::asarray(t, {.copy = true}), zt::DeviceError);
#endif
}

BOOST_AUTO_TEST_CASE(copy_true_always_gives_memory_of_its_own) {
  std::vector<std::int64_t> storage;
  auto t = arange(storage, 4);
  zt::AnyTensor same_dtype = zt::asarray(t, {.copy = true});
  BOOST_TEST(same_dtype.dtype() == zt::int64);
  BOOST_TEST(!zt::shares_memory(same_dtype, t));
  BOOST_TEST(same_dtype.is_writable());
  BOOST_TEST(values_of<std::int64_t>(same_dtype) == std::vector<std::int64_t>({0, 1, 2, 3}));
  zt::AnyTensor converted = zt::asarray(t, {.dtype = zt::float64, .copy = true});
  BOOST_TEST(!zt::shares_memory(converted, t));
  BOOST_TEST(values_of<double>(converted) == std::vector<double>({0, 1, 2, 3}));
  zt::AnyTensor read_only_source = zt::Tensor<const std::int64_t, 1>(t);
  BOOST_TEST(zt::asarray(read_only_source, {.copy = true}).is_writable());
}

BOOST_AUTO_TEST_CASE(AA64_strides_are_kept_when_sharing) {
  std::vector<std::int64_t> storage;
  arange(storage, 6);
  zt::Tensor<std::int64_t, 2> transposed(storage.data(), {3, 2}, {1, 3});
  zt::AnyTensor r = zt::asarray(transposed);
  BOOST_TEST(r.shape() == zt::DynamicExtents({3, 2}));
  BOOST_TEST(r.strides() == zt::DynamicExtents({1, 3}));
  BOOST_TEST(r.data_ptr() == storage.data());
  BOOST_TEST((r.as<std::int64_t, 2>()(2, 1)) == 5);
  // A copy of a strided view is contiguous, with the values in the view's order.
  zt::AnyTensor copied = zt::asarray(transposed, {.dtype = zt::int32});
  BOOST_TEST(copied.strides() == zt::DynamicExtents({2, 1}));
  BOOST_TEST(values_of<std::int32_t>(copied) == std::vector<std::int32_t>({0, 3, 1, 4, 2, 5}));
}

BOOST_AUTO_TEST_CASE(AA38_negative_strides_are_shared_not_refused) {
  // PyTorch: ValueError for NumPy's a[::-1]; zerotensor keeps negative strides (DLPack).
  std::vector<std::int64_t> storage;
  arange(storage, 6);
  zt::Tensor<std::int64_t, 1> reversed(storage.data() + 5, {6}, {-1});
  zt::AnyTensor r = zt::asarray(reversed);
  BOOST_TEST(r.strides() == zt::DynamicExtents({-1}));
  BOOST_TEST(r.data_ptr() == storage.data() + 5);
  zt::AnyTensor converted = zt::asarray(reversed, {.dtype = zt::float32});
  BOOST_TEST(values_of<float>(converted) == std::vector<float>({5, 4, 3, 2, 1, 0}));
}

/// The dtypes that hold 0, 1 and 2: all but the packed sub-byte types (no numbers) and
/// float8_e8m0fnu (powers of two only).
std::vector<zt::DType> dtypes_holding_small_integers() {
  std::vector<zt::DType> dtypes;
  for (zt::DType dtype : zt::all_dtypes)
    if (!zt::is_packed(dtype) && dtype != zt::float8_e8m0fnu_) dtypes.push_back(dtype);
  return dtypes;
}

BOOST_AUTO_TEST_CASE(every_pair_of_dtypes_converts_from_a_strided_source) {
  // Values 0, 1, 2 (bool: false, true, true) as every other element of a 6-element array.
  auto as_double = [](const auto& value) -> double {
    if constexpr (requires { value.real(); }) return double(value.real());
    else if constexpr (requires { static_cast<float>(value); }) return double(static_cast<float>(value));
    else throw std::logic_error("packed sub-byte values are not numbers");
  };
  const std::vector<zt::DType> dtypes = dtypes_holding_small_integers();
  for (zt::DType from : dtypes) {
    std::shared_ptr<std::byte> memory = zt::allocate_bytes(6 * zt::itemsize(from));
    const zt::AnyTensor source = zt::dispatch(from, [&](auto tag) {
      using T = typename decltype(tag)::type;
      auto* data = reinterpret_cast<T*>(memory.get());
      if constexpr (requires { T(1); }) {
        for (int i = 0; i < 6; ++i) data[i] = T(i / 2);
      }
      return zt::AnyTensor(zt::Tensor<const T, 1>(data, {3}, {2}, memory));
    });
    for (zt::DType to : dtypes) {
      const zt::AnyTensor converted = zt::asarray(source, {.dtype = to});
      BOOST_TEST(converted.dtype() == to);
      if (from == to) BOOST_TEST(converted.data_ptr() == source.data_ptr());  // nothing to convert: shared
      else BOOST_TEST(converted.is_contiguous());
      const double expected_last = from == zt::bool_ || to == zt::bool_ ? 1.0 : 2.0;
      zt::dispatch(to, [&](auto tag) {
        using T = typename decltype(tag)::type;
        const auto typed = converted.as<const T, 1>();
        BOOST_TEST(as_double(typed(0)) == 0.0, name(from) << " to " << name(to));
        BOOST_TEST(as_double(typed(1)) == 1.0, name(from) << " to " << name(to));
        BOOST_TEST(as_double(typed(2)) == expected_last, name(from) << " to " << name(to));
      });
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(asarray_buffers)

BOOST_AUTO_TEST_CASE(AA44_read_only_bytes_are_shared_as_the_default_dtype) {
  const std::string b("\x00\x00\x80\x3f", 4);
  alignas(4) char aligned[4];
  std::memcpy(aligned, b.data(), 4);
  const zt::Buffer bytes(static_cast<const void*>(aligned), 4);
  zt::AnyTensor r = zt::asarray(bytes);
  BOOST_TEST(r.dtype() == zt::float32);
  BOOST_TEST(r.shape() == zt::DynamicExtents({1}));
  BOOST_TEST(r.data_ptr() == static_cast<const void*>(aligned));
  BOOST_TEST(!r.is_writable());  // PyTorch warns; here the elements are const
  BOOST_TEST(r.as<const float>()(0) == 1.0f);
}

BOOST_AUTO_TEST_CASE(AA45_a_length_that_is_not_a_multiple_of_the_itemsize) {
  std::vector<std::uint8_t> bytearray(3);
  BOOST_CHECK_EXCEPTION(
      (void)zt::asarray(zt::Buffer(bytearray)), zt::ValueError,
      with_message<zt::ValueError>("buffer length (3 bytes) after offset (0 bytes) must be a multiple of element size (4)"));
  std::vector<std::uint8_t> nothing;
  BOOST_CHECK_EXCEPTION((void)zt::asarray(zt::Buffer(nothing)), zt::ValueError,
                        with_message<zt::ValueError>("both buffer length (0) and count (-1) must not be 0"));
}

BOOST_AUTO_TEST_CASE(AA55_the_default_dtype_decides) {
  DefaultDTypeGuard guard;
  zt::set_default_dtype(zt::float64);
  alignas(8) std::uint8_t bytearray[8] = {};
  zt::AnyTensor r = zt::asarray(zt::Buffer(bytearray));
  BOOST_TEST(r.dtype() == zt::float64);
  BOOST_TEST(r.shape() == zt::DynamicExtents({1}));
  BOOST_TEST(r.data_ptr() == bytearray);
  BOOST_TEST(r.as<double>()(0) == 0.0);
}

BOOST_AUTO_TEST_CASE(AA56_copy_true_copies_the_bytes) {
  std::vector<std::uint8_t> ba = {1, 2};
  zt::AnyTensor r = zt::asarray(zt::Buffer(ba), {.dtype = zt::uint8, .copy = true});
  BOOST_TEST(r.dtype() == zt::uint8);
  BOOST_TEST(r.data_ptr() != ba.data());
  BOOST_TEST(values_of<std::uint8_t>(r) == std::vector<std::uint8_t>({1, 2}));
}

BOOST_AUTO_TEST_CASE(AA57_copy_false_shares_the_bytes) {
  std::vector<std::uint8_t> ba = {1, 2};
  zt::AnyTensor r = zt::asarray(zt::Buffer(ba), {.dtype = zt::uint8, .copy = false});
  BOOST_TEST(r.data_ptr() == ba.data());
  r.as<std::uint8_t>()(0) = 7;
  BOOST_TEST(ba[0] == 7);
}

BOOST_AUTO_TEST_CASE(AA66_bytes_as_float32) {
  // requires_grad has no C++ meaning; the view itself does.
  alignas(4) std::uint8_t ba[8] = {};
  zt::AnyTensor r = zt::asarray(zt::Buffer(ba), {.dtype = zt::float32});
  BOOST_TEST(r.shape() == zt::DynamicExtents({2}));
  BOOST_TEST(r.data_ptr() == ba);
  BOOST_TEST(values_of<float>(r) == std::vector<float>({0, 0}));
}

BOOST_AUTO_TEST_CASE(misaligned_bytes_are_copied_unless_copy_is_false) {
  alignas(8) std::uint8_t raw[9] = {};
  const float one = 1.0f, two = 2.0f;
  std::memcpy(raw + 1, &one, 4);
  std::memcpy(raw + 5, &two, 4);
  const zt::Buffer odd(static_cast<void*>(raw + 1), 8);
  zt::AnyTensor r = zt::asarray(odd, {.dtype = zt::float32});
  BOOST_TEST(r.data_ptr() != static_cast<void*>(raw + 1));
  BOOST_TEST(reinterpret_cast<std::uintptr_t>(r.data_ptr()) % alignof(float) == 0u);
  BOOST_TEST(r.is_writable());
  BOOST_TEST(values_of<float>(r) == std::vector<float>({1, 2}));
  BOOST_CHECK_EXCEPTION((void)zt::asarray(odd, {.dtype = zt::float32, .copy = false}), zt::ValueError,
                        with_message<zt::ValueError>("is not aligned to 4 bytes, the alignment of float32"));
  // The length is checked before the alignment, as frombuffer orders its checks.
  const zt::Buffer odd_length(static_cast<void*>(raw + 1), 7);
  BOOST_CHECK_EXCEPTION((void)zt::asarray(odd_length, {.dtype = zt::float32, .copy = false}), zt::ValueError,
                        with_message<zt::ValueError>("buffer length (7 bytes) after offset (0 bytes)"));
  // One byte elements are never misaligned: shared.
  BOOST_TEST(zt::asarray(odd, {.dtype = zt::uint8, .copy = false}).data_ptr() == static_cast<void*>(raw + 1));
}

BOOST_AUTO_TEST_CASE(a_moved_container_is_owned_by_the_result) {
  std::vector<double> values = {1.5, 2.5};
  const double* address = values.data();
  zt::AnyTensor r = zt::asarray(zt::Buffer(std::move(values)), {.dtype = zt::float64});
  BOOST_TEST(r.data_ptr() == address);
  BOOST_TEST(r.owner() != nullptr);
  BOOST_TEST(values_of<double>(r) == std::vector<double>({1.5, 2.5}));
}

BOOST_AUTO_TEST_CASE(device_memory_in_a_buffer_is_refused) {
  alignas(8) std::byte raw[8] = {};
  BOOST_CHECK_EXCEPTION((void)zt::asarray(zt::Buffer(static_cast<void*>(raw), 8, {}, zt::cuda(0))), zt::DeviceError,
                        with_message<zt::DeviceError>("the memory is on cuda:0"));
  BOOST_CHECK_THROW((void)zt::asarray(zt::Buffer(static_cast<void*>(raw + 1), 4, {}, zt::cuda(0))), zt::DeviceError);
}

BOOST_AUTO_TEST_CASE(bool_bytes_are_checked_as_frombuffer_does) {
  std::uint8_t flags[3] = {1, 0, 2};
  BOOST_CHECK_EXCEPTION((void)zt::asarray(zt::Buffer(flags), {.dtype = zt::bool_}), zt::ValueError,
                        with_message<zt::ValueError>("element 2 is byte 2"));
}

BOOST_AUTO_TEST_SUITE_END()
