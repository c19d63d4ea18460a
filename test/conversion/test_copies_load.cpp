// copy = true loads of .npy files: read with pread into memory of their own (no mapping),
// each the same tensor as the view of the mapped file, for every fixture NumPy wrote.
#include <boost/test/unit_test.hpp>

#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "support/file_test_support.hpp"
#include "zerotensor/npy.hpp"
#include "zerotensor/shares_memory.hpp"

using zt_test::data_file;
using zt_test::TempDir;

namespace {

/// The tensor's bytes in C order.
std::string c_order_bytes(const zt::AnyTensor& t) {
  const zt::AnyTensor dense = t.contiguous();
  return {static_cast<const char*>(dense.data_ptr()), dense.nbytes()};
}

}  // namespace

BOOST_AUTO_TEST_CASE(copy_true_loads_every_fixture_as_the_view_does) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(data_file("npy"))) {
    BOOST_TEST_CONTEXT(entry.path().filename().string()) {
      const zt::AnyTensor view = zt::load_npy(entry.path());
      const zt::AnyTensor copy = zt::load_npy(entry.path(), {.copy = true});
      BOOST_TEST(copy.dtype() == view.dtype());
      BOOST_TEST(copy.shape() == view.shape());
      BOOST_TEST(copy.strides() == view.strides());
      BOOST_TEST(!copy.is_writable());
      BOOST_TEST(c_order_bytes(copy) == c_order_bytes(view));
      BOOST_TEST(!zt::shares_memory(copy, view));
      BOOST_TEST(reinterpret_cast<std::uintptr_t>(copy.data_ptr()) % copy.itemsize() == 0u);
      ++files;
    }
  }
  BOOST_TEST(files == 25);
}

BOOST_AUTO_TEST_CASE(a_copy_is_writable_with_copy_on_write_access_and_owns_its_memory) {
  TempDir dir;
  std::filesystem::copy_file(data_file("npy/int32.npy"), dir / "a.npy");
  std::weak_ptr<const void> owner;
  {
    const zt::AnyTensor copy = zt::load_npy(dir / "a.npy", {.access = zt::MapAccess::copy_on_write, .copy = true});
    BOOST_TEST(copy.is_writable());
    owner = copy.owner();
    copy.as<std::int32_t, 1>()(0) = 1234;
    BOOST_TEST((zt::load_npy(dir / "a.npy").as<const std::int32_t, 1>()(0) != 1234));
    std::filesystem::remove(dir / "a.npy");  // the copy needs no file
    BOOST_TEST((copy.as<const std::int32_t, 1>()(0) == 1234));
  }
  BOOST_TEST(owner.expired());
}

BOOST_AUTO_TEST_CASE(copy_true_of_a_missing_file_or_a_directory_is_an_io_error) {
  TempDir dir;
  const std::string missing = (dir / "missing.npy").string();
  BOOST_CHECK_EXCEPTION((void)zt::load_npy(missing, {.copy = true}), zt::IOError,
                        with_message<zt::IOError>("unable to open file <" + missing +
                                                  "> in read-only mode: No such file or directory (2)"));
  const std::string directory = dir.path().string();
  BOOST_CHECK_EXCEPTION((void)zt::load_npy(directory, {.copy = true}), zt::IOError,
                        with_message<zt::IOError>("unable to open file <" + directory +
                                                  "> in read-only mode: Is a directory (21)"));
}

BOOST_AUTO_TEST_CASE(copy_true_reads_files_below_at_and_above_one_page_whole) {
  // 128 header bytes and n float32: files of 4,092, 4,096, 4,100 and 100,128 bytes.
  TempDir dir;
  for (const zt::index_t n : {991, 992, 993, 25'000}) {
    BOOST_TEST_CONTEXT("n " << n) {
      std::vector<float> values(static_cast<std::size_t>(n));
      for (std::size_t i = 0; i < values.size(); ++i) values[i] = float(i) * 0.5f - 7.0f;
      const auto path = dir / ("f" + std::to_string(n) + ".npy");
      zt::save_npy(path, zt::Tensor<float, 1>(values.data(), {n}, {1}));
      BOOST_TEST(std::filesystem::file_size(path) == std::uintmax_t(128 + 4 * n));
      const zt::AnyTensor copy = zt::load_npy(path, {.copy = true});
      BOOST_TEST(copy.shape()[0] == n);
      BOOST_TEST(std::memcmp(copy.data_ptr(), values.data(), values.size() * sizeof(float)) == 0);
    }
  }
}

BOOST_AUTO_TEST_CASE(copy_true_of_a_device_that_reads_a_whole_page_is_refused_as_not_a_regular_file) {
  // /dev/zero answers the first page-sized read in full, so its size is asked for, and it has none.
  BOOST_CHECK_EXCEPTION((void)zt::load_npy("/dev/zero", {.copy = true}), zt::IOError,
                        with_message<zt::IOError>("unable to open file </dev/zero> in read-only mode: not a regular file"));
}
