// Devices on the host side, in every build: a view's device is its Buffer's label, taken
// without asking a driver; AnyTensor::to(Device) on the same device gives the same view,
// pinned or managed memory copies to the CPU without CUDA, and a build without CUDA
// refuses GPU copies naming both devices (the CUDA build's errors are in
// test/cuda/test_cuda_without_gpu.cu).
#include <boost/test/unit_test.hpp>

#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "zerotensor/any_tensor.hpp"
#include "zerotensor/asarray.hpp"
#include "zerotensor/device_of.hpp"
#include "zerotensor/frombuffer.hpp"
#include "support/message_check.hpp"

namespace {

constexpr zt::Device pinned{zt::DeviceKind::CUDAHost, 0};
constexpr zt::Device managed{zt::DeviceKind::CUDAManaged, 1};

}  // namespace

BOOST_AUTO_TEST_SUITE(device_copy)

BOOST_AUTO_TEST_CASE(a_view_is_on_the_device_its_buffer_names) {
  std::vector<float> values(4, 1.0f);
  BOOST_TEST(zt::device_of(values.data()) == zt::cpu);  // ordinary host memory, in every build
  BOOST_TEST(zt::frombuffer<float>(values).device() == zt::cpu);
  const zt::AnyTensor in_pinned = zt::frombuffer(zt::Buffer(values.data(), 16, {}, pinned), zt::float32);
  BOOST_TEST(in_pinned.device() == pinned);
  BOOST_TEST((in_pinned.as<float, 1>().at(3)) == 1.0f);  // pinned memory is host memory
  const auto names_cuda = [](const zt::DeviceError& e) {
    return message_has(e, "is on cuda:1, which the host cannot access");
  };
  const zt::Buffer on_device(values.data(), 16, {}, zt::cuda(1));
  BOOST_CHECK_EXCEPTION((void)zt::frombuffer<float>(on_device), zt::DeviceError, names_cuda);
  BOOST_CHECK_EXCEPTION((void)zt::frombuffer(on_device, zt::float32), zt::DeviceError, names_cuda);
  BOOST_CHECK_EXCEPTION((void)zt::asarray(on_device, {.dtype = zt::float32}), zt::DeviceError, names_cuda);
  const zt::Buffer misaligned_on_device(reinterpret_cast<std::byte*>(values.data()) + 1, 8, {}, zt::cuda(1));
  BOOST_CHECK_EXCEPTION((void)zt::asarray(misaligned_on_device, {.dtype = zt::float32}), zt::DeviceError, names_cuda);
}

BOOST_AUTO_TEST_CASE(the_same_device_gives_the_same_view) {
  auto values = std::make_shared<std::vector<double>>(6, 1.0);
  const zt::AnyTensor t = zt::Tensor<double, 2>(values->data(), {2, 3}, {3, 1}, values);
  const zt::AnyTensor same = t.to(zt::cpu);
  BOOST_TEST(same.data_ptr() == t.data_ptr());
  BOOST_TEST(same.owner() == t.owner());
  BOOST_TEST(values.use_count() == 3);  // ours, t's, same's: a view, not a copy
}

BOOST_AUTO_TEST_CASE(host_accessible_memory_copies_to_the_cpu_without_cuda) {
  std::vector<std::int32_t> values(12);
  std::iota(values.begin(), values.end(), 0);
  // A transposed view of pinned memory (as from_dlpack gives for kDLCUDAHost).
  const zt::AnyTensor transposed = zt::Tensor<const std::int32_t, 2>(values.data(), {4, 3}, {1, 4}, {}, pinned);
  const zt::AnyTensor copy = transposed.to(zt::cpu);
  BOOST_TEST(copy.device() == zt::cpu);
  BOOST_TEST(copy.dtype() == zt::int32);
  BOOST_TEST(copy.is_writable());
  BOOST_TEST(copy.is_contiguous());
  BOOST_TEST((copy.strides() == zt::Extents<zt::dynamic>{3, 1}));
  BOOST_TEST(copy.data_ptr() != static_cast<const void*>(values.data()));
  BOOST_TEST(bool(copy.owner()));
  const auto typed = copy.as<const std::int32_t, 2>();
  for (zt::index_t i = 0; i < 4; ++i)
    for (zt::index_t j = 0; j < 3; ++j) BOOST_TEST(typed.at(i, j) == i + 4 * j);
  const zt::AnyTensor from_managed = zt::AnyTensor(zt::Tensor<std::int32_t, 1>(values.data(), {12}, {1}, {}, managed)).to(zt::cpu);
  BOOST_TEST((from_managed.as<std::int32_t, 1>().at(11)) == 11);
}

#if !(defined(ZT_CUDA) && ZT_CUDA)
BOOST_AUTO_TEST_CASE(a_build_without_cuda_names_both_devices) {
  std::vector<float> values(4);
  const zt::AnyTensor host = zt::Tensor<float, 1>(values.data(), {4}, {1});
  BOOST_CHECK_EXCEPTION((void)host.to(zt::cuda(1)), zt::DeviceError, [](const zt::DeviceError& e) {
    return message_has(e, "AnyTensor::to: cannot copy from cpu to cuda:1: this build of zerotensor has no CUDA");
  });
  BOOST_CHECK_EXCEPTION((void)host.to(pinned), zt::DeviceError,
                        [](const zt::DeviceError& e) { return message_has(e, "cannot copy from cpu to cuda_host:0"); });
  const zt::AnyTensor device = zt::Tensor<float, 1>(values.data(), {4}, {1}, {}, zt::cuda(0));
  BOOST_CHECK_EXCEPTION((void)device.to(zt::cpu), zt::DeviceError,
                        [](const zt::DeviceError& e) { return message_has(e, "cannot copy from cuda:0 to cpu"); });
  BOOST_CHECK_EXCEPTION((void)device.to(managed), zt::DeviceError, [](const zt::DeviceError& e) {
    return message_has(e, "cannot copy from cuda:0 to cuda_managed:1");
  });
}
#endif

BOOST_AUTO_TEST_SUITE_END()
