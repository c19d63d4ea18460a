// The CUDA build on a machine without a usable GPU (CTest hides every GPU with
// CUDA_VISIBLE_DEVICES=-1, so this runs the same with or without one): every operation
// that needs the GPU (copies, staged copies, loads to a device, pinning) throws
// DeviceError naming the CUDA error, and host memory keeps working.
#include "zerotensor/cuda.hpp"

#include <boost/test/unit_test.hpp>

#include <numeric>
#include <string>
#include <vector>

#include "zerotensor/from_file.hpp"
#include "zerotensor/frombuffer.hpp"
#include "zerotensor/npy.hpp"
#include "zerotensor/pin_memory.hpp"
#include "zerotensor/safetensors.hpp"
#include "zerotensor/staging.hpp"
#include "support/file_test_support.hpp"

namespace {

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
  const auto names_copy = [](const zt::DeviceError& e) {
    return message_has(e, "AnyTensor::to: copying 48 bytes from cuda:0 to cpu") && names_missing_gpu(e);
  };
  BOOST_CHECK_EXCEPTION((void)device.to(zt::cpu), zt::DeviceError, names_copy);
  // Strided: the 48-byte span it touches is copied first, then gathered on the host.
  const zt::AnyTensor transposed = zt::Tensor<float, 2>(values.data(), {4, 3}, {1, 4}, {}, zt::cuda(0));
  BOOST_CHECK_EXCEPTION((void)transposed.to(zt::cpu), zt::DeviceError, names_copy);
}

BOOST_AUTO_TEST_CASE(staged_copies_name_the_cuda_error) {
  // More bytes than a staging buffer: the copy goes through the pinned buffers, which
  // cannot be had without a GPU.
  const zt::StagingOptions saved = zt::staging_options();
  zt::set_staging_options({.buffer_bytes = 64, .buffers = 2, .host_threads = 1});
  std::vector<float> values(1000, 2.0f);
  const zt::AnyTensor device = zt::Tensor<float, 1>(values.data(), {1000}, {1}, {}, zt::cuda(0));
  BOOST_CHECK_EXCEPTION((void)device.to(zt::cpu), zt::DeviceError, [](const zt::DeviceError& e) {
    return message_has(e, "AnyTensor::to: copying 4000 bytes from cuda:0 to cpu") && names_missing_gpu(e);
  });
  const zt::AnyTensor host = zt::Tensor<float, 1>(values.data(), {1000}, {1});
  BOOST_CHECK_EXCEPTION((void)host.to(zt::cuda(0), {.non_blocking = true}), zt::DeviceError,
                        [](const zt::DeviceError& e) {
                          return message_has(e, "allocating 4000 bytes on cuda:0") && names_missing_gpu(e);
                        });
  zt::set_staging_options(saved);
}

BOOST_AUTO_TEST_CASE(loading_to_a_gpu_names_the_cuda_error) {
  const zt_test::TempDir dir;
  std::vector<float> values(16, 1.0f);
  const zt::AnyTensor host = zt::Tensor<float, 1>(values.data(), {16}, {1});
  zt::save_npy(dir / "a.npy", host);
  zt::save_safetensors(dir / "a.safetensors", {{"w", host}});
  const std::string npy = (dir / "a.npy").native();
  BOOST_CHECK_EXCEPTION((void)zt::load_npy(npy, {.device = zt::cuda(0)}), zt::DeviceError,
                        [&](const zt::DeviceError& e) {
                          return message_has(e, "load_npy: <" + npy + ">: array: loading to cuda:0: cudaGetDeviceCount failed: ") &&
                                 names_missing_gpu(e);
                        });
  const std::string safetensors = (dir / "a.safetensors").native();
  BOOST_CHECK_EXCEPTION((void)zt::load_safetensors(safetensors, {.device = {zt::DeviceKind::CUDAHost, 0}}),
                        zt::DeviceError, [&](const zt::DeviceError& e) {
                          return message_has(e, "load_safetensors: <" + safetensors + ">: loading to cuda_host:0") &&
                                 names_missing_gpu(e);
                        });
  BOOST_CHECK_EXCEPTION((void)zt::from_file(npy, {.size = 4, .dtype = zt::uint8, .device = zt::cuda(0)}),
                        zt::DeviceError, [&](const zt::DeviceError& e) {
                          return message_has(e, "from_file: <" + npy + ">: loading to cuda:0") && names_missing_gpu(e);
                        });
}

BOOST_AUTO_TEST_CASE(pinning_names_the_cuda_error) {
  std::vector<float> values(12);
  const zt::AnyTensor host = host_matrix(values);
  BOOST_CHECK_EXCEPTION((void)zt::pin_memory(host), zt::DeviceError, [](const zt::DeviceError& e) {
    return message_has(e, "pin_memory: cudaHostRegister of 48 bytes at ") && names_missing_gpu(e);
  });
  const zt::AnyTensor device = host_matrix(values, zt::cuda(0));
  BOOST_CHECK_EXCEPTION((void)zt::pin_memory(device), zt::DeviceError, [](const zt::DeviceError& e) {
    return message_has(e, "pin_memory: only ordinary host memory can be pinned; the tensor is on cuda:0");
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
  // The Buffer's label says host memory; frombuffer takes it without asking the driver.
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
