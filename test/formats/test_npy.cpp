// load_npy / save_npy against files NumPy wrote (test/data/npy, made by make_fixtures.py):
// every dtype, C and Fortran order, big-endian, 0-d, empty, format versions 1-3, a
// misaligned file, malformed headers, and NumPy reading what we save; load_npy of the same
// bytes in memory (a zt::Buffer), and the path forms that must keep naming files.
#include <boost/test/unit_test.hpp>

#include <complex>
#include <concepts>
#include <cstring>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

#include "support/file_test_support.hpp"
#include "zerotensor/npy.hpp"
#include "zerotensor/shares_memory.hpp"
#include "zerotensor/empty.hpp"
#include "zerotensor/storage.hpp"

using zt_test::aligned_buffer;
using zt_test::counted_buffer;
using zt_test::data_file;
using zt_test::read_bytes;
using zt_test::TempDir;
using zt_test::write_bytes;
using zt_test::write_text;

namespace {

constexpr std::uintptr_t page_size = 4096;

/// Where the data starts within its page: a view into a fresh mapping sits at the file
/// offset of the data (NumPy pads headers so the data starts at byte 128 in these files).
std::uintptr_t page_offset(const zt::AnyTensor& t) { return reinterpret_cast<std::uintptr_t>(t.data_ptr()) % page_size; }

std::filesystem::path npy(const std::string& name) { return data_file("npy/" + name + ".npy"); }

/// A .npy file with the given preamble version and header text, then `data`.
std::string npy_bytes(const std::string& header, const std::string& data = "", int major = 1) {
  std::string out("\x93NUMPY", 6);
  out += char(major);
  out += char(0);
  const std::size_t length = header.size();
  out += char(length & 0xFF);
  out += char((length >> 8) & 0xFF);
  if (major > 1) out += std::string(2, '\0');
  return out + header + data;
}

/// The message load_npy gives for a malformed file written from `bytes`, and for the same
/// bytes in memory.
void check_malformed(const std::string& bytes, const std::string& expected) {
  TempDir dir;
  const auto path = dir / "bad.npy";
  write_text(path, bytes);
  BOOST_CHECK_EXCEPTION((void)zt::load_npy(path), zt::ValueError,
                        with_message<zt::ValueError>("load_npy: <" + path.string() + ">: " + expected));
  BOOST_CHECK_EXCEPTION((void)zt::load_npy(zt::Buffer(std::string(bytes))), zt::ValueError,
                        with_message<zt::ValueError>("load_npy: <memory>: " + expected));
}

const std::byte* address_in(const zt::Buffer& buffer, std::size_t offset) { return buffer.data() + offset; }

/// Whether load_npy takes a `Source`, with and without options, and returns an AnyTensor.
template <class Source>
concept npy_loads_from = requires {
  { zt::load_npy(std::declval<Source>()) } -> std::same_as<zt::AnyTensor>;
  { zt::load_npy(std::declval<Source>(), {.copy = true}) } -> std::same_as<zt::AnyTensor>;
};

// Paths in every form keep compiling (the bytes overload takes exactly a zt::Buffer, so none
// of them is ambiguous with it); bytes go in as a Buffer and in no other form.
static_assert(npy_loads_from<const char*>);
static_assert(npy_loads_from<const char (&)[6]>);
static_assert(npy_loads_from<std::string>);
static_assert(npy_loads_from<const std::string&>);
static_assert(npy_loads_from<std::filesystem::path>);
static_assert(npy_loads_from<const std::filesystem::path&>);
static_assert(npy_loads_from<zt::Buffer>);
static_assert(npy_loads_from<zt::Buffer&>);
static_assert(npy_loads_from<const zt::Buffer&>);
static_assert(!npy_loads_from<std::vector<std::byte>>);
static_assert(!npy_loads_from<std::string_view>);

template <class T>
void check_values(const zt::AnyTensor& t, std::initializer_list<T> expected) {
  auto typed = t.as<const T>();
  BOOST_REQUIRE(t.numel() == zt::index_t(expected.size()));
  auto flat = typed.array();
  std::size_t i = 0;
  for (const T& value : expected) BOOST_TEST((flat(Eigen::Index(i++)) == value));
}

/// Python with NumPy, for checking that NumPy reads what save_npy writes.
constexpr const char* python = "/usr/bin/python3";

boost::test_tools::assertion_result numpy_available(boost::unit_test::test_unit_id) {
  const std::string command = std::string(python) + " -c 'import numpy' > /dev/null 2>&1";
  boost::test_tools::assertion_result result(std::filesystem::exists(python) && std::system(command.c_str()) == 0);
  result.message() << "skipped: " << python << " with NumPy (Debian's python3-numpy) is not installed";
  return result;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(load_npy)

BOOST_AUTO_TEST_CASE(every_dtype_numpy_writes_is_viewed_in_place) {
  const auto check = [](const std::string& name, zt::DType dtype, auto tag) {
    using T = typename decltype(tag)::type;
    BOOST_TEST_CONTEXT(name) {
      zt::AnyTensor t = zt::load_npy(npy(name));
      BOOST_TEST(t.dtype() == dtype);
      BOOST_TEST(t.shape() == zt::DynamicExtents({4}));
      BOOST_TEST(t.strides() == zt::DynamicExtents({1}));
      BOOST_TEST(!t.is_writable());  // read_only access by default
      BOOST_TEST(page_offset(t) == 128u);
      if constexpr (std::is_same_v<T, bool>) {
        check_values<bool>(t, {true, false, true, true});
      } else if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>) {
        check_values<T>(t, {T(1, 2), T(-3.5, 0.25), T(0, 0), T(4, 0)});
      } else {
        check_values<T>(t, {T(0), T(1), T(2), T(3)});
      }
    }
  };
  check("bool", zt::bool_, std::type_identity<bool>{});
  check("uint8", zt::uint8, std::type_identity<std::uint8_t>{});
  check("int8", zt::int8, std::type_identity<std::int8_t>{});
  check("int16", zt::int16, std::type_identity<std::int16_t>{});
  check("int32", zt::int32, std::type_identity<std::int32_t>{});
  check("int64", zt::int64, std::type_identity<std::int64_t>{});
  check("uint16", zt::uint16, std::type_identity<std::uint16_t>{});
  check("uint32", zt::uint32, std::type_identity<std::uint32_t>{});
  check("uint64", zt::uint64, std::type_identity<std::uint64_t>{});
  check("float16", zt::float16, std::type_identity<Eigen::half>{});
  check("float32", zt::float32, std::type_identity<float>{});
  check("float64", zt::float64, std::type_identity<double>{});
  check("complex64", zt::complex64, std::type_identity<std::complex<float>>{});
  check("complex128", zt::complex128, std::type_identity<std::complex<double>>{});
}

BOOST_AUTO_TEST_CASE(c_order_gives_row_major_strides) {
  auto t = zt::load_npy(npy("float32_c_order")).as<const float, 2>();
  BOOST_TEST(t.shape() == (std::array<zt::index_t, 2>{2, 3}));
  BOOST_TEST(t.strides() == (std::array<zt::index_t, 2>{3, 1}));
  BOOST_TEST(t(1, 2) == 5.0f);
  BOOST_TEST(t.row_major_matrix()(1, 0) == 3.0f);
}

BOOST_AUTO_TEST_CASE(fortran_order_gives_column_major_strides_without_a_copy) {
  zt::AnyTensor any = zt::load_npy(npy("float64_fortran"));
  BOOST_TEST(page_offset(any) == 128u);
  auto t = any.as<const double, 2>();
  BOOST_TEST(t.shape() == (std::array<zt::index_t, 2>{2, 3}));
  BOOST_TEST(t.strides() == (std::array<zt::index_t, 2>{1, 2}));
  BOOST_TEST(!t.is_contiguous());
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) BOOST_TEST(t(i, j) == double(i * 3 + j));
  BOOST_TEST(t.column_major_matrix().sum() == 15.0);
}

BOOST_AUTO_TEST_CASE(big_endian_data_is_copied_byte_swapped) {
  zt::AnyTensor t = zt::load_npy(npy("int32_big_endian"));
  BOOST_TEST(t.dtype() == zt::int32);
  BOOST_TEST(!t.is_writable());  // a copy keeps the writability the view would have had
  BOOST_TEST(reinterpret_cast<std::uintptr_t>(t.data_ptr()) % 64 == 0u);  // our own memory
  check_values<std::int32_t>(t, {1, -2, 3, 70000});
  check_values<std::complex<double>>(zt::load_npy(npy("complex128_big_endian")), {{1, 2}, {-3.5, 0.25}});
  auto fortran = zt::load_npy(npy("float64_fortran_big_endian")).as<const double, 2>();
  BOOST_TEST(fortran.strides() == (std::array<zt::index_t, 2>{1, 2}));
  BOOST_TEST(fortran(1, 2) == 5.0);
  BOOST_TEST(fortran(0, 1) == 1.0);
}

BOOST_AUTO_TEST_CASE(big_endian_data_with_copy_false_or_shared_access_is_refused) {
  const auto path = npy("int32_big_endian");
  BOOST_CHECK_EXCEPTION((void)zt::load_npy(path, {.copy = false}), zt::ValueError,
                        with_message<zt::ValueError>(
                            "array is stored in the other byte order (big-endian) and needs a byte-swapped copy, but copy = false"));
  TempDir dir;
  std::filesystem::copy_file(path, dir / "big.npy");
  BOOST_CHECK_EXCEPTION((void)zt::load_npy(dir / "big.npy", {.access = zt::MapAccess::shared}), zt::ValueError,
                        with_message<zt::ValueError>("so it cannot share memory with the file (shared access)"));
}

BOOST_AUTO_TEST_CASE(a_0d_array_has_rank_0_and_one_element) {
  zt::AnyTensor t = zt::load_npy(npy("float64_0d"));
  BOOST_TEST(t.rank() == 0u);
  BOOST_TEST(t.numel() == 1);
  BOOST_TEST(*static_cast<const double*>(t.data_ptr()) == 3.25);
}

BOOST_AUTO_TEST_CASE(an_empty_array_keeps_its_shape) {
  zt::AnyTensor t = zt::load_npy(npy("float32_empty"));
  BOOST_TEST(t.dtype() == zt::float32);
  BOOST_TEST(t.shape() == zt::DynamicExtents({0, 3}));
  BOOST_TEST(t.numel() == 0);
}

BOOST_AUTO_TEST_CASE(format_versions_1_2_and_3) {
  for (int version : {1, 2, 3}) {
    BOOST_TEST_CONTEXT("version " << version) {
      auto t = zt::load_npy(npy("int16_version_" + std::to_string(version))).as<const std::int16_t, 2>();
      BOOST_TEST(t(0, 0) == 1);
      BOOST_TEST(t(1, 1) == -4);
    }
  }
}

BOOST_AUTO_TEST_CASE(misaligned_data_is_copied_unless_copy_is_false) {
  const auto path = npy("float64_misaligned");
  zt::AnyTensor t = zt::load_npy(path);
  check_values<double>(t, {1.5, -2.0, 8.0});
  BOOST_TEST(reinterpret_cast<std::uintptr_t>(t.data_ptr()) % 8 == 0u);
  BOOST_CHECK_EXCEPTION((void)zt::load_npy(path, {.copy = false}), zt::ValueError,
                        with_message<zt::ValueError>(
                            "array starts at byte offset 68 of the file, at an address not aligned to 8 bytes for "
                            "float64, and needs a copy, but copy = false"));
}

BOOST_AUTO_TEST_CASE(copy_true_copies_even_aligned_data) {
  TempDir dir;
  std::filesystem::copy_file(npy("float32"), dir / "f.npy");
  zt::AnyTensor t = zt::load_npy(dir / "f.npy", {.access = zt::MapAccess::copy_on_write, .copy = true});
  BOOST_TEST(t.is_writable());
  std::weak_ptr<const void> owner = t.owner();
  BOOST_TEST(owner.use_count() == 1);  // the copy's memory only; the mapping is gone
  check_values<float>(t, {0, 1, 2, 3});
  t.as<float, 1>()(0) = 42.0f;  // memory of its own: the file keeps its value
  check_values<float>(zt::load_npy(dir / "f.npy"), {0, 1, 2, 3});
  BOOST_CHECK_EXCEPTION((void)zt::load_npy(dir / "f.npy", {.access = zt::MapAccess::shared, .copy = true}),
                        zt::ValueError, with_message<zt::ValueError>("copy = true cannot be combined with shared access"));
}

BOOST_AUTO_TEST_CASE(copy_on_write_and_shared_access) {
  TempDir dir;
  const auto path = dir / "f.npy";
  std::filesystem::copy_file(npy("float32"), path);
  auto private_view = zt::load_npy(path, {.access = zt::MapAccess::copy_on_write}).as<float, 1>();
  private_view(0) = 42.0f;
  BOOST_TEST((zt::load_npy(path).as<const float, 1>()(0) == 0.0f));
  {
    auto shared_view = zt::load_npy(path, {.access = zt::MapAccess::shared}).as<float, 1>();
    shared_view(1) = -7.0f;
  }
  BOOST_TEST((zt::load_npy(path).as<const float, 1>()(1) == -7.0f));
}

BOOST_AUTO_TEST_CASE(bool_bytes_other_than_0_and_1_are_refused) {
  TempDir dir;
  const auto path = dir / "b.npy";
  auto bytes = read_bytes(npy("bool"));
  bytes[128 + 2] = 2;
  write_bytes(path, bytes);
  BOOST_CHECK_EXCEPTION((void)zt::load_npy(path), zt::ValueError,
                        with_message<zt::ValueError>("array: bool data must be bytes 0 or 1; element 2 is byte 2"));
}

BOOST_AUTO_TEST_CASE(bytes_after_the_array_are_ignored_as_numpy_does) {
  TempDir dir;
  auto bytes = read_bytes(npy("uint8"));
  bytes.push_back(99);
  write_bytes(dir / "long.npy", bytes);
  BOOST_TEST(zt::load_npy(dir / "long.npy").numel() == 4);
}

BOOST_AUTO_TEST_CASE(io_errors_name_the_path) {
  TempDir dir;
  BOOST_CHECK_EXCEPTION((void)zt::load_npy(dir / "none.npy"), zt::IOError,
                        with_message<zt::IOError>("unable to open file <" + (dir / "none.npy").string() +
                                                  "> in read-only mode: No such file or directory (2)"));
}

BOOST_AUTO_TEST_CASE(malformed_files_are_value_errors_naming_what_is_wrong) {
  const std::string good = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n";
  const std::string eight(8, '\0');
  check_malformed("", "truncated: 0 bytes is too short for the 10-byte .npy preamble");
  check_malformed("\x93NUMP", "truncated: 5 bytes is too short for the 10-byte .npy preamble");
  check_malformed("GIF89a, no .npy", "not a .npy file (the magic string \\x93NUMPY is missing)");
  // np.savez (.npz) and torch.save write zip archives: a member, and an archive with none.
  const std::string zip = "is a zip archive (torch.save, np.savez), not a .npy file";
  check_malformed(std::string("PK\x03\x04\x14\x00\x00\x00" "arr_0.npy", 17), zip);
  check_malformed(std::string("PK\x05\x06") + std::string(18, '\0'), zip);
  std::string v4 = npy_bytes(good, eight);
  v4[6] = 4;
  check_malformed(v4, "unsupported .npy format version 4.0 (1.0, 2.0 and 3.0 are known)");
  check_malformed(npy_bytes(good, eight).substr(0, 30),
                  "truncated header: the preamble announces 58 header bytes but only 20 follow");
  check_malformed(std::string("\x93NUMPY\x02\x00\x01\x00\x00", 11), "truncated: 11 bytes is too short for the 12-byte preamble of format 2.0");
  check_malformed(npy_bytes("[1, 2]\n"), "malformed header: expected '{' at position 0, found '[' in [1, 2]");
  check_malformed(npy_bytes("{'descr': '<f4', 'shape': (2,), }\n", eight), "malformed header: missing key 'fortran_order'");
  check_malformed(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}\n", eight),
                  "malformed header: unexpected key 'x'");
  check_malformed(npy_bytes("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}\n", eight),
                  "malformed header: duplicate key 'descr'");
  check_malformed(npy_bytes("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,)}\n", eight),
                  "malformed header: 'descr' is a list: structured dtypes are not supported");
  check_malformed(npy_bytes("{'descr': '<U10', 'fortran_order': False, 'shape': (2,)}\n", eight),
                  "malformed header: unsupported dtype descr '<U10'");
  check_malformed(npy_bytes("{'descr': '', 'fortran_order': False, 'shape': (2,)}\n", eight),
                  "malformed header: unsupported dtype descr ''");
  check_malformed(npy_bytes("{'descr': '<', 'fortran_order': False, 'shape': (2,)}\n", eight),
                  "malformed header: unsupported dtype descr '<'");
  check_malformed(npy_bytes("{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}\n", eight),
                  "malformed header: expected True or False for 'fortran_order' at position 34, found '0'");
  check_malformed(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3)}\n", eight),
                  "malformed header: dimension 1 of 'shape' is negative (-3)");
  check_malformed(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, x)}\n", eight),
                  "malformed header: expected an integer for dimension 1 of 'shape' at position 54, found 'x'");
  check_malformed(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}\n", eight),
                  "malformed header: dimension 0 of 'shape' does not fit in 64 bits");
  check_malformed(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} extra\n", eight),
                  "malformed header: unexpected text after the dict at position 56");
  check_malformed(npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 4)}\n", eight),
                  "shape (4611686018427387904, 4) has more than 2^63 elements");
  // Empty, but its strides would not fit in 64 bits.
  check_malformed(npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (0, 4, 4611686018427387904, 4)}\n"),
                  "shape (0, 4, 4611686018427387904, 4) is empty, but its C-order strides span more than 2^63 "
                  "elements");
  check_malformed(npy_bytes("{'descr': '<f8', 'fortran_order': True, 'shape': (0, 9223372036854775807, 2)}\n"),
                  "shape (0, 9223372036854775807, 2) is empty, but its C-order strides span more than 2^63 elements");
  check_malformed(npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (0, 4611686018427387904)}\n"),
                  "shape (0, 4611686018427387904) is empty, but its C-order strides of 8-byte elements span more "
                  "than 2^63 bytes");
}

BOOST_AUTO_TEST_CASE(python_2_long_literals_in_the_shape_are_read) {
  TempDir dir;
  write_text(dir / "py2.npy", npy_bytes("{'descr': '|u1', 'fortran_order': False, 'shape': (2L, 1L), }\n", "\x05\x06"));
  zt::AnyTensor t = zt::load_npy(dir / "py2.npy");
  BOOST_TEST(t.shape() == zt::DynamicExtents({2, 1}));
  check_values<std::uint8_t>(t, {5, 6});
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(load_npy_from_memory)

BOOST_AUTO_TEST_CASE(every_path_form_still_names_a_file) {
  const std::filesystem::path path = npy("float32");
  for (const zt::AnyTensor& t : {zt::load_npy(path), zt::load_npy(path.string()), zt::load_npy(path.c_str()),
                                 zt::load_npy(path, {.copy = true}), zt::load_npy(path.string(), {.copy = true}),
                                 zt::load_npy(path.c_str(), {.copy = true})})
    check_values<float>(t, {0, 1, 2, 3});
  // Read as bytes, these would be malformed .npy files, not missing ones.
  const auto missing = with_message<zt::IOError>("unable to open file <no_such.npy> in read-only mode");
  BOOST_CHECK_EXCEPTION((void)zt::load_npy("no_such.npy"), zt::IOError, missing);
  BOOST_CHECK_EXCEPTION((void)zt::load_npy("no_such.npy", {.copy = true}), zt::IOError, missing);
  BOOST_CHECK_EXCEPTION((void)zt::load_npy(std::string("no_such.npy")), zt::IOError, missing);
  BOOST_CHECK_EXCEPTION((void)zt::load_npy(std::string("no_such.npy"), {.copy = false}), zt::IOError, missing);
}

BOOST_AUTO_TEST_CASE(bytes_load_as_the_file_does_viewed_in_place) {
  for (const char* name : {"float32", "float64_fortran", "bool", "complex128", "int16_version_3", "float64_0d",
                           "float32_empty"}) {
    BOOST_TEST_CONTEXT(name) {
      const zt::AnyTensor from_file = zt::load_npy(npy(name));
      const zt::Buffer bytes = aligned_buffer(read_bytes(npy(name)));
      const zt::AnyTensor t = zt::load_npy(bytes);
      BOOST_TEST(t.dtype() == from_file.dtype());
      BOOST_TEST(t.shape() == from_file.shape());
      BOOST_TEST(t.strides() == from_file.strides());
      BOOST_TEST(!t.is_writable());
      BOOST_TEST(t.device() == zt::cpu);
      BOOST_TEST(t.owner() == bytes.owner());
      BOOST_TEST(t.data_ptr() == address_in(bytes, page_offset(from_file)));  // where the data lies in the file
      BOOST_TEST(std::memcmp(t.data_ptr(), from_file.data_ptr(), t.nbytes()) == 0);
    }
  }
  check_values<float>(zt::load_npy(aligned_buffer(read_bytes(npy("float32")))), {0, 1, 2, 3});
}

BOOST_AUTO_TEST_CASE(the_buffer_owner_lives_until_the_last_view_dies) {
  int deletions = 0;
  std::optional<zt::AnyTensor> first, second;
  {
    const zt::Buffer buffer = counted_buffer(read_bytes(npy("float32")), deletions);
    first = zt::load_npy(buffer);
    second = zt::load_npy(buffer, {.copy = false});
  }
  BOOST_TEST(deletions == 0);
  check_values<float>(*first, {0, 1, 2, 3});
  first.reset();
  BOOST_TEST(deletions == 0);
  check_values<float>(*second, {0, 1, 2, 3});
  second.reset();
  BOOST_TEST(deletions == 1);

  // A copy holds memory of its own: the buffer goes with its last reference.
  int copy_deletions = 0;
  const zt::AnyTensor copy = zt::load_npy(counted_buffer(read_bytes(npy("float32")), copy_deletions), {.copy = true});
  BOOST_TEST(copy_deletions == 1);
  check_values<float>(copy, {0, 1, 2, 3});
}

BOOST_AUTO_TEST_CASE(misaligned_bytes_are_copied_unless_copy_is_false) {
  const zt::Buffer shifted = aligned_buffer(read_bytes(npy("float32")), 1);
  const zt::AnyTensor t = zt::load_npy(shifted);
  check_values<float>(t, {0, 1, 2, 3});
  BOOST_TEST(reinterpret_cast<std::uintptr_t>(t.data_ptr()) % 64 == 0u);  // memory of its own
  BOOST_TEST(t.owner() != shifted.owner());
  BOOST_TEST(!t.is_writable());
  BOOST_CHECK_EXCEPTION((void)zt::load_npy(shifted, {.copy = false}), zt::ValueError,
                        with_message<zt::ValueError>("load_npy: <memory>: array starts at byte offset 128 of the "
                                                     "buffer, at an address not aligned to 4 bytes for float32, and "
                                                     "needs a copy, but copy = false"));
  // The misaligned file in memory: the file's message, naming the buffer.
  const auto path = npy("float64_misaligned");
  const zt::Buffer misaligned = aligned_buffer(read_bytes(path));
  check_values<double>(zt::load_npy(misaligned), {1.5, -2.0, 8.0});
  const std::string reason = ", at an address not aligned to 8 bytes for float64, and needs a copy, but copy = false";
  BOOST_CHECK_EXCEPTION((void)zt::load_npy(path, {.copy = false}), zt::ValueError,
                        with_message<zt::ValueError>("load_npy: <" + path.string() +
                                                     ">: array starts at byte offset 68 of the file" + reason));
  BOOST_CHECK_EXCEPTION((void)zt::load_npy(misaligned, {.copy = false}), zt::ValueError,
                        with_message<zt::ValueError>("load_npy: <memory>: array starts at byte offset 68 of the "
                                                     "buffer" + reason));
}

BOOST_AUTO_TEST_CASE(truncated_bytes_are_refused_as_a_truncated_file_is) {
  TempDir dir;
  auto bytes = read_bytes(npy("float32"));
  bytes.resize(bytes.size() - 4);
  write_bytes(dir / "short.npy", bytes);
  const std::string shape = "shape (4,) of float32 needs 16 bytes of data but the ";
  BOOST_CHECK_EXCEPTION((void)zt::load_npy(dir / "short.npy"), zt::ValueError,
                        with_message<zt::ValueError>("load_npy: <" + (dir / "short.npy").string() + ">: " + shape +
                                                     "file holds 12 after the header"));
  BOOST_CHECK_EXCEPTION((void)zt::load_npy(aligned_buffer(bytes)), zt::ValueError,
                        with_message<zt::ValueError>("load_npy: <memory>: " + shape +
                                                     "buffer holds 12 after the header"));
  BOOST_CHECK_EXCEPTION((void)zt::load_npy(zt::Buffer(static_cast<const void*>(nullptr), 0)), zt::ValueError,
                        with_message<zt::ValueError>(
                            "load_npy: <memory>: truncated: 0 bytes is too short for the 10-byte .npy preamble"));
}

BOOST_AUTO_TEST_CASE(a_read_only_buffer_gives_read_only_tensors_only) {
  const std::vector<std::uint8_t> bytes = read_bytes(npy("float32"));
  const zt::Buffer read_only{bytes};  // a const range: read-only, borrowed
  BOOST_REQUIRE(!read_only.is_writable());
  for (const zt::LoadOptions& options : {zt::LoadOptions{}, zt::LoadOptions{.copy = true}}) {
    const zt::AnyTensor t = zt::load_npy(read_only, options);
    BOOST_TEST(!t.is_writable());
    check_values<float>(t, {0, 1, 2, 3});
  }
  BOOST_TEST(zt::load_npy(read_only).data_ptr() == bytes.data() + 128);
  BOOST_CHECK_EXCEPTION((void)zt::load_npy(read_only, {.access = zt::MapAccess::shared}), zt::ValueError,
                        with_message<zt::ValueError>(
                            "load_npy: <memory>: shared access gives writable tensors, but the buffer is read-only"));
  BOOST_CHECK_EXCEPTION(
      (void)zt::load_npy(read_only, {.access = zt::MapAccess::copy_on_write, .copy = true}), zt::ValueError,
      with_message<zt::ValueError>(
          "load_npy: <memory>: copy_on_write access gives writable tensors, but the buffer is read-only"));
}

BOOST_AUTO_TEST_CASE(shared_access_writes_reach_the_buffer_and_copy_on_write_copies) {
  std::vector<std::uint8_t> bytes = read_bytes(npy("float32"));
  const zt::Buffer writable{bytes};  // a mutable range: writable, borrowed
  BOOST_TEST(!zt::load_npy(writable).is_writable());  // read_only access by default
  {
    const zt::AnyTensor shared = zt::load_npy(writable, {.access = zt::MapAccess::shared});
    BOOST_TEST(shared.data_ptr() == bytes.data() + 128);
    shared.as<float, 1>()(1) = -7.0f;
  }
  float written = 0;
  std::memcpy(&written, bytes.data() + 128 + 4, sizeof written);
  BOOST_TEST(written == -7.0f);

  const zt::AnyTensor private_copy = zt::load_npy(writable, {.access = zt::MapAccess::copy_on_write});
  BOOST_TEST(private_copy.is_writable());
  BOOST_TEST(!zt::shares_memory(private_copy, zt::load_npy(writable)));
  private_copy.as<float, 1>()(0) = 42.0f;
  check_values<float>(zt::load_npy(writable), {0, -7, 2, 3});

  BOOST_CHECK_EXCEPTION((void)zt::load_npy(writable, {.access = zt::MapAccess::copy_on_write, .copy = false}),
                        zt::ValueError,
                        with_message<zt::ValueError>("load_npy: <memory>: copy_on_write access copies every tensor, "
                                                     "so that writes never reach the buffer, but copy = false"));
  BOOST_CHECK_EXCEPTION((void)zt::load_npy(writable, {.access = zt::MapAccess::shared, .copy = true}), zt::ValueError,
                        with_message<zt::ValueError>("copy = true cannot be combined with shared access: writes to "
                                                     "copies never reach the buffer"));
  std::vector<std::uint8_t> big_endian = read_bytes(npy("int32_big_endian"));
  BOOST_CHECK_EXCEPTION((void)zt::load_npy(zt::Buffer(big_endian), {.access = zt::MapAccess::shared}), zt::ValueError,
                        with_message<zt::ValueError>("load_npy: <memory>: array is stored in the other byte order "
                                                     "(big-endian) and needs a byte-swapped copy, so it cannot share "
                                                     "memory with the buffer (shared access)"));
}

BOOST_AUTO_TEST_CASE(byte_order_and_bool_bytes_follow_the_file_rules) {
  const zt::AnyTensor swapped = zt::load_npy(aligned_buffer(read_bytes(npy("int32_big_endian"))));
  check_values<std::int32_t>(swapped, {1, -2, 3, 70000});
  BOOST_CHECK_EXCEPTION((void)zt::load_npy(aligned_buffer(read_bytes(npy("int32_big_endian"))), {.copy = false}),
                        zt::ValueError,
                        with_message<zt::ValueError>("load_npy: <memory>: array is stored in the other byte order "
                                                     "(big-endian) and needs a byte-swapped copy, but copy = false"));
  auto bools = read_bytes(npy("bool"));
  bools[128 + 2] = 2;
  BOOST_CHECK_EXCEPTION(
      (void)zt::load_npy(aligned_buffer(bools)), zt::ValueError,
      with_message<zt::ValueError>("load_npy: <memory>: array: bool data must be bytes 0 or 1; element 2 is byte 2"));
}

BOOST_AUTO_TEST_CASE(the_views_carry_the_buffer_device) {
  const std::vector<std::uint8_t> bytes = read_bytes(npy("float32"));
  const zt::Device pinned{zt::DeviceKind::CUDAHost, 0};  // host memory: only the label is read
  const zt::AnyTensor t = zt::load_npy(zt::Buffer(static_cast<const void*>(bytes.data()), bytes.size(), {}, pinned));
  BOOST_TEST(t.device() == pinned);
  check_values<float>(t, {0, 1, 2, 3});
  // A buffer the host cannot read is never touched.
  BOOST_CHECK_EXCEPTION((void)zt::load_npy(zt::Buffer(static_cast<const void*>(bytes.data()), 16, {}, zt::cuda(0))),
                        zt::DeviceError,
                        with_message<zt::DeviceError>("load_npy: <memory>: the buffer is on cuda:0, which the host "
                                                      "cannot read; copy it to the CPU first"));
}

BOOST_AUTO_TEST_CASE(a_load_to_a_device_goes_as_the_file_load_does) {
  // Without CUDA or a GPU both refuse the device alike; with one both load the same values there.
  const auto outcome = [](auto load) -> std::string {
    try {
      const zt::AnyTensor t = load();
      const zt::AnyTensor host = t.to(zt::cpu);
      const auto* values = static_cast<const std::int32_t*>(host.data_ptr());
      return zt::to_string(t.device()) + " " + std::to_string(values[0]) + " " + std::to_string(values[3]);
    } catch (const zt::DeviceError& e) {
      const std::string message = e.what();  // after the file's path or "<memory>"
      return "DeviceError" + message.substr(std::min(message.find(">:"), message.size()));
    }
  };
  const auto path = npy("int32_big_endian");
  const zt::LoadOptions to_gpu{.device = zt::cuda(0)};
  const std::string from_file = outcome([&] { return zt::load_npy(path, to_gpu); });
  const std::string from_memory = outcome([&] { return zt::load_npy(aligned_buffer(read_bytes(path)), to_gpu); });
  BOOST_TEST(from_memory == from_file);
  BOOST_TEST((from_file == "cuda:0 1 70000" || from_file.starts_with("DeviceError")), from_file);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(save_npy)

BOOST_AUTO_TEST_CASE(round_trips_every_numpy_dtype) {
  TempDir dir;
  for (zt::DType dtype : zt::all_dtypes) {
    // NumPy has no bfloat16, complex32, 8-bit or packed floats (see save_npy_refuses_...).
    if (dtype == zt::bfloat16 || dtype == zt::complex32_ || zt::is_float8(dtype) || zt::is_packed(dtype)) continue;
    BOOST_TEST_CONTEXT(dtype) {
      zt::AnyTensor source = zt::load_npy(npy(std::string(zt::name(dtype))));
      const auto path = dir / "out.npy";
      zt::save_npy(path, source);
      zt::AnyTensor back = zt::load_npy(path);
      BOOST_TEST(back.dtype() == dtype);
      BOOST_TEST(back.shape() == source.shape());
      BOOST_TEST(page_offset(back) % 64 == 0u);  // the header is padded so the data starts aligned
      BOOST_TEST(std::memcmp(back.data_ptr(), source.data_ptr(), source.nbytes()) == 0);
    }
  }
}

BOOST_AUTO_TEST_CASE(writes_the_header_numpy_writes) {
  TempDir dir;
  zt::save_npy(dir / "a.npy", zt::load_npy(npy("float32_c_order")));
  BOOST_TEST(read_bytes(dir / "a.npy") == read_bytes(npy("float32_c_order")), boost::test_tools::per_element());
  zt::save_npy(dir / "f.npy", zt::load_npy(npy("float64_fortran")));
  BOOST_TEST(read_bytes(dir / "f.npy") == read_bytes(npy("float64_fortran")), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_strided_tensor_is_written_in_c_order) {
  TempDir dir;
  std::vector<std::int32_t> values{0, 1, 2, 3, 4, 5, 6, 7};
  zt::Tensor<std::int32_t> every_other(values.data(), {2, 2}, {4, 2});  // [[0, 2], [4, 6]]
  zt::save_npy(dir / "s.npy", every_other);
  auto back = zt::load_npy(dir / "s.npy").as<const std::int32_t, 2>();
  BOOST_TEST(back.strides() == (std::array<zt::index_t, 2>{2, 1}));
  BOOST_TEST(back(0, 1) == 2);
  BOOST_TEST(back(1, 0) == 4);
  BOOST_TEST(back(1, 1) == 6);
}

BOOST_AUTO_TEST_CASE(a_huge_header_uses_version_2) {
  TempDir dir;
  zt::DynamicExtents shape(30000, 1);
  zt::AnyTensor t = zt::empty(shape, zt::uint8);
  *static_cast<std::uint8_t*>(t.mutable_data_ptr()) = 9;
  zt::save_npy(dir / "wide.npy", t);
  const auto bytes = read_bytes(dir / "wide.npy");
  BOOST_TEST(bytes[6] == 2);
  BOOST_TEST((bytes.size() - 1) % 64 == 0u);
  zt::AnyTensor back = zt::load_npy(dir / "wide.npy");
  BOOST_TEST(back.rank() == 30000u);
  BOOST_TEST(*static_cast<const std::uint8_t*>(back.data_ptr()) == 9);
}

BOOST_AUTO_TEST_CASE(refuses_bfloat16_and_reports_io_errors) {
  TempDir dir;
  zt::AnyTensor half = zt::empty(std::array<zt::index_t, 1>{2}, zt::bfloat16);
  BOOST_CHECK_EXCEPTION(zt::save_npy(dir / "b.npy", half), zt::TypeError,
                        with_message<zt::TypeError>("save_npy: NumPy has no bfloat16 dtype; convert with to(zt::float32) first"));
  const std::array<std::pair<zt::DType, std::string>, 3> refused = {{
      {zt::float8_e4m3fn_, "save_npy: NumPy has no float8_e4m3fn dtype; convert with to(zt::float32) first"},
      {zt::complex32_, "save_npy: NumPy has no complex32 dtype; convert with to(zt::complex64) first"},
      {zt::float4_e2m1fn_x2_, "save_npy: NumPy has no float4_e2m1fn_x2 dtype"}}};
  for (const auto& [dtype, message] : refused)
    BOOST_CHECK_EXCEPTION(zt::save_npy(dir / "f.npy", zt::empty(std::array<zt::index_t, 1>{2}, dtype)), zt::TypeError,
                          with_message<zt::TypeError>(message));
  BOOST_TEST(!std::filesystem::exists(dir / "f.npy"));
  BOOST_CHECK_EXCEPTION(zt::save_npy(dir / "no" / "b.npy", zt::load_npy(npy("uint8"))), zt::IOError,
                        with_message<zt::IOError>("unable to open file <" + (dir / "no" / "b.npy").string() +
                                                  "> for writing: No such file or directory (2)"));
}

BOOST_AUTO_TEST_CASE(numpy_loads_what_we_save, *boost::unit_test::precondition(numpy_available)) {
  TempDir dir;
  std::vector<float> floats{1.5f, -2.0f, 3.25f, 4.0f, 5.0f, 6.0f};
  zt::save_npy(dir / "c.npy", zt::Tensor<float>(floats.data(), {2, 3}, {3, 1}));
  zt::save_npy(dir / "f.npy", zt::Tensor<float>(floats.data(), {3, 2}, {1, 3}));  // Fortran order
  std::vector<std::complex<double>> complexes{{1, -1}, {0.5, 2}};
  zt::save_npy(dir / "z.npy", zt::Tensor<std::complex<double>>(complexes.data(), {2}, {1}));
  bool flags[3] = {true, false, true};
  zt::save_npy(dir / "b.npy", zt::Tensor<bool>(flags, {3}, {1}));
  std::int8_t scalar = -5;
  zt::save_npy(dir / "s.npy", zt::Tensor<std::int8_t>(&scalar, {}, {}));
  zt::save_npy(dir / "e.npy", zt::Tensor<std::uint16_t>(nullptr, {0, 4}, {4, 1}));

  const std::string script =
      "import numpy as np, sys\n"
      "d = sys.argv[1]\n"
      "c = np.load(d + '/c.npy'); assert c.dtype == np.float32 and c.shape == (2, 3) and c[1, 0] == 4.0\n"
      "f = np.load(d + '/f.npy'); assert f.flags.f_contiguous and f.shape == (3, 2) and f[1, 0] == -2.0 and f[0, 1] == 4.0\n"
      "z = np.load(d + '/z.npy'); assert z.dtype == np.complex128 and list(z) == [1 - 1j, 0.5 + 2j]\n"
      "b = np.load(d + '/b.npy'); assert b.dtype == np.bool_ and list(b) == [True, False, True]\n"
      "s = np.load(d + '/s.npy'); assert s.dtype == np.int8 and s.shape == () and s == -5\n"
      "e = np.load(d + '/e.npy'); assert e.dtype == np.uint16 and e.shape == (0, 4)\n";
  write_text(dir / "check.py", script);
  const std::string command = std::string(python) + " " + (dir / "check.py").string() + " " + dir.path().string();
  BOOST_TEST(std::system(command.c_str()) == 0);
}

BOOST_AUTO_TEST_SUITE_END()
