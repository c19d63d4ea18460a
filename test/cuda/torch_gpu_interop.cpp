// DLPack with libtorch on a GPU: torch CUDA tensors into zt and zt device tensors into torch
// without copies, transposed device tensors keeping their strides, Eigen's GpuDevice
// computing in torch's device memory, pinned torch memory found with zt::device_of and
// copied without staging, and bool and bfloat16 on the device. Built where libtorch is found
// in a CUDA build; where libtorch has no CUDA or sees no GPU it prints why and exits 77,
// which CTest reports as Skipped.
#include <boost/test/unit_test.hpp>

#include <ATen/ATen.h>
#include <ATen/DLConvertor.h>

#include <cstdio>
#include <cstdlib>

#include "zerotensor/device_of.hpp"
#include "zerotensor/dlpack.hpp"
#include "zerotensor/frombuffer.hpp"
#include "zerotensor/from_dlpack.hpp"
#include "zerotensor/to_dlpack.hpp"
#include "cuda/torch_gpu_triad.hpp"

namespace {

struct RequireTorchCuda {
  RequireTorchCuda() {
    if (at::hasCUDA()) return;
    std::printf("SKIPPED: these tests need libtorch with CUDA and a GPU; at::hasCUDA() is false\n");
    std::fflush(stdout);
    std::_Exit(77);
  }
};

zt::AnyTensor from_torch(const at::Tensor& t) { return zt::from_dlpack(at::toDLPack(t)); }

/// zt's legacy export handed to at::fromDLPack, which owns it once it returns.
at::Tensor to_torch(const zt::AnyTensor& tensor) {
  auto held = zt::dlpack::adopt(zt::to_dlpack_legacy(tensor));
  at::Tensor result = at::fromDLPack(reinterpret_cast<::DLManagedTensor*>(held.get()));
  (void)held.release();
  return result;
}

/// The torch tensor with the values of `tensor`, read back through zt's copy to the host.
at::Tensor on_host_through_zt(const zt::AnyTensor& tensor) { return to_torch(tensor.to(zt::cpu)); }

}  // namespace

BOOST_TEST_GLOBAL_FIXTURE(RequireTorchCuda);

BOOST_AUTO_TEST_SUITE(torch_gpu_interop)

BOOST_AUTO_TEST_CASE(device_tensors_cross_both_ways_without_a_copy) {
  const at::Tensor t = at::arange(12, at::kFloat).reshape({3, 4}).to(at::kCUDA);
  const zt::AnyTensor z = from_torch(t);
  BOOST_TEST(z.device() == zt::cuda(t.get_device()));
  BOOST_TEST(z.data_ptr() == t.data_ptr());
  BOOST_TEST(zt::device_of(z.data_ptr()) == zt::cuda(t.get_device()));
  BOOST_TEST(at::equal(on_host_through_zt(z), t.cpu()));

  const zt::AnyTensor own = from_torch(at::arange(6, at::kDouble)).to(zt::cuda(0));
  const at::Tensor back = to_torch(own);
  BOOST_TEST(back.is_cuda());
  BOOST_TEST(back.data_ptr() == own.data_ptr());
  BOOST_TEST(at::equal(back.cpu(), at::arange(6, at::kDouble)));
}

BOOST_AUTO_TEST_CASE(transposed_device_tensors_keep_their_strides) {
  const at::Tensor t = at::arange(12, at::kFloat).reshape({3, 4}).to(at::kCUDA).t();
  const zt::AnyTensor z = from_torch(t);
  BOOST_TEST((z.shape() == zt::Extents<zt::dynamic>{4, 3}));
  BOOST_TEST((z.strides() == zt::Extents<zt::dynamic>{1, 4}));
  BOOST_TEST(at::equal(on_host_through_zt(z), t.cpu()));  // gathered on the way to the host
  const at::Tensor back = to_torch(z);
  BOOST_TEST((back.strides().vec() == std::vector<std::int64_t>{1, 4}));
  BOOST_TEST(back.data_ptr() == t.data_ptr());
}

BOOST_AUTO_TEST_CASE(eigen_computes_in_torch_device_memory) {
  const at::Tensor a = at::arange(1000, at::kFloat).to(at::kCUDA);
  const at::Tensor b = at::ones({1000}, at::kFloat).to(at::kCUDA);
  const at::Tensor out = at::empty({1000}, at::TensorOptions(at::kFloat).device(at::kCUDA));
  zt_test::triad_on_gpu(from_torch(out), from_torch(a), from_torch(b));
  BOOST_TEST(at::equal(out.cpu(), at::arange(1000, at::kFloat) + 2.0f));
}

BOOST_AUTO_TEST_CASE(pinned_torch_memory_is_found_and_copied_without_staging) {
  const at::Tensor t = at::arange(4096, at::kFloat).pin_memory();
  const zt::AnyTensor z = from_torch(t);
  // DLPack says CPU for torch's pinned memory; the driver knows better, when asked.
  const zt::Device where = zt::device_of(z.data_ptr());
  BOOST_TEST((where.kind == zt::DeviceKind::CUDAHost));
  const zt::AnyTensor pinned =
      zt::frombuffer(zt::Buffer(z.data_ptr(), z.nbytes(), z.owner(), where), zt::float32);
  BOOST_TEST(pinned.device() == where);
  const zt::AnyTensor device = pinned.to(zt::cuda(0), {.non_blocking = true});
  const zt::AnyTensor host = device.to(zt::cpu);  // the default stream: after the copy
  BOOST_TEST(at::equal(to_torch(host), t));
}

BOOST_AUTO_TEST_CASE(bool_and_bfloat16_live_on_the_device) {
  const at::Tensor flags = (at::arange(10, at::kInt) % 3 == 0).to(at::kCUDA);
  const zt::AnyTensor z_flags = from_torch(flags);
  BOOST_TEST(z_flags.dtype() == zt::bool_);
  BOOST_TEST(z_flags.device() == zt::cuda(0));
  BOOST_TEST(at::equal(on_host_through_zt(z_flags), flags.cpu()));
  BOOST_TEST(at::equal(to_torch(z_flags).cpu(), flags.cpu()));

  const at::Tensor halves = (at::arange(16, at::kFloat) / 4).to(at::kBFloat16).to(at::kCUDA);
  const zt::AnyTensor z_halves = from_torch(halves);
  BOOST_TEST(z_halves.dtype() == zt::bfloat16);
  BOOST_TEST(at::equal(on_host_through_zt(z_halves), halves.cpu()));
  const at::Tensor back = to_torch(z_halves.to(zt::cpu).to(zt::cuda(0)));
  BOOST_TEST(back.scalar_type() == at::kBFloat16);
  BOOST_TEST(at::equal(back.cpu(), halves.cpu()));
}

BOOST_AUTO_TEST_SUITE_END()
