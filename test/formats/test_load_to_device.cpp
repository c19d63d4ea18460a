// Loading straight to a device (the loaders' and from_file's `device` option), pinning and
// the staging options, on the host side and in every build: options that cannot hold are
// refused before a file is touched, a malformed file is a ValueError before any device is
// asked, and a build without CUDA refuses devices naming -DZT_CUDA=ON. The CUDA build's
// errors without a GPU are in test/cuda/test_cuda_without_gpu.cu, the loads themselves in
// test/cuda/test_cuda_gpu.cu.
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <numeric>
#include <vector>

#include "support/file_test_support.hpp"
#include "zerotensor/from_file.hpp"
#include "zerotensor/npy.hpp"
#include "zerotensor/pin_memory.hpp"
#include "zerotensor/safetensors.hpp"
#include "zerotensor/staging.hpp"

using zt_test::TempDir;
using zt_test::write_bytes;

namespace {

constexpr zt::Device pinned{zt::DeviceKind::CUDAHost, 0};

zt::AnyTensor floats(zt::index_t count) {
  auto values = std::make_shared<std::vector<float>>(std::size_t(count));
  std::iota(values->begin(), values->end(), 0.0f);
  return zt::Tensor<float, 1>(values->data(), {count}, {1}, values);
}

/// A .npy and a .safetensors file of 64 floats, whole and cut short.
struct Files {
  TempDir dir;
  std::filesystem::path npy = dir / "a.npy", safetensors = dir / "a.safetensors";
  std::filesystem::path short_npy = dir / "short.npy", short_safetensors = dir / "short.safetensors";
  Files() {
    zt::save_npy(npy, floats(64));
    zt::save_safetensors(safetensors, {{"w", floats(64)}});
    for (const auto& [whole, cut] : {std::pair{npy, short_npy}, std::pair{safetensors, short_safetensors}}) {
      std::filesystem::copy_file(whole, cut);
      std::filesystem::resize_file(cut, std::filesystem::file_size(whole) - 4);
    }
  }
};

/// Restores the staging options a test changed.
struct StagingGuard {
  zt::StagingOptions saved = zt::staging_options();
  ~StagingGuard() { zt::set_staging_options(saved); }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(load_to_device)

BOOST_AUTO_TEST_CASE(options_that_cannot_hold_are_refused_before_the_file_is_touched) {
  const TempDir dir;
  const auto missing = dir / "missing.npy";  // an IOError if anything opened it
  const auto names = [](const char* text) { return with_message<zt::ValueError>(text); };
  for (const zt::Device device : {zt::cuda(0), pinned}) {
    BOOST_CHECK_EXCEPTION((void)zt::load_npy(missing, {.copy = false, .device = device}), zt::ValueError,
                          names("copy = false cannot be combined with device"));
    BOOST_CHECK_EXCEPTION((void)zt::load_safetensors(missing, {.access = zt::MapAccess::shared, .device = device}),
                          zt::ValueError, names("shared access cannot be combined with device"));
    BOOST_CHECK_EXCEPTION(
        (void)zt::from_file(missing, {.shared = true, .size = 4, .dtype = zt::float32, .device = device}),
        zt::ValueError, names("from_file: shared = true cannot be combined with device"));
  }
  BOOST_TEST(!std::filesystem::exists(missing));  // shared = true did not create it
}

BOOST_AUTO_TEST_CASE(a_malformed_file_is_a_value_error_before_any_device_is_asked) {
  const Files files;
  BOOST_CHECK_EXCEPTION((void)zt::load_npy(files.short_npy, {.device = zt::cuda(0)}), zt::ValueError,
                        with_message<zt::ValueError>("needs 256 bytes of data but the file holds 252"));
  BOOST_CHECK_THROW((void)zt::load_safetensors(files.short_safetensors, {.device = zt::cuda(0)}), zt::ValueError);
  const TempDir dir;
  write_bytes(dir / "f8.bin", zt_test::one_to_eight());
  BOOST_CHECK_EXCEPTION((void)zt::from_file(dir / "f8.bin", {.size = 4, .dtype = zt::float32, .device = zt::cuda(0)}),
                        zt::ValueError, with_message<zt::ValueError>("size <8> is smaller than the required mapping size <16>"));
}

#if !(defined(ZT_CUDA) && ZT_CUDA)
BOOST_AUTO_TEST_CASE(a_build_without_cuda_refuses_devices_naming_the_option) {
  const Files files;
  const auto names_option = [](const std::string& start) {
    return with_message<zt::DeviceError>(start + ": this build of zerotensor has no CUDA (configure it with -DZT_CUDA=ON)");
  };
  BOOST_CHECK_EXCEPTION((void)zt::load_npy(files.npy, {.device = zt::cuda(0)}), zt::DeviceError,
                        names_option("load_npy: <" + files.npy.native() + ">: array: loading to cuda:0"));
  BOOST_CHECK_EXCEPTION((void)zt::load_safetensors(files.safetensors, {.device = pinned}), zt::DeviceError,
                        names_option("loading to cuda_host:0"));
  BOOST_CHECK_EXCEPTION((void)zt::from_file(files.npy, {.size = 8, .dtype = zt::uint8, .device = zt::cuda(1)}),
                        zt::DeviceError, names_option("from_file: <" + files.npy.native() + ">: loading to cuda:1"));
  // Even an empty tensor, which PyTorch makes without touching the file, lives on the device.
  BOOST_CHECK_EXCEPTION((void)zt::from_file(files.npy, {.size = 0, .device = zt::cuda(0)}), zt::DeviceError,
                        names_option("allocating 0 bytes on cuda:0"));
  BOOST_CHECK_EXCEPTION((void)zt::pin_memory(floats(4)), zt::DeviceError,
                        names_option("pin_memory: cannot pin memory of cpu"));
  BOOST_CHECK_EXCEPTION((void)floats(4).to(zt::cuda(0), {.non_blocking = true}), zt::DeviceError,
                        names_option("AnyTensor::to: cannot copy from cpu to cuda:0"));
}

BOOST_AUTO_TEST_CASE(a_build_without_cuda_refuses_to_save_device_memory_and_leaves_the_old_file) {
  const Files files;
  const std::vector<std::uint8_t> npy_before = zt_test::read_bytes(files.npy);
  const std::vector<std::uint8_t> safetensors_before = zt_test::read_bytes(files.safetensors);
  // Memory that says it is a GPU's (as a DLPack capsule from elsewhere would), never read here.
  auto values = std::make_shared<std::vector<float>>(4, 1.0f);
  const zt::AnyTensor on_gpu = zt::Tensor<float, 1>(values->data(), {4}, {1}, values, zt::cuda(0));
  const auto names_option = [](const std::string& start) {
    return with_message<zt::DeviceError>(start +
                                         ": saving from cuda:0: this build of zerotensor has no CUDA (configure it "
                                         "with -DZT_CUDA=ON)");
  };
  BOOST_CHECK_EXCEPTION(zt::save_npy(files.npy, on_gpu), zt::DeviceError, names_option("save_npy"));
  BOOST_CHECK_EXCEPTION(zt::save_safetensors(files.safetensors, {{"w", on_gpu}, {"b", floats(3)}}), zt::DeviceError,
                        names_option("save_safetensors"));
  BOOST_TEST((zt_test::read_bytes(files.npy) == npy_before));
  BOOST_TEST((zt_test::read_bytes(files.safetensors) == safetensors_before));
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(files.dir.path())) ++entries;
  BOOST_TEST(entries == 4u);  // the two files and their short copies: no temporary file left
}
#endif

BOOST_AUTO_TEST_CASE(pinned_memory_is_already_pinned) {
  std::vector<float> values(4, 2.0f);
  const zt::AnyTensor in_pinned = zt::Tensor<float, 1>(values.data(), {4}, {1}, {}, pinned);
  const zt::AnyTensor same = zt::pin_memory(in_pinned);
  BOOST_TEST(same.data_ptr() == in_pinned.data_ptr());
  BOOST_TEST(same.device() == pinned);
}

BOOST_AUTO_TEST_CASE(staging_options_are_checked_and_kept) {
  const StagingGuard guard;
  const zt::StagingOptions defaults = zt::staging_options();
  BOOST_TEST(defaults.buffer_bytes % 64 == 0);
  BOOST_TEST(defaults.buffers >= 2);  // filling and copying overlap by default
  zt::set_staging_options({.buffer_bytes = 1 << 16, .buffers = 3, .host_threads = 0});
  BOOST_TEST(zt::staging_options().buffer_bytes == std::size_t{1} << 16);
  BOOST_TEST(zt::staging_options().buffers == 3u);
  BOOST_TEST(zt::staging_options().host_threads == 0u);
  BOOST_CHECK_EXCEPTION(zt::set_staging_options({.buffer_bytes = 100}), zt::ValueError,
                        with_message<zt::ValueError>("buffer_bytes must be a positive multiple of 64; got 100"));
  BOOST_CHECK_EXCEPTION(zt::set_staging_options({.buffer_bytes = 0}), zt::ValueError,
                        with_message<zt::ValueError>("got 0"));
  BOOST_CHECK_EXCEPTION(zt::set_staging_options({.buffers = 0}), zt::ValueError,
                        with_message<zt::ValueError>("buffers must be at least 1; got 0"));
  BOOST_TEST(zt::staging_options().buffers == 3u);  // a refused setting changes nothing
}

BOOST_AUTO_TEST_SUITE_END()
