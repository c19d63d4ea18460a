// LoadOptions::direct: copies read with O_DIRECT hold what buffered copies hold, leave the
// page cache as it was, and fall back to buffered reads for small files and for file systems
// without O_DIRECT (tmpfs).
#include <boost/test/unit_test.hpp>

#include <cstring>
#include <filesystem>
#include <map>
#include <numeric>
#include <string>

#include "support/file_test_support.hpp"
#include "zerotensor/checkpoint.hpp"
#include "zerotensor/npy.hpp"
#include "zerotensor/safetensors.hpp"

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
