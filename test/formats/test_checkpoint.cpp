// load_checkpoint: model directories written by zerotensor (tens of shards, thousands of
// tensors, every dtype) and by the safetensors package (test/data/checkpoint, made by
// make_checkpoint.py), the index's traps each with its exact message, selection, copies,
// prefetch with progress, and .bin checkpoints (read with load_torch).
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "support/file_test_support.hpp"
#include "zerotensor/checkpoint.hpp"
#include "zerotensor/empty.hpp"
#include "zerotensor/safetensors.hpp"
#include "zerotensor/torch_load.hpp"

using zt_test::data_file;
using zt_test::TempDir;
using zt_test::write_text;

namespace {

namespace fs = std::filesystem;
using Tensors = std::map<std::string, zt::AnyTensor, std::less<>>;

constexpr zt::DType every_dtype[] = {zt::bool_,    zt::uint8,   zt::int8,    zt::int16,    zt::int32,
                                     zt::int64,    zt::uint16,  zt::uint32,  zt::uint64,   zt::float16,
                                     zt::bfloat16, zt::float32, zt::float64, zt::complex64};

/// Byte `j` of tensor number `i` (bool: 0 or 1).
unsigned char pattern(int i, std::size_t j, zt::DType dtype) {
  return dtype == zt::bool_ ? (i + j) % 2 : (i * 7 + j) & 0xFF;
}

/// Tensor number `i`: every dtype in turn, shapes of rank 0 to 2, bytes from `pattern`.
zt::AnyTensor numbered_tensor(int i) {
  const zt::DType dtype = every_dtype[i % std::size(every_dtype)];
  const zt::DynamicExtents shape = i % 3 == 0   ? zt::DynamicExtents{}
                                   : i % 3 == 1 ? zt::DynamicExtents{i % 5}
                                                : zt::DynamicExtents{2, i % 4};
  zt::AnyTensor t = zt::empty(shape, dtype);
  auto* bytes = static_cast<unsigned char*>(t.mutable_data_ptr());
  for (std::size_t j = 0; j < t.nbytes(); ++j) bytes[j] = pattern(i, j, dtype);
  return t;
}

bool has_pattern(const zt::AnyTensor& t, int i) {
  const zt::AnyTensor expected = numbered_tensor(i);
  return t.dtype() == expected.dtype() && t.shape() == expected.shape() && t.nbytes() == expected.nbytes() &&
         std::memcmp(t.data_ptr(), expected.data_ptr(), t.nbytes()) == 0;
}

std::string tensor_name(int i) { return "model.layers." + std::to_string(i / 100) + ".w" + std::to_string(i % 100); }

std::string shard_name(int s, int shards) {
  return "model-" + std::to_string(s + 1) + "-of-" + std::to_string(shards) + ".safetensors";
}

/// A model directory as transformers writes one: `tensors` numbered tensors spread over
/// `shards` shards, and model.safetensors.index.json naming each tensor's shard.
void write_model(const fs::path& dir, int tensors, int shards) {
  std::vector<Tensors> contents(shards);
  std::string weight_map;
  for (int i = 0; i < tensors; ++i) {
    contents[i % shards].emplace(tensor_name(i), numbered_tensor(i));
    weight_map += (i ? ",\"" : "\"") + tensor_name(i) + "\":\"" + shard_name(i % shards, shards) + "\"";
  }
  for (int s = 0; s < shards; ++s) zt::save_safetensors((dir / shard_name(s, shards)).string(), contents[s]);
  write_text(dir / "model.safetensors.index.json",
             R"({"metadata":{"total_size":12345},"weight_map":{)" + weight_map + "}}");
}

/// A directory with the given shard files (name -> tensors) and index text.
void write_files(const fs::path& dir, const std::map<std::string, Tensors>& shards, const std::string& index) {
  for (const auto& [name, tensors] : shards) zt::save_safetensors((dir / name).string(), tensors);
  write_text(dir / "model.safetensors.index.json", index);
}

Tensors numbered(std::initializer_list<std::pair<std::string, int>> entries) {
  Tensors tensors;
  for (const auto& [name, i] : entries) tensors.emplace(name, numbered_tensor(i));
  return tensors;
}

std::string prefix(const TempDir& dir) {
  return "load_checkpoint: <" + (dir / "model.safetensors.index.json").string() + ">";
}

void check_index_refused(const std::string& index, const std::string& expected) {
  TempDir dir;
  write_files(dir.path(), {{"a.safetensors", numbered({{"w", 1}})}}, index);
  BOOST_CHECK_EXCEPTION((void)zt::load_checkpoint(dir.path()), zt::ValueError,
                        with_message<zt::ValueError>(prefix(dir) + expected));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(load_checkpoint)

BOOST_AUTO_TEST_CASE(a_model_directory_of_24_shards_and_2400_tensors_of_every_dtype) {
  TempDir dir;
  write_model(dir.path(), 2400, 24);
  for (const fs::path& path : {dir.path(), dir / "model.safetensors.index.json"}) {
    const zt::Checkpoint model = zt::load_checkpoint(path);
    BOOST_TEST(model.tensors.size() == 2400u);
    BOOST_TEST(model.metadata.at("total_size") == "12345");
    for (int i = 0; i < 2400; ++i) {
      BOOST_TEST_REQUIRE(has_pattern(model.at(tensor_name(i)), i), tensor_name(i));
      BOOST_TEST(!model.at(tensor_name(i)).is_writable());
      BOOST_TEST(model.shard_of.at(tensor_name(i)) == shard_name(i % 24, 24));
    }
  }
}

BOOST_AUTO_TEST_CASE(views_keep_their_shard_alive_and_copies_own_their_memory) {
  TempDir dir;
  write_model(dir.path(), 60, 3);
  const zt::AnyTensor kept = zt::load_checkpoint(dir.path()).at(tensor_name(7));
  fs::remove_all(dir.path());
  BOOST_TEST(has_pattern(kept, 7));

  TempDir again;
  write_model(again.path(), 60, 3);
  const zt::Checkpoint views = zt::load_checkpoint(again.path());
  const zt::Checkpoint copies = zt::load_checkpoint(again.path(), {.copy = true});
  const zt::Checkpoint writable = zt::load_checkpoint(again.path(), {.access = zt::MapAccess::copy_on_write});
  for (int i = 0; i < 60; ++i) {
    BOOST_TEST(has_pattern(copies.at(tensor_name(i)), i));
    if (copies.at(tensor_name(i)).nbytes() > 0)
      BOOST_TEST(copies.at(tensor_name(i)).data_ptr() != views.at(tensor_name(i)).data_ptr());
    BOOST_TEST(writable.at(tensor_name(i)).is_writable());
  }
}

BOOST_AUTO_TEST_CASE(the_same_tensors_on_one_thread_and_with_prefetch_and_progress) {
  TempDir dir;
  write_model(dir.path(), 300, 12);
  std::uint64_t total_size = 0;
  for (int s = 0; s < 12; ++s) total_size += fs::file_size(dir / shard_name(s, 12));
  std::vector<std::pair<std::uint64_t, std::uint64_t>> calls;
  const zt::Checkpoint model = zt::load_checkpoint(
      dir.path(), {.prefetch = true,
                   .prefetch_chunk = 1000,
                   .progress = [&](std::uint64_t done, std::uint64_t total) { calls.emplace_back(done, total); },
                   .threads = 3});
  BOOST_TEST_REQUIRE(!calls.empty());
  BOOST_TEST(calls.size() > 12u);  // chunks of 1000 bytes: more calls than shards
  for (std::size_t c = 0; c < calls.size(); ++c) {
    BOOST_TEST(calls[c].second == total_size);
    if (c > 0) BOOST_TEST(calls[c].first > calls[c - 1].first);
  }
  BOOST_TEST(calls.back().first == total_size);

  calls.clear();
  const zt::Checkpoint serial = zt::load_checkpoint(
      dir.path(),
      {.progress = [&](std::uint64_t done, std::uint64_t total) { calls.emplace_back(done, total); }, .threads = 1});
  BOOST_TEST(calls.size() == 12u);  // without prefetch: once per shard
  BOOST_TEST(calls.back().first == total_size);
  for (int i = 0; i < 300; ++i) {
    BOOST_TEST_REQUIRE(has_pattern(model.at(tensor_name(i)), i));
    BOOST_TEST_REQUIRE(has_pattern(serial.at(tensor_name(i)), i));
  }
}

BOOST_AUTO_TEST_CASE(names_and_filter_open_only_the_shards_they_need) {
  TempDir dir;
  write_model(dir.path(), 40, 4);
  write_text(dir / shard_name(3, 4), "not a safetensors file");  // only read if one of its tensors is selected
  const zt::Checkpoint some = zt::load_checkpoint(dir.path(), {.names = {tensor_name(0), tensor_name(5)}});
  BOOST_TEST(some.tensors.size() == 2u);
  BOOST_TEST(has_pattern(some.at(tensor_name(5)), 5));
  const zt::Checkpoint even = zt::load_checkpoint(dir.path(), {.filter = [](std::string_view name) {
                                                    return name.back() % 2 == 0 && name != "model.layers.0.w3";
                                                  }});
  BOOST_TEST(even.tensors.size() == 20u);
  BOOST_TEST(has_pattern(even.at(tensor_name(38)), 38));
  BOOST_CHECK_EXCEPTION(
      (void)zt::load_checkpoint(dir.path(), {.names = {"missing"}}), zt::ValueError,
      with_message<zt::ValueError>(prefix(dir) + ": no tensor named 'missing' among the selected tensors"));
  BOOST_CHECK_EXCEPTION(
      (void)zt::load_checkpoint(dir.path(), {.names = {tensor_name(3)}}), zt::ValueError,
      with_message<zt::ValueError>("load_safetensors: <" + (dir / shard_name(3, 4)).string() + ">: header length"));
  BOOST_CHECK_EXCEPTION((void)zt::load_checkpoint(dir.path()), zt::ValueError,
                        with_message<zt::ValueError>("load_safetensors: <" + (dir / shard_name(3, 4)).string()));
}

BOOST_AUTO_TEST_CASE(the_index_is_an_allowlist) {
  TempDir dir;
  // a.safetensors also holds "extra" and a stale "v"; the index lists "v" in b.safetensors.
  write_files(dir.path(),
              {{"a.safetensors", numbered({{"w", 1}, {"extra", 2}, {"v", 3}})},
               {"b.safetensors", numbered({{"v", 4}})},
               {"stray.safetensors", numbered({{"stray", 5}})}},
              R"({"weight_map":{"w":"a.safetensors","v":"b.safetensors"}})");
  const zt::Checkpoint model = zt::load_checkpoint(dir.path());
  BOOST_TEST(model.tensors.size() == 2u);
  BOOST_TEST(!model.tensors.contains("extra"));
  BOOST_TEST(!model.tensors.contains("stray"));
  BOOST_TEST(has_pattern(model.at("v"), 4));
  BOOST_TEST(model.metadata.empty());
}

BOOST_AUTO_TEST_CASE(a_symlinked_shard_is_followed) {
  TempDir dir;
  fs::create_directories(dir / "blobs");
  fs::create_directories(dir / "snapshots");
  zt::save_safetensors((dir / "blobs" / "3f2a").string(), numbered({{"w", 6}}));
  fs::create_symlink("../blobs/3f2a", dir / "snapshots" / "a.safetensors");
  write_text(dir / "snapshots" / "model.safetensors.index.json", R"({"weight_map":{"w":"a.safetensors"}})");
  BOOST_TEST(has_pattern(zt::load_checkpoint(dir / "snapshots").at("w"), 6));
}

BOOST_AUTO_TEST_CASE(shard_names_that_are_not_plain_file_names) {
  for (const std::string shard : {"../a.safetensors", "sub/a.safetensors", "/tmp/a.safetensors", "..", ".", ""})
    check_index_refused(R"({"weight_map":{"w":")" + shard + R"("}})",
                        ": tensor 'w' names shard '" + shard +
                            "', which is not a plain file name in the index's directory (no '/', no '..')");
}

BOOST_AUTO_TEST_CASE(a_name_listed_twice) {
  check_index_refused(R"({"weight_map":{"w":"a.safetensors","w":"a.safetensors"}})", " names 'w' twice");
}

BOOST_AUTO_TEST_CASE(malformed_indexes) {
  check_index_refused(R"({"weight_map":{"w":"a.safetensors"})", " is not valid JSON: ");
  check_index_refused(R"([1])", ": the index must be a JSON object; found array");
  check_index_refused(R"({"metadata":{}})", ": the index has no \"weight_map\"");
  check_index_refused(R"({"weight_map":["a.safetensors"]})", ": \"weight_map\" must be an object; found array");
  check_index_refused(R"({"weight_map":{"w":7}})",
                      ": \"weight_map\" value for tensor 'w' must be a string (a shard file name); found number");
  check_index_refused(R"({"weight_map":{"w":{"file":"a.safetensors"}}})",
                      ": \"weight_map\" value for tensor 'w' must be a string (a shard file name); found object");
  check_index_refused(R"("a.safetensors")", ": the index must be a JSON object; found string");
  check_index_refused(R"({"weight_map":"a.safetensors"})", ": \"weight_map\" must be an object; found string");
  check_index_refused(R"({"metadata":"x","weight_map":{}})", ": \"metadata\" must be an object; found string");
  check_index_refused(R"({"metadata":{"a":{"b":[1]}},"weight_map":{}})", " nests JSON deeper than 3 levels");
}

BOOST_AUTO_TEST_CASE(metadata_is_informational) {
  TempDir dir;
  write_files(dir.path(), {{"a.safetensors", numbered({{"w", 1}})}},
              R"({"metadata":{"total_size":99999999,"format":"pt","sizes":[1,2]},"weight_map":{"w":"a.safetensors"},)"
              R"("other":{"members":["are","ignored"]}})");
  const zt::Checkpoint model = zt::load_checkpoint(dir.path());
  BOOST_TEST(model.metadata.at("total_size") == "99999999");
  BOOST_TEST(model.metadata.at("format") == "pt");
  BOOST_TEST(model.metadata.at("sizes") == "[1,2]");
}

BOOST_AUTO_TEST_CASE(a_listed_tensor_missing_from_its_shard) {
  check_index_refused(R"({"weight_map":{"w":"a.safetensors","u":"a.safetensors"}})",
                      ": the index lists tensor 'u' in shard 'a.safetensors', which has no tensor of that name");
}

BOOST_AUTO_TEST_CASE(a_missing_shard) {
  TempDir dir;
  write_files(dir.path(), {{"a.safetensors", numbered({{"w", 1}})}},
              R"({"weight_map":{"w":"a.safetensors","u":"b.safetensors","v":"b.safetensors"}})");
  BOOST_CHECK_EXCEPTION(
      (void)zt::load_checkpoint(dir.path()), zt::IOError,
      with_message<zt::IOError>(prefix(dir) +
                                ": shard 'b.safetensors' (listed for 2 tensors): No such file or directory (2)"));
  fs::create_symlink("nowhere", dir / "b.safetensors");  // a dangling link is missing too
  BOOST_CHECK_EXCEPTION(
      (void)zt::load_checkpoint(dir.path()), zt::IOError,
      with_message<zt::IOError>(prefix(dir) +
                                ": shard 'b.safetensors' (listed for 2 tensors): No such file or directory (2)"));
}

BOOST_AUTO_TEST_CASE(a_shard_that_is_not_a_regular_file_is_refused_with_and_without_prefetch) {
  TempDir dir;
  write_files(dir.path(), {{"a.safetensors", numbered({{"w", 1}})}},
              R"({"weight_map":{"w":"a.safetensors","u":"b.safetensors"}})");
  fs::create_symlink("/dev/zero", dir / "b.safetensors");  // endless bytes
  for (const bool prefetch : {false, true}) {
    BOOST_CHECK_EXCEPTION(
        (void)zt::load_checkpoint(dir.path(), {.prefetch = prefetch}), zt::IOError,
        with_message<zt::IOError>(prefix(dir) + ": shard 'b.safetensors' (listed for 1 tensors): not a regular file"));
  }
  BOOST_CHECK_EXCEPTION((void)zt::load_checkpoint(dir / "b.safetensors", {.prefetch = true}), zt::IOError,
                        with_message<zt::IOError>("load_checkpoint: <" + (dir / "b.safetensors").string() +
                                                  ">: not a regular file"));
}

BOOST_AUTO_TEST_CASE(single_files_and_directories) {
  TempDir dir;
  zt::save_safetensors((dir / "model.safetensors").string(), numbered({{"w", 1}, {"v", 2}}), {{"format", "pt"}});
  for (const fs::path& path : {dir.path(), dir / "model.safetensors"}) {
    const zt::Checkpoint model = zt::load_checkpoint(path);
    BOOST_TEST(model.tensors.size() == 2u);
    BOOST_TEST(has_pattern(model.at("v"), 2));
    BOOST_TEST(model.shard_of.at("v") == "model.safetensors");
    BOOST_TEST(model.metadata.at("format") == "pt");
  }
  BOOST_TEST(zt::load_checkpoint(dir.path(), {.names = {"v"}}).tensors.size() == 1u);
  BOOST_CHECK_EXCEPTION((void)zt::load_checkpoint(dir.path(), {.names = {"u"}}), zt::ValueError,
                        with_message<zt::ValueError>("load_checkpoint: <" + (dir / "model.safetensors").string() +
                                                     ">: no tensor named 'u' among the selected tensors"));
  BOOST_CHECK_EXCEPTION((void)zt::load_checkpoint(dir.path()).at("u"), zt::ValueError,
                        with_message<zt::ValueError>("LoadedTensors::at: no tensor named 'u' among 2 tensors"));

  write_text(dir / "model.safetensors.index.json", R"({"weight_map":{}})");
  BOOST_CHECK_EXCEPTION((void)zt::load_checkpoint(dir.path()), zt::ValueError,
                        with_message<zt::ValueError>("load_checkpoint: <" + dir.path().string() +
                                                     ">: holds both model.safetensors.index.json and "
                                                     "model.safetensors; name the one to load"));
  BOOST_TEST(zt::load_checkpoint(dir / "model.safetensors.index.json").tensors.empty());

  TempDir empty;
  BOOST_CHECK_EXCEPTION((void)zt::load_checkpoint(empty.path()), zt::IOError,
                        with_message<zt::IOError>("load_checkpoint: <" + empty.path().string() +
                                                  ">: no model.safetensors.index.json, model.safetensors, "
                                                  "pytorch_model.bin.index.json, pytorch_model.bin or *.gguf model"));
  BOOST_CHECK_EXCEPTION(
      (void)zt::load_checkpoint(empty / "none"), zt::IOError,
      with_message<zt::IOError>("load_checkpoint: <" + (empty / "none").string() + ">: No such file or directory (2)"));
  write_text(empty / "notes.txt", "");
  BOOST_CHECK_EXCEPTION((void)zt::load_checkpoint(empty / "notes.txt"), zt::ValueError,
                        with_message<zt::ValueError>("load_checkpoint: <" + (empty / "notes.txt").string() +
                                                     ">: not a checkpoint: expected a directory, a *.index.json, "
                                                     "a *.safetensors, a *.bin or a *.gguf file"));
}

BOOST_AUTO_TEST_CASE(bin_checkpoints_load_each_shard_with_the_torch_reader) {
  TempDir dir;
  const std::filesystem::path fixtures = std::filesystem::path(ZT_TEST_DATA_DIR) / "torch";
  std::filesystem::copy_file(fixtures / "linear.pt", dir / "pytorch_model-00001-of-00002.bin");
  std::filesystem::copy_file(fixtures / "conv2d.pt", dir / "pytorch_model-00002-of-00002.bin");
  // Each shard holds a "weight" and a "bias"; the index takes one from each.
  write_text(dir / "pytorch_model.bin.index.json",
             R"({"weight_map":{"weight":"pytorch_model-00001-of-00002.bin","bias":"pytorch_model-00002-of-00002.bin"}})");
  const zt::Checkpoint model = zt::load_checkpoint(dir.path());
  BOOST_TEST(model.tensors.size() == 2u);
  const auto weight = model.at("weight").as<const float, 2>();
  BOOST_TEST(weight.size(0) == 2);
  BOOST_TEST(weight.size(1) == 3);
  BOOST_TEST(weight(1, 2) == 1.25f);
  const auto bias = model.at("bias").as<const float, 1>();
  BOOST_TEST(bias.size(0) == 3);
  BOOST_TEST(bias(2) == 0.5f);

  write_text(dir / "pytorch_model-00002-of-00002.bin", "PK");  // not a whole zip archive
  BOOST_CHECK_THROW((void)zt::load_checkpoint(dir.path()), zt::ValueError);
  write_text(dir / "model.safetensors", "");  // safetensors wins over .bin
  BOOST_CHECK_EXCEPTION((void)zt::load_checkpoint(dir.path()), zt::ValueError,
                        with_message<zt::ValueError>("load_safetensors: <" + (dir / "model.safetensors").string()));
}

BOOST_AUTO_TEST_CASE(a_single_bin_file_keeps_the_saved_objects_other_leaves_as_load_torch_does) {
  // checkpoint.pt (test/data/torch/make_fixtures.py): a model's state dict beside "epoch": 7
  // and an optimizer's settings.
  TempDir dir;
  std::filesystem::copy_file(std::filesystem::path(ZT_TEST_DATA_DIR) / "torch" / "checkpoint.pt",
                             dir / "pytorch_model.bin");
  const zt::Checkpoint model = zt::load_checkpoint(dir.path());
  const zt::TorchFile file = zt::load_torch((dir / "pytorch_model.bin").string());
  BOOST_TEST(model.values.at("epoch") == "7");
  BOOST_TEST(model.values == file.values);
  BOOST_TEST(model.tensors.size() == file.tensors.size());
  BOOST_TEST(model.shard_of.size() == model.tensors.size());
  for (const auto& [name, shard] : model.shard_of) BOOST_TEST(shard == "pytorch_model.bin", name);
}

BOOST_AUTO_TEST_CASE(the_three_result_names_are_one_type_and_their_designated_initializers_compile) {
  static_assert(std::is_same_v<zt::SafetensorsFile, zt::LoadedTensors>);
  static_assert(std::is_same_v<zt::TorchFile, zt::LoadedTensors>);
  static_assert(std::is_same_v<zt::Checkpoint, zt::LoadedTensors>);
  const zt::SafetensorsFile safetensors{.tensors = {}, .metadata = {{"format", "pt"}}};
  const zt::TorchFile torch{.tensors = {}, .values = {{"epoch", "7"}}};
  const zt::Checkpoint checkpoint{.tensors = {}, .shard_of = {{"w", "a.safetensors"}}, .metadata = {}};
  BOOST_TEST(safetensors.metadata.at("format") == "pt");
  BOOST_TEST(torch.values.at("epoch") == "7");
  BOOST_TEST(checkpoint.shard_of.at("w") == "a.safetensors");
  BOOST_CHECK_EXCEPTION((void)torch.at("w"), zt::ValueError,
                        with_message<zt::ValueError>("LoadedTensors::at: no tensor named 'w' among 0 tensors"));
}

BOOST_AUTO_TEST_CASE(checkpoint_options_hand_load_options_fields_to_each_file) {
  const zt::CheckpointOptions options{.access = zt::MapAccess::copy_on_write, .copy = true, .names = {"w"}};
  const zt::LoadOptions load = options.load_options();
  BOOST_TEST((load.access == zt::MapAccess::copy_on_write));
  BOOST_TEST((load.copy == std::optional<bool>(true)));
  BOOST_TEST((load.device == zt::cpu));
  BOOST_TEST(!zt::CheckpointOptions{}.load_options().copy.has_value());
}

BOOST_AUTO_TEST_CASE(bin_shards_negate_the_tensors_saved_with_their_conjugate_or_negative_bit) {
  // conjugate.pt (test/data/torch/make_fixtures.py): "conj" is z.t().conj(), stored as z's bytes
  // [[0-0j, -0+0j], [1.5+2j, -2.5-3j]]; "neg" is x.conj().imag of x = [0-0j, 1-1j, 2-2j].
  TempDir dir;
  const fs::path shard = dir / "pytorch_model.bin";
  fs::copy_file(data_file("torch/conjugate.pt"), shard);
  const zt::Checkpoint model = zt::load_checkpoint(dir.path(), {.names = {"conj", "neg"}});
  const auto conj = model.at("conj").as<const std::complex<float>, 2>();
  BOOST_TEST((conj(0, 1) == std::complex<float>(1.5f, -2.0f)));
  BOOST_TEST((conj(1, 1) == std::complex<float>(-2.5f, 3.0f)));
  BOOST_TEST(!std::signbit(conj(0, 0).imag()));  // -0.0 negated
  BOOST_TEST(std::signbit(conj(1, 0).imag()));
  const auto neg = model.at("neg").as<const float, 1>();
  BOOST_TEST((neg(1) == 1.0f && neg(2) == 2.0f && neg(0) == 0.0f && !std::signbit(neg(0))));
  BOOST_CHECK_EXCEPTION((void)zt::load_checkpoint(dir.path(), {.copy = false, .names = {"neg"}}), zt::ValueError,
                        with_message<zt::ValueError>("load_torch: <" + shard.string() +
                                                     ">: storage '1' of 'neg' (saved with its negative bit) needs a "
                                                     "copy with its values negated, but copy = false"));
}

BOOST_AUTO_TEST_CASE(bin_shards_build_only_the_tensors_the_index_lists) {
  // unlisted_broken.bin (make_checkpoint.py) holds "listed" and "unlisted", whose storage
  // record is missing: building "unlisted" fails, so a load that succeeds never built it.
  TempDir dir;
  const fs::path shard = dir / "pytorch_model-00001-of-00001.bin";
  fs::copy_file(data_file("checkpoint/unlisted_broken.bin"), shard);
  const std::string missing = "load_torch: <" + shard.string() +
                              ">: a persistent id names the record 'archive/data/7', which is not in the archive";
  BOOST_CHECK_EXCEPTION((void)zt::load_torch(shard.string()), zt::ValueError, with_message<zt::ValueError>(missing));
  BOOST_CHECK_EXCEPTION((void)zt::load_checkpoint(shard.string()), zt::ValueError,
                        with_message<zt::ValueError>(missing));

  write_text(dir / "pytorch_model.bin.index.json",
             R"({"weight_map":{"listed":"pytorch_model-00001-of-00001.bin"}})");
  const auto only_listed = [](std::string_view name) { return name == "listed"; };
  for (const zt::Checkpoint& model :
       {zt::load_checkpoint(dir.path()), zt::load_checkpoint(shard.string(), {.names = {"listed"}}),
        zt::load_checkpoint(shard.string(), {.filter = only_listed})}) {
    BOOST_TEST(model.tensors.size() == 1u);
    const zt::AnyTensor& listed = model.at("listed");
    BOOST_TEST(listed.dtype() == zt::float32);
    BOOST_TEST(listed.shape() == zt::DynamicExtents({6}));
    const auto values = listed.as<const float, 1>();
    for (int i = 0; i < 6; ++i) BOOST_TEST(values(i) == float(i));
  }

  write_text(dir / "pytorch_model.bin.index.json",
             R"({"weight_map":{"listed":"pytorch_model-00001-of-00001.bin",)"
             R"("unlisted":"pytorch_model-00001-of-00001.bin"}})");
  BOOST_CHECK_EXCEPTION((void)zt::load_checkpoint(dir.path()), zt::ValueError, with_message<zt::ValueError>(missing));
}

#if !(defined(ZT_CUDA) && ZT_CUDA)
BOOST_AUTO_TEST_CASE(a_build_without_cuda_refuses_devices_naming_the_option) {
  TempDir dir;
  write_model(dir.path(), 2, 2);  // one tensor per shard
  BOOST_CHECK_EXCEPTION((void)zt::load_checkpoint(dir.path(), {.device = zt::cuda(0)}), zt::DeviceError,
                        with_message<zt::DeviceError>(prefix(dir) +
                                                      ": loading to cuda:0: this build of zerotensor has no CUDA "
                                                      "(configure it with -DZT_CUDA=ON)"));
  const auto second_on_gpu = [](std::string_view name) { return name == tensor_name(1) ? zt::cuda(0) : zt::cpu; };
  BOOST_CHECK_EXCEPTION((void)zt::load_checkpoint(dir.path(), {.device_map = second_on_gpu}), zt::DeviceError,
                        with_message<zt::DeviceError>(prefix(dir) +
                                                      ": loading to cuda:0: this build of zerotensor has no CUDA "
                                                      "(configure it with -DZT_CUDA=ON)"));
}
#endif

BOOST_AUTO_TEST_CASE(a_directory_the_safetensors_package_wrote) {
  // make_checkpoint.py: 3 shards, every dtype the package writes, an index as transformers writes it.
  const zt::Checkpoint model = zt::load_checkpoint(data_file("checkpoint/tiny"));
  BOOST_TEST(model.tensors.size() == 14u);
  BOOST_TEST(model.metadata.at("total_size") == "334");
  const auto& w = model.at("layers.1.float32");
  BOOST_TEST(w.dtype() == zt::float32);
  BOOST_TEST(w.shape() == zt::DynamicExtents({2, 3}));
  BOOST_TEST(w.as<const float>().array()(5) == 5.0f);
  BOOST_TEST(model.at("layers.0.bool").as<const bool>().array()(1) == false);
  BOOST_TEST(model.at("layers.2.int64").as<const std::int64_t>().array()(3) == -3);
  BOOST_TEST(model.shard_of.at("layers.2.int64") == "model-00003-of-00003.safetensors");
}

BOOST_AUTO_TEST_CASE(a_device_map_asked_once_per_selected_tensor_that_places_all_on_the_cpu_loads_views) {
  TempDir dir;
  write_model(dir.path(), 60, 3);
  std::map<std::string, int, std::less<>> asked;
  std::mutex asking;  // the shard threads ask at once
  const zt::Checkpoint model = zt::load_checkpoint(
      dir.path(), {.filter = [](std::string_view name) { return name.ends_with('1') || name.ends_with('2'); },
                   .device_map = [&](std::string_view name) {
                     const std::lock_guard lock(asking);
                     ++asked[std::string(name)];
                     return zt::cpu;
                   }});
  BOOST_TEST(model.tensors.size() == 12u);
  BOOST_TEST(asked.size() == 12u);
  for (const auto& [name, count] : asked) {
    BOOST_TEST(count == 1, name);
    BOOST_TEST(model.tensors.contains(name), name);
  }
  for (const auto& [name, tensor] : model.tensors) {
    BOOST_TEST(!tensor.is_writable(), name);  // a view of the read-only mapping, as without a map
    BOOST_TEST((tensor.device() == zt::cpu), name);
  }
  BOOST_TEST(has_pattern(model.at(tensor_name(1)), 1));
  BOOST_TEST(has_pattern(model.at(tensor_name(52)), 52));
}

BOOST_AUTO_TEST_CASE(a_device_map_with_a_device_or_with_copies_a_device_cannot_hold_is_refused) {
  TempDir dir;
  write_model(dir.path(), 6, 2);
  const auto to_gpu = [](std::string_view name) { return name == tensor_name(4) ? zt::cuda(0) : zt::cpu; };
  BOOST_CHECK_EXCEPTION((void)zt::load_checkpoint(dir.path(), {.device = zt::cuda(0), .device_map = to_gpu}),
                        zt::ValueError,
                        with_message<zt::ValueError>("load_checkpoint: device cuda:0 and device_map are both set; "
                                                     "device_map alone places the tensors"));
  // Refused before any device is asked for, so the same on machines with and without GPUs.
  const std::string shard = (dir / shard_name(0, 2)).string();
  BOOST_CHECK_EXCEPTION((void)zt::load_checkpoint(dir.path(), {.copy = false, .device_map = to_gpu}), zt::ValueError,
                        with_message<zt::ValueError>("load_safetensors: <" + shard + ">: tensor '" + tensor_name(4) +
                                                     "': copy = false cannot be combined with device cuda:0: a "
                                                     "tensor there is a copy of the file's bytes"));
  BOOST_CHECK_EXCEPTION(
      (void)zt::load_checkpoint(dir.path(), {.access = zt::MapAccess::shared, .device_map = to_gpu}), zt::ValueError,
      with_message<zt::ValueError>("load_safetensors: <" + shard + ">: tensor '" + tensor_name(4) +
                                   "': shared access cannot be combined with device cuda:0: writes to a copy there "
                                   "never reach the file"));
}

BOOST_AUTO_TEST_CASE(a_device_map_over_bin_shards_is_asked_once_per_tensor) {
  TempDir dir;
  std::filesystem::copy_file(data_file("torch/linear.pt"), dir / "pytorch_model-00001-of-00002.bin");
  std::filesystem::copy_file(data_file("torch/conv2d.pt"), dir / "pytorch_model-00002-of-00002.bin");
  write_text(dir / "pytorch_model.bin.index.json",
             R"({"weight_map":{"weight":"pytorch_model-00001-of-00002.bin","bias":"pytorch_model-00002-of-00002.bin"}})");
  std::vector<std::string> asked;
  std::mutex asking;  // the shard threads ask at once
  const zt::Checkpoint model = zt::load_checkpoint(dir.path(), {.device_map = [&](std::string_view name) {
                                                     const std::lock_guard lock(asking);
                                                     asked.emplace_back(name);
                                                     return zt::cpu;
                                                   }});
  std::sort(asked.begin(), asked.end());
  BOOST_TEST((asked == std::vector<std::string>{"bias", "weight"}));
  const auto weight = model.at("weight").as<const float, 2>();
  BOOST_TEST(weight(1, 2) == 1.25f);
  BOOST_TEST(model.tensors.size() == 2u);
}

BOOST_AUTO_TEST_SUITE_END()
