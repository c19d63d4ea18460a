// The one checked-arithmetic helper (detail::add_overflows, detail::mul_overflows) against
// exact 128-bit arithmetic: every edge value of each integer width, and random factors of
// every bit width, so products well within, just at and just past each limit are checked.
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "zerotensor/detail/checked_arithmetic.hpp"

namespace {

using Wide = __int128;           // test only: the exact reference, wider than every checked type
using WideMagnitude = unsigned __int128;

template <class T>
bool fits(Wide value) {
  return value >= Wide(std::numeric_limits<T>::min()) && value <= Wide(std::numeric_limits<T>::max());
}

template <class T>
WideMagnitude magnitude(T value) {
  return value < 0 ? WideMagnitude(-Wide(value)) : WideMagnitude(value);
}

template <class T>
void check_pair(T a, T b) {
  // |a * b| < 2^128 always; the sign decides which limit applies.
  const WideMagnitude exact_magnitude = magnitude(a) * magnitude(b);
  const bool negative = (a < 0) != (b < 0) && exact_magnitude != 0;
  const bool product_fits = negative ? exact_magnitude <= magnitude(std::numeric_limits<T>::min())
                                     : exact_magnitude <= WideMagnitude(std::numeric_limits<T>::max());
  T product{};
  const bool mul_overflowed = zt::detail::mul_overflows(a, b, product);
  BOOST_TEST_REQUIRE(mul_overflowed == !product_fits, "mul " << +a << " " << +b);
  if (!mul_overflowed)
    BOOST_TEST_REQUIRE((Wide(product) == (negative ? -Wide(exact_magnitude) : Wide(exact_magnitude))),
                       "mul " << +a << " " << +b);

  T sum{};
  const bool add_overflowed = zt::detail::add_overflows(a, b, sum);
  const Wide exact_sum = Wide(a) + Wide(b);
  BOOST_TEST_REQUIRE(add_overflowed == !fits<T>(exact_sum), "add " << +a << " " << +b);
  if (!add_overflowed) BOOST_TEST_REQUIRE((Wide(sum) == exact_sum), "add " << +a << " " << +b);
}

template <class T>
std::vector<T> edge_values() {
  constexpr T max = std::numeric_limits<T>::max(), min = std::numeric_limits<T>::min();
  constexpr int half = std::numeric_limits<T>::digits / 2;
  std::vector<T> values = {0, 1, 2, 3, max, T(max - 1), T(max / 2), T(max / 2 + 1), T(max / 3), T(T(1) << half),
                           T((T(1) << half) + 1), T((T(1) << half) - 1)};
  if constexpr (std::is_signed_v<T>) {
    for (T v : std::vector<T>(values)) values.push_back(T(-v));
    values.insert(values.end(), {min, T(min + 1), T(min / 2)});
  }
  return values;
}

template <class T>
void check_type() {
  for (T a : edge_values<T>())
    for (T b : edge_values<T>()) check_pair(a, b);
  std::mt19937_64 random(42);
  constexpr int digits = std::numeric_limits<T>::digits;
  for (int i = 0; i < 200000; ++i) {
    const int width_a = int(random() % (digits + 1)), width_b = int(random() % (digits + 1));
    auto draw = [&](int width) {
      using U = std::make_unsigned_t<T>;
      const U value = width == 0 ? U(0) : U(random() >> (64 - width));
      return std::is_signed_v<T> && (random() & 1) ? T(U(0) - value) : T(value);
    };
    check_pair(draw(width_a), draw(width_b));
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(products_and_sums_overflow_exactly_when_the_exact_result_does_not_fit) {
  check_type<std::int64_t>();
  check_type<std::uint64_t>();
  check_type<std::int32_t>();
  check_type<std::uint32_t>();
  check_type<std::int16_t>();
  check_type<std::uint8_t>();
}

BOOST_AUTO_TEST_CASE(checked_arithmetic_is_usable_in_constant_expressions) {
  constexpr auto product = [] {
    std::int64_t result = 0;
    return zt::detail::mul_overflows<std::int64_t>(3072, 65815666556993536, result) ? std::int64_t(-1) : result;
  }();
  static_assert(product == -1, "3072 * 65815666556993536 exceeds int64");
  BOOST_TEST(product == -1);
}
