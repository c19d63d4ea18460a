// asarray on numbers and nested sequences: PyTorch's dtype inference, shapes, ragged
// nesting, and the checked stores with an explicit dtype. The AA* cases about Python
// scalars and lists, with C++ numbers, braced lists and nested std::vector in their place.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <complex>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <ranges>
#include <sstream>
#include <string>
#include <vector>

#include "zerotensor/asarray.hpp"
#include "support/message_check.hpp"

using namespace std::complex_literals;

namespace {

struct DefaultDTypeGuard {
  zt::DType saved = zt::default_dtype();
  ~DefaultDTypeGuard() { zt::set_default_dtype(saved); }
};

template <class T>
std::vector<T> values_of(const zt::AnyTensor& t) {
  const T* data = t.as<const T>().data();
  return std::vector<T>(data, data + t.numel());
}

/// The element of a 0-dim tensor.
template <class T>
T item(const zt::AnyTensor& t) {
  return t.as<const T, 0>()();
}

template <class N>
concept ListWith = requires(N n) { zt::asarray({1, n}); };

}  // namespace

BOOST_AUTO_TEST_SUITE(scalar)

BOOST_AUTO_TEST_CASE(keeps_the_python_kind_of_a_number) {
  BOOST_TEST((zt::Scalar(true).kind() == zt::ScalarKind::Bool));
  BOOST_TEST((zt::Scalar(std::int8_t(-3)).kind() == zt::ScalarKind::Integer));
  BOOST_TEST((zt::Scalar(2.5f).kind() == zt::ScalarKind::Floating));
  BOOST_TEST((zt::Scalar(Eigen::half(1.5f)).value() == zt::Scalar::variant_type(1.5)));
  BOOST_TEST((zt::Scalar(Eigen::bfloat16(2.0f)).kind() == zt::ScalarKind::Floating));
  BOOST_TEST((zt::Scalar(std::complex<float>(1, 2)).value() == zt::Scalar::variant_type(std::complex<double>(1, 2))));
  BOOST_TEST((zt::Scalar(std::uint64_t(7)).value() == zt::Scalar::variant_type(std::int64_t(7))));
  std::ostringstream printed;
  printed << zt::Scalar(true) << ' ' << zt::Scalar(3) << ' ' << zt::Scalar(2.5) << ' ' << zt::Scalar(1.0 - 2i);
  BOOST_TEST(printed.str() == "True 3 2.5 (1-2j)");
}

BOOST_AUTO_TEST_CASE(AA50_an_integer_beyond_int64_overflows) {
  BOOST_CHECK_EXCEPTION((void)zt::Scalar(std::uint64_t(1) << 63), zt::ValueError,
                        with_message<zt::ValueError>("integer 9223372036854775808 does not fit int64"));
  BOOST_CHECK_THROW((void)zt::asarray({std::numeric_limits<std::uint64_t>::max()}), zt::ValueError);
}

BOOST_AUTO_TEST_CASE(pointers_and_text_are_not_numbers) {
  BOOST_TEST((!std::constructible_from<zt::Scalar, const char*>));
  BOOST_TEST((!std::constructible_from<zt::Scalar, char>));
  BOOST_TEST((!std::constructible_from<zt::Scalar, std::nullptr_t>));
  BOOST_TEST(!ListWith<std::nullptr_t>);  // AT16: [1, None] — "Could not infer dtype of NoneType"
  BOOST_TEST(!ListWith<std::string>);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(asarray_numbers)

BOOST_AUTO_TEST_CASE(AA10_a_float_is_a_zero_dim_tensor_of_the_default_dtype) {
  zt::AnyTensor r = zt::asarray(3.5);
  BOOST_TEST(r.dtype() == zt::float32);
  BOOST_TEST(r.rank() == 0u);
  BOOST_TEST(r.strides().empty());
  BOOST_TEST(r.device() == zt::cpu);
  BOOST_TEST(item<float>(r) == 3.5f);
  BOOST_TEST(zt::asarray(2.5f).dtype() == zt::float32);  // every C++ floating type is a Python float
  BOOST_TEST(zt::asarray(Eigen::half(1)).dtype() == zt::float32);
}

BOOST_AUTO_TEST_CASE(AA11_bool_integers_and_complex) {
  zt::AnyTensor b = zt::asarray(true);
  BOOST_TEST(b.dtype() == zt::bool_);
  BOOST_TEST(item<bool>(b) == true);
  BOOST_TEST(zt::asarray(std::uint8_t(3)).dtype() == zt::int64);
  BOOST_TEST(item<std::int64_t>(zt::asarray(-7L)) == -7);
  zt::AnyTensor z = zt::asarray(2i);
  BOOST_TEST(z.dtype() == zt::complex64);
  BOOST_TEST((item<std::complex<float>>(z) == std::complex<float>(0, 2)));
  BOOST_TEST(zt::asarray(zt::Scalar(4)).dtype() == zt::int64);
}

BOOST_AUTO_TEST_CASE(AA14_copy_false_refuses_a_number) {
  BOOST_CHECK_EXCEPTION((void)zt::asarray(3.5, {.copy = false}), zt::ValueError,
                        with_message<zt::ValueError>("can't alias arbitrary sequence into a tensor"));
  BOOST_TEST(item<float>(zt::asarray(3.5, {.copy = true})) == 3.5f);
}

BOOST_AUTO_TEST_CASE(an_explicit_dtype_and_device_apply) {
  zt::AnyTensor r = zt::asarray(true, {.dtype = zt::complex64});
  BOOST_TEST((item<std::complex<float>>(r) == std::complex<float>(1, 0)));
  BOOST_CHECK_EXCEPTION((void)zt::asarray(300, {.dtype = zt::uint8}), zt::ValueError,
                        with_message<zt::ValueError>("value 300 cannot be converted to type uint8 without overflow"));
  BOOST_TEST(zt::asarray(1, {.device = zt::cpu}).device() == zt::cpu);
#if !(defined(ZT_CUDA) && ZT_CUDA)
  BOOST_CHECK_THROW((void)zt::asarray(1, {.device = zt::cuda(0)}), zt::DeviceError);
#endif
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(asarray_sequences)

BOOST_AUTO_TEST_CASE(AA01_integers_are_int64) {
  zt::AnyTensor r = zt::asarray({1, 2, 3});
  BOOST_TEST(r.dtype() == zt::int64);
  BOOST_TEST(r.shape() == zt::DynamicExtents({3}));
  BOOST_TEST(r.strides() == zt::DynamicExtents({1}));
  BOOST_TEST(r.is_writable());
  BOOST_TEST(values_of<std::int64_t>(r) == std::vector<std::int64_t>({1, 2, 3}));
}

BOOST_AUTO_TEST_CASE(AA02_a_float_makes_the_default_dtype) {
  zt::AnyTensor r = zt::asarray({1, 2.0});
  BOOST_TEST(r.dtype() == zt::float32);
  BOOST_TEST(values_of<float>(r) == std::vector<float>({1, 2}));
}

BOOST_AUTO_TEST_CASE(AA04_bools_are_bool) {
  zt::AnyTensor r = zt::asarray({true, false});
  BOOST_TEST(r.dtype() == zt::bool_);
  BOOST_TEST(values_of<bool>(r) == std::vector<bool>({true, false}));
  BOOST_TEST(zt::asarray({true, 1}).dtype() == zt::int64);  // [True, 1] → int64
}

BOOST_AUTO_TEST_CASE(AA05_AA06_complex_promotes_everything) {
  zt::AnyTensor r = zt::asarray({1, 2i});
  BOOST_TEST(r.dtype() == zt::complex64);
  BOOST_TEST((values_of<std::complex<float>>(r) == std::vector<std::complex<float>>({{1, 0}, {0, 2}})));
  zt::AnyTensor mixed = zt::asarray({1.0, 2i, true});
  BOOST_TEST(mixed.dtype() == zt::complex64);
  BOOST_TEST((values_of<std::complex<float>>(mixed) == std::vector<std::complex<float>>({{1, 0}, {0, 2}, {1, 0}})));
}

BOOST_AUTO_TEST_CASE(AA07_an_empty_sequence_is_shape_zero_of_the_default_dtype) {
  zt::AnyTensor r = zt::asarray({});
  BOOST_TEST(r.dtype() == zt::float32);
  BOOST_TEST(r.shape() == zt::DynamicExtents({0}));
  BOOST_TEST(r.strides() == zt::DynamicExtents({1}));
}

BOOST_AUTO_TEST_CASE(AA08_empty_rows_stop_the_shape) {
  zt::AnyTensor r = zt::asarray({{}, {}});
  BOOST_TEST(r.dtype() == zt::float32);
  BOOST_TEST(r.shape() == zt::DynamicExtents({2, 0}));
  BOOST_TEST(r.strides() == zt::DynamicExtents({1, 1}));
  // As PyTorch, nothing is checked when the tensor is empty ([[], [1]] → (2, 0)) ...
  BOOST_TEST(zt::asarray({{}, {1}}).shape() == zt::DynamicExtents({2, 0}));
  // ... but [[1], []] is ragged.
  BOOST_CHECK_EXCEPTION((void)zt::asarray({{1}, {}}), zt::ValueError,
                        with_message<zt::ValueError>("expected sequence of length 1 at dim 1 (got 0)"));
}

BOOST_AUTO_TEST_CASE(AA13_copy_false_refuses_a_sequence) {
  BOOST_CHECK_EXCEPTION((void)zt::asarray({1, 2}, {.copy = false}), zt::ValueError,
                        with_message<zt::ValueError>("can't alias arbitrary sequence into a tensor"));
  std::vector<std::vector<int>> nested = {{1}};
  BOOST_CHECK_THROW((void)zt::asarray(nested, {.copy = false}), zt::ValueError);
}

BOOST_AUTO_TEST_CASE(a_ragged_list_is_refused_before_its_first_elements_lengths_are_allocated) {
  // The first elements claim (2^20, 2^20) floats, 4 TiB (no machine has it: allocating
  // first would be std::bad_alloc); the list holds 2^20 numbers.
  std::vector<std::vector<float>> rows(1 << 20);
  rows.front().resize(1 << 20, 1.0f);
  BOOST_CHECK_EXCEPTION((void)zt::asarray(rows), zt::ValueError,
                        with_message<zt::ValueError>("expected sequence of length 1048576 at dim 1 (got 0)"));
}

BOOST_AUTO_TEST_CASE(AA16_ragged_nesting) {
  BOOST_CHECK_EXCEPTION((void)zt::asarray({{1, 2}, {3}}), zt::ValueError,
                        with_message<zt::ValueError>("expected sequence of length 2 at dim 1 (got 1)"));
  BOOST_CHECK_EXCEPTION((void)zt::asarray({{1, 2}, {3}}, {.dtype = zt::float32}), zt::ValueError,
                        with_message<zt::ValueError>("expected sequence of length 2 at dim 1 (got 1)"));
  std::vector<std::vector<double>> ragged = {{1, 2}, {3}};
  BOOST_CHECK_EXCEPTION((void)zt::asarray(ragged), zt::ValueError,
                        with_message<zt::ValueError>("expected sequence of length 2 at dim 1 (got 1)"));
}

BOOST_AUTO_TEST_CASE(AA17_a_number_where_a_sequence_is_expected) {
  BOOST_CHECK_EXCEPTION((void)zt::asarray({{1}, 2}), zt::TypeError,
                        with_message<zt::TypeError>("not a sequence: expected sequence of length 1 at dim 1"));
  // and a sequence where a number is expected ([1, [2]])
  BOOST_CHECK_EXCEPTION((void)zt::asarray({1, {2}}), zt::TypeError,
                        with_message<zt::TypeError>("expected a number at dim 1 (got a sequence of length 1)"));
}

// clang 14 cannot compile libstdc++ 12's range concepts for iota_view or std::list, so
// asarray of such a range needs GCC or clang 15 there.
#if !(defined(__clang__) && __clang_major__ < 15)
BOOST_AUTO_TEST_CASE(AA20_a_range_of_integers) {
  zt::AnyTensor r = zt::asarray(std::views::iota(0, 3));
  BOOST_TEST(r.dtype() == zt::int64);
  BOOST_TEST(values_of<std::int64_t>(r) == std::vector<std::int64_t>({0, 1, 2}));
}
#endif

BOOST_AUTO_TEST_CASE(AA53_the_default_dtype_decides_for_floats_and_complex) {
  DefaultDTypeGuard guard;
  zt::set_default_dtype(zt::float64);
  BOOST_TEST(zt::asarray({}).dtype() == zt::float64);
  BOOST_TEST(zt::asarray(1.5).dtype() == zt::float64);
  BOOST_TEST(zt::asarray({1, 2i}).dtype() == zt::complex128);
  zt::set_default_dtype(zt::float16);
  BOOST_TEST(zt::asarray({1, 2.5}).dtype() == zt::float16);
  // PyTorch 1.13: "invalid default scalar type for complex"; 2.x has complex32, zt has not.
  BOOST_CHECK_EXCEPTION((void)zt::asarray({1, 2i}), zt::TypeError,
                        with_message<zt::TypeError>("invalid default dtype for complex: float16"));
}

BOOST_AUTO_TEST_CASE(AA68_nested_lists_with_a_dtype) {
  zt::AnyTensor r = zt::asarray({{1, 2}, {3, 4}}, {.dtype = zt::int8});
  BOOST_TEST(r.dtype() == zt::int8);
  BOOST_TEST(r.shape() == zt::DynamicExtents({2, 2}));
  BOOST_TEST(r.strides() == zt::DynamicExtents({2, 1}));
  BOOST_TEST(values_of<std::int8_t>(r) == std::vector<std::int8_t>({1, 2, 3, 4}));
}

BOOST_AUTO_TEST_CASE(AA67_dtype_and_device) {
  // 'meta' has no C++ meaning; the other device is CUDA.
  BOOST_TEST(zt::asarray({1, 2}, {.dtype = zt::float16, .device = zt::cpu}).dtype() == zt::float16);
#if !(defined(ZT_CUDA) && ZT_CUDA)
  BOOST_CHECK_THROW((void)zt::asarray({1, 2}, {.dtype = zt::float16, .device = zt::cuda(0)}), zt::DeviceError);
#endif
}

BOOST_AUTO_TEST_CASE(deep_nesting_and_mixed_kinds) {
  zt::AnyTensor five = zt::asarray({{{{{1}}}}});
  BOOST_TEST(five.shape() == zt::DynamicExtents({1, 1, 1, 1, 1}));
  BOOST_TEST(five.dtype() == zt::int64);
  zt::AnyTensor r = zt::asarray({{{{1, 2.5}, {true, 4}}}});
  BOOST_TEST(r.shape() == zt::DynamicExtents({1, 1, 2, 2}));
  BOOST_TEST(r.strides() == zt::DynamicExtents({4, 4, 2, 1}));
  BOOST_TEST(values_of<float>(r) == std::vector<float>({1, 2.5f, 1, 4}));
  BOOST_TEST(zt::asarray({1, true, 2.5, 1i}).dtype() == zt::complex64);
}

BOOST_AUTO_TEST_CASE(more_than_128_levels_is_too_many) {
  // A level is added by the initializer-list constructor, named: `NestedScalars{deep}` may copy
  // `deep` instead (compilers differ on a braced list of one element of the class's own type).
  const auto nest = [](const zt::NestedScalars& inner) {
    return zt::NestedScalars(std::initializer_list<zt::NestedScalars>{inner});
  };
  zt::NestedScalars deep = {1};  // one level
  for (int level = 1; level < 127; ++level) deep = nest(deep);
  BOOST_TEST(zt::asarray({deep}).rank() == 128u);  // the braces add the 128th level
  BOOST_CHECK_EXCEPTION((void)zt::asarray({nest(deep)}), zt::ValueError,
                        with_message<zt::ValueError>("too many dimensions: the sequence nests deeper than 128 levels"));
}

BOOST_AUTO_TEST_CASE(nested_vectors_follow_the_same_rules) {
  std::vector<std::vector<double>> m = {{1, 2, 3}, {4, 5, 6}};
  zt::AnyTensor r = zt::asarray(m);
  BOOST_TEST(r.dtype() == zt::float32);  // C++ numbers in a sequence are Python numbers
  BOOST_TEST(r.shape() == zt::DynamicExtents({2, 3}));
  BOOST_TEST(values_of<float>(r) == std::vector<float>({1, 2, 3, 4, 5, 6}));
  BOOST_TEST(zt::asarray(m, {.dtype = zt::float64}).dtype() == zt::float64);
  std::vector<std::vector<std::vector<int>>> cube(2, std::vector<std::vector<int>>(3, std::vector<int>(4, 7)));
  zt::AnyTensor c = zt::asarray(cube);
  BOOST_TEST(c.dtype() == zt::int64);
  BOOST_TEST(c.shape() == zt::DynamicExtents({2, 3, 4}));
  std::vector<bool> flags = {true, false, true};
  BOOST_TEST(values_of<bool>(zt::asarray(flags)) == std::vector<bool>({true, false, true}));
  std::vector<zt::Scalar> mixed = {1, 2.5, true};
  BOOST_TEST(zt::asarray(mixed).dtype() == zt::float32);
  std::vector<std::vector<int>> none;
  BOOST_TEST(zt::asarray(none).shape() == zt::DynamicExtents({0}));
  BOOST_TEST(zt::asarray(none).dtype() == zt::float32);
  std::array<std::array<std::int16_t, 2>, 2> grid = {{{1, 2}, {3, 4}}};
  BOOST_TEST(zt::asarray(grid).shape() == zt::DynamicExtents({2, 2}));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(asarray_stored_values)

BOOST_AUTO_TEST_CASE(AT19_floats_truncate_toward_zero) {
  BOOST_TEST(values_of<std::int64_t>(zt::asarray({1.7, -1.7}, {.dtype = zt::int64})) == std::vector<std::int64_t>({1, -1}));
  BOOST_TEST(values_of<std::uint8_t>(zt::asarray({255.0}, {.dtype = zt::uint8})) == std::vector<std::uint8_t>({255}));
}

BOOST_AUTO_TEST_CASE(AT20_AT37_AT38_values_outside_the_integer_type_overflow) {
  auto overflow = [](std::string text) { return with_message<zt::ValueError>(std::move(text)); };
  BOOST_CHECK_EXCEPTION((void)zt::asarray({300}, {.dtype = zt::uint8}), zt::ValueError,
                        overflow("value 300 cannot be converted to type uint8 without overflow"));
  BOOST_CHECK_EXCEPTION((void)zt::asarray({-256}, {.dtype = zt::uint8}), zt::ValueError,
                        overflow("value -256 cannot be converted to type uint8 without overflow"));
  BOOST_CHECK_EXCEPTION((void)zt::asarray({1e20}, {.dtype = zt::int64}), zt::ValueError,
                        overflow("value 1e+20 cannot be converted to type int64 without overflow"));
  BOOST_CHECK_THROW((void)zt::asarray({128}, {.dtype = zt::int8}), zt::ValueError);
  BOOST_CHECK_THROW((void)zt::asarray({-129}, {.dtype = zt::int8}), zt::ValueError);
  BOOST_CHECK_THROW((void)zt::asarray({1e20}, {.dtype = zt::int32}), zt::ValueError);
  BOOST_CHECK_THROW((void)zt::asarray({-0.5}, {.dtype = zt::uint8}), zt::ValueError);  // below 0, as c10
  BOOST_CHECK_THROW((void)zt::asarray({255.5}, {.dtype = zt::uint8}), zt::ValueError);
  BOOST_CHECK_THROW((void)zt::asarray({std::nan("")}, {.dtype = zt::int64}), zt::ValueError);
  BOOST_CHECK_THROW((void)zt::asarray({INFINITY}, {.dtype = zt::int64}), zt::ValueError);
  // 2^63 does not fit int64 (PyTorch 1.13 lets it through and stores INT64_MIN).
  BOOST_CHECK_THROW((void)zt::asarray({9223372036854775808.0}, {.dtype = zt::int64}), zt::ValueError);
  BOOST_TEST(values_of<std::int64_t>(zt::asarray({-9223372036854775808.0}, {.dtype = zt::int64}))[0] ==
             std::numeric_limits<std::int64_t>::min());
  BOOST_TEST(values_of<std::int8_t>(zt::asarray({-128}, {.dtype = zt::int8}))[0] == -128);
}

BOOST_AUTO_TEST_CASE(AT21_AT36_negative_integers_wrap_into_unsigned_types_down_to_minus_max) {
  BOOST_TEST(values_of<std::uint8_t>(zt::asarray({-1}, {.dtype = zt::uint8})) == std::vector<std::uint8_t>({255}));
  BOOST_TEST(values_of<std::uint8_t>(zt::asarray({-255}, {.dtype = zt::uint8})) == std::vector<std::uint8_t>({1}));
  BOOST_TEST(values_of<std::uint64_t>(zt::asarray({-1}, {.dtype = zt::uint64}))[0] ==
             std::numeric_limits<std::uint64_t>::max());
  BOOST_TEST(values_of<std::uint16_t>(zt::asarray({-65535}, {.dtype = zt::uint16}))[0] == 1);
}

BOOST_AUTO_TEST_CASE(AT22_complex_into_a_real_type) {
  BOOST_CHECK_EXCEPTION((void)zt::asarray({1i}, {.dtype = zt::float32}), zt::TypeError,
                        with_message<zt::TypeError>("value (0+1j) cannot be converted to type float32: must be real number, not complex"));
  BOOST_CHECK_THROW((void)zt::asarray({1.0 + 2i}, {.dtype = zt::int64}), zt::TypeError);
  BOOST_TEST(values_of<bool>(zt::asarray({1.0 + 2i, 0i}, {.dtype = zt::bool_})) == std::vector<bool>({true, false}));
}

BOOST_AUTO_TEST_CASE(AT40_floating_narrowing_overflows_to_inf) {
  BOOST_TEST(std::isinf(values_of<float>(zt::asarray({1e40}, {.dtype = zt::float32}))[0]));
  BOOST_TEST(std::isinf(float(values_of<Eigen::half>(zt::asarray({70000}, {.dtype = zt::float16}))[0])));
  BOOST_TEST(std::isinf(float(values_of<Eigen::bfloat16>(zt::asarray({1e39}, {.dtype = zt::bfloat16}))[0])));
  BOOST_TEST(std::isinf(values_of<std::complex<float>>(zt::asarray({1e300 + 1i}, {.dtype = zt::complex64}))[0].real()));
}

BOOST_AUTO_TEST_CASE(anything_into_bool_is_not_zero) {
  BOOST_TEST(values_of<bool>(zt::asarray({1, 2.5, 0, 0.0}, {.dtype = zt::bool_})) ==
             std::vector<bool>({true, true, false, false}));
  BOOST_TEST(values_of<bool>(zt::asarray({std::nan("")}, {.dtype = zt::bool_}))[0]);
  BOOST_TEST(values_of<double>(zt::asarray({true, false}, {.dtype = zt::float64})) == std::vector<double>({1, 0}));
}

BOOST_AUTO_TEST_SUITE_END()
