// from_file and map_file: every FF* case of shared/conformance/pytorch-cases.json that has a
// C++ meaning, and where zerotensor deliberately differs (first-byte clobber, negative
// size, directories, devices, read-only mappings, bool bytes, keep-alive).
// FF25 (a str for `shared`) and FF27 (a sparse layout) are Python-only argument matters:
// `shared` is a bool and there is no layout option, so neither can be written in C++.
#include <boost/test/unit_test.hpp>

#include <sys/stat.h>

#include <cstring>
#include <limits>
#include <string>

#include "support/file_test_support.hpp"
#include "zerotensor/from_file.hpp"
#include "zerotensor/mapped_file.hpp"
#include "zerotensor/shares_memory.hpp"

using zt_test::one_to_eight;
using zt_test::read_bytes;
using zt_test::TempDir;
using zt_test::write_bytes;

namespace {

// FF13: file tensors cannot be resized (checked at compile time).
template <class T>
concept Resizable = requires(T t) { t.resize(16); };
static_assert(!Resizable<zt::AnyTensor>);
static_assert(!Resizable<zt::Tensor<std::uint8_t, 1>>);

/// Restores the process-wide default dtype when a test changed it.
struct DefaultDTypeGuard {
  zt::DType saved = zt::default_dtype();
  ~DefaultDTypeGuard() { zt::set_default_dtype(saved); }
};

template <class T>
T from_bytes(const std::uint8_t* bytes) {
  T value;
  std::memcpy(&value, bytes, sizeof value);
  return value;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(from_file)

BOOST_AUTO_TEST_CASE(FF01_size_zero_opens_nothing_and_gives_an_empty_default_dtype_tensor) {
  TempDir dir;
  zt::AnyTensor r = zt::from_file(dir / "missing.bin");
  BOOST_TEST(r.dtype() == zt::float32);
  BOOST_TEST(r.shape() == zt::DynamicExtents({0}));
  BOOST_TEST(r.strides() == zt::DynamicExtents({1}));
  BOOST_TEST(r.device() == zt::cpu);
  BOOST_TEST(r.numel() == 0);
  BOOST_TEST(r.owner() == nullptr);  // no mapping
  BOOST_TEST(!std::filesystem::exists(dir / "missing.bin"));
}

BOOST_AUTO_TEST_CASE(FF02_uint8_values_in_a_writable_private_mapping) {
  TempDir dir;
  write_bytes(dir / "f8.bin", one_to_eight());
  zt::AnyTensor r = zt::from_file(dir / "f8.bin", {.size = 8, .dtype = zt::uint8});
  BOOST_TEST(r.dtype() == zt::uint8);
  BOOST_TEST(r.shape() == zt::DynamicExtents({8}));
  BOOST_TEST(r.strides() == zt::DynamicExtents({1}));
  BOOST_TEST(r.is_writable());
  BOOST_TEST(r.owner() != nullptr);
  auto typed = r.as<std::uint8_t, 1>();
  for (int i = 0; i < 8; ++i) BOOST_TEST(typed(i) == i + 1);
  BOOST_TEST(reinterpret_cast<std::uintptr_t>(r.data_ptr()) % 4096 == 0);  // the start of a mapping
}

BOOST_AUTO_TEST_CASE(FF03_int32_in_native_byte_order) {
  TempDir dir;
  write_bytes(dir / "f8.bin", one_to_eight());
  auto r = zt::from_file(dir / "f8.bin", {.size = 2, .dtype = zt::int32}).as<std::int32_t, 1>();
  BOOST_TEST(r.numel() == 2);
  BOOST_TEST(r(0) == 67305985);
  BOOST_TEST(r(1) == 134678021);
}

BOOST_AUTO_TEST_CASE(FF04_a_prefix_of_a_larger_file) {
  TempDir dir;
  write_bytes(dir / "f8.bin", one_to_eight());
  auto r = zt::from_file(dir / "f8.bin", {.size = 3, .dtype = zt::uint8}).as<std::uint8_t, 1>();
  BOOST_TEST(r.shape() == (std::array<zt::index_t, 1>{3}));
  BOOST_TEST(r(0) == 1);
  BOOST_TEST(r(2) == 3);
}

BOOST_AUTO_TEST_CASE(FF05_a_short_file_is_a_value_error_naming_both_sizes) {
  TempDir dir;
  const auto path = dir / "f8.bin";
  write_bytes(path, one_to_eight());
  BOOST_CHECK_EXCEPTION((void)zt::from_file(path, {.size = 2, .dtype = zt::float64}), zt::ValueError,
                        with_message<zt::ValueError>("file <" + path.string() +
                                                     "> size <8> is smaller than the required mapping size <16>"));
}

BOOST_AUTO_TEST_CASE(FF06_dtype_defaults_to_float32) {
  TempDir dir;
  write_bytes(dir / "f8.bin", one_to_eight());
  zt::AnyTensor r = zt::from_file(dir / "f8.bin", {.size = 2});
  BOOST_TEST(r.dtype() == zt::float32);
  const auto bytes = one_to_eight();
  auto typed = r.as<float, 1>();
  BOOST_TEST(typed(0) == from_bytes<float>(bytes.data()));
  BOOST_TEST(typed(1) == from_bytes<float>(bytes.data() + 4));
  BOOST_TEST(std::abs(typed(0) - 1.539989614439558e-36) < 1e-43);
}

BOOST_AUTO_TEST_CASE(FF08_shared_creates_the_file_with_mode_0600_and_zero_fills_it) {
  TempDir dir;
  const auto path = dir / "new4.bin";
  auto r = zt::from_file(path, {.shared = true, .size = 4, .dtype = zt::int16}).as<std::int16_t, 1>();
  for (int i = 0; i < 4; ++i) BOOST_TEST(r(i) == 0);
  BOOST_TEST(std::filesystem::file_size(path) == 8u);
  struct ::stat status {};
  BOOST_REQUIRE(::stat(path.c_str(), &status) == 0);
  BOOST_TEST((status.st_mode & 0777) == 0600u);
}

BOOST_AUTO_TEST_CASE(FF09_shared_with_size_zero_creates_no_file) {
  TempDir dir;
  zt::AnyTensor r = zt::from_file(dir / "new0.bin", {.shared = true});
  BOOST_TEST(r.dtype() == zt::float32);
  BOOST_TEST(r.numel() == 0);
  BOOST_TEST(!std::filesystem::exists(dir / "new0.bin"));
}

BOOST_AUTO_TEST_CASE(FF10_private_writes_never_reach_the_file) {
  TempDir dir;
  const auto path = dir / "f8.bin";
  write_bytes(path, one_to_eight());
  auto t = zt::from_file(path, {.shared = false, .size = 8, .dtype = zt::uint8}).as<std::uint8_t, 1>();
  t(0) = 99;
  BOOST_TEST(t(0) == 99);
  BOOST_TEST(read_bytes(path)[0] == 1);
  auto again = zt::from_file(path, {.size = 8, .dtype = zt::uint8}).as<std::uint8_t, 1>();
  BOOST_TEST(again(0) == 1);  // another private mapping does not see it either
}

BOOST_AUTO_TEST_CASE(FF11_shared_writes_reach_the_file_and_other_mappings) {
  TempDir dir;
  const auto path = dir / "f8.bin";
  write_bytes(path, one_to_eight());
  {
    auto t = zt::from_file(path, {.shared = true, .size = 8, .dtype = zt::uint8}).as<std::uint8_t, 1>();
    auto other = zt::from_file(path, {.shared = true, .size = 8, .dtype = zt::uint8}).as<std::uint8_t, 1>();
    BOOST_TEST(t.data() != other.data());
    t(0) = 77;
    BOOST_TEST(other(0) == 77);
  }
  BOOST_TEST(read_bytes(path)[0] == 77);
}

BOOST_AUTO_TEST_CASE(FF12_shared_growing_a_shorter_file_keeps_every_existing_byte) {
  // PyTorch writes a zero byte at offset 0 after growing: [0, 2, 3, 4, 0, 0, 0, 0].
  TempDir dir;
  const auto path = dir / "f4.bin";
  write_bytes(path, {1, 2, 3, 4});
  auto t = zt::from_file(path, {.shared = true, .size = 8, .dtype = zt::uint8}).as<std::uint8_t, 1>();
  const std::vector<std::uint8_t> expected{1, 2, 3, 4, 0, 0, 0, 0};
  BOOST_TEST(read_bytes(path) == expected, boost::test_tools::per_element());
  for (int i = 0; i < 8; ++i) BOOST_TEST(t(i) == expected[std::size_t(i)]);
}

// FF14, FF15: PyTorch refuses pinned memory and the meta device for a file tensor;
// zerotensor streams a file to a GPU or pinned memory (the `device` option), which
// test_load_to_device and test/cuda/ check.

BOOST_AUTO_TEST_CASE(FF17_a_negative_size_is_refused_before_mapping) {
  TempDir dir;
  const auto path = dir / "f8.bin";
  write_bytes(path, one_to_eight());
  BOOST_CHECK_EXCEPTION((void)zt::from_file(path, {.size = -1, .dtype = zt::uint8}), zt::ValueError,
                        with_message<zt::ValueError>("from_file: size must be non-negative; got -1 for file <" +
                                                     path.string() + ">"));
}

BOOST_AUTO_TEST_CASE(FF18_an_empty_file_is_too_short_and_never_mapped) {
  TempDir dir;
  const auto path = dir / "e.bin";
  write_bytes(path, {});
  BOOST_CHECK_EXCEPTION((void)zt::from_file(path, {.size = 1, .dtype = zt::uint8}), zt::ValueError,
                        with_message<zt::ValueError>("file <" + path.string() +
                                                     "> size <0> is smaller than the required mapping size <1>"));
}

BOOST_AUTO_TEST_CASE(FF21_a_path_or_a_string_names_the_file) {
  TempDir dir;
  const auto path = dir / "f8.bin";
  write_bytes(path, one_to_eight());
  BOOST_TEST(zt::from_file(path.string(), {.size = 8, .dtype = zt::uint8}).numel() == 8);
  BOOST_TEST(zt::from_file(path.c_str(), {.size = 8, .dtype = zt::uint8}).numel() == 8);
  BOOST_TEST(zt::from_file(path, {.size = 8, .dtype = zt::uint8}).numel() == 8);
}

BOOST_AUTO_TEST_CASE(FF22_bool_bytes_other_than_0_and_1_are_refused) {
  // PyTorch reads bytes 1..8 as eight `true`s; a C++ bool holding 2 is undefined behaviour.
  TempDir dir;
  write_bytes(dir / "f8.bin", one_to_eight());
  BOOST_CHECK_EXCEPTION((void)zt::from_file(dir / "f8.bin", {.size = 8, .dtype = zt::bool_}), zt::ValueError,
                        with_message<zt::ValueError>("bool data must be bytes 0 or 1; element 1 is byte 2"));
  write_bytes(dir / "b.bin", {1, 0, 1, 1});
  auto r = zt::from_file(dir / "b.bin", {.size = 4, .dtype = zt::bool_}).as<bool, 1>();
  BOOST_TEST(r(0) == true);
  BOOST_TEST(r(1) == false);
  BOOST_TEST(r(3) == true);
}

BOOST_AUTO_TEST_CASE(FF23_dtype_follows_the_process_default) {
  DefaultDTypeGuard guard;
  TempDir dir;
  write_bytes(dir / "f8.bin", one_to_eight());
  zt::set_default_dtype(zt::float64);
  zt::AnyTensor r = zt::from_file(dir / "f8.bin", {.size = 1});
  BOOST_TEST(r.dtype() == zt::float64);
  const auto bytes = one_to_eight();
  const double value = r.as<double, 1>()(0);
  BOOST_TEST(value == from_bytes<double>(bytes.data()));
  BOOST_TEST(std::abs(value / 5.447603722011605e-270 - 1) < 1e-15);
}

BOOST_AUTO_TEST_CASE(FF24_the_default_is_a_private_mapping) {
  TempDir dir;
  const auto path = dir / "f8.bin";
  write_bytes(path, one_to_eight());
  auto t = zt::from_file(path, {.size = 4, .dtype = zt::uint8}).as<std::uint8_t, 1>();
  BOOST_TEST(t(3) == 4);
  t(3) = 40;
  BOOST_TEST(read_bytes(path)[3] == 4);
}

BOOST_AUTO_TEST_CASE(a_missing_file_is_an_io_error_with_path_mode_and_os_reason) {
  TempDir dir;
  const auto path = dir / "nofile.bin";
  BOOST_CHECK_EXCEPTION((void)zt::from_file(path, {.size = 1, .dtype = zt::uint8}), zt::IOError,
                        with_message<zt::IOError>("unable to open file <" + path.string() +
                                                  "> in read-only mode: No such file or directory (2)"));
  BOOST_CHECK_EXCEPTION((void)zt::from_file(dir / "no" / "dir.bin", {.shared = true, .size = 1, .dtype = zt::uint8}),
                        zt::IOError, with_message<zt::IOError>("in read-write mode: No such file or directory (2)"));
}

BOOST_AUTO_TEST_CASE(a_directory_is_refused) {
  TempDir dir;
  const std::string shown = "unable to open file <" + dir.path().string() + ">";
  BOOST_CHECK_EXCEPTION((void)zt::from_file(dir.path(), {.size = 1, .dtype = zt::uint8}), zt::IOError,
                        with_message<zt::IOError>(shown + " in read-only mode: Is a directory (21)"));
  BOOST_CHECK_EXCEPTION((void)zt::from_file(dir.path(), {.shared = true, .size = 1, .dtype = zt::uint8}), zt::IOError,
                        with_message<zt::IOError>(shown + " in read-write mode: Is a directory (21)"));
}

BOOST_AUTO_TEST_CASE(a_byte_count_that_overflows_is_refused) {
  TempDir dir;
  write_bytes(dir / "f8.bin", one_to_eight());
  const zt::index_t huge = std::numeric_limits<zt::index_t>::max() / 4;
  BOOST_CHECK_EXCEPTION((void)zt::from_file(dir / "f8.bin", {.size = huge, .dtype = zt::float64}), zt::ValueError,
                        with_message<zt::ValueError>("from_file: size " + std::to_string(huge) +
                                                     " of float64 (8 bytes each) overflows a 64-bit byte count"));
}

BOOST_AUTO_TEST_CASE(read_only_mapping_gives_a_read_only_tensor) {
  TempDir dir;
  const auto path = dir / "f8.bin";
  write_bytes(path, one_to_eight());
  zt::AnyTensor r = zt::from_file(path, {.size = 8, .dtype = zt::uint8, .writable = false});
  BOOST_TEST(!r.is_writable());
  BOOST_CHECK_THROW((void)r.as<std::uint8_t>(), zt::TypeError);
  BOOST_CHECK_THROW((void)r.mutable_data_ptr(), zt::TypeError);
  BOOST_TEST((r.as<const std::uint8_t, 1>()(7) == 8));
  // A read-only shared mapping sees what a writer does to the file.
  auto writer = zt::from_file(path, {.shared = true, .size = 8, .dtype = zt::uint8}).as<std::uint8_t, 1>();
  auto reader = zt::from_file(path, {.shared = true, .size = 8, .dtype = zt::uint8, .writable = false})
                    .as<const std::uint8_t, 1>();
  writer(5) = 60;
  BOOST_TEST(reader(5) == 60);
}

BOOST_AUTO_TEST_CASE(read_only_never_creates_or_grows_the_file) {
  TempDir dir;
  BOOST_CHECK_EXCEPTION(
      (void)zt::from_file(dir / "absent.bin", {.shared = true, .size = 4, .dtype = zt::uint8, .writable = false}),
      zt::IOError, with_message<zt::IOError>("in read-only mode: No such file or directory (2)"));
  BOOST_TEST(!std::filesystem::exists(dir / "absent.bin"));
  write_bytes(dir / "f4.bin", {1, 2, 3, 4});
  BOOST_CHECK_EXCEPTION(
      (void)zt::from_file(dir / "f4.bin", {.shared = true, .size = 8, .dtype = zt::uint8, .writable = false}),
      zt::ValueError, with_message<zt::ValueError>("size <4> is smaller than the required mapping size <8>"));
  BOOST_TEST(std::filesystem::file_size(dir / "f4.bin") == 4u);
}

BOOST_AUTO_TEST_CASE(a_file_without_write_permission_maps_read_only,
                     *boost::unit_test::precondition(zt_test::not_root)) {
  TempDir dir;
  const auto path = dir / "locked.bin";
  write_bytes(path, one_to_eight());
  std::filesystem::permissions(path, std::filesystem::perms::owner_read);
  BOOST_TEST(zt::from_file(path, {.size = 8, .dtype = zt::uint8, .writable = false}).numel() == 8);
  BOOST_CHECK_EXCEPTION((void)zt::from_file(path, {.shared = true, .size = 8, .dtype = zt::uint8}), zt::IOError,
                        with_message<zt::IOError>("in read-write mode: Permission denied (13)"));
}

BOOST_AUTO_TEST_CASE(the_mapping_lives_as_long_as_any_view) {
  TempDir dir;
  const auto path = dir / "f8.bin";
  write_bytes(path, one_to_eight());
  zt::Tensor<std::uint8_t, 1> view = zt::from_file<std::uint8_t>(path, {.size = 8});
  std::weak_ptr<const void> mapping = view.owner();
  {
    zt::AnyTensor copy = view;
    BOOST_TEST(zt::shares_memory(copy, view));
    BOOST_TEST(mapping.use_count() == 2);
  }
  std::filesystem::remove(path);  // the mapping outlives the file's name
  BOOST_TEST(view(7) == 8);
  view = zt::Tensor<std::uint8_t, 1>(nullptr, {0}, {1});
  BOOST_TEST(mapping.expired());  // unmapped with the last view
}

BOOST_AUTO_TEST_CASE(typed_form_checks_dtype_and_constness) {
  TempDir dir;
  const auto path = dir / "f8.bin";
  write_bytes(path, one_to_eight());
  zt::Tensor<const std::int16_t, 1> read_only = zt::from_file<const std::int16_t>(path, {.size = 4});
  BOOST_TEST(read_only(0) == 0x0201);
  BOOST_CHECK_EXCEPTION((void)zt::from_file<float>(path, {.size = 2, .dtype = zt::int32}), zt::TypeError,
                        with_message<zt::TypeError>("from_file<float32>: the dtype option says int32"));
  BOOST_CHECK_EXCEPTION((void)zt::from_file<float>(path, {.size = 2, .writable = false}), zt::TypeError,
                        with_message<zt::TypeError>("ask for from_file<const float32> instead"));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(map_file)

BOOST_AUTO_TEST_CASE(maps_the_whole_file_by_default_read_only) {
  TempDir dir;
  write_bytes(dir / "f8.bin", one_to_eight());
  const zt::Buffer bytes = zt::map_file(dir / "f8.bin");
  BOOST_TEST(bytes.nbytes() == 8u);
  BOOST_TEST(!bytes.is_writable());
  BOOST_TEST(bytes.owner() != nullptr);
  BOOST_TEST(std::to_integer<int>(bytes.data()[7]) == 8);
}

BOOST_AUTO_TEST_CASE(an_empty_file_gives_an_empty_buffer_without_a_mapping) {
  TempDir dir;
  write_bytes(dir / "e.bin", {});
  const zt::Buffer bytes = zt::map_file(dir / "e.bin", {.access = zt::MapAccess::copy_on_write});
  BOOST_TEST(bytes.nbytes() == 0u);
  BOOST_TEST(bytes.owner() == nullptr);
}

BOOST_AUTO_TEST_CASE(an_empty_mapping_is_writable_unless_read_only) {
  TempDir dir;
  write_bytes(dir / "e.bin", {});
  BOOST_TEST(!zt::map_file(dir / "e.bin").is_writable());
  BOOST_TEST(zt::map_file(dir / "e.bin", {.access = zt::MapAccess::copy_on_write}).is_writable());
  BOOST_TEST(zt::map_file(dir / "e.bin", {.access = zt::MapAccess::shared}).is_writable());
  BOOST_TEST(zt::map_file(dir / "new.bin", {.access = zt::MapAccess::shared, .length = 0, .create = true}).is_writable());
}

BOOST_AUTO_TEST_CASE(create_grows_the_open_file_and_keeps_its_bytes) {
  TempDir dir;
  write_bytes(dir / "f.bin", {1, 2, 3});
  const zt::Buffer bytes = zt::map_file(dir / "f.bin", {.access = zt::MapAccess::shared, .length = 4096, .create = true});
  BOOST_TEST(bytes.nbytes() == 4096u);
  BOOST_TEST(std::filesystem::file_size(dir / "f.bin") == 4096u);
  BOOST_TEST(std::to_integer<int>(bytes.data()[2]) == 3);
  BOOST_TEST(std::to_integer<int>(bytes.data()[4095]) == 0);  // inside the file: no SIGBUS
  bytes.writable_bytes()[4095] = std::byte{9};
  BOOST_TEST(read_bytes(dir / "f.bin")[4095] == 9);
}

BOOST_AUTO_TEST_CASE(create_needs_shared_access) {
  TempDir dir;
  BOOST_CHECK_EXCEPTION((void)zt::map_file(dir / "x.bin", {.length = 4, .create = true}), zt::ValueError,
                        with_message<zt::ValueError>("create needs shared access"));
  BOOST_TEST(!std::filesystem::exists(dir / "x.bin"));
}

BOOST_AUTO_TEST_SUITE_END()
