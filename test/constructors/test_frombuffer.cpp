// frombuffer: every FB* case of shared/conformance/pytorch-cases.json that has a C++
// meaning, and where zerotensor deliberately differs (overflow, alignment, read-only,
// bool bytes, keep-alive).
#include <boost/test/unit_test.hpp>

#include <complex>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "zerotensor/frombuffer.hpp"
#include "zerotensor/shares_memory.hpp"
#include "support/message_check.hpp"

namespace {

std::vector<std::uint8_t> bytes(std::initializer_list<int> values) {
  return std::vector<std::uint8_t>(values.begin(), values.end());
}

template <class B>
concept FromBufferWithoutDType = requires(B buffer) { zt::frombuffer(buffer); };

template <class T>
concept Resizable = requires(T t) { t.resize(16); };

}  // namespace

BOOST_AUTO_TEST_SUITE(frombuffer)

BOOST_AUTO_TEST_CASE(FB01_writable_bytes_as_uint8_share_memory) {
  auto ba = bytes({1, 2, 3, 4});
  zt::AnyTensor r = zt::frombuffer(ba, zt::uint8);
  BOOST_TEST(r.dtype() == zt::uint8);
  BOOST_TEST(r.shape() == zt::DynamicExtents({4}));
  BOOST_TEST(r.strides() == zt::DynamicExtents({1}));
  BOOST_TEST(r.device() == zt::cpu);
  BOOST_TEST(r.is_writable());
  BOOST_TEST(r.data_ptr() == ba.data());
  auto typed = r.as<std::uint8_t, 1>();
  BOOST_TEST(typed(3) == 4);
  typed(0) = 9;  // shared in both directions
  BOOST_TEST(ba[0] == 9);
}

BOOST_AUTO_TEST_CASE(FB02_read_only_bytes_give_a_read_only_tensor) {
  const std::string b("\x01\x02\x03\x04", 4);
  zt::AnyTensor r = zt::frombuffer(b, zt::uint8);
  BOOST_TEST(!r.is_writable());
  BOOST_TEST(r.data_ptr() == b.data());
  BOOST_TEST(r.as<const std::uint8_t>()(2) == 3);
  BOOST_CHECK_EXCEPTION((void)r.as<std::uint8_t>(), zt::TypeError,
                        with_message<zt::TypeError>("expected uint8, writable; got uint8, shape (4,), strides (1,), cpu, read-only"));
  BOOST_CHECK_EXCEPTION((void)zt::frombuffer<std::uint8_t>(b), zt::TypeError,
                        with_message<zt::TypeError>("frombuffer: the buffer is read-only"));
  zt::Tensor<const std::uint8_t, 1> typed = zt::frombuffer<const std::uint8_t>(b);
  BOOST_TEST(typed(0) == 1);
}

BOOST_AUTO_TEST_CASE(FB03_native_byte_order) {
  auto ba = bytes({1, 2, 3, 4});
  alignas(4) std::uint8_t aligned[4];
  std::memcpy(aligned, ba.data(), 4);
  auto r = zt::frombuffer<std::int32_t>(aligned);
  BOOST_TEST(r.numel() == 1);
  BOOST_TEST(r(0) == 67305985);
}

BOOST_AUTO_TEST_CASE(FB04_doubles) {
  std::vector<double> a = {1.5, 2.5};
  auto r = zt::frombuffer(a, zt::float64);
  BOOST_TEST(r.as<double>()(1) == 2.5);
  BOOST_TEST(r.data_ptr() == a.data());
}

BOOST_AUTO_TEST_CASE(FB05_FB06_FB07_empty_buffer_or_zero_count) {
  std::vector<std::uint8_t> empty;
  std::vector<std::uint8_t> four(4);
  BOOST_CHECK_EXCEPTION(zt::frombuffer(empty, zt::uint8), zt::ValueError,
                        with_message<zt::ValueError>("both buffer length (0) and count (-1) must not be 0"));
  BOOST_CHECK_EXCEPTION(zt::frombuffer(four, zt::uint8, {.count = 0}), zt::ValueError,
                        with_message<zt::ValueError>("both buffer length (4) and count (0) must not be 0"));
  BOOST_CHECK_EXCEPTION(zt::frombuffer(empty, zt::uint8, {.count = 1}), zt::ValueError,
                        with_message<zt::ValueError>("both buffer length (0) and count (1) must not be 0"));
}

BOOST_AUTO_TEST_CASE(FB09_offset_out_of_range) {
  std::vector<std::uint8_t> four(4);
  BOOST_CHECK_EXCEPTION(
      zt::frombuffer(four, zt::uint8, {.offset = -1}), zt::ValueError,
      with_message<zt::ValueError>("offset (-1 bytes) must be non-negative and no greater than buffer length (4 bytes) minus 1"));
  // offset == length is an error even with a positive count, as in PyTorch.
  BOOST_CHECK_EXCEPTION(
      zt::frombuffer(four, zt::uint8, {.count = 1, .offset = 4}), zt::ValueError,
      with_message<zt::ValueError>("offset (4 bytes) must be non-negative and no greater than buffer length (4 bytes) minus 1"));
}

BOOST_AUTO_TEST_CASE(FB10_FB13_remainder_not_a_multiple_of_the_itemsize) {
  alignas(8) std::uint8_t five[5] = {};
  alignas(8) std::uint8_t eight[8] = {};
  BOOST_CHECK_EXCEPTION(
      zt::frombuffer(five, zt::int32), zt::ValueError,
      with_message<zt::ValueError>("buffer length (5 bytes) after offset (0 bytes) must be a multiple of element size (4)"));
  BOOST_CHECK_EXCEPTION(
      zt::frombuffer(eight, zt::int32, {.offset = 1}), zt::ValueError,
      with_message<zt::ValueError>("buffer length (7 bytes) after offset (1 bytes) must be a multiple of element size (4)"));
}

BOOST_AUTO_TEST_CASE(FB12_count_that_does_not_fit) {
  alignas(8) std::uint8_t five[5] = {};
  BOOST_CHECK_EXCEPTION(
      zt::frombuffer(five, zt::int32, {.count = 2}), zt::ValueError,
      with_message<zt::ValueError>(
          "requested buffer length (2 * 4 bytes) after offset (0 bytes) must not be greater than actual buffer length (5 bytes)"));
}

BOOST_AUTO_TEST_CASE(FB14_misaligned_start_is_refused_with_the_alignment) {
  // PyTorch returns a misaligned int32 view; in C++ that is undefined behaviour.
  alignas(8) std::uint8_t ba[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  BOOST_CHECK_EXCEPTION(zt::frombuffer(ba, zt::int32, {.count = 1, .offset = 1}), zt::ValueError,
                        with_message<zt::ValueError>("(offset 1 bytes) is not aligned to 4 bytes, the alignment of int32"));
  alignas(16) std::byte wide[40] = {};
  BOOST_CHECK_EXCEPTION((void)zt::frombuffer<std::complex<double>>(zt::Buffer(static_cast<void*>(wide + 4), 32)),
                        zt::ValueError, with_message<zt::ValueError>("is not aligned to 8 bytes, the alignment of complex128"));
  // The same bytes as uint8 at offset 1 are fine.
  BOOST_TEST(zt::frombuffer<std::uint8_t>(ba, {.count = 4, .offset = 1})(0) == 1);
}

BOOST_AUTO_TEST_CASE(FB15_any_negative_count_means_all_remaining) {
  auto ba = bytes({0, 1, 2, 3, 4, 5, 6, 7});
  auto r = zt::frombuffer<std::uint8_t>(ba, {.count = -5});
  BOOST_TEST(r.numel() == 8);
  BOOST_TEST(r(7) == 7);
}

BOOST_AUTO_TEST_CASE(FB16_FB36_huge_counts_do_not_overflow) {
  // PyTorch wraps count * itemsize in size_t and returns 2^61+1 (or 2^62) elements over
  // an 8-byte storage; zerotensor checks the multiplication.
  alignas(8) std::uint8_t eight[8] = {};
  const zt::index_t huge = (zt::index_t{1} << 61) + 1;
  BOOST_CHECK_EXCEPTION(zt::frombuffer(eight, zt::int64, {.count = huge}), zt::ValueError,
                        with_message<zt::ValueError>("requested buffer length (2305843009213693953 * 8 bytes) after offset "
                                                     "(0 bytes) must not be greater than actual buffer length (8 bytes)"));
  BOOST_CHECK_EXCEPTION(zt::frombuffer(eight, zt::int64, {.count = zt::index_t{1} << 62}), zt::ValueError,
                        with_message<zt::ValueError>("requested buffer length (4611686018427387904 * 8 bytes)"));
  BOOST_CHECK_THROW(zt::frombuffer(eight, zt::complex128, {.count = std::numeric_limits<zt::index_t>::max()}),
                    zt::ValueError);
}

BOOST_AUTO_TEST_CASE(FB23_bool_bytes_must_be_0_or_1) {
  // PyTorch views byte 2 as a True whose storage byte is 2; a C++ bool holding 2 is
  // undefined behaviour, so zerotensor checks Bool data where bytes become bool.
  auto good = bytes({0, 1, 1});
  auto r = zt::frombuffer<bool>(good);
  BOOST_TEST(!r(0));
  BOOST_TEST(r(1));
  auto bad = bytes({0, 1, 2});
  BOOST_CHECK_EXCEPTION(zt::frombuffer(bad, zt::bool_), zt::ValueError,
                        with_message<zt::ValueError>("bool data must be bytes 0 or 1; element 2 is byte 2"));
}

BOOST_AUTO_TEST_CASE(FB24_bfloat16_and_float16) {
  alignas(2) std::uint8_t ba[4] = {0x80, 0x3f, 0x00, 0xc0};
  auto r = zt::frombuffer<Eigen::bfloat16>(ba);
  BOOST_TEST(static_cast<float>(r(0)) == 1.0f);
  BOOST_TEST(static_cast<float>(r(1)) == -2.0f);
  alignas(2) std::uint8_t half_bytes[2] = {0x00, 0x3c};
  BOOST_TEST(static_cast<float>(zt::frombuffer<Eigen::half>(half_bytes)(0)) == 1.0f);
}

BOOST_AUTO_TEST_CASE(FB25_complex64) {
  std::vector<float> parts = {1.0f, 2.0f};
  auto r = zt::frombuffer(parts, zt::complex64);
  BOOST_TEST(r.as<std::complex<float>>()(0) == std::complex<float>(1.0f, 2.0f));
}

BOOST_AUTO_TEST_CASE(FB29_FB35_offsets_and_exact_fit) {
  auto ba = bytes({0, 1, 2, 3, 4, 5});
  auto r = zt::frombuffer<std::uint8_t>(ba, {.offset = 2});
  BOOST_TEST(r.numel() == 4);
  BOOST_TEST(r(0) == 2);
  BOOST_TEST(r.data() == ba.data() + 2);  // the offset is folded into the data pointer

  std::vector<float> sixteen_bytes(4, 0.0f);
  auto exact = zt::frombuffer(sixteen_bytes, zt::float32, {.count = 3, .offset = 4});
  BOOST_TEST(exact.numel() == 3);
  BOOST_TEST(exact.data_ptr() == sixteen_bytes.data() + 1);
}

BOOST_AUTO_TEST_CASE(FB30_never_resizable_and_always_1d_contiguous) {
  std::vector<std::uint8_t> ba(8);
  auto t = zt::frombuffer<std::uint8_t>(ba);
  BOOST_TEST(decltype(t)::static_rank == 1u);
  BOOST_TEST(t.is_contiguous());
  BOOST_TEST(!Resizable<decltype(t)>);
}

BOOST_AUTO_TEST_CASE(FB32_read_only_memory_stays_const) {
  // A read-only mapping (Python mmap ACCESS_READ) is a const buffer: the tensor's element
  // type is const, so a write does not compile, and the AnyTensor refuses a writable view.
  static const std::uint8_t rom[2] = {7, 8};
  auto r = zt::frombuffer(zt::Buffer(static_cast<const void*>(rom), 2), zt::uint8);
  BOOST_TEST(!r.is_writable());
  BOOST_TEST(r.as<const std::uint8_t>()(1) == 8);
  BOOST_CHECK_THROW((void)r.mutable_data_ptr(), zt::TypeError);
  using Typed = decltype(zt::frombuffer<const std::uint8_t>(zt::Buffer(rom)));
  BOOST_TEST(std::is_const_v<Typed::element_type>);
}

BOOST_AUTO_TEST_CASE(FB34_views_keep_the_owner_alive) {
  // PyTorch does not hold the buffer export, so resizing the bytearray dangles. Here an
  // owned buffer lives as long as any view; the original handle is destroyed first.
  auto owner = std::make_shared<std::vector<float>>(std::vector<float>{1.0f, 2.0f, 3.0f});
  std::weak_ptr<std::vector<float>> watch = owner;
  zt::AnyTensor view = zt::frombuffer(owner, zt::float32);
  owner.reset();
  BOOST_TEST(!watch.expired());
  BOOST_TEST(view.as<float>()(2) == 3.0f);
  zt::Tensor<float, 1> typed = zt::frombuffer<float>(std::vector<float>{4.0f, 5.0f});
  BOOST_TEST(typed(1) == 5.0f);
  {
    zt::AnyTensor moved_away = std::move(view);
    BOOST_TEST(!watch.expired());
  }
  BOOST_TEST(watch.expired());
}

BOOST_AUTO_TEST_CASE(FB18_the_dtype_is_required) {
  // PyTorch: TypeError "missing 1 required positional arguments: dtype"; here it does not compile.
  BOOST_TEST(!FromBufferWithoutDType<zt::Buffer>);
}

BOOST_AUTO_TEST_CASE(device_memory_is_refused) {
  alignas(8) std::byte raw[8] = {};
  BOOST_CHECK_EXCEPTION(zt::frombuffer(zt::Buffer(static_cast<void*>(raw), 8, {}, zt::cuda(0)), zt::uint8),
                        zt::DeviceError, with_message<zt::DeviceError>("frombuffer: the memory is on cuda:0"));
}

BOOST_AUTO_TEST_CASE(every_dtype_views_the_same_address) {
  alignas(16) std::byte raw[1024] = {};
  for (zt::DType dtype : zt::all_dtypes) {
    const std::size_t length = 1024 / zt::itemsize(dtype) * zt::itemsize(dtype);
    auto t = zt::frombuffer(zt::Buffer(static_cast<void*>(raw), length), dtype);
    BOOST_TEST(t.dtype() == dtype);
    BOOST_TEST(t.numel() == zt::index_t(1024 / zt::itemsize(dtype)));
    BOOST_TEST(t.data_ptr() == raw);
  }
}

BOOST_AUTO_TEST_SUITE_END()
