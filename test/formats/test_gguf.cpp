// zt::load_gguf: tensors as views of the one mapping (or of a Buffer) with PyTorch-order shapes
// and GGUF block dtypes, typed metadata, the load options, big-endian files, and split models;
// files the `gguf` package wrote (test/data/gguf) and files built here byte by byte.
#include <boost/test/unit_test.hpp>

#include <complex>
#include <cstdint>
#include <map>
#include <cstring>
#include <filesystem>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "support/file_test_support.hpp"
#include "support/gguf_bytes.hpp"
#include "support/message_check.hpp"
#include "zerotensor/checkpoint.hpp"
#include "zerotensor/empty.hpp"
#include "zerotensor/gguf.hpp"

using zt::GgufType;
using zt_test::GgufBytes;
using zt_test::preamble;

namespace {

constexpr std::uint32_t f32 = 0, q8_0 = 8;

/// A file of an F32 [3, 2] tensor "w" (innermost first: PyTorch shape (2, 3)) holding 0.5, 1.5,
/// ... 5.5, and a Q8_0 [64, 2] tensor "q" (two rows of two blocks), block i's bytes all i + 1,
/// laid out at `alignment` (with 1, the F32 tensor right after the blocks and a byte, misaligned).
GgufBytes two_tensors(std::uint32_t alignment = 32, bool big_endian = false) {
  const std::uint64_t f32_offset = alignment == 1 ? 4 * 34 + 1 : 4 * 34 / alignment * alignment + alignment;
  GgufBytes file = preamble(2, alignment == 32 ? 1 : 2, big_endian);
  file.key("general.name", GgufType::String).text("two");
  if (alignment != 32) file.key("general.alignment", GgufType::UInt32).put(alignment);
  file.info("q", {64, 2}, q8_0, 0).info("w", {3, 2}, f32, f32_offset);
  file.pad(alignment);
  for (char block = 1; block <= 4; ++block) file.data.append(34, block);
  file.data.resize(file.data.size() - 4 * 34 + f32_offset, '\0');
  for (int i = 0; i < 6; ++i) file.put(float(i) + 0.5f);
  return file;
}

zt::Buffer buffer_of(const std::string& data) {
  return zt_test::aligned_buffer(std::vector<std::uint8_t>(data.begin(), data.end()));
}

std::vector<float> floats(const zt::AnyTensor& tensor) {
  const zt::AnyTensor dense = tensor.contiguous();
  std::vector<float> values(std::size_t(dense.numel()));
  std::memcpy(values.data(), dense.data_ptr(), values.size() * sizeof(float));
  return values;
}

void write(const std::filesystem::path& path, const GgufBytes& file) {
  zt_test::write_bytes(path, std::vector<std::uint8_t>(file.data.begin(), file.data.end()));
}

/// Part `number` of a split model of `count` parts as llama.cpp's gguf-split writes it: its one
/// tensor `tensor`, an F32 [2] holding `number` and 1, and the split keys (`total` tensors).
GgufBytes part(std::uint16_t number, std::uint16_t count, std::string_view tensor, int total) {
  GgufBytes file = preamble(1, 3);
  file.key("split.no", GgufType::UInt16).put(number);
  file.key("split.count", GgufType::UInt16).put(count);
  file.key("split.tensors.count", GgufType::Int32).put(std::int32_t(total));
  file.info(tensor, {2}, f32, 0).pad(32).put(float(number)).put(1.0f);
  return file;
}

/// m-00001-of-00003.gguf to m-00003-of-00003.gguf in `dir`, holding the tensors a, b and c.
void write_split_model(const std::filesystem::path& dir) {
  write(dir / "m-00001-of-00003.gguf", part(0, 3, "a", 3));
  write(dir / "m-00002-of-00003.gguf", part(1, 3, "b", 3));
  write(dir / "m-00003-of-00003.gguf", part(2, 3, "c", 3));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(gguf)

BOOST_AUTO_TEST_CASE(tensors_are_views_of_the_bytes_with_shapes_in_pytorch_order) {
  const GgufBytes file = two_tensors();
  const zt::Buffer bytes = buffer_of(file.data);
  const zt::GgufFile model = zt::load_gguf(bytes);
  BOOST_TEST(model.tensors.size() == 2u);
  const zt::AnyTensor& q = model.at("q");
  BOOST_TEST(q.dtype() == zt::gguf_q8_0_);
  BOOST_TEST(q.shape() == zt::DynamicExtents({2, 2}));  // two rows of two blocks
  const auto* start = static_cast<const std::byte*>(bytes.data());
  const std::size_t data_offset = file.data.size() - 160 - 24;  // the data section: q, then w at 160
  BOOST_TEST(q.data_ptr() == start + data_offset);
  BOOST_TEST(q.owner() == bytes.owner());
  BOOST_TEST(!q.is_writable());
  const zt::AnyTensor& w = model.at("w");
  BOOST_TEST(w.dtype() == zt::float32);
  BOOST_TEST(w.shape() == zt::DynamicExtents({2, 3}));
  BOOST_TEST(floats(w) == (std::vector<float>{0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f}), boost::test_tools::per_element());
  BOOST_TEST(model.metadata.at("general.name").as<std::string_view>() == "two");
  BOOST_TEST(model.part_of.at("q") == "<memory>");
  // A row of blocks narrows without a copy: the second row starts two blocks later.
  const zt::AnyTensor row = q.narrow(0, 1, 1);
  BOOST_TEST(row.data_ptr() == start + data_offset + 2 * 34);
  BOOST_CHECK_EXCEPTION(static_cast<void>(q.to(zt::float32)), zt::TypeError,
                        with_message<zt::TypeError>("cannot convert gguf_q8_0 to float32; GGUF blocks convert to no "
                                                    "other dtype (zt::dequantize decodes them)"));
  BOOST_TEST(q.clone().owner() != q.owner());  // a copy of the blocks as bytes
  BOOST_TEST(std::memcmp(q.clone().data_ptr(), q.data_ptr(), q.nbytes()) == 0);
  BOOST_CHECK_EXCEPTION(static_cast<void>(model.at("k")), zt::ValueError,
                        with_message<zt::ValueError>("GgufFile::at: no tensor named 'k' among 2 tensors"));
}

BOOST_AUTO_TEST_CASE(a_file_maps_once_and_its_views_keep_the_mapping) {
  zt_test::TempDir dir;
  write(dir / "two.gguf", two_tensors());
  const zt::GgufFile model = zt::load_gguf((dir / "two.gguf").string());
  BOOST_TEST(model.at("q").owner() == model.at("w").owner());
  BOOST_TEST(model.part_of.at("w") == (dir / "two.gguf").string());
  BOOST_TEST(floats(model.at("w"))[5] == 5.5f);
}

BOOST_AUTO_TEST_CASE(a_misaligned_plain_tensor_is_copied_unless_copies_are_refused) {
  const GgufBytes file = two_tensors(1);
  const zt::Buffer bytes = buffer_of(file.data);
  const zt::GgufFile model = zt::load_gguf(bytes);
  const zt::AnyTensor& w = model.at("w");
  BOOST_TEST(w.owner() != bytes.owner());  // a float32 at an odd address is a copy
  BOOST_TEST(floats(w) == (std::vector<float>{0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f}), boost::test_tools::per_element());
  BOOST_TEST(model.at("q").owner() == bytes.owner());  // blocks are bytes: any address views them
  BOOST_CHECK_EXCEPTION(static_cast<void>(zt::load_gguf(bytes, {.copy = false})), zt::ValueError,
                        with_message<zt::ValueError>("load_gguf: <memory>: tensor 'w'"));
}

BOOST_AUTO_TEST_CASE(a_big_endian_file_gives_byte_swapped_copies_and_refuses_its_blocks) {
  GgufBytes file = preamble(1, 0, true);
  file.info("w", {3, 2}, f32, 0).pad(32);
  for (int i = 0; i < 6; ++i) file.put(float(i) + 0.5f);
  const zt::GgufFile model = zt::load_gguf(buffer_of(file.data));
  BOOST_TEST(floats(model.at("w")) == (std::vector<float>{0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f}),
             boost::test_tools::per_element());
  BOOST_CHECK_EXCEPTION(static_cast<void>(zt::load_gguf(buffer_of(two_tensors(32, true).data))), zt::ValueError,
                        with_message<zt::ValueError>(
                            "load_gguf: <memory>: tensor 'q' (at byte 59): a q8_0 tensor of a big-endian file cannot "
                            "be read: ggml defines its blocks little-endian only"));
}

BOOST_AUTO_TEST_CASE(copies_and_shared_access_follow_the_load_options) {
  const GgufBytes file = two_tensors();
  std::vector<std::uint8_t> raw(file.data.begin(), file.data.end());
  int deletions = 0;
  {
    const zt::Buffer bytes = zt_test::counted_buffer(raw, deletions);
    const zt::GgufFile copied = zt::load_gguf(bytes, {.copy = true});
    BOOST_TEST(copied.at("q").owner() != bytes.owner());
    BOOST_TEST(std::memcmp(copied.at("q").data_ptr(), static_cast<const std::byte*>(bytes.data()) + 160, 34) == 0);
    const zt::GgufFile shared = zt::load_gguf(bytes, {.access = zt::MapAccess::shared});
    BOOST_TEST(shared.at("w").is_writable());
    BOOST_TEST(shared.at("w").owner() == bytes.owner());
  }
  BOOST_TEST(deletions == 1);
}

BOOST_AUTO_TEST_CASE(the_gguf_package_s_file_loads_every_type_with_its_dtype) {
  const zt::GgufFile model = zt::load_gguf(zt_test::data_file("gguf/small.gguf").string());
  BOOST_TEST(model.metadata.at("llama.context_length").as<std::uint32_t>() == 4096u);
  BOOST_TEST(model.metadata.at("general.tags")[1].as<std::string_view>() == "bc");
  BOOST_TEST(model.tensors.size() >= 30u);
  for (const auto& [name, tensor] : model.tensors) {
    BOOST_TEST_CONTEXT(name) {
      BOOST_TEST(tensor.rank() == 2u);
      BOOST_TEST(tensor.shape()[0] == 2);
      BOOST_TEST(tensor.shape()[1] == 1);  // one block, or one value, per row
      const std::string dtype_name = zt::to_string(tensor.dtype());
      const bool plain = !zt::is_gguf_block(tensor.dtype());
      std::string lower = name;
      for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
      if (!plain) BOOST_TEST(dtype_name == "gguf_" + lower);
    }
  }
  BOOST_TEST(model.at("Q4_K").dtype() == zt::gguf_q4_k_);
  BOOST_TEST(model.at("BF16").dtype() == zt::bfloat16);
  BOOST_TEST(model.at("I64").dtype() == zt::int64);
}

BOOST_AUTO_TEST_CASE(a_split_model_opens_from_its_first_part_each_tensor_a_view_of_its_part) {
  zt_test::TempDir dir;
  write_split_model(dir.path());
  const zt::GgufFile model = zt::load_gguf((dir / "m-00001-of-00003.gguf").string());
  BOOST_TEST(model.tensors.size() == 3u);
  BOOST_TEST(floats(model.at("c"))[0] == 2.0f);
  BOOST_TEST(model.part_of.at("b") == (dir / "m-00002-of-00003.gguf").string());
  BOOST_TEST(model.at("a").owner() != model.at("b").owner());  // each part's own mapping

  BOOST_CHECK_EXCEPTION(static_cast<void>(zt::load_gguf((dir / "m-00002-of-00003.gguf").string())), zt::ValueError,
                        with_message<zt::ValueError>(
                            "m-00002-of-00003.gguf>: part 2 of 3 of a split model; load a split model from its first part"));
  write(dir / "m-00003-of-00003.gguf", part(2, 3, "a", 3));
  BOOST_CHECK_EXCEPTION(static_cast<void>(zt::load_gguf((dir / "m-00001-of-00003.gguf").string())), zt::ValueError,
                        with_message<zt::ValueError>("m-00001-of-00003.gguf> and in <"));
  write(dir / "m-00003-of-00003.gguf", part(1, 3, "c", 3));
  BOOST_CHECK_EXCEPTION(static_cast<void>(zt::load_gguf((dir / "m-00001-of-00003.gguf").string())), zt::ValueError,
                        with_message<zt::ValueError>("m-00003-of-00003.gguf>: part 3 of 3 of a split model holds split.no 1 and split.count 3; expected 2 and 3"));
  write(dir / "m-00003-of-00003.gguf", part(2, 3, "c", 4));
  write(dir / "m-00001-of-00003.gguf", part(0, 3, "a", 4));
  BOOST_CHECK_EXCEPTION(static_cast<void>(zt::load_gguf((dir / "m-00001-of-00003.gguf").string())), zt::ValueError,
                        with_message<zt::ValueError>("split.tensors.count is 4 but the model's parts hold 3 tensors"));
  std::filesystem::remove(dir / "m-00003-of-00003.gguf");
  BOOST_CHECK_THROW(static_cast<void>(zt::load_gguf((dir / "m-00001-of-00003.gguf").string())), zt::IOError);
  write(dir / "model.gguf", part(0, 3, "a", 3));
  BOOST_CHECK_EXCEPTION(static_cast<void>(zt::load_gguf((dir / "model.gguf").string())), zt::ValueError,
                        with_message<zt::ValueError>(
                            "the first of 3 parts of a split model, but its name does not end in -00001-of-00003.gguf"));
}

BOOST_AUTO_TEST_CASE(load_checkpoint_opens_a_directory_holding_a_gguf_model) {
  zt_test::TempDir dir;
  write_split_model(dir.path());
  const zt::Checkpoint checkpoint = zt::load_checkpoint(dir.path().string());
  BOOST_TEST(checkpoint.tensors.size() == 3u);
  BOOST_TEST(floats(checkpoint.at("b"))[0] == 1.0f);
  BOOST_TEST(checkpoint.shard_of.at("c") == "m-00003-of-00003.gguf");
  BOOST_TEST(checkpoint.metadata.at("split.count") == "3");
  BOOST_TEST(checkpoint.at("a").owner() != checkpoint.at("c").owner());

  const zt::Checkpoint selected =
      zt::load_checkpoint((dir / "m-00001-of-00003.gguf").string(), {.names = {"c"}, .threads = 2});
  BOOST_TEST(selected.tensors.size() == 1u);
  BOOST_TEST(floats(selected.at("c"))[0] == 2.0f);

  write(dir / "other.gguf", two_tensors());
  BOOST_CHECK_EXCEPTION(static_cast<void>(zt::load_checkpoint(dir.path().string())), zt::ValueError,
                        with_message<zt::ValueError>(
                            ">: holds 2 GGUF models (m-00001-of-00003.gguf, other.gguf); name the one to load"));
  const zt::Checkpoint other = zt::load_checkpoint((dir / "other.gguf").string());
  BOOST_TEST(other.metadata.at("general.name") == "two");
  BOOST_TEST(other.at("q").dtype() == zt::gguf_q8_0_);
}

BOOST_AUTO_TEST_CASE(metadata_values_read_as_text) {
  BOOST_TEST(zt::to_string(zt::GgufValue(std::string("llama"))) == "llama");
  BOOST_TEST(zt::to_string(zt::GgufValue(0.1f)) == "0.1");
  BOOST_TEST(zt::to_string(zt::GgufValue(-7.25)) == "-7.25");
  BOOST_TEST(zt::to_string(zt::GgufValue(std::numeric_limits<float>::infinity())) == "inf");
  BOOST_TEST(zt::to_string(zt::GgufValue(std::uint64_t(1) << 40)) == "1099511627776");
  BOOST_TEST(zt::to_string(zt::GgufValue(true)) == "true");
  const zt::GgufValue texts(GgufType::String, {zt::GgufValue(std::string("a")), zt::GgufValue(std::string("b\"\n"))});
  BOOST_TEST(zt::to_string(texts) == R"(["a","b\"\n"])");
  const zt::GgufValue nested(GgufType::Array, {zt::GgufValue(GgufType::Float32, {zt::GgufValue(0.1f)}),
                                               zt::GgufValue(GgufType::Int8, {zt::GgufValue(std::int8_t(-1))})});
  BOOST_TEST(zt::to_string(nested) == "[[0.1],[-1]]");
}

/// Same names, dtypes, shapes and bytes (in C order).
void check_same_tensors(const std::map<std::string, zt::AnyTensor, std::less<>>& found,
                        const std::map<std::string, zt::AnyTensor, std::less<>>& expected) {
  BOOST_TEST(found.size() == expected.size());
  for (const auto& [name, tensor] : expected) {
    BOOST_TEST_CONTEXT(name) {
      const zt::AnyTensor& other = found.at(name);
      BOOST_TEST(other.dtype() == tensor.dtype());
      BOOST_TEST(other.shape() == tensor.shape());
      const zt::AnyTensor a = other.contiguous(), b = tensor.contiguous();
      BOOST_TEST(std::memcmp(a.data_ptr(), b.data_ptr(), a.nbytes()) == 0);
    }
  }
}

BOOST_AUTO_TEST_CASE(save_gguf_writes_what_load_gguf_reads_back) {
  zt_test::TempDir dir;
  zt::GgufFile model = zt::load_gguf(zt_test::data_file("gguf/small.gguf").string());
  model.metadata.insert_or_assign("general.name", zt::GgufValue(std::string("renamed")));
  model.metadata.emplace("u8", zt::GgufValue(std::uint8_t(200)));
  model.metadata.emplace("i8", zt::GgufValue(std::int8_t(-3)));
  model.metadata.emplace("u16", zt::GgufValue(std::uint16_t(65535)));
  model.metadata.emplace("i16", zt::GgufValue(std::int16_t(-300)));
  model.tensors.erase("F64");
  // A transposed view is written in C order.
  const zt::AnyTensor w = zt::load_gguf(buffer_of(two_tensors().data)).at("w");
  model.tensors.emplace("transposed", w.permute({1, 0}));
  for (const std::uint32_t alignment : {32u, 1u, 64u}) {
    BOOST_TEST_CONTEXT("alignment " << alignment) {
      model.metadata.insert_or_assign("general.alignment", zt::GgufValue(alignment));
      zt::save_gguf((dir / "saved.gguf").string(), model.tensors, model.metadata);
      const zt::GgufFile saved = zt::load_gguf((dir / "saved.gguf").string());
      check_same_tensors(saved.tensors, model.tensors);
      BOOST_TEST((saved.metadata == model.metadata));
      if (alignment == 64)
        for (const auto& [name, tensor] : saved.tensors)
          if (zt::is_gguf_block(tensor.dtype())) BOOST_TEST(reinterpret_cast<std::uintptr_t>(tensor.data_ptr()) % 64 == 0u);
    }
  }
  BOOST_TEST(floats(zt::load_gguf((dir / "saved.gguf").string()).at("transposed")) ==
                 (std::vector<float>{0.5f, 3.5f, 1.5f, 4.5f, 2.5f, 5.5f}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(save_gguf_refuses_what_gguf_cannot_hold_and_keeps_the_old_file) {
  zt_test::TempDir dir;
  const std::string path = (dir / "old.gguf").string();
  write(path, two_tensors());
  const std::vector<std::uint8_t> old = zt_test::read_bytes(path);
  const zt::AnyTensor floats2 = zt::load_gguf(buffer_of(two_tensors().data)).at("w");
  const zt::AnyTensor blocks = zt::load_gguf(buffer_of(two_tensors().data)).at("q");
  const auto refused = [&](const zt::GgufFile& file, auto error, const std::string& expected) {
    using Error = decltype(error);
    BOOST_CHECK_EXCEPTION(zt::save_gguf(path, file.tensors, file.metadata), Error,
                          with_message<Error>("save_gguf: " + expected));
  };
  refused({.tensors = {{"c", zt::empty<std::complex<float>>(std::array<zt::index_t, 1>{2})}}}, zt::TypeError{""},
          "tensor 'c': GGUF has no complex64 type");
  refused({.tensors = {{"", floats2}}}, zt::ValueError{""}, "a tensor name is empty");
  refused({.tensors = {{"w", floats2.view({1, 1, 1, 1, 2, 3})}}}, zt::ValueError{""},
          "tensor 'w' has 6 dimensions; GGUF holds at most 4");
  refused({.tensors = {{"q", blocks.select(0, 0).select(0, 0)}}}, zt::ValueError{""},
          "tensor 'q': a 0-dimensional tensor of gguf_q8_0 has no innermost dimension for its 32 values");
  refused({.metadata = {{"general.alignment", zt::GgufValue(std::uint64_t(32))}}}, zt::TypeError{""},
          "general.alignment must be a uint32, not a uint64");
  refused({.metadata = {{"general.alignment", zt::GgufValue(std::uint32_t(48))}}}, zt::ValueError{""},
          "general.alignment 48 is not a power of two");
  refused({.metadata = {{"", zt::GgufValue(1)}}}, zt::ValueError{""}, "a metadata key is empty");
  BOOST_TEST(zt_test::read_bytes(path) == old, boost::test_tools::per_element());
  BOOST_TEST(std::distance(std::filesystem::directory_iterator(dir.path()), {}) == 1);  // no temporary left
}

#if !(defined(ZT_CUDA) && ZT_CUDA)
BOOST_AUTO_TEST_CASE(a_build_without_cuda_refuses_a_device_load_naming_the_option) {
  BOOST_CHECK_EXCEPTION(static_cast<void>(zt::load_gguf(buffer_of(two_tensors().data), {.device = zt::cuda(0)})),
                        zt::DeviceError,
                        with_message<zt::DeviceError>("load_gguf: <memory>: loading to cuda:0: this build of "
                                                      "zerotensor has no CUDA (configure it with -DZT_CUDA=ON)"));
}
#endif

BOOST_AUTO_TEST_SUITE_END()
