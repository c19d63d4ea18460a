// The strided copy under copy_into, clone and to: coalesced dimensions, any loop order,
// tiled transposes, copies between interleaved views of one buffer without a temporary,
// and float16 conversions in bulk (F16C where the CPU has it) with Eigen::half's values.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <utility>
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

BOOST_AUTO_TEST_CASE(a_conversion_between_strided_views_converts_each_element_once_in_its_place) {
  // A transposed 130 x 70 source (partial tiles at both edges) into every other column of
  // a complex64 buffer: the odd columns keep their values.
  std::vector<std::int32_t> values = iota(130 * 70);
  const zt::AnyTensor transposed = zt::Tensor<std::int32_t, 2>(values.data(), {70, 130}, {1, 70});
  std::vector<std::complex<float>> out(70 * 260, {-1.0f, -1.0f});
  zt::copy_into(transposed, zt::Tensor<std::complex<float>, 2>(out.data(), {70, 130}, {260, 2}));
  for (std::size_t r = 0; r < 70; ++r) {
    for (std::size_t c = 0; c < 260; ++c) {
      const std::complex<float> expected = c % 2 == 0 ? std::complex<float>(float(c / 2 * 70 + r), 0.0f)
                                                      : std::complex<float>(-1.0f, -1.0f);
      BOOST_TEST_REQUIRE(out[r * 260 + c] == expected);
    }
  }
  // A row longer than the copy's buffers, every third int16 into every other float32.
  std::vector<std::int16_t> shorts(3 * 5000);
  for (std::size_t i = 0; i < shorts.size(); ++i) shorts[i] = std::int16_t(i % 30000);
  std::vector<float> floats(2 * 5000, -1.0f);
  zt::copy_into(zt::Tensor<std::int16_t, 1>(shorts.data(), {5000}, {3}), zt::Tensor<float, 1>(floats.data(), {5000}, {2}));
  for (std::size_t i = 0; i < 5000; ++i) {
    BOOST_TEST_REQUIRE(floats[2 * i] == float(3 * i % 30000));
    BOOST_TEST_REQUIRE(floats[2 * i + 1] == -1.0f);
  }
}

BOOST_AUTO_TEST_CASE(clone_of_a_transposed_complex128_moves_whole_elements) {
  std::vector<std::complex<double>> values(40 * 33);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = {double(i), -double(i)};
  const zt::AnyTensor copy = zt::AnyTensor(zt::Tensor<std::complex<double>, 2>(values.data(), {33, 40}, {1, 33})).clone();
  const auto out = copy.as<const std::complex<double>, 2>();
  for (zt::index_t r = 0; r < 33; ++r)
    for (zt::index_t c = 0; c < 40; ++c)
      BOOST_TEST_REQUIRE(out(r, c) == std::complex<double>(double(c * 33 + r), -double(c * 33 + r)));
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

namespace {

template <class T, class U>
T bits_of(U value) {
  static_assert(sizeof(T) == sizeof(U));
  T bits;
  std::memcpy(&bits, &value, sizeof(T));
  return bits;
}

/// Edge floats for float16: NaNs with payloads and signs, ±inf, the largest half and the
/// first values that round to inf, -0.0, ties that round to even, and subnormal halves
/// and the ties between them.
std::vector<float> float16_edges() {
  std::vector<float> values = {bits_of<float>(0x7fc00000u), bits_of<float>(0xffc00001u), bits_of<float>(0x7fa00000u),
                               bits_of<float>(0x7f800001u), std::numeric_limits<float>::infinity(),
                               -std::numeric_limits<float>::infinity(), 65504.0f, 65519.99f, 65520.0f, -65520.0f,
                               -0.0f, 0.0f, 1.0f + 0x1p-11f, 1.0f + 3 * 0x1p-11f, 0x1p-24f, 0x1p-25f, 0x1.8p-24f,
                               0x1p-14f, 0x1.ff8p-15f, 1e-30f, -1e-30f, 3.14159f, -2.5f, 300.0f};
  return values;  // 24 values, NaNs the first 4
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_float16_converts_to_float32_as_eigen_half_does) {
  std::vector<std::uint16_t> halves(65536);
  std::iota(halves.begin(), halves.end(), std::uint16_t(0));
  const zt::AnyTensor floats =
      zt::AnyTensor(zt::Tensor<Eigen::half, 1>(reinterpret_cast<Eigen::half*>(halves.data()), {65536}, {1})).to(zt::float32);
  const auto out = floats.as<const float, 1>();
  for (std::size_t i = 0; i < halves.size(); ++i)
    BOOST_TEST_REQUIRE(bits_of<std::uint32_t>(out(zt::index_t(i))) ==
                       bits_of<std::uint32_t>(static_cast<float>(Eigen::numext::bit_cast<Eigen::half>(halves[i]))));
}


BOOST_AUTO_TEST_CASE(float16_nans_among_ordinary_values_convert_as_eigen_half_does) {
  // Bulk conversion goes in chunks of 64 values: a chunk with an infinity or a NaN among
  // ordinary values (a signaling NaN stays signaling), chunks without, and a partial last one.
  std::vector<std::uint16_t> halves(200);
  for (std::size_t i = 0; i < halves.size(); ++i) halves[i] = std::uint16_t(0x3c00 + i);  // 1.0 and up
  halves[70] = 0x7d01;   // signaling NaN with a payload
  halves[71] = 0xfe00;   // quiet NaN, negative
  halves[150] = 0x7c00;  // +inf
  halves[199] = 0x7c01;  // signaling NaN in the tail
  const zt::AnyTensor source = zt::Tensor<Eigen::half, 1>(reinterpret_cast<Eigen::half*>(halves.data()), {200}, {1});
  const zt::AnyTensor floats = source.to(zt::float32);
  const auto out = floats.as<const float, 1>();
  for (std::size_t i = 0; i < halves.size(); ++i)
    BOOST_TEST_REQUIRE(bits_of<std::uint32_t>(out(zt::index_t(i))) ==
                           bits_of<std::uint32_t>(static_cast<float>(Eigen::numext::bit_cast<Eigen::half>(halves[i]))),
                       "value " << i);
  BOOST_TEST(bits_of<std::uint32_t>(out(70)) == 0x7fa02000u);  // quiet bit still clear
  BOOST_TEST(out(0) == 1.0f);
}

BOOST_AUTO_TEST_CASE(float32_edges_convert_to_float16_as_eigen_half_does) {
  // Bulk conversion goes in chunks of 64 values: the first and third hold every edge but the
  // NaNs (converted in bulk), the second every edge in order (a chunk with a NaN is converted
  // value by value), and the partial last chunk ends with the NaNs.
  const std::vector<float> edges = float16_edges();
  std::vector<float> values(200);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = edges[4 + i % (edges.size() - 4)];
  std::copy(edges.begin(), edges.end(), values.begin() + 64);
  std::copy(edges.begin(), edges.begin() + 4, values.begin() + 196);
  std::vector<Eigen::half> converted(values.size());
  zt::copy_into(zt::Tensor<float, 1>(values.data(), {200}, {1}), zt::Tensor<Eigen::half, 1>(converted.data(), {200}, {1}));
  for (std::size_t i = 0; i < values.size(); ++i)
    BOOST_TEST_REQUIRE(bits_of<std::uint16_t>(converted[i]) == bits_of<std::uint16_t>(Eigen::half(values[i])),
                       "value " << i);
  // Spot checks of the rule itself, on the chunk that holds every edge in order.
  const Eigen::half* out = converted.data() + 64;
  BOOST_TEST(bits_of<std::uint16_t>(out[0]) == 0x7e00);  // NaN: the quiet NaN, whatever its payload
  BOOST_TEST(bits_of<std::uint16_t>(out[1]) == 0xfe00);
  BOOST_TEST(bits_of<std::uint16_t>(out[2]) == 0x7e00);
  BOOST_TEST(bits_of<std::uint16_t>(out[7]) == 0x7bff);  // 65519.99: the largest half
  BOOST_TEST(bits_of<std::uint16_t>(out[8]) == 0x7c00);  // 65520 rounds to inf
  BOOST_TEST(bits_of<std::uint16_t>(out[10]) == 0x8000);  // -0.0 keeps its sign
  BOOST_TEST(bits_of<std::uint16_t>(out[12]) == 0x3c00);  // a tie rounds to even
  BOOST_TEST(bits_of<std::uint16_t>(out[13]) == 0x3c02);
  BOOST_TEST(bits_of<std::uint16_t>(out[14]) == 0x0001);  // the smallest subnormal half
  BOOST_TEST(bits_of<std::uint16_t>(out[15]) == 0x0000);  // half of it: a tie, to even (zero)
  BOOST_TEST(bits_of<std::uint16_t>(out[16]) == 0x0002);  // 1.5 of it: a tie, to even
}

BOOST_AUTO_TEST_CASE(float16_converts_to_and_from_integers_through_float) {
  const std::vector<float> values = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                                     -std::numeric_limits<float>::infinity(), 65504.0f, -0.0f, 2.5f, -2.5f, 300.0f,
                                     -1.75f};
  std::vector<Eigen::half> halves;
  for (const float v : values) halves.push_back(Eigen::half(v));
  const zt::AnyTensor half_view = zt::Tensor<Eigen::half, 1>(halves.data(), {9}, {1});
  const auto int32 = half_view.to(zt::int32).as<const std::int32_t, 1>();
  const std::vector<std::int32_t> expected_int32 = {0, -1, 0, 65504, 0, 2, -2, 300, -1};  // ±inf saturate in int64, then wrap
  for (zt::index_t i = 0; i < 9; ++i) BOOST_TEST(int32(i) == expected_int32[std::size_t(i)]);
  const auto uint8 = half_view.to(zt::uint8).as<const std::uint8_t, 1>();
  const std::vector<std::uint8_t> expected_uint8 = {0, 255, 0, 224, 0, 2, 254, 44, 255};
  for (zt::index_t i = 0; i < 9; ++i) BOOST_TEST(uint8(i) == expected_uint8[std::size_t(i)]);
  const auto as_bool = half_view.to(zt::bool_).as<const bool, 1>();
  for (zt::index_t i = 0; i < 9; ++i) BOOST_TEST(as_bool(i) == (i != 4));
  std::vector<std::int64_t> integers = {0, -1, 2049, 65504, 65520, -70000, 1, 2, 3};
  const auto back = zt::AnyTensor(zt::Tensor<std::int64_t, 1>(integers.data(), {9}, {1})).to(zt::float16).as<const Eigen::half, 1>();
  const std::vector<float> expected_halves = {0, -1, 2048, 65504, std::numeric_limits<float>::infinity(),
                                              -std::numeric_limits<float>::infinity(), 1, 2, 3};
  for (zt::index_t i = 0; i < 9; ++i) BOOST_TEST(static_cast<float>(back(i)) == expected_halves[std::size_t(i)]);
}

BOOST_AUTO_TEST_CASE(float_to_int32_uint32_and_uint8_in_chunks_with_and_without_edges) {
  // 200 values: the first chunks of 64 all inside int32 (converted in bulk), the third holds
  // NaN, ±inf and values beyond int32 (converted value by value), the last a partial chunk.
  std::vector<float> values(200);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = float(i) * 1.5f - 100.25f;
  values[10] = 2147483520.0f;   // the largest float below 2^31
  values[11] = -2147483648.0f;  // -2^31, inside
  values[12] = -0.0f;
  values[150] = std::numeric_limits<float>::quiet_NaN();
  values[151] = 3e9f;
  values[152] = -3e9f;
  values[153] = 2147483648.0f;  // 2^31: int64 2^31, which int32 wraps to -2^31
  values[154] = std::numeric_limits<float>::infinity();
  values[155] = -std::numeric_limits<float>::infinity();
  std::vector<std::int32_t> int32(200);
  std::vector<std::uint32_t> uint32(200);
  std::vector<std::uint8_t> uint8(200);
  zt::copy_into(zt::Tensor<float, 1>(values.data(), {200}, {1}), zt::Tensor<std::int32_t, 1>(int32.data(), {200}, {1}));
  zt::copy_into(zt::Tensor<float, 1>(values.data(), {200}, {1}), zt::Tensor<std::uint32_t, 1>(uint32.data(), {200}, {1}));
  zt::copy_into(zt::Tensor<float, 1>(values.data(), {200}, {1}), zt::Tensor<std::uint8_t, 1>(uint8.data(), {200}, {1}));
  const std::vector<std::pair<std::size_t, std::int64_t>> edges = {
      {10, 2147483520},  {11, -2147483648LL}, {12, 0}, {150, 0}, {151, 3000000000LL}, {152, -3000000000LL},
      {153, 2147483648LL}, {154, std::numeric_limits<std::int64_t>::max()}, {155, std::numeric_limits<std::int64_t>::min()}};
  for (std::size_t i = 0; i < values.size(); ++i) {
    // The edges' values (NaN, infinities, out of range) have no C++ conversion to int64.
    const auto edge = std::ranges::find(edges, i, &std::pair<std::size_t, std::int64_t>::first);
    const std::int64_t expected = edge != edges.end() ? edge->second : std::int64_t(std::trunc(values[i]));
    BOOST_TEST_REQUIRE(int32[i] == std::int32_t(std::uint32_t(std::uint64_t(expected))), "value " << i);
    BOOST_TEST_REQUIRE(uint32[i] == std::uint32_t(std::uint64_t(expected)), "value " << i);
    BOOST_TEST_REQUIRE(uint8[i] == std::uint8_t(std::uint64_t(expected)), "value " << i);
  }
  BOOST_TEST(int32[0] == -100);  // -100.25 truncates toward zero
  BOOST_TEST(uint8[1] == 158);   // -98.75 → -98 → 256 - 98
  BOOST_TEST(int32[153] == std::numeric_limits<std::int32_t>::min());
  BOOST_TEST(int32[154] == -1);
  BOOST_TEST(int32[155] == 0);
  BOOST_TEST(uint32[151] == 3000000000u);
}

BOOST_AUTO_TEST_CASE(every_other_element_of_any_type_and_odd_count_copies_in_order) {
  // The step-2 gather of one type: int8 (1,001 values, a partial last vector) and complex
  // real parts (a complex128 viewed as two float64 each).
  std::vector<std::int8_t> bytes(2002);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = std::int8_t(i % 251);
  std::vector<std::int8_t> column(1001, -1);
  zt::copy_into(zt::Tensor<std::int8_t, 1>(bytes.data(), {1001}, {2}), zt::Tensor<std::int8_t, 1>(column.data(), {1001}, {1}));
  for (std::size_t i = 0; i < column.size(); ++i) BOOST_TEST_REQUIRE(column[i] == std::int8_t((2 * i) % 251));
  std::vector<double> complex_parts(14);
  std::iota(complex_parts.begin(), complex_parts.end(), 0.5);
  std::vector<double> real(7, -1.0);
  zt::copy_into(zt::Tensor<double, 1>(complex_parts.data(), {7}, {2}), zt::Tensor<double, 1>(real.data(), {7}, {1}));
  for (std::size_t i = 0; i < real.size(); ++i) BOOST_TEST_REQUIRE(real[i] == 2.0 * double(i) + 0.5);
}
