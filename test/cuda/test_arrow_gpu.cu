// Arrow device arrays on a real GPU: to_arrow's ArrowDeviceArray of CUDA memory read back by
// from_arrow after the producer's sync_event, same device address, values checked through a
// host copy; what needs the host to read CUDA memory is refused. Without a usable GPU the
// program prints why and exits 77, which CTest reports as Skipped.
#include <cuda_runtime_api.h>

#include <boost/test/unit_test.hpp>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "zerotensor/frombuffer.hpp"
#include "zerotensor/from_arrow.hpp"
#include "zerotensor/to_arrow.hpp"
#include "support/message_check.hpp"
#include "cuda/require_gpu.hpp"

namespace {

/// A (3, 4) float32 tensor 0..11 in CUDA memory it owns.
zt::AnyTensor device_matrix() {
  std::vector<float> values(12);
  std::iota(values.begin(), values.end(), 0.0f);
  const zt::AnyTensor device = zt::frombuffer(std::move(values), zt::float32).to(zt::cuda(0));
  const std::array<zt::index_t, 2> shape = {3, 4}, strides = {4, 1};
  return zt::AnyTensor(static_cast<float*>(device.mutable_data_ptr()), shape, strides, device.owner(), zt::cuda(0));
}

}  // namespace

BOOST_TEST_GLOBAL_FIXTURE(RequireGpu);

BOOST_AUTO_TEST_SUITE(arrow_gpu)

BOOST_AUTO_TEST_CASE(cuda_device_array_round_trip_after_the_sync_event) {
  const zt::AnyTensor matrix = device_matrix();
  zt::arrow::DeviceArray exported{};
  zt::arrow::Schema schema{};
  zt::to_arrow(matrix, &exported, &schema);
  BOOST_TEST(exported.device_type == zt::arrow::device_cuda);
  BOOST_TEST(exported.device_id == 0);
  cudaEvent_t event = nullptr;
  BOOST_REQUIRE(cudaEventCreate(&event) == cudaSuccess);
  BOOST_REQUIRE(cudaEventRecord(event, nullptr) == cudaSuccess);
  exported.sync_event = &event;
  const zt::AnyTensor imported = zt::from_arrow(&exported, &schema);
  BOOST_TEST(imported.device() == zt::cuda(0));
  BOOST_TEST(imported.data_ptr() == matrix.data_ptr());
  BOOST_TEST(imported.shape() == (zt::DynamicExtents{3, 4}));
  const auto host = imported.to(zt::cpu).as<const float, 2>();
  BOOST_TEST(host.at(2, 3) == 11.0f);
  BOOST_TEST(host.at(1, 0) == 4.0f);
  BOOST_TEST(cudaEventDestroy(event) == cudaSuccess);
}

BOOST_AUTO_TEST_CASE(copies_of_cuda_arrow_memory_are_refused) {
  const zt::AnyTensor matrix = device_matrix();
  zt::arrow::DeviceArray exported{};
  zt::arrow::Schema schema{};
  zt::to_arrow(matrix, &exported, &schema);
  exported.array.null_count = -1;
  const std::uint8_t validity = 0xff;
  const void* buffers[1] = {&validity};
  exported.array.buffers = buffers;  // the list level's validity: on the device, unreadable by the host
  BOOST_CHECK_EXCEPTION(static_cast<void>(zt::from_arrow(&exported, &schema)), zt::DeviceError,
                        [](const zt::DeviceError& e) { return message_has(e, "which the host cannot read"); });
}

BOOST_AUTO_TEST_SUITE_END()
