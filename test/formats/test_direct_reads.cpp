// LoadOptions::direct: copies read with O_DIRECT hold what buffered copies hold, leave the
// page cache as it was, and fall back to buffered reads for small files and for file systems
// without O_DIRECT (tmpfs); and the ranges that loads to a device read directly (DirectFile).
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <numeric>
#include <random>
#include <string>

#include "support/file_test_support.hpp"
#include "zerotensor/checkpoint.hpp"
#include "zerotensor/npy.hpp"
#include "zerotensor/safetensors.hpp"
#include "memory/read_file.hpp"

using zt_test::TempDir;

namespace {

using Tensors = std::map<std::string, zt::AnyTensor, std::less<>>;

/// A float32 tensor of `count` values 0, 1, 2, ...
zt::AnyTensor floats(zt::index_t count) {
  zt::AnyTensor t = zt::empty(zt::DynamicExtents{count}, zt::float32);
  auto* values = static_cast<float*>(t.mutable_data_ptr());
  std::iota(values, values + count, 0.0f);
  return t;
}

/// 3 MiB and a few bytes over a block, in three tensors (one not a whole number of pages).
Tensors model() { return {{"a", floats(512 * 1024)}, {"b", floats(1000)}, {"c", floats(256 * 1024 + 3)}}; }

bool same(const zt::AnyTensor& a, const zt::AnyTensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && a.is_writable() == b.is_writable() &&
         std::memcmp(a.data_ptr(), b.data_ptr(), a.nbytes()) == 0;
}

void check_same_files(const zt::SafetensorsFile& found, const zt::SafetensorsFile& expected) {
  BOOST_TEST(found.tensors.size() == expected.tensors.size());
  for (const auto& [name, tensor] : expected.tensors) BOOST_TEST_CONTEXT(name) { BOOST_TEST(same(found.at(name), tensor)); }
}

}  // namespace

BOOST_AUTO_TEST_CASE(direct_copies_hold_what_buffered_copies_hold) {
  TempDir dir;
  const auto path = dir / "model.safetensors";
  zt::save_safetensors(path, model());
  for (const zt::MapAccess access : {zt::MapAccess::read_only, zt::MapAccess::copy_on_write}) {
    check_same_files(zt::load_safetensors(path, {.access = access, .copy = true, .direct = true}),
                     zt::load_safetensors(path, {.access = access, .copy = true}));
  }
  zt::save_npy(dir / "array.npy", floats(1 << 20));
  BOOST_TEST(same(zt::load_npy(dir / "array.npy", {.copy = true, .direct = true}),
                  zt::load_npy(dir / "array.npy", {.copy = true})));
  // A checkpoint's shards too, selected tensors and all.
  const TempDir model_dir;
  zt::save_safetensors(model_dir / "model-1.safetensors", {{"a", floats(600 * 1024)}});
  zt::save_safetensors(model_dir / "model-2.safetensors", {{"b", floats(700 * 1024)}, {"unlisted", floats(5)}});
  zt_test::write_text(model_dir / "model.safetensors.index.json",
                      R"({"weight_map":{"a":"model-1.safetensors","b":"model-2.safetensors"}})");
  const zt::Checkpoint direct = zt::load_checkpoint(model_dir.path(), {.copy = true, .direct = true});
  const zt::Checkpoint buffered = zt::load_checkpoint(model_dir.path(), {.copy = true});
  BOOST_TEST(direct.tensors.size() == 2u);
  for (const auto& [name, tensor] : buffered.tensors) BOOST_TEST(same(direct.at(name), tensor));
}

BOOST_AUTO_TEST_CASE(a_direct_read_leaves_the_page_cache_as_it_was) {
  TempDir dir;
  const auto path = dir / "model.safetensors";
  zt::save_safetensors(path, model());
  zt_test::drop_from_page_cache(path);
  if (zt_test::cached_pages(path) != 0) {
    BOOST_TEST_MESSAGE("skipped: this file system keeps the file's pages cached (tmpfs)");
    return;
  }
  static_cast<void>(zt::load_safetensors(path, {.copy = true, .direct = true}));
  BOOST_TEST(zt_test::cached_pages(path) == 0u);
  static_cast<void>(zt::load_safetensors(path, {.copy = true}));
  BOOST_TEST(zt_test::cached_pages(path) > 0u);  // the buffered read fills it: the count sees it
}

BOOST_AUTO_TEST_CASE(small_files_and_file_systems_without_o_direct_are_read_buffered) {
  TempDir dir;
  zt::save_safetensors(dir / "small.safetensors", {{"w", floats(100)}});
  BOOST_TEST(same(zt::load_safetensors(dir / "small.safetensors", {.copy = true, .direct = true}).at("w"),
                  zt::load_safetensors(dir / "small.safetensors", {.copy = true}).at("w")));
  // /dev/shm is tmpfs, which refuses O_DIRECT, where it exists.
  const std::filesystem::path shm = "/dev/shm";
  std::error_code error;
  if (!std::filesystem::is_directory(shm, error)) return;
  const auto path = shm / ("zerotensor-direct-" + std::to_string(::getpid()) + ".safetensors");
  zt::save_safetensors(path, model());
  const zt::SafetensorsFile direct = zt::load_safetensors(path, {.copy = true, .direct = true});
  const zt::SafetensorsFile buffered = zt::load_safetensors(path, {.copy = true});
  std::filesystem::remove(path, error);
  check_same_files(direct, buffered);
}

BOOST_AUTO_TEST_CASE(any_range_of_a_file_reads_directly_as_it_is_stored) {
  TempDir dir;
  const auto path = dir / "bytes.bin";
  std::vector<std::uint8_t> bytes((std::size_t{9} << 20) + 1234);  // over two 4 MiB bounce buffers
  std::minstd_rand random(7);
  for (auto& byte : bytes) byte = std::uint8_t(random());
  zt_test::write_bytes(path, bytes);
  zt_test::drop_from_page_cache(path);
  const std::shared_ptr<const zt::detail::DirectFile> file = zt::detail::DirectFile::open(path);
  if (!file) {
    BOOST_TEST_MESSAGE("skipped: this file system refuses O_DIRECT");
    return;
  }
  const bool cold = zt_test::cached_pages(path) == 0;
  const std::size_t size = bytes.size();
  // Aligned and not, inside one block, across bounce buffers, to the last byte, empty.
  const std::pair<std::size_t, std::size_t> ranges[] = {
      {0, 4096}, {1, 10}, {4095, 2}, {5000, std::size_t{4} << 20}, {123, (std::size_t{8} << 20) + 77},
      {size - 1000, 1000}, {size - 1, 1}, {0, size}, {777, 0}};
  for (const auto& [offset, length] : ranges) {
    BOOST_TEST_CONTEXT("offset " << offset << ", length " << length) {
      std::vector<std::byte> out(length + 2, std::byte{0xEE});
      file->read(offset, {out.data() + 1, length});
      BOOST_TEST(std::memcmp(out.data() + 1, bytes.data() + offset, length) == 0);
      BOOST_TEST((out.front() == std::byte{0xEE} && out.back() == std::byte{0xEE}));  // nothing written around
    }
  }
  if (cold) BOOST_TEST(zt_test::cached_pages(path) == 0u);  // read past the page cache
  std::vector<std::byte> out(100);
  BOOST_CHECK_EXCEPTION(file->read(size - 40, out), zt::IOError,
                        with_message<zt::IOError>("unable to read 100 bytes at offset " + std::to_string(size - 40) +
                                                  " of file <" + path.native() + ">: it ends after " +
                                                  std::to_string(size)));
}

BOOST_AUTO_TEST_CASE(no_direct_file_for_a_path_that_is_not_a_regular_file) {
  TempDir dir;
  BOOST_TEST(!zt::detail::DirectFile::open(dir / "missing"));
  BOOST_TEST(!zt::detail::DirectFile::open(dir.path()));
  // tmpfs refuses O_DIRECT before Linux 6.6 and serves it since: either way nothing is misread.
  const std::filesystem::path shm = "/dev/shm";
  std::error_code error;
  if (!std::filesystem::is_directory(shm, error)) return;
  const auto path = shm / ("zerotensor-direct-file-" + std::to_string(::getpid()));
  std::vector<std::uint8_t> bytes(10000);
  std::iota(bytes.begin(), bytes.end(), std::uint8_t{0});
  zt_test::write_bytes(path, bytes);
  std::vector<std::uint8_t> read(9000);
  const std::shared_ptr<const zt::detail::DirectFile> file = zt::detail::DirectFile::open(path);
  if (file) file->read(1000, std::as_writable_bytes(std::span(read)));
  std::filesystem::remove(path, error);
  if (file) BOOST_TEST(std::equal(read.begin(), read.end(), bytes.begin() + 1000));
}
