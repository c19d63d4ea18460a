// The strided copy under copy_into, clone and to: coalesced dimensions, any loop order,
// tiled transposes, and copies between interleaved views of one buffer without a temporary.
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <numeric>
#include <vector>

#include "zerotensor/convert.hpp"

namespace {

std::vector<std::int32_t> iota(std::size_t n) {
  std::vector<std::int32_t> values(n);
  std::iota(values.begin(), values.end(), 0);
  return values;
}

}  // namespace

BOOST_AUTO_TEST_CASE(clone_of_a_transpose_larger_than_a_tile_is_the_transpose) {
  // 262 x 300: partial tiles (of 256) and partial micro-tiles (of 8) at both edges.
  std::vector<std::int32_t> values = iota(262 * 300);
  const zt::AnyTensor transposed = zt::Tensor<std::int32_t, 2>(values.data(), {300, 262}, {1, 300});
  const zt::AnyTensor copy = transposed.clone();
  BOOST_TEST(copy.is_contiguous());
  const auto out = copy.as<const std::int32_t, 2>();
  for (zt::index_t r = 0; r < 300; ++r)
    for (zt::index_t c = 0; c < 262; ++c) BOOST_TEST_REQUIRE(out(r, c) == std::int32_t(c * 300 + r));
}

BOOST_AUTO_TEST_CASE(to_of_a_transpose_converts_every_element) {
  std::vector<std::int32_t> values = iota(40 * 33);
  const zt::AnyTensor transposed = zt::Tensor<std::int32_t, 2>(values.data(), {33, 40}, {1, 33});
  const zt::AnyTensor copy = transposed.to(zt::float64);
  BOOST_TEST(copy.dtype() == zt::float64);
  const auto out = copy.as<const double, 2>();
  for (zt::index_t r = 0; r < 33; ++r)
    for (zt::index_t c = 0; c < 40; ++c) BOOST_TEST_REQUIRE(out(r, c) == double(c * 33 + r));
}

BOOST_AUTO_TEST_CASE(a_column_with_strides_2_1_copies_every_other_element) {
  std::vector<float> values(200);
  std::iota(values.begin(), values.end(), 0.0f);
  std::vector<float> column(100, -1.0f);
  zt::copy_into(zt::Tensor<float, 2>(values.data(), {100, 1}, {2, 1}), zt::Tensor<float, 2>(column.data(), {100, 1}, {1, 1}));
  for (std::size_t i = 0; i < 100; ++i) BOOST_TEST_REQUIRE(column[i] == float(2 * i));
}

BOOST_AUTO_TEST_CASE(permuted_reversed_and_unit_dimensions_copy_in_c_order) {
  // Shape (3, 1, 4, 2) over 24 values: dimension 0 reversed, dimensions 2 and 3 swapped
  // in memory, an extent-1 dimension with an odd stride between them.
  std::vector<std::int32_t> values = iota(24);
  const zt::AnyTensor view = zt::Tensor<std::int32_t, 4>(values.data() + 16, {3, 1, 4, 2}, {-8, 99, 1, 4});
  std::vector<std::int32_t> out(24, -1);
  zt::copy_into(view, zt::Tensor<std::int32_t, 4>(out.data(), {3, 1, 4, 2}, {8, 8, 2, 1}));
  std::size_t i = 0;
  for (int a = 0; a < 3; ++a)
    for (int c = 0; c < 4; ++c)
      for (int d = 0; d < 2; ++d) BOOST_TEST_REQUIRE(out[i++] == 16 - 8 * a + c + 4 * d);
}

BOOST_AUTO_TEST_CASE(contiguous_runs_in_a_strided_destination_are_filled) {
  // Rows of 3 contiguous values, 5 apart: the rows merge in the source, not in the destination.
  std::vector<std::int32_t> values = iota(12);
  std::vector<std::int32_t> out(20, -1);
  zt::copy_into(zt::Tensor<std::int32_t, 2>(values.data(), {4, 3}, {3, 1}), zt::Tensor<std::int32_t, 2>(out.data(), {4, 3}, {5, 1}));
  BOOST_TEST((out == std::vector<std::int32_t>{0, 1, 2, -1, -1, 3, 4, 5, -1, -1, 6, 7, 8, -1, -1, 9, 10, 11, -1, -1}));
}

BOOST_AUTO_TEST_CASE(even_and_odd_columns_of_one_buffer_do_not_overlap) {
  std::vector<std::int32_t> values = iota(6 * 8);
  const zt::AnyTensor even = zt::Tensor<std::int32_t, 2>(values.data(), {6, 4}, {8, 2});
  const zt::AnyTensor odd = zt::Tensor<std::int32_t, 2>(values.data() + 1, {6, 4}, {8, 2});
  BOOST_TEST(!zt::detail::elements_may_overlap(even, odd));
  BOOST_TEST(!zt::detail::elements_may_overlap(odd, even));
  zt::copy_into(even, odd);
  for (std::size_t i = 0; i < values.size(); ++i) BOOST_TEST_REQUIRE(values[i] == std::int32_t(i - i % 2));
}

BOOST_AUTO_TEST_CASE(views_that_share_elements_or_bytes_may_overlap) {
  std::vector<std::int32_t> values = iota(16);
  const zt::AnyTensor even = zt::Tensor<std::int32_t, 1>(values.data(), {8}, {2});
  // Every fourth element from element 2: elements of `even` too.
  BOOST_TEST(zt::detail::elements_may_overlap(even, zt::Tensor<std::int32_t, 1>(values.data() + 2, {4}, {4})));
  // The odd elements' upper halves, as int16: bytes 6, 7 of every 8, disjoint from `even`.
  auto* halves = reinterpret_cast<std::int16_t*>(values.data());
  BOOST_TEST(!zt::detail::elements_may_overlap(even, zt::Tensor<std::int16_t, 1>(halves + 3, {8}, {4})));
  // Bytes 3 and 4 of every 8, as int16 at an odd address: straddle an even element's end.
  auto* bytes = reinterpret_cast<std::byte*>(values.data());
  const zt::AnyTensor straddling =
      zt::Tensor<std::int16_t, 1>(reinterpret_cast<std::int16_t*>(bytes + 3), {8}, {4});
  BOOST_TEST(zt::detail::elements_may_overlap(even, straddling));
  BOOST_TEST(zt::detail::elements_may_overlap(straddling, even));
  // One element inside the other's range, on an element of it / between two of them.
  BOOST_TEST(zt::detail::elements_may_overlap(even, zt::Tensor<std::int32_t, 1>(values.data() + 6, {1}, {1})));
  BOOST_TEST(!zt::detail::elements_may_overlap(even, zt::Tensor<std::int32_t, 1>(values.data() + 7, {1}, {1})));
  // Apart address ranges never overlap.
  BOOST_TEST(!zt::detail::elements_may_overlap(zt::Tensor<std::int32_t, 1>(values.data(), {8}, {1}),
                                               zt::Tensor<std::int32_t, 1>(values.data() + 8, {8}, {1})));
}

BOOST_AUTO_TEST_CASE(a_copy_onto_overlapping_columns_reads_the_source_as_it_was) {
  // Columns 0..2 onto columns 1..3 of each row: the elements overlap, so the copy goes
  // through a temporary.
  std::vector<std::int32_t> values = iota(3 * 4);
  zt::copy_into(zt::Tensor<std::int32_t, 2>(values.data(), {3, 3}, {4, 1}),
                zt::Tensor<std::int32_t, 2>(values.data() + 1, {3, 3}, {4, 1}));
  BOOST_TEST((values == std::vector<std::int32_t>{0, 0, 1, 2, 4, 4, 5, 6, 8, 8, 9, 10}));
}
