// The GGUF header reader (detail::parse_gguf_header) and zt::GgufValue: files built here byte by
// byte in either byte order, files the `gguf` package wrote (test/data/gguf, made by
// make_gguf_files.py), malformed files each refused with its message, and every truncation of
// a valid file.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <bit>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <span>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "formats/gguf/ggml_types.hpp"
#include "formats/gguf/gguf_header.hpp"
#include "support/gguf_bytes.hpp"
#include "support/message_check.hpp"
#include "zerotensor/error.hpp"
#include "zerotensor/gguf_value.hpp"

using zt::GgufType;
using zt::GgufValue;
using zt_test::GgufBytes;
using zt_test::preamble;

namespace {

constexpr std::uint32_t f32 = 0, f16 = 1, q4_0 = 2, q4_k = 12;

zt::detail::GgufHeader parse(const std::string& data) {
  return zt::detail::parse_gguf_header(std::as_bytes(std::span(data.data(), data.size())), "test.gguf");
}

/// parse refuses `data` with a ValueError whose message names the file and contains `expected`.
void check_malformed(const std::string& data, const std::string& expected) {
  BOOST_CHECK_EXCEPTION(parse(data), zt::ValueError, [&](const zt::ValueError& e) {
    return std::string_view(e.what()).starts_with("test.gguf: ") && message_has(e, expected);
  });
}

/// A file of two tensors and one key: an F32 (3, 2) and a Q4_0 [64, 2] (innermost first),
/// the second's bytes first; the file ends where the F32 tensor's bytes end.
GgufBytes two_tensors(bool big_endian = false) {
  GgufBytes file = preamble(2, 1, big_endian);
  file.key("general.name", GgufType::String).text("two");
  file.info("weight", {3, 2}, f32, 96).info("blk.0.q", {64, 2}, q4_0, 0);
  return file.pad(32).zeros(96 + 24);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  BOOST_REQUIRE(in);
  return {std::istreambuf_iterator<char>(in), {}};
}

const zt::detail::GgufTensorInfo& tensor(const zt::detail::GgufHeader& header, std::string_view name) {
  const auto found = std::ranges::find(header.tensors, name, &zt::detail::GgufTensorInfo::name);
  BOOST_REQUIRE(found != header.tensors.end());
  return *found;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(gguf_header)

BOOST_AUTO_TEST_CASE(metadata_of_every_type_reads_back_as_the_type_it_is_stored_as) {
  for (const bool big_endian : {false, true}) {
    GgufBytes file = preamble(0, 16, big_endian);
    file.key("u8", GgufType::UInt8).put(std::uint8_t(200));
    file.key("i8", GgufType::Int8).put(std::int8_t(-5));
    file.key("u16", GgufType::UInt16).put(std::uint16_t(60000));
    file.key("i16", GgufType::Int16).put(std::int16_t(-300));
    file.key("u32", GgufType::UInt32).put(std::uint32_t(4'000'000'000));
    file.key("i32", GgufType::Int32).put(std::int32_t(-70000));
    file.key("f32", GgufType::Float32).put(1.5f);
    file.key("yes", GgufType::Bool).put(std::uint8_t(1));
    file.key("no", GgufType::Bool).put(std::uint8_t(0));
    file.key("text", GgufType::String).text("llama");
    file.key("u64", GgufType::UInt64).put(std::uint64_t(1) << 40);
    file.key("i64", GgufType::Int64).put(-(std::int64_t(1) << 40));
    file.key("f64", GgufType::Float64).put(2.25);
    file.key("ids", GgufType::Array).array(GgufType::Int32, 3).put(1).put(-2).put(3);
    file.key("tags", GgufType::Array).array(GgufType::String, 2).text("a").text("bc");
    file.key("nested", GgufType::Array).array(GgufType::Array, 2);
    file.array(GgufType::UInt8, 2).put(std::uint8_t(7)).put(std::uint8_t(8)).array(GgufType::Float32, 0);

    const auto header = parse(file.data);
    BOOST_TEST(header.big_endian == big_endian);
    BOOST_TEST(header.version == 3u);
    BOOST_TEST(header.tensors.empty());
    BOOST_TEST(header.data_offset == file.data.size());  // no tensors: no data section to align
    const auto& m = header.metadata;
    BOOST_TEST(m.size() == 16u);
    BOOST_TEST(m.at("u8").as<std::uint8_t>() == 200);
    BOOST_TEST(m.at("i8").as<std::int8_t>() == -5);
    BOOST_TEST(m.at("u16").as<std::uint16_t>() == 60000);
    BOOST_TEST(m.at("i16").as<std::int16_t>() == -300);
    BOOST_TEST(m.at("u32").as<std::uint32_t>() == 4'000'000'000u);
    BOOST_TEST(m.at("i32").as<std::int32_t>() == -70000);
    BOOST_TEST(m.at("f32").as<float>() == 1.5f);
    BOOST_TEST(m.at("yes").as<bool>() == true);
    BOOST_TEST(m.at("no").as<bool>() == false);
    BOOST_TEST(m.at("text").as<std::string_view>() == "llama");
    BOOST_TEST(m.at("u64").as<std::uint64_t>() == std::uint64_t(1) << 40);
    BOOST_TEST(m.at("i64").as<std::int64_t>() == -(std::int64_t(1) << 40));
    BOOST_TEST(m.at("f64").as<double>() == 2.25);
    BOOST_TEST((m.at("u8").type() == GgufType::UInt8 && m.at("yes").type() == GgufType::Bool &&
                m.at("f64").type() == GgufType::Float64 && m.at("text").type() == GgufType::String));

    const GgufValue& ids = m.at("ids");
    BOOST_TEST((ids.type() == GgufType::Array && ids.element_type() == GgufType::Int32));
    BOOST_TEST(ids.size() == 3u);
    BOOST_TEST(ids[0].as<std::int32_t>() == 1);
    BOOST_TEST(ids[1].as<std::int32_t>() == -2);
    BOOST_TEST(ids[2].as<std::int32_t>() == 3);
    const GgufValue& tags = m.at("tags");
    BOOST_TEST((tags.element_type() == GgufType::String && tags.size() == 2u));
    BOOST_TEST(tags[1].as<std::string_view>() == "bc");
    BOOST_TEST(tags.elements()[0].as<std::string_view>() == "a");
    const GgufValue& nested = m.at("nested");
    BOOST_TEST((nested.element_type() == GgufType::Array && nested.size() == 2u));
    BOOST_TEST((nested[0].element_type() == GgufType::UInt8 && nested[0].size() == 2u));
    BOOST_TEST(nested[0][1].as<std::uint8_t>() == 8);
    BOOST_TEST((nested[1].element_type() == GgufType::Float32 && nested[1].size() == 0u));
    BOOST_TEST((nested == GgufValue(GgufType::Array, {GgufValue(GgufType::UInt8, {GgufValue(std::uint8_t(7)),
                                                                                   GgufValue(std::uint8_t(8))}),
                                                      GgufValue(GgufType::Float32, {})})));
  }
}

BOOST_AUTO_TEST_CASE(metadata_outlives_the_bytes_it_was_read_from) {
  std::map<std::string, GgufValue, std::less<>> metadata;
  {
    GgufBytes file = preamble(0, 2);
    file.key("general.name", GgufType::String).text("a name longer than any short-string buffer");
    file.key("tags", GgufType::Array).array(GgufType::String, 1).text("another string of some length");
    metadata = parse(file.data).metadata;
    std::fill(file.data.begin(), file.data.end(), 'x');
  }
  BOOST_TEST(metadata.at("general.name").as<std::string_view>() == "a name longer than any short-string buffer");
  BOOST_TEST(metadata.at("tags")[0].as<std::string_view>() == "another string of some length");
}

BOOST_AUTO_TEST_CASE(as_asks_for_exactly_the_stored_type) {
  const GgufValue count(std::uint32_t(7));
  BOOST_CHECK_EXCEPTION((void)count.as<std::int32_t>(), zt::TypeError,
                        with_message<zt::TypeError>("GgufValue: the value is of type uint32, not int32"));
  BOOST_CHECK_EXCEPTION((void)count.as<std::uint64_t>(), zt::TypeError,
                        with_message<zt::TypeError>("of type uint32, not uint64"));
  BOOST_CHECK_EXCEPTION((void)GgufValue(std::string("x")).as<bool>(), zt::TypeError,
                        with_message<zt::TypeError>("of type string, not bool"));
  BOOST_CHECK_EXCEPTION((void)GgufValue(1.0f).as<double>(), zt::TypeError,
                        with_message<zt::TypeError>("of type float32, not float64"));
  BOOST_CHECK_EXCEPTION((void)GgufValue(GgufType::Int8, {}).as<std::int8_t>(), zt::TypeError,
                        with_message<zt::TypeError>("of type array, not int8"));
  BOOST_TEST(zt::name(GgufType::Bool) == "bool");
  BOOST_TEST(zt::name(GgufType(13)) == "unknown");
}

BOOST_AUTO_TEST_CASE(array_accessors_refuse_a_scalar_and_an_index_out_of_range) {
  const GgufValue scalar(std::int64_t(3));
  BOOST_CHECK_EXCEPTION((void)scalar.size(), zt::TypeError,
                        with_message<zt::TypeError>("GgufValue: the value is of type int64, not an array"));
  BOOST_CHECK_EXCEPTION((void)scalar.element_type(), zt::TypeError, with_message<zt::TypeError>("not an array"));
  BOOST_CHECK_EXCEPTION((void)scalar[0], zt::TypeError, with_message<zt::TypeError>("not an array"));
  BOOST_CHECK_EXCEPTION((void)scalar.elements(), zt::TypeError, with_message<zt::TypeError>("not an array"));
  const GgufValue three(GgufType::Bool, {GgufValue(true), GgufValue(false), GgufValue(true)});
  BOOST_CHECK_EXCEPTION((void)three[3], zt::IndexError,
                        with_message<zt::IndexError>("GgufValue: index 3 is out of range for an array of 3 elements"));
}

BOOST_AUTO_TEST_CASE(an_array_holds_values_of_its_element_type_only) {
  BOOST_CHECK_EXCEPTION(GgufValue(GgufType::Int32, {GgufValue(1), GgufValue(std::int64_t(2))}), zt::TypeError,
                        with_message<zt::TypeError>("GgufValue: element 1 of an array of int32 is of type int64"));
  BOOST_CHECK_EXCEPTION(GgufValue(GgufType(13), {}), zt::ValueError,
                        with_message<zt::ValueError>("GgufValue: element type 13 is not a GGUF type (0 to 12)"));
}

BOOST_AUTO_TEST_CASE(tensor_infos_give_dims_absolute_offsets_and_byte_sizes) {
  for (const bool big_endian : {false, true}) {
    GgufBytes file = preamble(5, 0, big_endian);
    file.info("w", {3, 2}, f32, 0).info("q", {64, 2}, q4_0, 32).info("k", {256, 3}, q4_k, 128);
    file.info("scalar", {}, f32, 576).info("empty", {0, 5}, f16, 576);
    const std::size_t infos_end = file.data.size();
    file.pad(32).zeros(608);

    const auto header = parse(file.data);
    BOOST_TEST(header.big_endian == big_endian);
    BOOST_TEST(header.alignment == 32u);
    BOOST_TEST(header.data_offset == (infos_end + 31) / 32 * 32);
    BOOST_REQUIRE(header.tensors.size() == 5u);
    const auto& w = header.tensors[0];
    BOOST_TEST(w.name == "w");
    BOOST_TEST(w.dims == std::vector<std::int64_t>({3, 2}), boost::test_tools::per_element());
    BOOST_TEST((w.ggml_type == f32 && w.nbytes == 24u && w.offset == header.data_offset));
    BOOST_TEST(w.info_offset == 24u);
    const auto& q = header.tensors[1];
    BOOST_TEST(q.dims == std::vector<std::int64_t>({64, 2}), boost::test_tools::per_element());
    BOOST_TEST((q.ggml_type == q4_0 && q.nbytes == 2u * 2 * 18 && q.offset == header.data_offset + 32));
    const auto& k = header.tensors[2];
    BOOST_TEST((k.ggml_type == q4_k && k.nbytes == 3u * 144 && k.offset == header.data_offset + 128));
    BOOST_TEST((header.tensors[3].dims.empty() && header.tensors[3].nbytes == 4u));
    BOOST_TEST(header.tensors[4].nbytes == 0u);
  }
}

BOOST_AUTO_TEST_CASE(a_big_endian_file_reads_as_its_little_endian_twin) {
  const auto little = parse(two_tensors(false).data);
  const auto big = parse(two_tensors(true).data);
  BOOST_TEST((!little.big_endian && big.big_endian));
  BOOST_TEST(big.metadata.at("general.name").as<std::string_view>() == "two");
  BOOST_TEST((big.metadata == little.metadata));
  BOOST_TEST(big.data_offset == little.data_offset);
  for (std::size_t i = 0; i < 2; ++i) {
    BOOST_TEST(big.tensors[i].name == little.tensors[i].name);
    BOOST_TEST(big.tensors[i].dims == little.tensors[i].dims, boost::test_tools::per_element());
    BOOST_TEST(big.tensors[i].offset == little.tensors[i].offset);
    BOOST_TEST(big.tensors[i].nbytes == little.tensors[i].nbytes);
  }
}

BOOST_AUTO_TEST_CASE(tensors_may_lie_in_any_order_with_gaps_between_them) {
  const auto header = parse(two_tensors().data);
  const auto& weight = tensor(header, "weight");
  const auto& q = tensor(header, "blk.0.q");
  BOOST_TEST(q.offset == header.data_offset);
  BOOST_TEST(q.nbytes == 72u);  // then a gap of 24 bytes
  BOOST_TEST(weight.offset == header.data_offset + 96);
  BOOST_TEST(weight.offset + weight.nbytes == two_tensors().data.size());
}

BOOST_AUTO_TEST_CASE(general_alignment_sets_where_the_data_and_each_tensor_start) {
  GgufBytes custom = preamble(1, 1);
  custom.key("general.alignment", GgufType::UInt32).put(std::uint32_t(64));
  custom.info("w", {4}, f32, 64);
  const std::size_t infos_end = custom.data.size();
  custom.pad(64).zeros(80);
  const auto header = parse(custom.data);
  BOOST_TEST(header.alignment == 64u);
  BOOST_TEST(header.data_offset == (infos_end + 63) / 64 * 64);
  BOOST_TEST(header.tensors[0].offset == header.data_offset + 64);

  GgufBytes unaligned = preamble(2, 1);
  unaligned.key("general.alignment", GgufType::UInt32).put(std::uint32_t(1));
  unaligned.info("a", {1}, f16, 0).info("b", {1}, f32, 2);
  const std::size_t data_start = unaligned.data.size();
  unaligned.zeros(6);
  const auto packed = parse(unaligned.data);
  BOOST_TEST(packed.alignment == 1u);
  BOOST_TEST(packed.data_offset == data_start);
  BOOST_TEST(packed.tensors[1].offset == data_start + 2);
}

BOOST_AUTO_TEST_CASE(version_2_has_the_layout_of_version_3) {
  GgufBytes file = preamble(1, 1, false, 2);
  file.key("general.name", GgufType::String).text("v2");
  file.info("w", {2}, f32, 0).pad(32).zeros(8);
  const auto header = parse(file.data);
  BOOST_TEST(header.version == 2u);
  BOOST_TEST(header.tensors[0].nbytes == 8u);
}

BOOST_AUTO_TEST_CASE(malformed_files_are_refused_naming_the_field_its_byte_and_the_numbers) {
  struct Case {
    std::string name, data, expected;
  };
  std::vector<Case> cases;
  const auto add = [&](std::string name, const GgufBytes& file, std::string expected) {
    cases.push_back({std::move(name), file.data, std::move(expected)});
  };
  /// A file of one key of `type` whose value (and what follows) `value` writes.
  const auto one_key = [](GgufType type, auto value) {
    GgufBytes file = preamble(0, 1);
    file.key("k", type);
    value(file);
    return file;
  };
  /// A file of one tensor `info` writes, with `data_bytes` bytes of data.
  const auto one_tensor = [](auto info, std::size_t data_bytes = 64) {
    GgufBytes file = preamble(1, 0);
    info(file);
    return file.pad(32).zeros(data_bytes);
  };

  GgufBytes bad_magic = preamble(0, 0);
  bad_magic.data[3] = '\x01';
  add("bad magic", bad_magic, "not a GGUF file: its magic is 'GGU\\x01', not 'GGUF'");
  add("version 1", preamble(0, 0, false, 1),
      "GGUF version 1 (at byte 4) is not supported: versions 2 and 3 are (version 1 had 32-bit counts");
  add("version 4", preamble(0, 0, false, 4), "GGUF version 4 (at byte 4) is not supported: versions 2 and 3 are");
  add("big-endian version 4", preamble(0, 0, true, 4), "GGUF version 4 (at byte 4) is not supported");
  add("huge tensor count", preamble(std::uint64_t(1) << 60, 0),
      "the tensor count (at byte 8) is 1152921504606846976: the 0 bytes left in the file cannot hold that many "
      "tensor infos (25 bytes or more each)");
  add("huge key/value count", preamble(0, ~std::uint64_t(0)),
      "the key/value count (at byte 16) is 18446744073709551615: the 0 bytes left in the file cannot hold that "
      "many key/value pairs (14 bytes or more each)");
  GgufBytes long_key = preamble(0, 1);
  long_key.put(std::uint64_t(100)).data += "k";
  long_key.zeros(5);
  add("key past the end", long_key,
      "key 0 (at byte 24): truncated: the key (100 bytes at byte 32) runs past the end of the file of 38 bytes");
  add("string past the end", one_key(GgufType::String, [](GgufBytes& f) { f.put(~std::uint64_t(0)); }),
      "key 'k' (at byte 24): truncated: the value (18446744073709551615 bytes at byte 45) runs past the end of "
      "the file of 45 bytes");
  add("array count past the end",
      one_key(GgufType::Array, [](GgufBytes& f) { f.array(GgufType::UInt32, 3).put(std::uint32_t(1)); }),
      "key 'k' (at byte 24): the element count of an array (at byte 41) is 3: the 4 bytes left in the file cannot "
      "hold that many uint32s (4 bytes or more each)");
  add("array count overflowing",
      one_key(GgufType::Array, [](GgufBytes& f) { f.array(GgufType::UInt64, ~std::uint64_t(0)).zeros(16); }),
      "the element count of an array (at byte 41) is 18446744073709551615: the 16 bytes left");
  add("nesting too deep", one_key(GgufType::Array, [](GgufBytes& f) {
        for (int i = 0; i < 65; ++i) f.array(GgufType::Array, 1);
        f.array(GgufType::UInt8, 0);
      }),
      "is nested 65 arrays deep, deeper than the 64 allowed");
  add("unknown value type", one_key(GgufType(13), [](GgufBytes& f) { f.zeros(8); }),
      "key 'k' (at byte 24): the value type (at byte 33) is 13, not a GGUF type (0 to 12)");
  add("unknown element type", one_key(GgufType::Array, [](GgufBytes& f) { f.array(GgufType(99), 0); }),
      "the element type of an array (at byte 37) is 99, not a GGUF type");
  add("bool byte 2", one_key(GgufType::Bool, [](GgufBytes& f) { f.put(std::uint8_t(2)); }),
      "key 'k' (at byte 24): the bool at byte 37 is 2, not 0 or 1");
  add("bool byte 2 in an array",
      one_key(GgufType::Array,
              [](GgufBytes& f) { f.array(GgufType::Bool, 2).put(std::uint8_t(1)).put(std::uint8_t(2)); }),
      "the bool at byte 50 is 2, not 0 or 1");
  GgufBytes empty_key = preamble(0, 1);
  empty_key.key("", GgufType::UInt32).put(std::uint32_t(0));
  add("empty key", empty_key, "key 0 (at byte 24): the key is empty");
  GgufBytes duplicate_key = preamble(0, 2);
  duplicate_key.key("k", GgufType::UInt8).put(std::uint8_t(0)).key("k", GgufType::Int8).put(std::int8_t(0));
  add("duplicate key", duplicate_key, "key 'k' (at byte 38): the key appears twice");
  for (const std::uint32_t alignment : {0u, 3u, 48u}) {
    GgufBytes file = preamble(0, 1);
    file.key("general.alignment", GgufType::UInt32).put(alignment);
    add("alignment " + std::to_string(alignment), file,
        "key 'general.alignment' (at byte 24): the alignment " + std::to_string(alignment) +
            " is not a power of two");
  }
  GgufBytes wide_alignment = preamble(0, 1);
  wide_alignment.key("general.alignment", GgufType::UInt64).put(std::uint64_t(32));
  add("alignment not a uint32", wide_alignment,
      "key 'general.alignment' (at byte 24): the alignment must be a uint32, not a uint64");

  add("five dimensions", one_tensor([](GgufBytes& f) { f.info("t", {1, 1, 1, 1, 1}, f32, 0); }),
      "tensor 't' (info at byte 24): the dimension count 5 (at byte 33) exceeds ggml's 4");
  add("negative dimension", one_tensor([](GgufBytes& f) { f.info("t", {4, -3}, f32, 0); }),
      "tensor 't' (info at byte 24): dimension 1 (at byte 45) is negative: -3");
  add("element count overflow",
      one_tensor([](GgufBytes& f) { f.info("t", {std::int64_t(1) << 32, std::int64_t(1) << 31}, f32, 0); }),
      "tensor 't' (info at byte 24): shape (4294967296, 2147483648) has more than 2^63 elements");
  add("byte size overflow",
      one_tensor([](GgufBytes& f) { f.info("t", {std::int64_t(1) << 32, std::int64_t(1) << 30}, 28, 0); }),
      "dimensions (4294967296, 1073741824) (innermost first) of f64 take more than 2^64 bytes");
  add("innermost not a multiple of the block", one_tensor([](GgufBytes& f) { f.info("t", {48, 2}, q4_0, 0); }),
      "tensor 't' (info at byte 24): the innermost dimension 48 is not a multiple of the 32 values of a q4_0 block");
  add("scalar of a block type", one_tensor([](GgufBytes& f) { f.info("t", {}, q4_k, 0); }),
      "the innermost dimension 1 is not a multiple of the 256 values of a q4_K block");
  for (const std::uint32_t removed : {4u, 5u, 31u, 36u, 38u, 43u}) {
    add("ggml type " + std::to_string(removed),
        one_tensor([removed](GgufBytes& f) { f.info("t", {1}, removed, 0); }),
        "tensor 't' (info at byte 24): ggml type " + std::to_string(removed) +
            " (at byte 45) is not one ggml defines (removed or unknown)");
  }
  add("misaligned offset", one_tensor([](GgufBytes& f) { f.info("blk.0.attn_q.weight", {4}, f32, 100); }),
      "tensor 'blk.0.attn_q.weight' (info at byte 24): offset 100 (at byte 67) is not a multiple of the alignment "
      "32");
  add("tensor past the end", one_tensor([](GgufBytes& f) { f.info("t", {17}, f32, 0); }),
      "tensor 't' (info at byte 24): its 68 bytes at offset 0 of the data section (which starts at byte 64) run past "
      "the end of the file of 128 bytes");
  add("offset past the end", one_tensor([](GgufBytes& f) { f.info("t", {0}, f32, std::uint64_t(1) << 63); }),
      "its 0 bytes at offset 9223372036854775808 of the data section");
  add("offset overflowing", one_tensor([](GgufBytes& f) { f.info("t", {1}, f32, ~std::uint64_t(31)); }),
      "its 4 bytes at offset 18446744073709551584 of the data section");
  GgufBytes overlap = preamble(2, 0);
  overlap.info("a", {16}, f32, 0).info("b", {4}, f32, 32).pad(32).zeros(64);
  add("overlapping tensors", overlap,
      "tensors 'a' (info at byte 24, bytes [96, 160)) and 'b' (info at byte 57, bytes [128, 144)) overlap");
  GgufBytes duplicate_name = preamble(2, 0);
  duplicate_name.info("w", {4}, f32, 0).info("w", {4}, f32, 32).pad(32).zeros(64);
  add("duplicate tensor name", duplicate_name,
      "tensor 'w' (info at byte 57): the name is also that of the tensor whose info is at byte 24");
  add("empty tensor name", one_tensor([](GgufBytes& f) { f.info("", {4}, f32, 0); }),
      "tensor 0 (info at byte 24): the name is empty");

  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(c.name) { check_malformed(c.data, c.expected); }
  }
}

BOOST_AUTO_TEST_CASE(every_truncation_of_a_valid_file_is_refused) {
  for (const bool big_endian : {false, true}) {
    // Keys of every kind of value, so that a cut falls inside each.
    GgufBytes file = preamble(2, 4, big_endian);
    file.key("general.name", GgufType::String).text("two");
    file.key("general.alignment", GgufType::UInt32).put(std::uint32_t(16));
    file.key("ok", GgufType::Bool).put(std::uint8_t(1));
    file.key("ids", GgufType::Array).array(GgufType::Array, 1).array(GgufType::Int64, 2).put(std::int64_t(1)).put(
        std::int64_t(2));
    file.info("weight", {3, 2}, f32, 80).info("blk.0.q", {64, 2}, q4_0, 0);
    file.pad(16).zeros(80 + 24);
    (void)parse(file.data);  // the whole file is valid
    for (std::size_t size = 0; size < file.data.size(); ++size) {
      BOOST_TEST_CONTEXT("cut at byte " << size << (big_endian ? ", big-endian" : "")) {
        BOOST_CHECK_EXCEPTION(parse(file.data.substr(0, size)), zt::ValueError,
                              with_message<zt::ValueError>("test.gguf: "));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(the_ggml_type_table_has_every_type_ggml_defines) {
  std::vector<std::uint32_t> numbers;
  for (const auto& type : zt::detail::ggml_types) numbers.push_back(type.number);
  const std::vector<std::uint32_t> expected = {0,  1,  2,  3,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
                                               20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 34, 35, 39, 40, 41, 42};
  BOOST_TEST(numbers == expected, boost::test_tools::per_element());
  BOOST_TEST(zt::detail::ggml_type(9)->block_bytes() == 36u);  // ggml's q8_1: two halves and 32 bytes
  BOOST_TEST(zt::detail::ggml_type(42)->name == "q2_0");
  BOOST_TEST(zt::detail::ggml_type(42)->block_values == 64u);
}

BOOST_AUTO_TEST_CASE(a_file_the_gguf_package_wrote_reads_as_its_script_states) {
  const std::string data = read_file(ZT_TEST_DATA_DIR "/gguf/small.gguf");
  const auto header = parse(data);
  BOOST_TEST((header.version == 3u && !header.big_endian && header.alignment == 32u));
  BOOST_TEST(header.data_offset == 1984u);
  const auto& m = header.metadata;
  BOOST_TEST(m.size() == 12u);
  BOOST_TEST(m.at("general.architecture").as<std::string_view>() == "llama");
  BOOST_TEST(m.at("general.name").as<std::string_view>() == "small");
  BOOST_TEST(m.at("llama.context_length").as<std::uint32_t>() == 4096u);
  BOOST_TEST(m.at("llama.rope.freq_base").as<float>() == 10000.0f);
  BOOST_TEST(m.at("general.file_type").as<std::int32_t>() == -1);
  BOOST_TEST(m.at("general.size").as<std::uint64_t>() == (std::uint64_t(1) << 40) + 3);
  BOOST_TEST(m.at("general.offset").as<std::int64_t>() == -7);
  BOOST_TEST(m.at("general.scale").as<double>() == 0.125);
  BOOST_TEST(m.at("general.ok").as<bool>());
  const GgufValue tags(GgufType::String, {GgufValue(std::string("a")), GgufValue(std::string("bc"))});
  const GgufValue ids(GgufType::Int32, {GgufValue(1), GgufValue(-2), GgufValue(3)});
  const GgufValue pairs(GgufType::Array, {GgufValue(GgufType::Int32, {GgufValue(1), GgufValue(2)}),
                                          GgufValue(GgufType::Int32, {GgufValue(3)})});
  BOOST_TEST((m.at("general.tags") == tags));
  BOOST_TEST((m.at("general.ids") == ids));
  BOOST_TEST((m.at("general.pairs") == pairs));

  // What make_gguf_files.py printed: name, type number, innermost dimension (of 2 rows), bytes.
  struct Expected {
    std::string_view name;
    std::uint32_t type;
    std::int64_t innermost;
    std::uint64_t nbytes;
  };
  const std::vector<Expected> expected = {
      {"F32", 0, 1, 8},           {"F16", 1, 1, 4},          {"Q4_0", 2, 32, 36},     {"Q4_1", 3, 32, 40},
      {"Q5_0", 6, 32, 44},        {"Q5_1", 7, 32, 48},       {"Q8_0", 8, 32, 68},     {"Q2_K", 10, 256, 168},
      {"Q3_K", 11, 256, 220},     {"Q4_K", 12, 256, 288},    {"Q5_K", 13, 256, 352},  {"Q6_K", 14, 256, 420},
      {"Q8_K", 15, 256, 584},     {"IQ2_XXS", 16, 256, 132}, {"IQ2_XS", 17, 256, 148}, {"IQ3_XXS", 18, 256, 196},
      {"IQ1_S", 19, 256, 100},    {"IQ4_NL", 20, 32, 36},    {"IQ3_S", 21, 256, 220}, {"IQ2_S", 22, 256, 164},
      {"IQ4_XS", 23, 256, 272},   {"I8", 24, 1, 2},          {"I16", 25, 1, 4},       {"I32", 26, 1, 8},
      {"I64", 27, 1, 16},         {"F64", 28, 1, 16},        {"IQ1_M", 29, 256, 112}, {"BF16", 30, 1, 4},
      {"TQ1_0", 34, 256, 108},    {"TQ2_0", 35, 256, 132},   {"MXFP4", 39, 32, 34},   {"NVFP4", 40, 64, 72},
      {"Q1_0", 41, 128, 36}};
  BOOST_REQUIRE(header.tensors.size() == expected.size());
  std::uint64_t end = header.data_offset;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const auto& info = header.tensors[i];
    BOOST_TEST_CONTEXT(expected[i].name) {
      BOOST_TEST(info.name == expected[i].name);
      BOOST_TEST(info.ggml_type == expected[i].type);
      BOOST_TEST(info.dims == std::vector<std::int64_t>({expected[i].innermost, 2}), boost::test_tools::per_element());
      BOOST_TEST(info.nbytes == expected[i].nbytes);
      BOOST_TEST(info.offset == (end + 31) / 32 * 32);  // the writer packs them in order, each aligned
      end = info.offset + info.nbytes;
    }
  }
}

BOOST_AUTO_TEST_CASE(a_big_endian_file_the_gguf_package_wrote_holds_what_its_little_endian_twin_holds) {
  const auto little = parse(read_file(ZT_TEST_DATA_DIR "/gguf/small.gguf"));
  const auto big = parse(read_file(ZT_TEST_DATA_DIR "/gguf/small_big_endian.gguf"));
  BOOST_TEST((big.big_endian && big.version == 3u && big.alignment == 32u));
  BOOST_TEST(big.data_offset == 640u);
  BOOST_TEST((big.metadata == little.metadata));
  BOOST_REQUIRE(big.tensors.size() == 3u);
  for (const auto& info : big.tensors) {
    BOOST_TEST_CONTEXT(info.name) {
      const auto& twin = tensor(little, info.name);
      BOOST_TEST(info.ggml_type == twin.ggml_type);
      BOOST_TEST(info.dims == twin.dims, boost::test_tools::per_element());
      BOOST_TEST(info.nbytes == twin.nbytes);
    }
  }
  BOOST_TEST(big.tensors[2].offset == 640u + 32 + 64);  // Q4_K, after F32 and Q4_0 each padded to 32
}

BOOST_AUTO_TEST_SUITE_END()
