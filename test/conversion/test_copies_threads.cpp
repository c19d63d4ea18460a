// ToOptions::threads: a large copy split across threads along its outermost dimension gives
// exactly the one-thread copy, for transposed, strided, reversed and converting copies, an
// outer extent smaller than the thread count, and uneven parts; destinations whose elements
// repeat are refused, and ones that may overlap are written by one thread.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "zerotensor/convert.hpp"
#include "zerotensor/empty.hpp"
#include "support/message_check.hpp"

namespace {

/// Whether the two tensors hold the same bytes (both contiguous, same dtype and shape).
bool same_bytes(const zt::AnyTensor& a, const zt::AnyTensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && a.is_contiguous() && b.is_contiguous() &&
         std::memcmp(a.data_ptr(), b.data_ptr(), a.nbytes()) == 0;
}

template <class T>
std::vector<T> ramp(std::size_t n) {
  std::vector<T> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = T(double(i % 4099) * 0.75 - 1000.0);
  return values;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_transposed_clone_on_several_threads_is_the_one_thread_clone) {
  constexpr zt::index_t side = 1024;  // 4 MiB of int32: up to four threads
  std::vector<std::int32_t> values(side * side);
  std::iota(values.begin(), values.end(), 0);
  const zt::AnyTensor transposed = zt::Tensor<std::int32_t, 2>(values.data(), {side, side}, {1, side});
  const zt::AnyTensor one = transposed.clone();
  for (unsigned threads : {2u, 3u, 4u, 0u}) {
    BOOST_TEST_CONTEXT("threads " << threads) {
      const zt::AnyTensor many = transposed.clone({.threads = threads});
      BOOST_TEST(same_bytes(many, one));
      const auto out = many.as<const std::int32_t, 2>();
      BOOST_TEST(out(0, 1) == side);
      BOOST_TEST(out(side - 1, side - 2) == std::int32_t((side - 2) * side + side - 1));
    }
  }
}

BOOST_AUTO_TEST_CASE(a_converting_copy_of_a_permuted_view_on_threads_is_the_one_thread_copy) {
  // (96, 128, 160) float32 seen as (160, 96, 128): 1,966,080 elements, 3.75 MiB as float16.
  std::vector<float> values = ramp<float>(96 * 128 * 160);
  const zt::AnyTensor permuted = zt::Tensor<float, 3>(values.data(), {160, 96, 128}, {1, 128 * 160, 160});
  for (zt::DType dtype : {zt::float16, zt::int32, zt::float64}) {
    BOOST_TEST_CONTEXT(dtype) {
      const zt::AnyTensor one = permuted.to(dtype);
      BOOST_TEST(same_bytes(permuted.to(dtype, {.threads = 3}), one));
      BOOST_TEST(same_bytes(permuted.contiguous().to(dtype, {.threads = 4}), one));
    }
  }
  BOOST_TEST((permuted.to(zt::int32).as<const std::int32_t, 3>()(1, 0, 0) == std::int32_t(values[1])));
}

BOOST_AUTO_TEST_CASE(copy_into_a_strided_reversed_destination_on_threads_fills_the_same_elements) {
  // Every other column of a (1024, 2048) float64 buffer, rows reversed: 8 MiB written.
  constexpr zt::index_t rows = 1024, columns = 1024;
  std::vector<std::int64_t> source = ramp<std::int64_t>(rows * columns);
  const zt::AnyTensor in = zt::Tensor<std::int64_t, 2>(source.data(), {rows, columns}, {columns, 1});
  std::vector<double> one(rows * 2 * columns, -1.0), many(rows * 2 * columns, -1.0);
  const auto destination = [](std::vector<double>& buffer) {
    return zt::AnyTensor(zt::Tensor<double, 2>(buffer.data() + (rows - 1) * 2 * columns, {rows, columns}, {-2 * columns, 2}));
  };
  zt::copy_into(in, destination(one));
  zt::copy_into(in, destination(many), {.threads = 4});
  BOOST_TEST(std::memcmp(one.data(), many.data(), one.size() * sizeof(double)) == 0);
  BOOST_TEST(many[1] == -1.0);
  BOOST_TEST(many[(rows - 1) * 2 * columns + 2] == double(source[1]));
}

BOOST_AUTO_TEST_CASE(an_outer_extent_smaller_than_the_threads_and_uneven_parts_copy_every_element) {
  // Two rows that do not chain (a gap after each), asked for 8 threads.
  constexpr zt::index_t length = 600'001;
  std::vector<float> values = ramp<float>(2 * (length + 5));
  const zt::AnyTensor rows = zt::Tensor<float, 2>(values.data(), {2, length}, {length + 5, 1});
  BOOST_TEST(same_bytes(rows.clone({.threads = 8}), rows.clone()));
  // One contiguous run of an odd length, float64 -> int16 on three threads.
  std::vector<double> run = ramp<double>(1'000'003);
  const zt::AnyTensor dense = zt::Tensor<double, 1>(run.data(), {1'000'003}, {1});
  const zt::AnyTensor converted = dense.to(zt::int16, {.threads = 3});
  BOOST_TEST(same_bytes(converted, dense.to(zt::int16)));
  BOOST_TEST((converted.as<const std::int16_t, 1>()(1'000'002) == std::int16_t(std::trunc(run[1'000'002]))));
}

BOOST_AUTO_TEST_CASE(a_small_copy_asked_for_threads_is_still_exact) {
  std::vector<std::int32_t> values(12);
  std::iota(values.begin(), values.end(), 0);
  const zt::AnyTensor transposed = zt::Tensor<std::int32_t, 2>(values.data(), {4, 3}, {1, 4});
  const auto out = transposed.clone({.threads = 16}).as<const std::int32_t, 2>();
  for (zt::index_t r = 0; r < 4; ++r)
    for (zt::index_t c = 0; c < 3; ++c) BOOST_TEST_REQUIRE(out(r, c) == std::int32_t(c * 4 + r));
}

BOOST_AUTO_TEST_CASE(copy_into_a_destination_whose_elements_repeat_is_refused_as_in_pytorch) {
  std::vector<float> source = ramp<float>(std::size_t{1} << 22);
  const zt::AnyTensor in = zt::Tensor<float, 1>(source.data(), {1 << 22}, {1});
  const zt::AnyTensor one = zt::empty(std::vector<zt::index_t>{1}, zt::float32);
  const zt::AnyTensor expanded = one.expand(std::vector<zt::index_t>{1 << 22});
  for (unsigned threads : {1u, 4u}) {
    BOOST_CHECK_EXCEPTION(zt::copy_into(in, expanded, {.threads = threads}), zt::ValueError,
                          with_message<zt::ValueError>(
                              "copy_into: unsupported operation: more than one element of the written-to tensor "
                              "refers to a single memory location (dimension 0 has extent 4194304 and stride 0). "
                              "Please clone() the tensor before performing the operation."));
  }
  // An extent of 1 with stride 0 repeats nothing.
  zt::copy_into(in.narrow(0, 5, 1), one.expand(std::vector<zt::index_t>{1}), {.threads = 4});
  BOOST_TEST((one.as<const float, 1>()(0) == source[5]));
}

BOOST_AUTO_TEST_CASE(copy_into_overlapping_windows_on_threads_is_the_one_thread_copy) {
  // (2^20, 2) windows over 2^20 + 1 floats, strides (1, 1): elements overlap without a zero
  // stride, as PyTorch also allows; threads would write the same floats at once.
  constexpr zt::index_t windows = 1 << 20;
  std::vector<float> source = ramp<float>(2 * windows);
  const zt::AnyTensor in = zt::Tensor<float, 2>(source.data(), {windows, 2}, {2, 1});
  std::vector<float> one(windows + 1, -1.0f), many(windows + 1, -1.0f);
  zt::copy_into(in, zt::Tensor<float, 2>(one.data(), {windows, 2}, {1, 1}));
  zt::copy_into(in, zt::Tensor<float, 2>(many.data(), {windows, 2}, {1, 1}), {.threads = 4});
  BOOST_TEST(std::memcmp(one.data(), many.data(), one.size() * sizeof(float)) == 0);
  BOOST_TEST(many[0] == source[0]);
}
