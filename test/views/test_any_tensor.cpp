// AnyTensor: the checked typed view, visit, conversion copies with PyTorch's value
// rules, clone, shares_memory.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <complex>
#include <limits>
#include <memory>
#include <span>
#include <type_traits>
#include <variant>
#include <vector>

#include "zerotensor/convert.hpp"
#include "zerotensor/shares_memory.hpp"
#include "zerotensor/empty.hpp"
#include "zerotensor/frombuffer.hpp"
#include "support/message_check.hpp"

namespace {

template <class T>
zt::AnyTensor vector_view(std::vector<T>& values) {
  return zt::Tensor<T, 1>(values.data(), {zt::index_t(values.size())}, {1});
}

template <class... Views>
constexpr bool all_read_only(std::type_identity<std::variant<Views...>>) {
  return (std::is_const_v<typename Views::element_type> && ...);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(any_tensor)

BOOST_AUTO_TEST_CASE(holds_the_dtype_resolved_at_run_time) {
  std::vector<std::int16_t> values = {1, 2, 3, 4, 5, 6};
  zt::AnyTensor t = zt::Tensor<std::int16_t, 2>(values.data(), {2, 3}, {3, 1});
  BOOST_TEST(t.dtype() == zt::int16);
  BOOST_TEST(t.itemsize() == 2u);
  BOOST_TEST(t.rank() == 2u);
  BOOST_TEST(t.numel() == 6);
  BOOST_TEST(t.nbytes() == 12u);
  BOOST_TEST(t.size(1) == 3);
  BOOST_TEST(t.stride(0) == 3);
  BOOST_TEST(t.is_contiguous());
  BOOST_TEST(t.is_writable());
  BOOST_TEST(t.data_ptr() == values.data());
  BOOST_TEST((t.as<std::int16_t, 2>()(1, 1)) == 5);
  BOOST_TEST(t.as<const std::int16_t>()(0, 2) == 3);
}

BOOST_AUTO_TEST_CASE(builds_in_place_from_spans_and_keeps_the_owner) {
  auto values = std::make_shared<std::vector<double>>(std::vector<double>{1, 2, 3, 4, 5, 6});
  const std::weak_ptr<std::vector<double>> watch = values;
  double* data = values->data();
  const std::vector<zt::index_t> shape = {3, 2}, strides = {1, 3};  // a 2 x 3 row-major matrix, transposed
  zt::AnyTensor t(data, shape, strides, values, zt::cpu);
  values.reset();
  BOOST_TEST(!watch.expired());  // the view holds its owner
  BOOST_TEST(t.dtype() == zt::float64);
  BOOST_TEST((t.shape() == zt::DynamicExtents{3, 2}));
  BOOST_TEST((t.strides() == zt::DynamicExtents{1, 3}));
  BOOST_TEST(!t.is_contiguous());
  BOOST_TEST(t.is_writable());
  BOOST_TEST(t.data_ptr() == data);
  auto typed = t.as<double, 2>();
  BOOST_TEST(typed(2, 1) == 6.0);
  typed(1, 1) = 50.0;  // element 1 * 1 + 1 * 3
  BOOST_TEST(data[4] == 50.0);
  t = zt::AnyTensor(data, shape, strides);  // borrowed: the typed view alone keeps the owner now
  BOOST_TEST(!watch.expired());
  typed = zt::Tensor<double, 2>(data, {1, 1}, {1, 1});
  BOOST_TEST(watch.expired());  // the last view is gone: the owner ran exactly when it should
}

BOOST_AUTO_TEST_CASE(built_from_spans_read_only_when_const_or_not_writable) {
  std::vector<float> values = {1, 2, 3};
  const std::vector<zt::index_t> shape = {3}, strides = {1};
  const zt::AnyTensor from_const(static_cast<const float*>(values.data()), shape, strides);
  BOOST_TEST(!from_const.is_writable());
  BOOST_CHECK_THROW((void)from_const.as<float>(), zt::TypeError);
  BOOST_TEST(from_const.as<const float>()(2) == 3.0f);
  const zt::AnyTensor marked(values.data(), shape, strides, {}, zt::cpu, false);
  BOOST_TEST(!marked.is_writable());
  BOOST_CHECK_THROW((void)marked.mutable_data_ptr(), zt::TypeError);
  // const elements are never made writable, whatever the flag says.
  const zt::AnyTensor still_const(static_cast<const float*>(values.data()), shape, strides, {}, zt::cpu, true);
  BOOST_TEST(!still_const.is_writable());
  // A 0-d view from empty spans: one element.
  const zt::AnyTensor scalar(values.data(), std::span<const zt::index_t>(), std::span<const zt::index_t>());
  BOOST_TEST(scalar.rank() == 0u);
  BOOST_TEST(scalar.numel() == 1);
  BOOST_TEST(scalar.as<float>()() == 1.0f);
}

BOOST_AUTO_TEST_CASE(as_names_what_was_expected_and_found) {
  std::vector<std::int64_t> values(16);
  zt::AnyTensor t = zt::Tensor<std::int64_t, 2>(values.data(), {4, 4}, {4, 1});
  BOOST_CHECK_EXCEPTION((void)(t.as<float, 2>()), zt::TypeError, [](const zt::TypeError& e) {
    return message_has(e, "expected float32, rank 2, writable; got int64, shape (4, 4), strides (4, 1), cpu");
  });
  BOOST_CHECK_EXCEPTION((void)(t.as<std::int64_t, 3>()), zt::ValueError,
                        [](const zt::ValueError& e) { return message_has(e, "expected int64, rank 3, writable; got int64"); });
  zt::AnyTensor read_only = zt::Tensor<const std::int64_t, 2>(values.data(), {4, 4}, {4, 1});
  BOOST_TEST(!read_only.is_writable());
  BOOST_CHECK_THROW((void)read_only.as<std::int64_t>(), zt::TypeError);
  BOOST_TEST(read_only.as<const std::int64_t>().data() == values.data());
}

BOOST_AUTO_TEST_CASE(visit_passes_const_elements_for_read_only_memory) {
  std::vector<float> values = {1, 2, 3};
  zt::AnyTensor writable = vector_view(values);
  zt::AnyTensor read_only = zt::Tensor<const float, 1>(values.data(), {3}, {1});
  auto constness = [](const auto& typed) {
    return std::is_const_v<typename std::remove_cvref_t<decltype(typed)>::element_type>;
  };
  BOOST_TEST(!writable.visit(constness));
  BOOST_TEST(read_only.visit(constness));
  double sum = writable.visit([](const auto& typed) {
    double total = 0;
    for (zt::index_t i = 0; i < typed.numel(); ++i) {
      // Every numeric dtype is compiled: complex values give their real part.
      if constexpr (requires { static_cast<double>(typed(i)); }) total += static_cast<double>(typed(i));
      else if constexpr (requires { std::real(typed(i)); }) total += std::real(typed(i));
      else if constexpr (requires { std::complex<float>(typed(i)); }) total += std::complex<float>(typed(i)).real();
    }
    return total;
  });
  BOOST_TEST(sum == 6.0);
}

BOOST_AUTO_TEST_CASE(visit_refuses_packed_sub_byte_types_unless_the_set_holds_them) {
  std::array<std::uint8_t, 4> bytes = {0x10, 0x32, 0x54, 0x76};
  const zt::AnyTensor packed = zt::frombuffer(bytes, zt::float4_e2m1fn_x2_);
  BOOST_CHECK_EXCEPTION((void)packed.visit<zt::dtypes::numeric>([](const auto& typed) { return double(typed.numel()); }),
                        zt::TypeError,
                        with_message<zt::TypeError>("visit: f is compiled for zt::dtypes::numeric (bool, uint8, int8, "
                                                    "int16, int32, int64, uint16, uint32, uint64, float16, bfloat16, "
                                                    "float32, float64, complex64, complex128, float8_e4m3fn, "
                                                    "float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz, float8_e8m0fnu, "
                                                    "complex32), which does not hold float4_e2m1fn_x2; call "
                                                    "visit<zt::dtypes::all>(f) to compile f for it too"));
  const auto count = [](const auto& typed) { return typed.numel(); };
  BOOST_TEST(packed.visit<zt::dtypes::all>(count) == 4);
  BOOST_TEST((packed.as<const zt::float4_e2m1fn_x2, 1>()(3).bits == 0x76));
  const zt::AnyTensor copy = packed.clone();  // bytes copy as they are
  BOOST_TEST((copy.as<const zt::float4_e2m1fn_x2, 1>()(1).bits == 0x32));
  BOOST_TEST(copy.data_ptr() != packed.data_ptr());
}

/// A generic visitor written for the classic dtypes: double(v) compiles for each of them
/// except the complex ones, which it takes apart.
double sum_as_double(const zt::AnyTensor& t) {
  return t.visit([](const auto& typed) {
    using T = typename std::remove_cvref_t<decltype(typed)>::value_type;
    double total = 0;
    for (zt::index_t i = 0; i < typed.numel(); ++i) {
      if constexpr (zt::is_complex(zt::dtype_of<T>)) total += double(typed(i).real());
      else total += double(typed(i));
    }
    return total;
  });
}

BOOST_AUTO_TEST_CASE(visit_compiles_a_function_for_the_classic_dtypes_only_unless_told) {
  std::vector<float> values = {1, 2, 3};
  BOOST_TEST(sum_as_double(vector_view(values)) == 6.0);
  std::array<std::uint8_t, 2> e4m3 = {0x38, 0x40};  // 1.0 and 2.0
  const zt::AnyTensor fp8 = zt::frombuffer(e4m3, zt::float8_e4m3fn_);
  BOOST_CHECK_EXCEPTION((void)sum_as_double(fp8), zt::TypeError,
                        with_message<zt::TypeError>("visit: f is compiled for zt::dtypes::classic (bool, uint8, int8, "
                                                    "int16, int32, int64, uint16, uint32, uint64, float16, bfloat16, "
                                                    "float32, float64, complex64, complex128), which does not hold "
                                                    "float8_e4m3fn; call visit<zt::dtypes::numeric>(f) to compile f "
                                                    "for it too"));
  const auto second = [](const auto& typed) {
    using T = typename std::remove_cvref_t<decltype(typed)>::value_type;
    if constexpr (zt::is_complex(zt::dtype_of<T>)) return float(typed(1).real());
    else return float(typed(1));
  };
  BOOST_TEST(fp8.visit<zt::dtypes::numeric>(second) == 2.0f);
  std::vector<std::int32_t> ints = {5, 6};
  BOOST_TEST(zt::AnyTensor(vector_view(ints)).visit<zt::dtypes::integral>([](const auto& typed) {
    return std::int64_t(typed(0)) + typed(1);
  }) == 11);
  BOOST_CHECK_THROW((void)zt::AnyTensor(vector_view(values)).visit<zt::dtypes::integral>([](const auto& typed) {
    return std::int64_t(typed(0));
  }), zt::TypeError);
}

BOOST_AUTO_TEST_CASE(dtype_sets_never_grow_and_hold_their_named_dtypes) {
  static_assert(zt::dtypes::classic::members.size() == 15);
  static_assert(zt::dtypes::numeric::members.size() == 21);
  static_assert(zt::dtypes::all::members.size() == 24);
  static_assert(zt::dtypes::gguf_blocks::members.size() == 27);
  static_assert(zt::dtypes::all_and_gguf_blocks::members.size() == zt::dtype_count);
  static_assert(zt::dtypes::integral::contains(zt::uint8) && !zt::dtypes::integral::contains(zt::uint16));
  static_assert(zt::dtypes::floating::contains(zt::float64) && !zt::dtypes::floating::contains(zt::float16));
  static_assert(zt::dtypes::all_types_and_complex::contains(zt::complex128) &&
                !zt::dtypes::all_types_and_complex::contains(zt::complex32_));
  for (zt::DType dtype : zt::dtypes::all::members) BOOST_TEST(zt::dtypes::all::contains(dtype));
  BOOST_TEST(zt::dtypes::all_and_gguf_blocks::members == zt::all_dtypes);
  for (zt::DType dtype : zt::dtypes::gguf_blocks::members) BOOST_TEST(zt::is_gguf_block(dtype));
}

BOOST_AUTO_TEST_CASE(to_dtype_follows_pytorch_value_rules) {
  std::vector<double> values = {1.7, -1.7, 0.0, 300.0, std::nan("")};
  zt::AnyTensor source = vector_view(values);
  auto as_int = source.to(zt::int32).as<std::int32_t, 1>();
  BOOST_TEST(as_int(0) == 1);   // truncation toward zero
  BOOST_TEST(as_int(1) == -1);
  BOOST_TEST(as_int(3) == 300);
  BOOST_TEST(as_int(4) == 0);   // NaN is defined as 0 (undefined behaviour in PyTorch's C++)
  auto as_u8 = source.to(zt::uint8).as<std::uint8_t, 1>();
  BOOST_TEST(as_u8(1) == 255);  // -1 wraps as in PyTorch
  BOOST_TEST(as_u8(3) == 44);   // 300 mod 256
  auto as_bool = source.to(zt::bool_).as<bool, 1>();
  BOOST_TEST(as_bool(0));
  BOOST_TEST(!as_bool(2));
  BOOST_TEST(as_bool(4));       // NaN != 0
  auto as_half = source.to(zt::float16).as<Eigen::half, 1>();
  BOOST_TEST(static_cast<float>(as_half(3)) == 300.0f);

  std::vector<std::complex<double>> complex_values = {{2.5, -1.0}, {0.0, 3.0}};
  zt::AnyTensor complex_source = vector_view(complex_values);
  auto real = complex_source.to(zt::float32).as<float, 1>();
  BOOST_TEST(real(0) == 2.5f);  // the real part is kept
  auto truth = complex_source.to(zt::bool_).as<bool, 1>();
  BOOST_TEST(truth(1));
  auto narrowed = complex_source.to(zt::complex64).as<std::complex<float>, 1>();
  BOOST_TEST(narrowed(1) == std::complex<float>(0.0f, 3.0f));

  bool flags[2] = {true, false};
  zt::AnyTensor flag_view = zt::Tensor<bool, 1>(flags, {2}, {1});
  auto widened = flag_view.to(zt::complex128).as<std::complex<double>, 1>();
  BOOST_TEST(widened(0) == std::complex<double>(1.0, 0.0));

  std::vector<std::int64_t> big = {std::numeric_limits<std::int64_t>::max(), -2};
  auto to_u16 = vector_view(big).to(zt::uint16).as<std::uint16_t, 1>();
  BOOST_TEST(to_u16(0) == 65535);
  BOOST_TEST(to_u16(1) == 65534);
}

BOOST_AUTO_TEST_CASE(to_same_dtype_shares_and_clone_copies) {
  std::vector<float> values = {1, 2, 3, 4};
  zt::AnyTensor t = vector_view(values);
  BOOST_TEST(t.to(zt::float32).data_ptr() == values.data());
  zt::AnyTensor copy = t.clone();
  BOOST_TEST(copy.data_ptr() != t.data_ptr());
  BOOST_TEST(!zt::shares_memory(copy, t));
  BOOST_TEST(copy.is_writable());
  BOOST_TEST(reinterpret_cast<std::uintptr_t>(copy.data_ptr()) % 64 == 0u);
  copy.as<float>()(0) = 100.0f;
  BOOST_TEST(values[0] == 1.0f);
  BOOST_TEST(copy.as<float>()(3) == 4.0f);
  BOOST_TEST(t.to(zt::float64).as<double>()(3) == 4.0);
}

BOOST_AUTO_TEST_CASE(clone_of_strided_and_read_only_views_is_contiguous) {
  std::vector<int> values = {1, 2, 3, 4, 5, 6};
  zt::AnyTensor transposed = zt::Tensor<const int, 2>(values.data(), {3, 2}, {1, 3});
  zt::AnyTensor copy = transposed.clone();
  BOOST_TEST(copy.is_writable());
  BOOST_TEST(copy.is_contiguous());
  BOOST_TEST(copy.strides() == zt::DynamicExtents({2, 1}));
  auto typed = copy.as<int, 2>();
  BOOST_TEST(typed(0, 1) == 4);
  BOOST_TEST(typed(2, 0) == 3);
  std::vector<int> reversed_source = {1, 2, 3};
  zt::AnyTensor reversed = zt::Tensor<int, 1>(reversed_source.data() + 2, {3}, {-1});
  auto as_double = reversed.to(zt::float64).as<double, 1>();
  BOOST_TEST(as_double(0) == 3.0);
  BOOST_TEST(as_double(2) == 1.0);
}

BOOST_AUTO_TEST_CASE(copy_into_checks_shape_and_writability) {
  std::vector<float> a(4), b(3);
  zt::AnyTensor four = vector_view(a);
  zt::AnyTensor three = vector_view(b);
  BOOST_CHECK_EXCEPTION(zt::copy_into(four, three), zt::ValueError, [](const zt::ValueError& e) {
    return message_has(e, "source shape (4,) differs from destination shape (3,)");
  });
  zt::AnyTensor read_only = zt::Tensor<const float, 1>(a.data(), {4}, {1});
  BOOST_CHECK_THROW(zt::copy_into(four, read_only), zt::TypeError);
  BOOST_CHECK_THROW((void)four.to(zt::cuda(99)), zt::DeviceError);  // no machine has a 100th GPU
  BOOST_TEST(four.to(zt::cpu).data_ptr() == a.data());
}

BOOST_AUTO_TEST_CASE(the_pointer_constructor_refuses_shape_and_strides_of_different_lengths) {
  std::vector<float> values(1);
  const std::vector<zt::index_t> shape(8, 1), strides(7, 1);
  BOOST_CHECK_EXCEPTION(zt::AnyTensor(values.data(), shape, strides), zt::ValueError,
                        with_message<zt::ValueError>(
                            "AnyTensor: mismatch in length of strides and shape: 7 strides for 8 dimensions"));
}

#if !(defined(ZT_CUDA) && ZT_CUDA)
BOOST_AUTO_TEST_CASE(clone_and_conversion_of_gpu_memory_need_the_cuda_build) {
  alignas(4) float fake_device_memory[2] = {};
  const zt::AnyTensor on_gpu = zt::Tensor<float, 1>(fake_device_memory, {2}, {1}, {}, zt::cuda(0));
  const std::string no_cuda = ": this build of zerotensor has no CUDA (configure it with -DZT_CUDA=ON)";
  BOOST_CHECK_EXCEPTION((void)on_gpu.clone(), zt::DeviceError,
                        with_message<zt::DeviceError>("AnyTensor::clone: cannot copy from cuda:0 to cuda:0" + no_cuda));
  BOOST_CHECK_EXCEPTION((void)on_gpu.to(zt::float64), zt::DeviceError,
                        with_message<zt::DeviceError>("AnyTensor::to: cannot copy from cuda:0 to cpu" + no_cuda));
}
#endif

BOOST_AUTO_TEST_CASE(copy_into_between_overlapping_views_reads_the_source_as_it_was) {
  // NumPy's copyto and PyTorch's copy_ give the same results.
  std::vector<std::int32_t> values = {0, 1, 2, 3, 4, 5, 6, 7};
  zt::AnyTensor all = zt::Tensor<std::int32_t, 1>(values.data(), {8}, {1});
  zt::copy_into(all, all);
  BOOST_TEST((values == std::vector<std::int32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  zt::copy_into(zt::Tensor<std::int32_t, 1>(values.data(), {7}, {1}), zt::Tensor<std::int32_t, 1>(values.data() + 1, {7}, {1}));
  BOOST_TEST((values == std::vector<std::int32_t>{0, 0, 1, 2, 3, 4, 5, 6}));
  zt::copy_into(zt::Tensor<std::int32_t, 1>(values.data() + 1, {7}, {1}), zt::Tensor<std::int32_t, 1>(values.data(), {7}, {1}));
  BOOST_TEST((values == std::vector<std::int32_t>{0, 1, 2, 3, 4, 5, 6, 6}));
  // Reversed in place, and a transpose onto itself (strided walk).
  zt::copy_into(zt::Tensor<std::int32_t, 1>(values.data() + 7, {8}, {-1}), all);
  BOOST_TEST((values == std::vector<std::int32_t>{6, 6, 5, 4, 3, 2, 1, 0}));
  std::vector<std::int32_t> square = {1, 2, 3, 4};
  zt::copy_into(zt::Tensor<std::int32_t, 2>(square.data(), {2, 2}, {1, 2}), zt::Tensor<std::int32_t, 2>(square.data(), {2, 2}, {2, 1}));
  BOOST_TEST((square == std::vector<std::int32_t>{1, 3, 2, 4}));
  // Across dtypes over the same bytes: int32 values 1, 2 read as they were, stored as float.
  std::vector<std::int32_t> words = {1, 2};
  zt::copy_into(zt::Tensor<std::int32_t, 1>(words.data(), {2}, {1}),
                zt::Tensor<float, 1>(reinterpret_cast<float*>(words.data()), {2}, {1}));
  BOOST_TEST(reinterpret_cast<const float*>(words.data())[0] == 1.0f);
  BOOST_TEST(reinterpret_cast<const float*>(words.data())[1] == 2.0f);
}

BOOST_AUTO_TEST_CASE(variant_hands_out_read_only_views_only) {
  std::vector<float> values = {1.0f, 2.0f};
  const zt::AnyTensor writable = zt::Tensor<float, 1>(values.data(), {2}, {1});
  const zt::AnyTensor read_only = zt::Tensor<const float, 1>(values.data(), {2}, {1});
  static_assert(std::is_same_v<std::variant_alternative_t<11, zt::ReadOnlyTensorVariant>,
                               zt::Tensor<const float>>);
  static_assert(all_read_only(std::type_identity<zt::ReadOnlyTensorVariant>{}));
  for (const zt::AnyTensor* tensor : {&writable, &read_only}) {
    const auto view = std::get<zt::Tensor<const float>>(tensor->variant());
    BOOST_TEST(view.data() == values.data());
    BOOST_TEST(view(1) == 2.0f);
  }
  // visit hands out writable views only when the memory is writable.
  BOOST_TEST(writable.visit([](const auto& t) { return !std::is_const_v<typename std::remove_cvref_t<decltype(t)>::element_type>; }));
  BOOST_TEST(read_only.visit([](const auto& t) { return std::is_const_v<typename std::remove_cvref_t<decltype(t)>::element_type>; }));
}

BOOST_AUTO_TEST_CASE(an_invalid_dtype_value_is_a_value_error_everywhere) {
  const auto invalid = static_cast<zt::DType>(200);
  const zt::index_t shape[] = {2};
  std::vector<float> values(2);
  const zt::AnyTensor tensor = vector_view(values);
  const auto names_it = [](const zt::ValueError& e) { return message_has(e, "invalid DType value 200"); };
  BOOST_CHECK_EXCEPTION((void)zt::empty(shape, invalid), zt::ValueError, names_it);
  BOOST_CHECK_EXCEPTION((void)tensor.to(invalid), zt::ValueError, names_it);
}

BOOST_AUTO_TEST_CASE(empty_checks_the_shape) {
  const zt::index_t shape[] = {2, -3};
  BOOST_CHECK_EXCEPTION((void)zt::empty(shape, zt::float32), zt::ValueError, [](const zt::ValueError& e) {
    return message_has(e, "negative extent -3 in dimension 1 of shape (2, -3)");
  });
  const zt::index_t huge[] = {zt::index_t{1} << 40, zt::index_t{1} << 30};
  BOOST_CHECK_EXCEPTION((void)zt::empty(huge, zt::float32), zt::ValueError,
                        [](const zt::ValueError& e) { return message_has(e, "has more than 2^63 elements"); });
  const zt::index_t zero[] = {0, 5};
  BOOST_TEST(zt::empty(zero, zt::int8).numel() == 0);
  const zt::index_t dims[] = {3, 4};
  zt::Tensor<double> typed = zt::empty<double>(dims);
  BOOST_TEST(typed.strides() == zt::DynamicExtents({4, 1}));
}

BOOST_AUTO_TEST_CASE(shares_memory_compares_reachable_bytes) {
  std::vector<float> values(10);
  zt::AnyTensor first_half = zt::Tensor<float, 1>(values.data(), {5}, {1});
  zt::AnyTensor second_half = zt::Tensor<float, 1>(values.data() + 5, {5}, {1});
  zt::AnyTensor evens = zt::Tensor<float, 1>(values.data(), {5}, {2});
  zt::AnyTensor reversed = zt::Tensor<float, 1>(values.data() + 9, {3}, {-1});
  zt::AnyTensor nothing = zt::Tensor<float, 1>(values.data(), {0}, {1});
  BOOST_TEST(!zt::shares_memory(first_half, second_half));
  BOOST_TEST(zt::shares_memory(evens, second_half));
  BOOST_TEST(zt::shares_memory(reversed, second_half));
  BOOST_TEST(!zt::shares_memory(reversed, first_half));
  BOOST_TEST(!zt::shares_memory(nothing, first_half));
  zt::AnyTensor as_bytes = zt::Tensor<std::uint8_t, 1>(reinterpret_cast<std::uint8_t*>(values.data()) + 19, {1}, {1});
  BOOST_TEST(zt::shares_memory(as_bytes, first_half));
  BOOST_TEST(!zt::shares_memory(as_bytes, second_half));
}

BOOST_AUTO_TEST_SUITE_END()
