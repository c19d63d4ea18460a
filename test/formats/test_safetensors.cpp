// load_safetensors / save_safetensors against files the `safetensors` package wrote
// (test/data/safetensors, made by make_fixtures.py), a misaligned and a bfloat16 file,
// malformed headers, and files this test writes itself; load_safetensors of the same bytes in
// memory (a zt::Buffer), and the path forms that must keep naming files.
#include <boost/test/unit_test.hpp>

#include <complex>
#include <concepts>
#include <fstream>
#include <numeric>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "support/file_test_support.hpp"
#include "zerotensor/empty.hpp"
#include "zerotensor/safetensors.hpp"
#include "zerotensor/shares_memory.hpp"
#include "zerotensor/storage.hpp"

using zt_test::aligned_buffer;
using zt_test::counted_buffer;
using zt_test::data_file;
using zt_test::read_bytes;
using zt_test::TempDir;
using zt_test::write_text;

namespace {

std::filesystem::path fixture(const std::string& name) { return data_file("safetensors/" + name + ".safetensors"); }

/// A .safetensors file: the 8-byte little-endian length of `header`, `header`, `data`.
std::string safetensors_bytes(const std::string& header, const std::string& data = "") {
  std::string out;
  for (int i = 0; i < 8; ++i) out += char((header.size() >> (8 * i)) & 0xFF);
  return out + header + data;
}

/// The message load_safetensors gives for a malformed file written from `bytes`, and for the
/// same bytes in memory.
void check_malformed(const std::string& bytes, const std::string& expected) {
  TempDir dir;
  const auto path = dir / "bad.safetensors";
  write_text(path, bytes);
  BOOST_CHECK_EXCEPTION((void)zt::load_safetensors(path), zt::ValueError,
                        with_message<zt::ValueError>("load_safetensors: <" + path.string() + ">: " + expected));
  BOOST_CHECK_EXCEPTION((void)zt::load_safetensors(zt::Buffer(std::string(bytes))), zt::ValueError,
                        with_message<zt::ValueError>("load_safetensors: <memory>: " + expected));
}

template <class T>
void check_values(const zt::AnyTensor& t, std::initializer_list<T> expected) {
  BOOST_REQUIRE(t.numel() == zt::index_t(expected.size()));
  auto flat = t.as<const T>().array();
  std::size_t i = 0;
  for (const T& value : expected) BOOST_TEST((flat(Eigen::Index(i++)) == value));
}

std::uintptr_t address(const zt::AnyTensor& t) { return reinterpret_cast<std::uintptr_t>(t.data_ptr()); }

/// Whether load_safetensors takes a `Source`, with and without options.
template <class Source>
concept safetensors_loads_from = requires {
  { zt::load_safetensors(std::declval<Source>()) } -> std::same_as<zt::SafetensorsFile>;
  { zt::load_safetensors(std::declval<Source>(), {.copy = true}) } -> std::same_as<zt::SafetensorsFile>;
};

// Paths in every form keep compiling (the bytes overload takes exactly a zt::Buffer, so none
// of them is ambiguous with it); bytes go in as a Buffer and in no other form.
static_assert(safetensors_loads_from<const char*>);
static_assert(safetensors_loads_from<const char (&)[14]>);
static_assert(safetensors_loads_from<std::string>);
static_assert(safetensors_loads_from<const std::string&>);
static_assert(safetensors_loads_from<std::filesystem::path>);
static_assert(safetensors_loads_from<const std::filesystem::path&>);
static_assert(safetensors_loads_from<zt::Buffer>);
static_assert(safetensors_loads_from<zt::Buffer&>);
static_assert(safetensors_loads_from<const zt::Buffer&>);
static_assert(!safetensors_loads_from<std::vector<std::byte>>);

}  // namespace

BOOST_AUTO_TEST_SUITE(load_safetensors)

BOOST_AUTO_TEST_CASE(every_dtype_the_safetensors_package_writes) {
  const zt::SafetensorsFile file = zt::load_safetensors(fixture("model"));
  BOOST_TEST(file.tensors.size() == 15u);
  const auto& weight = file.at("weight");
  BOOST_TEST(weight.dtype() == zt::float32);
  BOOST_TEST(weight.shape() == zt::DynamicExtents({2, 3}));
  BOOST_TEST(weight.strides() == zt::DynamicExtents({3, 1}));
  BOOST_TEST(!weight.is_writable());
  check_values<float>(weight, {0, 1, 2, 3, 4, 5});
  check_values<double>(file.at("bias"), {0.5, -1.0, 2.0});
  check_values<std::int64_t>(file.at("ids"), {1, -2, 3, std::int64_t(1) << 40});
  check_values<bool>(file.at("mask"), {true, false, true});
  check_values<Eigen::half>(file.at("half"), {Eigen::half(0.5f), Eigen::half(-2.0f)});
  check_values<std::uint8_t>(file.at("bytes"), {1, 2, 3, 254, 255});
  check_values<std::int8_t>(file.at("small"), {-128, 127});
  check_values<std::int16_t>(file.at("i16"), {-300, 300});
  check_values<std::int32_t>(file.at("i32"), {-70000, 70000});
  check_values<std::uint16_t>(file.at("u16"), {65535, 1});
  check_values<std::uint32_t>(file.at("u32"), {4294967295u, 2});
  check_values<std::uint64_t>(file.at("u64"), {std::numeric_limits<std::uint64_t>::max(), 3});
  check_values<std::complex<float>>(file.at("c64"), {{1, 2}, {-3, -4}});
  BOOST_TEST(file.at("empty").shape() == zt::DynamicExtents({0, 4}));
  BOOST_TEST(file.at("scalar").rank() == 0u);
  check_values<float>(file.at("scalar"), {7.0f});
}

BOOST_AUTO_TEST_CASE(metadata_is_exposed) {
  const zt::SafetensorsFile file = zt::load_safetensors(fixture("model"));
  BOOST_TEST(file.metadata.size() == 2u);
  BOOST_TEST(file.metadata.at("format") == "np");
  BOOST_TEST(file.metadata.at("author") == "zerotensor");
}

BOOST_AUTO_TEST_CASE(every_tensor_is_a_view_into_one_mapping) {
  const zt::SafetensorsFile file = zt::load_safetensors(fixture("model"));
  const std::uintptr_t data_area = address(file.at("u64"));  // the first tensor in the file
  BOOST_TEST(data_area % 4096 == 952u);  // 8 + the 944-byte header
  for (const auto& [name, tensor] : file.tensors) {
    BOOST_TEST_CONTEXT(name) {
      BOOST_TEST(tensor.owner() == file.at("u64").owner());  // one mapping for all
      BOOST_TEST(address(tensor) - data_area < 160u);
    }
  }
  BOOST_TEST(address(file.at("ids")) - data_area == 16u);
  BOOST_TEST(address(file.at("mask")) - data_area == 151u);
  std::weak_ptr<const void> mapping = file.at("u64").owner();
  zt::AnyTensor kept = file.at("bias");
  BOOST_TEST(!mapping.expired());
}

BOOST_AUTO_TEST_CASE(the_mapping_lives_while_any_tensor_does) {
  std::weak_ptr<const void> mapping;
  zt::AnyTensor kept = [&] {
    zt::SafetensorsFile file = zt::load_safetensors(fixture("model"));
    mapping = file.at("weight").owner();
    return file.at("bias");
  }();
  BOOST_TEST(!mapping.expired());
  check_values<double>(kept, {0.5, -1.0, 2.0});
  kept = zt::Tensor<float>(nullptr, {0}, {1});
  BOOST_TEST(mapping.expired());
}

BOOST_AUTO_TEST_CASE(a_missing_tensor_name_is_a_value_error) {
  const zt::SafetensorsFile file = zt::load_safetensors(fixture("model"));
  BOOST_CHECK_EXCEPTION((void)file.at("nope"), zt::ValueError,
                        with_message<zt::ValueError>("LoadedTensors::at: no tensor named 'nope' among 15 tensors"));
}

BOOST_AUTO_TEST_CASE(copy_true_reads_every_tensor_into_memory_of_its_own) {
  const zt::SafetensorsFile views = zt::load_safetensors(fixture("model"));
  const zt::SafetensorsFile copies = zt::load_safetensors(fixture("model"), {.copy = true});
  BOOST_TEST(copies.tensors.size() == views.tensors.size());
  for (const auto& [name, copy] : copies.tensors) {
    const zt::AnyTensor& view = views.at(name);
    BOOST_TEST(!copy.is_writable());  // the default access is read_only, copies or not
    BOOST_TEST(copy.owner() != view.owner());
    BOOST_TEST(copy.dtype() == view.dtype());
    BOOST_TEST(copy.shape() == view.shape());
    BOOST_TEST(!zt::shares_memory(copy, view));
    BOOST_TEST(std::memcmp(copy.data_ptr(), view.data_ptr(), view.nbytes()) == 0);
  }
}

BOOST_AUTO_TEST_CASE(misaligned_tensors_are_copied_unless_copy_is_false) {
  const auto path = fixture("misaligned");
  const zt::SafetensorsFile file = zt::load_safetensors(path);
  const auto& a = file.at("a");
  check_values<float>(a, {1.0f, -2.0f, 3.5f});
  BOOST_TEST(address(a) % 64 == 0u);
  BOOST_TEST(a.owner() != file.at("b").owner());  // a copy with memory of its own
  check_values<std::uint8_t>(file.at("b"), {7, 8, 9});
  BOOST_TEST(address(file.at("b")) % 4096 == 135u + 12u);  // u8 needs no alignment: still a view
  BOOST_CHECK_EXCEPTION((void)zt::load_safetensors(path, {.copy = false}), zt::ValueError,
                        with_message<zt::ValueError>(
                            "tensor 'a' starts at byte offset 135 of the file, at an address not aligned to 4 bytes "
                            "for float32, and needs a copy, but copy = false"));
}

BOOST_AUTO_TEST_CASE(bfloat16) {
  const zt::SafetensorsFile file = zt::load_safetensors(fixture("bfloat16"));
  check_values<Eigen::bfloat16>(file.at("x"), {Eigen::bfloat16(1.0f), Eigen::bfloat16(-2.5f), Eigen::bfloat16(3.0f)});
}

namespace {
/// The file's bytes from `begin`, as the header's first entry count them.
std::vector<std::uint8_t> bytes_of(const zt::AnyTensor& t) {
  const auto* first = static_cast<const std::uint8_t*>(t.data_ptr());
  return {first, first + t.nbytes()};
}
}  // namespace

BOOST_AUTO_TEST_CASE(float8_and_float4_tensors_written_by_torch_load_as_views) {
  // make_fixtures.py low_precision: torch 2.15 + safetensors 0.8.
  const zt::SafetensorsFile file = zt::load_safetensors(fixture("low_precision"));
  std::vector<std::uint8_t> codes(256);
  std::iota(codes.begin(), codes.end(), std::uint8_t{0});
  const std::array<std::pair<const char*, zt::DType>, 5> float8s = {{{"float8_e4m3fn", zt::float8_e4m3fn_},
                                                                     {"float8_e5m2", zt::float8_e5m2_},
                                                                     {"float8_e4m3fnuz", zt::float8_e4m3fnuz_},
                                                                     {"float8_e5m2fnuz", zt::float8_e5m2fnuz_},
                                                                     {"float8_e8m0fnu", zt::float8_e8m0fnu_}}};
  for (const auto& [name, dtype] : float8s) {
    const zt::AnyTensor& t = file.at(name);
    BOOST_TEST(t.dtype() == dtype);
    BOOST_TEST(t.shape() == zt::DynamicExtents({16, 16}));
    BOOST_TEST(bytes_of(t) == codes);
  }
  // 0x38, 0x3c, 0x40, 0x40 and 0x7f are 1.0 in e4m3fn, e5m2, the two fnuz types and e8m0fnu.
  BOOST_TEST(float(file.at("float8_e4m3fn").as<const zt::float8_e4m3fn, 2>()(3, 8)) == 1.0f);
  BOOST_TEST(float(file.at("float8_e5m2").as<const zt::float8_e5m2, 2>()(3, 12)) == 1.0f);
  BOOST_TEST(float(file.at("float8_e4m3fnuz").as<const zt::float8_e4m3fnuz, 2>()(4, 0)) == 1.0f);
  BOOST_TEST(float(file.at("float8_e8m0fnu").as<const zt::float8_e8m0fnu, 2>()(7, 15)) == 1.0f);
  const zt::AnyTensor& f4 = file.at("f4");  // stored as F4 values of shape (2, 6)
  BOOST_TEST(f4.dtype() == zt::float4_e2m1fn_x2_);
  BOOST_TEST(f4.shape() == zt::DynamicExtents({2, 3}));
  BOOST_TEST(bytes_of(f4) == std::vector<std::uint8_t>({0x10, 0x32, 0x54, 0x76, 0x98, 0xBA}));
}

BOOST_AUTO_TEST_CASE(packed_shapes_are_written_in_values_and_read_back_in_elements) {
  TempDir dir;
  const zt::SafetensorsFile source = zt::load_safetensors(fixture("low_precision"));
  std::map<std::string, zt::AnyTensor, std::less<>> tensors(source.tensors.begin(), source.tensors.end());
  zt::save_safetensors(dir / "out.safetensors", tensors);
  const zt::SafetensorsFile back = zt::load_safetensors(dir / "out.safetensors");
  for (const auto& [name, tensor] : tensors) {
    BOOST_TEST(back.at(name).dtype() == tensor.dtype());
    BOOST_TEST(back.at(name).shape() == tensor.shape());
    BOOST_TEST(bytes_of(back.at(name)) == bytes_of(tensor));
  }
  std::ifstream in(dir / "out.safetensors", std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  BOOST_TEST(text.find(R"("f4":{"data_offsets":[0,6],"dtype":"F4","shape":[2,6]})") != std::string::npos);
  const std::map<std::string, zt::AnyTensor, std::less<>> scalar{{"s", zt::empty(std::array<zt::index_t, 0>{}, zt::float4_e2m1fn_x2_)}};
  BOOST_CHECK_EXCEPTION(zt::save_safetensors(dir / "s.safetensors", scalar), zt::ValueError,
                        with_message<zt::ValueError>("save_safetensors: a 0-dimensional float4_e2m1fn_x2 tensor holds 2 "
                                                     "values, which a safetensors shape counts along a dimension it "
                                                     "does not have"));
  BOOST_TEST(!std::filesystem::exists(dir / "s.safetensors"));
}

BOOST_AUTO_TEST_CASE(shared_access_writes_reach_the_file) {
  TempDir dir;
  const auto path = dir / "m.safetensors";
  std::filesystem::copy_file(fixture("model"), path);
  {
    zt::SafetensorsFile file = zt::load_safetensors(path, {.access = zt::MapAccess::shared});
    file.at("weight").as<float, 2>()(1, 1) = 40.0f;
  }
  BOOST_TEST((zt::load_safetensors(path).at("weight").as<const float, 2>()(1, 1) == 40.0f));
}

BOOST_AUTO_TEST_CASE(bool_bytes_other_than_0_and_1_are_refused) {
  check_malformed(safetensors_bytes(R"({"m":{"dtype":"BOOL","shape":[2],"data_offsets":[0,2]}})", "\x01\x07"),
                  "tensor 'm': bool data must be bytes 0 or 1; element 1 is byte 7");
}

BOOST_AUTO_TEST_CASE(malformed_files_are_value_errors_naming_what_is_wrong) {
  const std::string f32 = R"("dtype":"F32","shape":[2],"data_offsets":[0,8])";
  const std::string eight(8, '\0');
  check_malformed("", "truncated: 0 bytes is too short for the 8-byte header length");
  check_malformed(std::string("\x05\x00\x00", 3), "truncated: 3 bytes is too short for the 8-byte header length");
  // torch.save and np.savez write zip archives; read as a length, "PK\3\4..." is 578712552184433488 bytes.
  check_malformed(std::string("PK\x03\x04\x00\x00\x08\x08" "data.pkl", 16),
                  "is a zip archive (torch.save, np.savez), not a .safetensors file");
  check_malformed(std::string("PK\x05\x06") + std::string(18, '\0'),
                  "is a zip archive (torch.save, np.savez), not a .safetensors file");
  check_malformed(safetensors_bytes("{}").substr(0, 9), "header length 2 exceeds the 1 bytes that follow it");
  check_malformed(std::string("\x00\x00\x00\x00\x01\x00\x00\x00", 8) + "{}",
                  "header length 4294967296 exceeds the limit of 100000000 bytes");
  check_malformed(safetensors_bytes("{\"a\": "), "the header is not valid JSON: ");
  check_malformed(safetensors_bytes("[1, 2]"), "the header must be a JSON object; found array");
  check_malformed(safetensors_bytes(R"({"a": 5})"), "tensor 'a' must be an object; found number");
  check_malformed(safetensors_bytes(R"({"a": {"shape":[2],"data_offsets":[0,8]}})", eight), "tensor 'a' has no \"dtype\"");
  check_malformed(safetensors_bytes(R"({"a": {"dtype":"F8_E3M4","shape":[2],"data_offsets":[0,2]}})", eight),
                  "tensor 'a': unsupported dtype 'F8_E3M4'");
  check_malformed(safetensors_bytes(R"({"a": {"dtype":"F4","shape":[2,3],"data_offsets":[0,3]}})", eight),
                  "tensor 'a': shape (2, 3) of F4 values cannot be read as float4_e2m1fn_x2: its last dimension must "
                  "be a multiple of the 2 values one element packs");
  check_malformed(safetensors_bytes(R"({"a": {"dtype":"F6_E2M3","shape":[],"data_offsets":[0,0]}})", eight),
                  "tensor 'a': shape () of F6_E2M3 values cannot be read as float6_e2m3fn_x4");
  check_malformed(safetensors_bytes(R"({"a": {"dtype":"F4","shape":[4],"data_offsets":[0,4]}})", eight),
                  "tensor 'a': data_offsets [0, 4] hold 4 bytes but shape (2,) of float4_e2m1fn_x2 needs 2");
  check_malformed(safetensors_bytes(R"({"a": {"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", eight),
                  "tensor 'a': dimension 0 of shape [-2] is not a non-negative 64-bit integer");
  check_malformed(safetensors_bytes(R"({"a": {"dtype":"F32","shape":[2.5],"data_offsets":[0,8]}})", eight),
                  "tensor 'a': dimension 0 of shape [2.5] is not a non-negative 64-bit integer");
  check_malformed(safetensors_bytes(R"({"a": {"dtype":"F32","shape":[2],"data_offsets":[0]}})", eight),
                  "tensor 'a': data_offsets must be two non-negative integers; found [0]");
  check_malformed(safetensors_bytes(R"({"a": {"dtype":"F32","shape":[2],"data_offsets":[4,12]}})", eight),
                  "tensor 'a': data_offsets [4, 12] lie outside the data area of 8 bytes");
  check_malformed(safetensors_bytes(R"({"a": {"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", eight),
                  "tensor 'a': data_offsets [8, 0] lie outside the data area of 8 bytes");
  check_malformed(safetensors_bytes(R"({"a": {"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", eight),
                  "tensor 'a': data_offsets [0, 8] hold 8 bytes but shape (3,) of float32 needs 12");
  check_malformed(safetensors_bytes(R"({"a": {"dtype":"F64","shape":[4611686018427387904, 4],"data_offsets":[0,8]}})", eight),
                  "tensor 'a': shape (4611686018427387904, 4) has more than 2^63 elements");
  check_malformed(safetensors_bytes(R"({"a": {)" + f32 + R"(}, "b": {"dtype":"U8","shape":[2],"data_offsets":[6,8]}})", eight),
                  "tensors 'a' [0, 8) and 'b' [6, 8) overlap");
  check_malformed(safetensors_bytes(R"({"__metadata__": {"k": 1}, "a": {)" + f32 + "}}", eight),
                  "\"__metadata__\" value \"k\" must be a string; found number");
  check_malformed(safetensors_bytes(R"({"__metadata__": [1]})"), "\"__metadata__\" must be an object; found array");
}

BOOST_AUTO_TEST_CASE(the_data_area_is_filled_exactly_as_the_reference_demands) {
  const std::string u8 = R"("dtype":"U8","shape":[2],)";
  check_malformed(safetensors_bytes(R"({"a":{)" + u8 + R"("data_offsets":[0,2]},"b":{)" + u8 +
                                    R"("data_offsets":[3,5]}})", "abcde"),
                  "bytes [2, 3) of the data area belong to no tensor (a hole before 'b' [3, 5))");
  check_malformed(safetensors_bytes(R"({"b":{)" + u8 + R"("data_offsets":[1,3]}})", "abc"),
                  "bytes [0, 1) of the data area belong to no tensor (a hole before 'b' [1, 3))");
  check_malformed(safetensors_bytes(R"({"a":{)" + u8 + R"("data_offsets":[0,2]}})", "abcd"),
                  "2 bytes after the last tensor: the tensors end at byte 2 of a data area of 4 bytes");
  check_malformed(safetensors_bytes("{}", "ab"), "2 bytes after the last tensor: the tensors end at byte 0 of a data "
                                                 "area of 2 bytes");
  check_malformed(safetensors_bytes(R"({"a":{)" + u8 + R"("data_offsets":[0,2]},)"
                                    R"("e":{"dtype":"F32","shape":[0],"data_offsets":[1,1]}})", "ab"),
                  "tensors 'a' [0, 2) and 'e' [1, 1) overlap");
  check_malformed(safetensors_bytes(R"({"a":{)" + u8 + R"("data_offsets":[0,2]},"a":{)" + u8 +
                                    R"("data_offsets":[2,4]}})", "abcd"),
                  "the header names 'a' twice");
}

BOOST_AUTO_TEST_CASE(a_name_given_twice_among_many_is_refused_and_large_headers_parse_like_small_ones) {
  // More than 16 keys: the reader hashes them; the repeated one is named.
  std::string header = "{", data;
  for (int i = 0; i < 40; ++i) {
    const std::string name = "t" + std::to_string(i == 39 ? 7 : i);
    header += (i ? ",\"" : "\"") + name + R"(":{"dtype":"U8","shape":[1],"data_offsets":[)" + std::to_string(i) +
              "," + std::to_string(i + 1) + "]}";
    data += char('a' + i % 26);
  }
  check_malformed(safetensors_bytes(header + "}", data), "the header names 't7' twice");
  // A header over 1 MiB (the reader gives such a parser's memory back), then a small file, then
  // invalid JSON again after a large one: each read as if it were the first.
  TempDir dir;
  const std::string metadata = std::string(3 << 20, 'm');
  write_text(dir / "large.safetensors",
             safetensors_bytes(R"({"__metadata__":{"note":")" + metadata + R"("},"a":{"dtype":"U8","shape":[1],)"
                               R"("data_offsets":[0,1]}})", "z"));
  for (int round = 0; round < 2; ++round) {
    const zt::SafetensorsFile large = zt::load_safetensors(dir / "large.safetensors");
    BOOST_TEST(large.metadata.at("note").size() == metadata.size());
    check_values<std::uint8_t>(large.at("a"), {std::uint8_t('z')});
    check_malformed(safetensors_bytes(R"({"a": )"), "the header is not valid JSON: ");
  }
}

BOOST_AUTO_TEST_CASE(deeply_nested_values_are_refused_while_parsing_and_named_briefly) {
  const std::size_t levels = 100'000;
  const std::string deep = std::string(levels, '[') + std::string(levels, ']');
  check_malformed(safetensors_bytes(R"({"t":{"dtype":)" + deep + R"(,"shape":[1],"data_offsets":[0,1]}})", "a"),
                  "the header nests JSON deeper than 3 levels");
  check_malformed(safetensors_bytes(R"({"t":{"dtype":"U8","shape":[[1]],"data_offsets":[0,1]}})", "a"),
                  "the header nests JSON deeper than 3 levels");
  std::string wide = "[-1";
  for (int i = 0; i < 5000; ++i) wide += ",7";
  wide += "]";
  const std::string named = wide.substr(0, 48) + "…";  // what a message shows of it
  check_malformed(safetensors_bytes(R"({"t":{"dtype":"U8","shape":)" + wide + R"(,"data_offsets":[0,1]}})", "a"),
                  "tensor 't': dimension 0 of shape " + named + " is not a non-negative 64-bit integer");
  check_malformed(safetensors_bytes(R"({"t":{"dtype":)" + wide + R"(,"shape":[1],"data_offsets":[0,1]}})", "a"),
                  "tensor 't': dtype must be a string; found " + named);
  check_malformed(safetensors_bytes(R"({"t":{"dtype":")" + std::string(5000, 'X') + R"(","shape":[1],)"
                                    R"("data_offsets":[0,1]}})", "a"),
                  "tensor 't': unsupported dtype '" + std::string(48, 'X') + "…'");
}

BOOST_AUTO_TEST_CASE(fields_read_halfway_are_refused_with_the_whole_value) {
  // The header reader takes a shape or data_offsets array item by item; an item it cannot
  // take mid-array still gets the message that names the whole array.
  const auto tensor = [](const std::string& shape, const std::string& offsets) {
    return safetensors_bytes(R"({"a":{"dtype":"U8","shape":)" + shape + R"(,"data_offsets":)" + offsets + "}}", "ab");
  };
  check_malformed(tensor("[2,-1]", "[0,2]"), "tensor 'a': dimension 1 of shape [2,-1] is not a non-negative 64-bit integer");
  check_malformed(tensor("[2,1,18446744073709551615]", "[0,2]"),
                  "tensor 'a': dimension 2 of shape [2,1,18446744073709551615] is not a non-negative 64-bit integer");
  check_malformed(tensor("[2,\"1\"]", "[0,2]"), "tensor 'a': dimension 1 of shape [2,\"1\"] is not a non-negative 64-bit integer");
  check_malformed(tensor(R"({"n":2})", "[0,2]"), "tensor 'a': shape must be an array; found {\"n\":2}");
  check_malformed(tensor("[2]", "[0,2,2]"), "tensor 'a': data_offsets must be two non-negative integers; found [0,2,2]");
  check_malformed(tensor("[2]", "[0,null]"), "tensor 'a': data_offsets must be two non-negative integers; found [0,null]");
  check_malformed(tensor("[2]", "[]"), "tensor 'a': data_offsets must be two non-negative integers; found []");
  check_malformed(tensor("[2]", "2"), "tensor 'a': data_offsets must be two non-negative integers; found 2");
}

BOOST_AUTO_TEST_CASE(fields_the_format_does_not_define_are_ignored) {
  TempDir dir;
  const auto path = dir / "extra.safetensors";
  write_text(path, safetensors_bytes(R"({"a":{"dtype":"U8","note":[1,"x"],"shape":[2],"data_offsets":[0,2],"o":{"x":"y"},)"
                                     R"("more":"text"}})",
                                     "ab"));
  const zt::SafetensorsFile file = zt::load_safetensors(path);
  BOOST_TEST(file.at("a").shape()[0] == 2);
  check_values<std::uint8_t>(file.at("a"), {'a', 'b'});
}

BOOST_AUTO_TEST_CASE(a_name_given_twice_is_refused_among_many) {
  // Few keys are compared one by one, many are hashed: both refuse a repeat.
  std::string fields = R"("dtype":"U8","shape":[1],"data_offsets":[0,1])";
  for (int i = 0; i < 12; ++i) fields += ",\"f" + std::to_string(i) + "\":0";
  check_malformed(safetensors_bytes(R"({"a":{)" + fields + R"(,"f3":1}})", "a"), "the header names 'f3' twice");
  std::string header = "{";
  for (int i = 0; i < 20; ++i)
    header += "\"t" + std::to_string(i) + R"(":{"dtype":"U8","shape":[1],"data_offsets":[)" + std::to_string(i) + "," +
              std::to_string(i + 1) + "]},";
  header += R"("t7":{"dtype":"U8","shape":[0],"data_offsets":[20,20]}})";
  check_malformed(safetensors_bytes(header, std::string(20, 'x')), "the header names 't7' twice");
}

BOOST_AUTO_TEST_CASE(empty_tensors_sit_between_others) {
  TempDir dir;
  const auto path = dir / "e.safetensors";
  write_text(path, safetensors_bytes(R"({"a":{"dtype":"F32","shape":[0],"data_offsets":[0,0]},)"
                                     R"("b":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},)"
                                     R"("c":{"dtype":"I64","shape":[0, 5],"data_offsets":[2,2]}})",
                                     "\x01\x02"));
  const auto file = zt::load_safetensors(path);
  BOOST_TEST(file.at("a").numel() == 0);
  BOOST_TEST(file.at("c").shape() == zt::DynamicExtents({0, 5}));
  check_values<std::uint8_t>(file.at("b"), {1, 2});
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(load_safetensors_from_memory)

BOOST_AUTO_TEST_CASE(every_path_form_still_names_a_file) {
  const std::filesystem::path path = fixture("bfloat16");
  for (const zt::SafetensorsFile& file :
       {zt::load_safetensors(path), zt::load_safetensors(path.string()), zt::load_safetensors(path.c_str()),
        zt::load_safetensors(path, {.copy = true}), zt::load_safetensors(path.string(), {.copy = true}),
        zt::load_safetensors(path.c_str(), {.copy = true})})
    check_values<Eigen::bfloat16>(file.at("x"), {Eigen::bfloat16(1.0f), Eigen::bfloat16(-2.5f), Eigen::bfloat16(3.0f)});
  const auto missing = with_message<zt::IOError>("unable to open file <no_such.safetensors> in read-only mode");
  BOOST_CHECK_EXCEPTION((void)zt::load_safetensors("no_such.safetensors"), zt::IOError, missing);
  BOOST_CHECK_EXCEPTION((void)zt::load_safetensors("no_such.safetensors", {.copy = true}), zt::IOError, missing);
  BOOST_CHECK_EXCEPTION((void)zt::load_safetensors(std::string("no_such.safetensors")), zt::IOError, missing);
  BOOST_CHECK_EXCEPTION((void)zt::load_safetensors(std::string("no_such.safetensors"), {.copy = false}), zt::IOError,
                        missing);
}

BOOST_AUTO_TEST_CASE(bytes_load_as_the_file_does_viewed_in_place) {
  const zt::SafetensorsFile from_file = zt::load_safetensors(fixture("model"));
  const zt::Buffer bytes = aligned_buffer(read_bytes(fixture("model")));
  const zt::SafetensorsFile file = zt::load_safetensors(bytes, {.copy = false});
  BOOST_TEST(file.metadata == from_file.metadata);
  BOOST_TEST(file.tensors.size() == from_file.tensors.size());
  for (const auto& [name, tensor] : file.tensors) {
    BOOST_TEST_CONTEXT(name) {
      const zt::AnyTensor& expected = from_file.at(name);
      BOOST_TEST(tensor.dtype() == expected.dtype());
      BOOST_TEST(tensor.shape() == expected.shape());
      BOOST_TEST(tensor.strides() == expected.strides());
      BOOST_TEST(!tensor.is_writable());
      BOOST_TEST(tensor.owner() == bytes.owner());
      BOOST_TEST(tensor.data_ptr() == bytes.data() + address(expected) % 4096);  // where it lies in the file
      BOOST_TEST(std::memcmp(tensor.data_ptr(), expected.data_ptr(), tensor.nbytes()) == 0);
    }
  }
  check_values<float>(file.at("weight"), {0, 1, 2, 3, 4, 5});
}

BOOST_AUTO_TEST_CASE(the_buffer_owner_lives_until_the_last_view_dies) {
  int deletions = 0;
  std::optional<zt::AnyTensor> bias = zt::load_safetensors(counted_buffer(read_bytes(fixture("model")), deletions))
                                          .at("bias");
  BOOST_TEST(deletions == 0);
  check_values<double>(*bias, {0.5, -1.0, 2.0});
  bias.reset();
  BOOST_TEST(deletions == 1);
}

BOOST_AUTO_TEST_CASE(misaligned_bytes_are_copied_unless_copy_is_false) {
  const zt::Buffer shifted = aligned_buffer(read_bytes(fixture("model")), 1);
  const zt::SafetensorsFile file = zt::load_safetensors(shifted);
  BOOST_TEST(address(file.at("u64")) % 64 == 0u);  // a copy
  BOOST_TEST(file.at("u64").owner() != shifted.owner());
  check_values<std::uint64_t>(file.at("u64"), {std::numeric_limits<std::uint64_t>::max(), 3});
  BOOST_TEST(file.at("bytes").owner() == shifted.owner());  // u8 needs no alignment: still a view
  // The tensors are viewed or copied in the order of their offsets: u64 comes first.
  BOOST_CHECK_EXCEPTION((void)zt::load_safetensors(shifted, {.copy = false}), zt::ValueError,
                        with_message<zt::ValueError>(
                            "load_safetensors: <memory>: tensor 'u64' starts at byte offset 952 of the buffer, at an "
                            "address not aligned to 8 bytes for uint64, and needs a copy, but copy = false"));
  // The misaligned file in memory: the file's message, naming the buffer.
  const zt::Buffer misaligned = aligned_buffer(read_bytes(fixture("misaligned")));
  check_values<float>(zt::load_safetensors(misaligned).at("a"), {1.0f, -2.0f, 3.5f});
  BOOST_CHECK_EXCEPTION((void)zt::load_safetensors(misaligned, {.copy = false}), zt::ValueError,
                        with_message<zt::ValueError>(
                            "load_safetensors: <memory>: tensor 'a' starts at byte offset 135 of the buffer, at an "
                            "address not aligned to 4 bytes for float32, and needs a copy, but copy = false"));
}

BOOST_AUTO_TEST_CASE(truncated_bytes_are_refused_as_a_truncated_file_is) {
  auto bytes = read_bytes(fixture("model"));
  bytes.pop_back();
  // check_malformed loads the file and the bytes.
  check_malformed(std::string(bytes.begin(), bytes.end()),
                  "tensor 'mask': data_offsets [151, 154] lie outside the data area of 153 bytes");
}

BOOST_AUTO_TEST_CASE(a_read_only_buffer_gives_read_only_tensors_only) {
  const std::vector<std::uint8_t> bytes = read_bytes(fixture("model"));
  const zt::Buffer read_only{bytes};  // a const range: read-only, borrowed
  for (const zt::LoadOptions& options : {zt::LoadOptions{}, zt::LoadOptions{.copy = true}}) {
    for (const auto& [name, tensor] : zt::load_safetensors(read_only, options).tensors)
      BOOST_TEST(!tensor.is_writable(), name);
  }
  BOOST_CHECK_EXCEPTION(
      (void)zt::load_safetensors(read_only, {.access = zt::MapAccess::shared}), zt::ValueError,
      with_message<zt::ValueError>(
          "load_safetensors: <memory>: shared access gives writable tensors, but the buffer is read-only"));
  BOOST_CHECK_EXCEPTION(
      (void)zt::load_safetensors(read_only, {.access = zt::MapAccess::copy_on_write}), zt::ValueError,
      with_message<zt::ValueError>(
          "load_safetensors: <memory>: copy_on_write access gives writable tensors, but the buffer is read-only"));
}

BOOST_AUTO_TEST_CASE(shared_access_writes_reach_the_buffer) {
  std::vector<std::uint8_t> bytes = read_bytes(fixture("model"));
  const zt::Buffer writable{bytes};
  zt::load_safetensors(writable, {.access = zt::MapAccess::shared}).at("weight").as<float, 2>()(1, 1) = 40.0f;
  BOOST_TEST((zt::load_safetensors(writable).at("weight").as<const float, 2>()(1, 1) == 40.0f));
  const zt::SafetensorsFile copies = zt::load_safetensors(writable, {.access = zt::MapAccess::copy_on_write});
  BOOST_TEST(copies.at("weight").is_writable());
  copies.at("weight").as<float, 2>()(0, 0) = -1.0f;  // memory of its own: the buffer keeps its value
  BOOST_TEST((zt::load_safetensors(writable).at("weight").as<const float, 2>()(0, 0) == 0.0f));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(save_safetensors)

BOOST_AUTO_TEST_CASE(round_trip_with_aligned_gapless_layout) {
  TempDir dir;
  const auto path = dir / "out.safetensors";
  const zt::SafetensorsFile source = zt::load_safetensors(fixture("model"));
  std::map<std::string, zt::AnyTensor, std::less<>> tensors = source.tensors;
  std::vector<std::uint8_t> odd{1, 2, 3};
  tensors.emplace("odd", zt::Tensor<std::uint8_t>(odd.data(), {3}, {1}));  // an odd size placed last
  tensors.emplace("bf", zt::load_safetensors(fixture("bfloat16")).at("x"));
  zt::save_safetensors(path, tensors, {{"source", "test"}});

  const auto bytes = read_bytes(path);
  std::uint64_t header_length = 0;
  std::memcpy(&header_length, bytes.data(), 8);
  BOOST_TEST(header_length % 8 == 0u);
  const zt::SafetensorsFile back = zt::load_safetensors(path, {.copy = false});  // all aligned: no copy needed
  BOOST_TEST(back.metadata.at("source") == "test");
  BOOST_TEST(back.tensors.size() == tensors.size());
  std::size_t total = 0;
  for (const auto& [name, tensor] : tensors) {
    BOOST_TEST_CONTEXT(name) {
      const auto& loaded = back.at(name);
      BOOST_TEST(loaded.dtype() == tensor.dtype());
      BOOST_TEST(loaded.shape() == tensor.shape());
      BOOST_TEST(std::memcmp(loaded.data_ptr(), tensor.data_ptr(), tensor.nbytes()) == 0);
      BOOST_TEST(address(loaded) % zt::alignment(tensor.dtype()) == 0u);
      total += tensor.nbytes();
    }
  }
  BOOST_TEST(bytes.size() == 8 + header_length + total);  // no gaps
}

BOOST_AUTO_TEST_CASE(a_strided_tensor_is_written_in_c_order) {
  TempDir dir;
  std::vector<std::int16_t> values{0, 1, 2, 3, 4, 5};
  zt::Tensor<std::int16_t> transposed(values.data(), {3, 2}, {1, 3});
  zt::save_safetensors(dir / "t.safetensors", {{"t", transposed}});
  const auto back = zt::load_safetensors(dir / "t.safetensors").at("t").as<const std::int16_t, 2>();
  BOOST_TEST(back.strides() == (std::array<zt::index_t, 2>{2, 1}));
  BOOST_TEST(back(0, 1) == 3);
  BOOST_TEST(back(2, 0) == 2);
}

BOOST_AUTO_TEST_CASE(refuses_what_the_format_cannot_hold) {
  TempDir dir;
  std::vector<std::complex<double>> z{{1, 2}};
  BOOST_CHECK_EXCEPTION(zt::save_safetensors(dir / "z.safetensors", {{"z", zt::Tensor<std::complex<double>>(z.data(), {1}, {1})}}),
                        zt::TypeError, with_message<zt::TypeError>("save_safetensors: safetensors has no complex128 dtype"));
  std::vector<float> f{1};
  BOOST_CHECK_EXCEPTION(zt::save_safetensors(dir / "m.safetensors", {{"__metadata__", zt::Tensor<float>(f.data(), {1}, {1})}}),
                        zt::ValueError, with_message<zt::ValueError>("\"__metadata__\" is reserved"));
  BOOST_TEST(!std::filesystem::exists(dir / "z.safetensors"));
}

BOOST_AUTO_TEST_SUITE_END()
