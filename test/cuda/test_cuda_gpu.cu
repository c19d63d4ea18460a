// The CUDA path on a real GPU: copies between host and device memory the tensor owns,
// strided sources, device ↔ device, clone and conversion of device memory, the driver's
// view of an address, host-only operations refusing device memory, and Eigen expressions
// on the GPU. Without a usable GPU the program prints why and exits 77, which CTest
// reports as Skipped.
#include "zerotensor/cuda.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "zerotensor/from_dlpack.hpp"
#include "zerotensor/from_arrow.hpp"
#include "zerotensor/frombuffer.hpp"
#include "zerotensor/to_arrow.hpp"
#include "zerotensor/to_dlpack.hpp"
#include "vocabulary/concat.hpp"
#include "support/message_check.hpp"
#include "cuda/require_gpu.hpp"

namespace {

std::vector<float> iota_values(std::size_t count) {
  std::vector<float> values(count);
  std::iota(values.begin(), values.end(), 0.0f);
  return values;
}

/// Reads a tensor back through the copy under test and compares every element with `expected(i, j)`.
template <class Expected>
void check_on_host(const zt::AnyTensor& tensor, Expected expected) {
  const zt::AnyTensor host = tensor.to(zt::cpu);
  BOOST_TEST(host.device() == zt::cpu);
  const auto view = host.as<const float, 2>();
  for (zt::index_t i = 0; i < view.size(0); ++i)
    for (zt::index_t j = 0; j < view.size(1); ++j) BOOST_TEST(view.at(i, j) == expected(i, j));
}

}  // namespace

BOOST_TEST_GLOBAL_FIXTURE(RequireGpu);

BOOST_AUTO_TEST_SUITE(cuda_gpu)

BOOST_AUTO_TEST_CASE(host_to_device_and_back) {
  std::vector<float> values = iota_values(6 * 7);
  const zt::AnyTensor host = zt::Tensor<float, 2>(values.data(), {6, 7}, {7, 1});
  const zt::AnyTensor device = host.to(zt::cuda(0));
  BOOST_TEST(device.device() == zt::cuda(0));
  BOOST_TEST(device.dtype() == zt::float32);
  BOOST_TEST((device.shape() == zt::Extents<zt::dynamic>{6, 7}));
  BOOST_TEST((device.strides() == zt::Extents<zt::dynamic>{7, 1}));
  BOOST_TEST(device.is_writable());
  BOOST_TEST(bool(device.owner()));
  BOOST_TEST(zt::device_of(device.data_ptr()) == zt::cuda(0));
  BOOST_TEST(zt::device_of(values.data()) == zt::cpu);
  check_on_host(device, [](auto i, auto j) { return float(i * 7 + j); });
  // Already there: the same view, no copy.
  BOOST_TEST(device.to(zt::cuda(0)).data_ptr() == device.data_ptr());
}

BOOST_AUTO_TEST_CASE(device_memory_is_freed_when_its_last_view_dies) {
  std::vector<float> values = iota_values(1024);
  std::weak_ptr<const void> memory;
  const void* address = nullptr;
  {
    zt::AnyTensor device = zt::AnyTensor(zt::Tensor<float, 1>(values.data(), {1024}, {1})).to(zt::cuda(0));
    memory = device.owner();
    address = device.data_ptr();
    const zt::Tensor<const float> view = device.as<const float>();
    device = zt::AnyTensor(zt::Tensor<float, 1>(values.data(), {1}, {1}));
    BOOST_TEST(!memory.expired());  // the typed view keeps it
    BOOST_TEST(zt::device_of(address) == zt::cuda(0));
  }
  BOOST_TEST(memory.expired());
  // cudaFree ran: the driver no longer knows the address as device memory.
  BOOST_TEST(zt::device_of(address) == zt::cpu);
}

BOOST_AUTO_TEST_CASE(strided_host_sources_arrive_contiguous) {
  std::vector<float> values = iota_values(4 * 5);
  const zt::AnyTensor transposed = zt::Tensor<float, 2>(values.data(), {5, 4}, {1, 5});
  const zt::AnyTensor device = transposed.to(zt::cuda(0));
  BOOST_TEST(device.is_contiguous());
  BOOST_TEST((device.strides() == zt::Extents<zt::dynamic>{4, 1}));
  check_on_host(device, [](auto i, auto j) { return float(j * 5 + i); });
}

BOOST_AUTO_TEST_CASE(strided_device_sources_are_gathered) {
  std::vector<float> values = iota_values(4 * 5);
  const zt::AnyTensor device = zt::AnyTensor(zt::Tensor<float, 2>(values.data(), {4, 5}, {5, 1})).to(zt::cuda(0));
  auto* base = static_cast<float*>(device.mutable_data_ptr());
  // Transposed, and every other column read backwards from the last one.
  const zt::AnyTensor transposed = zt::Tensor<float, 2>(base, {5, 4}, {1, 5}, device.owner(), zt::cuda(0));
  check_on_host(transposed, [](auto i, auto j) { return float(j * 5 + i); });
  const zt::AnyTensor backwards = zt::Tensor<float, 2>(base + 4, {4, 3}, {5, -2}, device.owner(), zt::cuda(0));
  check_on_host(backwards, [](auto i, auto j) { return float(i * 5 + 4 - 2 * j); });
  const zt::AnyTensor on_device = backwards.to(zt::cuda(0));
  BOOST_TEST(on_device.data_ptr() == backwards.data_ptr());  // same device: the view itself
}

BOOST_AUTO_TEST_CASE(clone_conversion_and_arrow_copies_of_device_memory_stay_on_the_device) {
  std::vector<float> values = iota_values(4 * 5);
  const zt::AnyTensor device = zt::AnyTensor(zt::Tensor<float, 2>(values.data(), {4, 5}, {5, 1})).to(zt::cuda(0));
  const zt::AnyTensor copy = device.clone();
  BOOST_TEST(copy.device() == zt::cuda(0));
  BOOST_TEST(zt::device_of(copy.data_ptr()) == zt::cuda(0));
  BOOST_TEST(copy.data_ptr() != device.data_ptr());
  check_on_host(copy, [](auto i, auto j) { return float(i * 5 + j); });

  auto* base = static_cast<float*>(device.mutable_data_ptr());
  const zt::AnyTensor transposed = zt::Tensor<float, 2>(base, {5, 4}, {1, 5}, device.owner(), zt::cuda(0));
  const zt::AnyTensor gathered = transposed.clone();
  BOOST_TEST(gathered.device() == zt::cuda(0));
  BOOST_TEST(gathered.is_contiguous());
  check_on_host(gathered, [](auto i, auto j) { return float(j * 5 + i); });

  const zt::AnyTensor doubles = transposed.to(zt::float64);
  BOOST_TEST(doubles.device() == zt::cuda(0));
  BOOST_TEST(doubles.dtype() == zt::float64);
  BOOST_TEST(zt::device_of(doubles.data_ptr()) == zt::cuda(0));
  BOOST_TEST((doubles.to(zt::cpu).as<const double, 2>().at(4, 3)) == 19.0);

  zt::arrow::DeviceArray exported{};
  zt::arrow::Schema schema{};
  zt::to_arrow(transposed, &exported, &schema, {.copy = true});
  BOOST_TEST(exported.device_type == zt::arrow::device_cuda);
  const zt::AnyTensor imported = zt::from_arrow(&exported, &schema);
  BOOST_TEST(imported.device() == zt::cuda(0));
  check_on_host(imported, [](auto i, auto j) { return float(j * 5 + i); });
}

BOOST_AUTO_TEST_CASE(copies_between_device_kinds_and_gpus) {
  std::vector<float> values = iota_values(3 * 4);
  const zt::AnyTensor device = zt::AnyTensor(zt::Tensor<float, 2>(values.data(), {3, 4}, {4, 1})).to(zt::cuda(0));
  const zt::Device managed{zt::DeviceKind::CUDAManaged, 0};
  const zt::Device pinned{zt::DeviceKind::CUDAHost, 0};
  const zt::AnyTensor in_managed = device.to(managed);
  BOOST_TEST(in_managed.device() == managed);
  BOOST_TEST(zt::device_of(in_managed.data_ptr()) == managed);
  const zt::AnyTensor in_pinned = in_managed.to(pinned);
  BOOST_TEST(zt::device_of(in_pinned.data_ptr()) == pinned);
  // Pinned memory is host memory: element access works on it directly.
  BOOST_TEST((in_pinned.as<float, 2>().at(2, 3)) == 11.0f);
  check_on_host(in_pinned.to(zt::cuda(0)), [](auto i, auto j) { return float(i * 4 + j); });
  if (zt::cuda_device_count() > 1) {
    const zt::AnyTensor second = device.to(zt::cuda(1));
    BOOST_TEST(zt::device_of(second.data_ptr()) == zt::cuda(1));
    check_on_host(second, [](auto i, auto j) { return float(i * 4 + j); });
  }
  const int count = zt::cuda_device_count();
  BOOST_CHECK_EXCEPTION((void)device.to(zt::cuda(count)), zt::DeviceError, [count](const zt::DeviceError& e) {
    return message_has(e, zt::detail::concat("cuda:", count, " does not exist; the CUDA driver reports ", count));
  });
}

BOOST_AUTO_TEST_CASE(host_only_operations_refuse_device_memory) {
  std::vector<float> values = iota_values(8);
  const zt::AnyTensor device = zt::AnyTensor(zt::Tensor<float, 1>(values.data(), {8}, {1})).to(zt::cuda(0));
  const zt::Tensor<float, 1> typed = device.as<float, 1>();
  BOOST_CHECK_THROW((void)typed.at(0), zt::DeviceError);
  BOOST_CHECK_THROW((void)typed.array(), zt::DeviceError);
  BOOST_CHECK_THROW((void)typed.tensor(), zt::DeviceError);
  BOOST_CHECK_THROW((void)zt::frombuffer(zt::Buffer(device.mutable_data_ptr(), 32, {}, zt::cuda(0)), zt::float32),
                    zt::DeviceError);
  // A Buffer that claims host memory but holds a cudaMalloc pointer: views take the label
  // on the caller's word (no driver call); zt::device_of is the check a caller opts into.
  const zt::Tensor<float, 1> unchecked = zt::frombuffer<float>(zt::Buffer(device.mutable_data_ptr(), 32));
  BOOST_TEST(unchecked.device() == zt::cpu);
  BOOST_TEST(zt::device_of(unchecked.data()) == zt::cuda(0));
}

BOOST_AUTO_TEST_CASE(dlpack_shares_device_memory_both_ways) {
  std::vector<float> values = iota_values(2 * 3);
  std::weak_ptr<const void> memory;
  zt::AnyTensor imported = zt::AnyTensor(zt::Tensor<float, 2>(values.data(), {2, 3}, {3, 1}));
  {
    const zt::AnyTensor device = imported.to(zt::cuda(0));
    memory = device.owner();
    zt::dlpack::ManagedTensorVersioned* exported = zt::to_dlpack(device);
    BOOST_TEST((exported->dl_tensor.device.device_type == zt::dlpack::DeviceType::CUDA));
    BOOST_TEST(exported->dl_tensor.device.device_id == 0);
    BOOST_TEST(exported->dl_tensor.data == device.data_ptr());
    imported = zt::from_dlpack(exported);
  }
  BOOST_TEST(!memory.expired());  // the import keeps the device memory alive
  BOOST_TEST(imported.device() == zt::cuda(0));
  BOOST_TEST(zt::device_of(imported.data_ptr()) == zt::cuda(0));
  BOOST_CHECK_THROW((void)(imported.as<const float, 2>().at(0, 0)), zt::DeviceError);
  check_on_host(imported, [](auto i, auto j) { return float(i * 3 + j); });
  imported = zt::AnyTensor(zt::Tensor<float, 1>(values.data(), {1}, {1}));
  BOOST_TEST(memory.expired());
}

BOOST_AUTO_TEST_CASE(eigen_triad_and_sum_run_on_the_gpu) {
  constexpr zt::index_t n = 1000;
  const std::vector<zt::index_t> shape{n};
  std::vector<float> a_values = iota_values(n);
  std::vector<float> b_values(n, 1.0f);
  const zt::GpuContext gpu(0);
  BOOST_TEST(gpu.device() == zt::cuda(0));
  const auto a = zt::AnyTensor(zt::Tensor<float, 1>(a_values.data(), {n}, {1})).to(zt::cuda(0)).as<const float, 1>();
  const auto b = zt::AnyTensor(zt::Tensor<float, 1>(b_values.data(), {n}, {1})).to(zt::cuda(0)).as<const float, 1>();
  const zt::Tensor<float> out = zt::empty<float>(shape, zt::cuda(0));
  const zt::Tensor<float> total = zt::empty<float>(std::vector<zt::index_t>{}, zt::cuda(0));

  gpu.tensor<1>(out).device(gpu.eigen()) = gpu.tensor(a) + 2.0f * gpu.tensor(b);
  gpu.tensor<0>(total).device(gpu.eigen()) = gpu.tensor<1>(out).sum();
  gpu.synchronize();

  const auto out_host = zt::AnyTensor(out).to(zt::cpu).as<const float, 1>();
  for (zt::index_t i = 0; i < n; ++i) BOOST_TEST(out_host.at(i) == float(i) + 2.0f);
  // 0 + 1 + ... + 999 + 2·1000: every partial sum is an integer below 2^24, so exact.
  BOOST_TEST(zt::AnyTensor(total).to(zt::cpu).as<const float>().array()(0) == 501500.0f);
}

BOOST_AUTO_TEST_CASE(eigen_reduces_along_a_dimension_on_the_gpu) {
  std::vector<float> values = iota_values(3 * 4);
  const zt::GpuContext gpu(0);
  const auto matrix = zt::AnyTensor(zt::Tensor<float, 2>(values.data(), {3, 4}, {4, 1})).to(zt::cuda(0)).as<float, 2>();
  const zt::Tensor<float> row_sums = zt::empty<float>(std::vector<zt::index_t>{3}, zt::cuda(0));
  gpu.tensor<1>(row_sums).device(gpu.eigen()) = gpu.tensor(matrix).sum(Eigen::array<int, 1>{1});
  gpu.synchronize();
  const auto sums = zt::AnyTensor(row_sums).to(zt::cpu).as<const float, 1>();
  BOOST_TEST(sums.at(0) == 6.0f);
  BOOST_TEST(sums.at(1) == 22.0f);
  BOOST_TEST(sums.at(2) == 38.0f);
}

BOOST_AUTO_TEST_CASE(gpu_context_checks_where_the_tensor_lives) {
  const zt::GpuContext gpu(0);
  std::vector<float> values = iota_values(12);
  const zt::Tensor<float, 2> host(values.data(), {3, 4}, {4, 1});
  BOOST_CHECK_EXCEPTION((void)gpu.tensor(host), zt::DeviceError, [](const zt::DeviceError& e) {
    return message_has(e, "GpuContext::tensor: the tensor is in ordinary host memory (cpu)");
  });
  const auto device = zt::AnyTensor(host).to(zt::cuda(0)).as<float, 2>();
  const zt::Tensor<float, 2> transposed(device.data(), {4, 3}, {1, 4}, device.owner(), zt::cuda(0));
  BOOST_CHECK_EXCEPTION((void)gpu.tensor(transposed), zt::ValueError, [](const zt::ValueError& e) {
    return message_has(e, "expected a C-contiguous tensor; got shape (4, 3), strides (1, 4)");
  });
  BOOST_CHECK_EXCEPTION((void)gpu.tensor<3>(zt::Tensor<float>(device)), zt::ValueError,
                        [](const zt::ValueError& e) { return message_has(e, "expected rank 3; got rank 2"); });
  const int count = zt::cuda_device_count();
  BOOST_CHECK_EXCEPTION(zt::GpuContext missing(count), zt::DeviceError, [count](const zt::DeviceError& e) {
    return message_has(e, zt::detail::concat("GpuContext: cuda:", count, " does not exist"));
  });
  BOOST_CHECK_THROW(zt::GpuContext negative(-1), zt::DeviceError);
}

BOOST_AUTO_TEST_SUITE_END()
