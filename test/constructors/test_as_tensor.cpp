// as_tensor: asarray with copy unset. The AT* cases of shared/conformance/pytorch-cases.json
// that have a C++ meaning (those about stored values are in test_asarray_sequences.cpp,
// about unsigned NumPy arrays and 0-dim scalars in test_asarray_eigen.cpp).
#include <boost/test/unit_test.hpp>

#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "zerotensor/as_tensor.hpp"
#include "zerotensor/shares_memory.hpp"
#include "zerotensor/frombuffer.hpp"
#include "zerotensor/to_dlpack.hpp"
#include "support/message_check.hpp"

namespace {

template <class X>
concept AsTensorTakes = requires(X x, zt::AsTensorOptions options) { zt::as_tensor(x, options); };

/// as_tensor has no copy option: a struct with a `copy` member is not an AsTensorOptions.
template <class Options>
concept HasCopy = requires(Options o) { o.copy; };

/// Autograd is PyTorch's: neither options struct has requires_grad.
template <class Options>
concept HasRequiresGrad = requires(Options o) { o.requires_grad; };

}  // namespace

BOOST_AUTO_TEST_SUITE(as_tensor)

BOOST_AUTO_TEST_CASE(AT02_a_different_dtype_copies) {
  std::vector<std::int64_t> storage(4);
  std::iota(storage.begin(), storage.end(), 0);
  zt::Tensor<std::int64_t, 1> t(storage.data(), {4}, {1});
  zt::AnyTensor r = zt::as_tensor(t, {.dtype = zt::float32});
  BOOST_TEST(r.dtype() == zt::float32);
  BOOST_TEST(!zt::shares_memory(r, t));
  BOOST_TEST(r.as<float>()(3) == 3.0f);
}

BOOST_AUTO_TEST_CASE(AT03_AT33_the_same_dtype_and_device_share) {
  std::vector<float> storage = {0, 1, 2, 3};
  zt::AnyTensor t = zt::Tensor<float, 1>(storage.data(), {4}, {1});
  BOOST_TEST(zt::as_tensor(t).data_ptr() == storage.data());
  zt::AnyTensor r = zt::as_tensor(t, {.device = zt::cpu});
  BOOST_TEST(r.data_ptr() == storage.data());
  BOOST_TEST(r.device() == zt::cpu);
}

BOOST_AUTO_TEST_CASE(AT05_AT07_an_array_is_shared_and_a_const_one_is_read_only) {
  Eigen::ArrayXd a = Eigen::ArrayXd::LinSpaced(4, 0, 3);
  BOOST_TEST(zt::as_tensor(a).data_ptr() == a.data());
  const Eigen::ArrayXd& read_only = a;
  zt::AnyTensor r = zt::as_tensor(read_only);
  BOOST_TEST(r.data_ptr() == a.data());
  BOOST_TEST(!r.is_writable());  // PyTorch warns that writing is undefined; here it does not compile
  BOOST_CHECK_THROW((void)r.as<double>(), zt::TypeError);
}

BOOST_AUTO_TEST_CASE(AT08_negative_strides_are_shared) {
  std::vector<std::int64_t> storage = {0, 1, 2, 3, 4, 5};
  zt::Tensor<std::int64_t, 1> reversed(storage.data() + 5, {6}, {-1});
  zt::AnyTensor r = zt::as_tensor(reversed);
  BOOST_TEST(r.strides() == zt::DynamicExtents({-1}));
  BOOST_TEST(r.data_ptr() == storage.data() + 5);
}

BOOST_AUTO_TEST_CASE(AT11_an_integer_is_int64) {
  zt::AnyTensor r = zt::as_tensor(3);
  BOOST_TEST(r.dtype() == zt::int64);
  BOOST_TEST(r.rank() == 0u);
  BOOST_TEST((r.as<std::int64_t, 0>()()) == 3);
}

BOOST_AUTO_TEST_CASE(AT13_AT27_bytes_are_viewed_as_asarray_views_them) {
  // PyTorch's as_tensor refuses bytes and reads a bytearray as a list of ints; zerotensor's
  // as_tensor is asarray without copy, so a Buffer is bytes of the default dtype, shared.
  alignas(4) std::uint8_t raw[4];
  const float one = 1.0f;
  std::memcpy(raw, &one, 4);
  zt::AnyTensor r = zt::as_tensor(zt::Buffer(static_cast<const void*>(raw), 4));
  BOOST_TEST(r.dtype() == zt::float32);
  BOOST_TEST(r.data_ptr() == raw);
  BOOST_TEST(!r.is_writable());
  std::uint8_t two[2] = {1, 2};
  BOOST_CHECK_EXCEPTION((void)zt::as_tensor(zt::Buffer(two)), zt::ValueError,
                        with_message<zt::ValueError>("buffer length (2 bytes) after offset (0 bytes) must be a multiple of element size (4)"));
  BOOST_TEST(zt::as_tensor(zt::Buffer(two), {.dtype = zt::uint8}).data_ptr() == two);
  // The C++ way to read bytes as a list of numbers: the numbers themselves.
  BOOST_TEST((zt::as_tensor(std::vector<int>{1, 2}).as<int, 1>()(1)) == 2);
}

BOOST_AUTO_TEST_CASE(AT14_AT15_text_and_requires_grad_do_not_compile) {
  BOOST_TEST(!AsTensorTakes<std::string>);
  BOOST_TEST(AsTensorTakes<std::vector<float>>);
  BOOST_TEST(!HasCopy<zt::AsTensorOptions>);
  BOOST_TEST(HasCopy<zt::AsArrayOptions>);
  BOOST_TEST(!HasRequiresGrad<zt::AsTensorOptions>);  // AT15: unexpected keyword 'requires_grad'
  BOOST_TEST(!HasRequiresGrad<zt::AsArrayOptions>);
}

BOOST_AUTO_TEST_CASE(AT18_a_list_of_arrays) {
  std::vector<std::int64_t> a = {0, 1};
  std::vector<std::vector<std::int64_t>> list = {a, a};
  zt::AnyTensor r = zt::as_tensor(list);
  BOOST_TEST(r.dtype() == zt::int64);
  BOOST_TEST(r.shape() == zt::DynamicExtents({2, 2}));
  BOOST_TEST(r.strides() == zt::DynamicExtents({2, 1}));
  BOOST_TEST((r.as<std::int64_t, 2>()(1, 1)) == 1);
}

BOOST_AUTO_TEST_CASE(AT31_nested_lists_with_a_dtype) {
  zt::AnyTensor r = zt::as_tensor({{1, 2}, {3, 4}}, {.dtype = zt::float64});
  BOOST_TEST(r.dtype() == zt::float64);
  BOOST_TEST(r.shape() == zt::DynamicExtents({2, 2}));
  BOOST_TEST((r.as<double, 2>()(1, 0)) == 3.0);
  BOOST_TEST(zt::as_tensor({}).shape() == zt::DynamicExtents({0}));
}

BOOST_AUTO_TEST_CASE(AT35_dtype_and_another_device) {
  // 'meta' has no C++ meaning; the other device is CUDA.
#if !(defined(ZT_CUDA) && ZT_CUDA)
  BOOST_CHECK_THROW((void)zt::as_tensor({1, 2}, {.dtype = zt::float32, .device = zt::cuda(0)}), zt::DeviceError);
#endif
  BOOST_TEST(zt::as_tensor({1, 2}, {.dtype = zt::float32, .device = zt::cpu}).dtype() == zt::float32);
}

BOOST_AUTO_TEST_CASE(as_tensor_agrees_with_asarray_without_copy) {
  Eigen::MatrixXf m = Eigen::MatrixXf::Constant(2, 3, 1.0f);
  zt::AnyTensor a = zt::asarray(m);
  zt::AnyTensor b = zt::as_tensor(m);
  BOOST_TEST(a.data_ptr() == b.data_ptr());
  BOOST_TEST(a.strides() == b.strides());
  BOOST_TEST(zt::as_tensor(m, {.dtype = zt::float64}).data_ptr() != m.data());
  BOOST_TEST(zt::as_tensor(2.5).dtype() == zt::asarray(2.5).dtype());
}

BOOST_AUTO_TEST_CASE(AT25_AT34_dlpack_managed_tensors_are_shared_as_in_current_pytorch) {
  std::vector<float> values = {1.0f, 2.0f, 3.0f};
  zt::AnyTensor source = zt::frombuffer(values, zt::float32);
  zt::AnyTensor shared = zt::as_tensor(zt::to_dlpack(source));
  BOOST_TEST(shared.data_ptr() == values.data());
  BOOST_TEST(shared.dtype() == zt::float32);
  zt::AnyTensor converted = zt::as_tensor(zt::to_dlpack_legacy(source), {.dtype = zt::float64});
  BOOST_TEST(!zt::shares_memory(converted, source));
  BOOST_TEST((converted.as<double, 1>()(2)) == 3.0);
}

BOOST_AUTO_TEST_SUITE_END()
