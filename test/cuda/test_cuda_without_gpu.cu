// The CUDA build on a machine without a usable GPU (CTest hides every GPU with
// CUDA_VISIBLE_DEVICES=-1, so this runs the same with or without one): every operation
// that needs the GPU throws DeviceError naming the CUDA error, and host memory keeps
// working.
#include "zerotensor/cuda.hpp"

#include <boost/test/unit_test.hpp>

#include <numeric>
#include <string>
#include <vector>

#include "zerotensor/frombuffer.hpp"

namespace {

bool message_has(const std::exception& e, const std::string& text) {
  const bool found = std::string(e.what()).find(text) != std::string::npos;
  if (!found) BOOST_TEST_MESSAGE("message was: " << e.what());
  return found;
}

/// The two errors the runtime gives without a GPU: no device, or no (matching) driver.
bool names_missing_gpu(const std::exception& e) {
  return message_has(e, "cudaErrorNoDevice") || message_has(e, "cudaErrorInsufficientDriver");
}

zt::Tensor<float, 2> host_matrix(std::vector<float>& values, zt::Device label = zt::cpu) {
  return zt::Tensor<float, 2>(values.data(), {3, 4}, {4, 1}, {}, label);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(cuda_without_gpu)

BOOST_AUTO_TEST_CASE(no_device_is_reported) {
  BOOST_TEST(zt::cuda_device_count() == 0);
  BOOST_TEST(!zt::cuda_is_available());
  std::vector<float> values(4);
  BOOST_TEST(zt::device_of(values.data()) == zt::cpu);
}

BOOST_AUTO_TEST_CASE(a_gpu_context_names_the_cuda_error) {
  BOOST_CHECK_EXCEPTION(zt::GpuContext gpu(0), zt::DeviceError, [](const zt::DeviceError& e) {
    return message_has(e, "GpuContext: cudaGetDeviceCount failed: ") && names_missing_gpu(e);
  });
}

BOOST_AUTO_TEST_CASE(copies_to_the_gpu_name_the_cuda_error) {
  std::vector<float> values(12, 1.5f);
  const zt::AnyTensor host = host_matrix(values);
  BOOST_CHECK_EXCEPTION((void)host.to(zt::cuda(0)), zt::DeviceError, [](const zt::DeviceError& e) {
    return message_has(e, "allocating 48 bytes on cuda:0") && names_missing_gpu(e);
  });
  BOOST_CHECK_EXCEPTION((void)host.to(zt::Device{zt::DeviceKind::CUDAHost, 0}), zt::DeviceError,
                        [](const zt::DeviceError& e) {
                          return message_has(e, "allocating 48 bytes on cuda_host:0") && names_missing_gpu(e);
                        });
  BOOST_CHECK_EXCEPTION((void)zt::empty(std::vector<zt::index_t>{2, 3}, zt::float64, zt::cuda(1)), zt::DeviceError,
                        [](const zt::DeviceError& e) {
                          return message_has(e, "allocating 48 bytes on cuda:1") && names_missing_gpu(e);
                        });
}

BOOST_AUTO_TEST_CASE(copies_from_device_memory_name_the_cuda_error) {
  // Memory labelled cuda:0 (here host memory, which no kernel can reach without a GPU):
  // the copy back must fail cleanly in the CUDA runtime, contiguous or strided.
  std::vector<float> values(12, 2.0f);
  const zt::AnyTensor device = host_matrix(values, zt::cuda(0));
  BOOST_CHECK_EXCEPTION((void)device.to(zt::cpu), zt::DeviceError, [](const zt::DeviceError& e) {
    return message_has(e, "AnyTensor::to: copying 48 bytes from cuda:0 to cpu failed: ") && names_missing_gpu(e);
  });
  const zt::AnyTensor transposed = zt::Tensor<float, 2>(values.data(), {4, 3}, {1, 4}, {}, zt::cuda(0));
  BOOST_CHECK_EXCEPTION((void)transposed.to(zt::cpu), zt::DeviceError, [](const zt::DeviceError& e) {
    return message_has(e, "staging 48 bytes of a strided tensor from cuda:0") && names_missing_gpu(e);
  });
}

BOOST_AUTO_TEST_CASE(host_only_operations_refuse_device_memory) {
  std::vector<float> values(12);
  const zt::Tensor<float, 2> device = host_matrix(values, zt::cuda(0));
  auto names_device = [](const zt::DeviceError& e) { return message_has(e, "is on cuda:0, which the host cannot access"); };
  BOOST_CHECK_EXCEPTION((void)device.at(0, 0), zt::DeviceError, names_device);
  BOOST_CHECK_EXCEPTION((void)device.array(), zt::DeviceError, names_device);
  BOOST_CHECK_EXCEPTION((void)device.matrix(), zt::DeviceError, names_device);
  BOOST_CHECK_EXCEPTION((void)device.tensor(), zt::DeviceError, names_device);
  BOOST_CHECK_EXCEPTION((void)zt::frombuffer(zt::Buffer(values.data(), 48, {}, zt::cuda(0)), zt::float32),
                        zt::DeviceError, names_device);
}

BOOST_AUTO_TEST_CASE(host_memory_works_as_in_a_cpu_build) {
  std::vector<float> values(12);
  std::iota(values.begin(), values.end(), 0.0f);
  // frombuffer asks the driver whether the memory is device memory; without one it is not.
  const zt::Tensor<float, 1> view = zt::frombuffer<float>(values);
  BOOST_TEST(view.data() == values.data());
  BOOST_TEST(view.at(11) == 11.0f);
  // Pinned-labelled memory is host memory: copying it to the CPU needs no CUDA call.
  const zt::AnyTensor pinned = zt::Tensor<float, 2>(values.data(), {4, 3}, {1, 4}, {}, {zt::DeviceKind::CUDAHost, 0});
  const zt::AnyTensor copy = pinned.to(zt::cpu);
  BOOST_TEST(copy.device() == zt::cpu);
  BOOST_TEST(copy.data_ptr() != static_cast<const void*>(values.data()));
  BOOST_TEST(copy.is_contiguous());
  BOOST_TEST((copy.as<float, 2>().at(1, 2)) == 9.0f);
  BOOST_TEST(copy.to(zt::cpu).data_ptr() == copy.data_ptr());
}

BOOST_AUTO_TEST_SUITE_END()
