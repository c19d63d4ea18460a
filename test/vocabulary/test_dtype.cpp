// DType: sizes, names, element types, PyTorch's promotion table, the default dtype.
#include <boost/test/unit_test.hpp>

#include <string>

#include "zerotensor/any_tensor.hpp"
#include "zerotensor/dtype.hpp"
#include "zerotensor/frombuffer.hpp"
#include "zerotensor/error.hpp"
#include "zerotensor/device.hpp"
#include "support/message_check.hpp"

namespace {
template <zt::DType D>
constexpr bool round_trips = zt::dtype_of<zt::type_of<D>> == D;
}  // namespace

BOOST_AUTO_TEST_SUITE(dtype)

BOOST_AUTO_TEST_CASE(itemsize_name_and_alignment_of_all_51) {
  const std::array<std::size_t, 51> sizes = {1,  1,  1,  2,   4,   8,   2,   4,   8,   2,  2,  4,  8,  8,  16, 1,  1,
                                             1,  1,  1,  4,   1,   3,   3,   18,  20,  22, 24, 34, 36, 84, 110, 144, 176,
                                             210, 292, 66, 74, 98, 50, 18, 110, 82, 136, 56, 54, 66, 17, 36, 18, 18};
  const std::array<std::string_view, 51> names = {
      "bool",          "uint8",           "int8",          "int16",           "int32",
      "int64",         "uint16",          "uint32",        "uint64",          "float16",
      "bfloat16",      "float32",         "float64",       "complex64",       "complex128",
      "float8_e4m3fn", "float8_e5m2",     "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu",
      "complex32",     "float4_e2m1fn_x2", "float6_e2m3fn_x4", "float6_e3m2fn_x4",
      "gguf_q4_0",     "gguf_q4_1",       "gguf_q5_0",     "gguf_q5_1",       "gguf_q8_0",
      "gguf_q8_1",     "gguf_q2_k",       "gguf_q3_k",     "gguf_q4_k",       "gguf_q5_k",
      "gguf_q6_k",     "gguf_q8_k",       "gguf_iq2_xxs",  "gguf_iq2_xs",     "gguf_iq3_xxs",
      "gguf_iq1_s",    "gguf_iq4_nl",     "gguf_iq3_s",    "gguf_iq2_s",      "gguf_iq4_xs",
      "gguf_iq1_m",    "gguf_tq1_0",      "gguf_tq2_0",    "gguf_mxfp4",      "gguf_nvfp4",
      "gguf_q1_0",     "gguf_q2_0"};
  BOOST_TEST(zt::all_dtypes.size() == sizes.size());
  for (std::size_t i = 0; i < zt::all_dtypes.size(); ++i) {
    BOOST_TEST(zt::itemsize(zt::all_dtypes[i]) == sizes[i]);
    BOOST_TEST(zt::name(zt::all_dtypes[i]) == names[i]);
  }
  BOOST_TEST(zt::alignment(zt::complex128) == 8u);
  BOOST_TEST(zt::alignment(zt::complex64) == 4u);
  BOOST_TEST(zt::alignment(zt::float16) == 2u);
  BOOST_TEST(zt::alignment(zt::complex32_) == 2u);
  BOOST_TEST(zt::alignment(zt::float6_e2m3fn_x4_) == 1u);
  BOOST_TEST(zt::alignment(zt::gguf_q8_k_) == 1u);
  BOOST_TEST(zt::is_gguf_block(zt::gguf_q4_k_));
  BOOST_TEST(zt::is_packed(zt::gguf_q2_0_));
  BOOST_TEST(!zt::is_gguf_block(zt::float6_e3m2fn_x4_));
}

BOOST_AUTO_TEST_CASE(invalid_dtype_values_are_value_errors) {
  for (const auto value : {51, 200, 255}) {
    const auto invalid = static_cast<zt::DType>(value);
    BOOST_TEST_CONTEXT("DType(" << value << ")") {
      const auto names_it = [&](const zt::ValueError& e) {
        return message_has(e, "invalid DType value " + std::to_string(value) +
                                  "; the dtypes are 0 (bool) to 50 (gguf_q2_0)");
      };
      BOOST_CHECK_EXCEPTION((void)zt::itemsize(invalid), zt::ValueError, names_it);
      BOOST_CHECK_EXCEPTION((void)zt::alignment(invalid), zt::ValueError, names_it);
      BOOST_CHECK_EXCEPTION((void)zt::name(invalid), zt::ValueError, names_it);
      BOOST_CHECK_EXCEPTION(zt::dispatch(invalid, [](auto) { return 0; }), zt::ValueError, names_it);
      BOOST_CHECK_EXCEPTION((void)zt::promote_types(invalid, zt::float32), zt::ValueError, names_it);
      BOOST_CHECK_EXCEPTION((void)zt::promote_types(zt::float32, invalid), zt::ValueError, names_it);
      BOOST_CHECK_EXCEPTION(zt::set_default_dtype(invalid), zt::ValueError, names_it);
    }
  }
  BOOST_TEST(zt::default_dtype() == zt::float32);
}

BOOST_AUTO_TEST_CASE(element_types_map_both_ways) {
  static_assert(zt::dtype_of<bool> == zt::bool_);
  static_assert(zt::dtype_of<Eigen::half> == zt::float16);
  static_assert(zt::dtype_of<Eigen::bfloat16> == zt::bfloat16);
  static_assert(zt::dtype_of<std::complex<float>> == zt::complex64);
  static_assert(zt::dtype_of<const double> == zt::float64);
  static_assert(std::is_same_v<zt::type_of<zt::uint16>, std::uint16_t>);
  static_assert(round_trips<zt::DType::Complex128> && round_trips<zt::DType::Int8> && round_trips<zt::DType::UInt64>);
  static_assert(!zt::Element<long double> && !zt::Element<char> && zt::Element<std::int64_t>);
  BOOST_TEST(zt::dispatch(zt::int16, [](auto tag) { return sizeof(typename decltype(tag)::type); }) == 2u);
}

BOOST_AUTO_TEST_CASE(promotion_matches_pytorch_1_13_table) {
  using namespace zt;
  // Rows and columns: bool uint8 int8 int16 int32 int64 float16 bfloat16 float32 float64
  // complex64 complex128; printed by torch.promote_types in Debian's PyTorch 1.13.
  const std::array<DType, 12> order = {bool_, uint8, int8, int16, int32, int64,
                                       float16, bfloat16, float32, float64, complex64, complex128};
  const DType table[12][12] = {
      {bool_, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64, complex64, complex128},
      {uint8, uint8, int16, int16, int32, int64, float16, bfloat16, float32, float64, complex64, complex128},
      {int8, int16, int8, int16, int32, int64, float16, bfloat16, float32, float64, complex64, complex128},
      {int16, int16, int16, int16, int32, int64, float16, bfloat16, float32, float64, complex64, complex128},
      {int32, int32, int32, int32, int32, int64, float16, bfloat16, float32, float64, complex64, complex128},
      {int64, int64, int64, int64, int64, int64, float16, bfloat16, float32, float64, complex64, complex128},
      {float16, float16, float16, float16, float16, float16, float16, float32, float32, float64, complex64, complex128},
      {bfloat16, bfloat16, bfloat16, bfloat16, bfloat16, bfloat16, float32, bfloat16, float32, float64, complex64, complex128},
      {float32, float32, float32, float32, float32, float32, float32, float32, float32, float64, complex64, complex128},
      {float64, float64, float64, float64, float64, float64, float64, float64, float64, float64, complex128, complex128},
      {complex64, complex64, complex64, complex64, complex64, complex64, complex64, complex64, complex64, complex128, complex64, complex128},
      {complex128, complex128, complex128, complex128, complex128, complex128, complex128, complex128, complex128, complex128, complex128, complex128},
  };
  for (std::size_t i = 0; i < order.size(); ++i)
    for (std::size_t j = 0; j < order.size(); ++j)
      BOOST_TEST(promote_types(order[i], order[j]) == table[i][j], order[i] << " with " << order[j]);
}

BOOST_AUTO_TEST_CASE(float8_and_packed_types_promote_only_with_themselves) {
  // torch 2.15: "Promotion for Float8 Types is not supported, attempted to promote Float8_e4m3fn and Float".
  BOOST_TEST(zt::promote_types(zt::float8_e5m2_, zt::float8_e5m2_) == zt::float8_e5m2_);
  BOOST_TEST(zt::promote_types(zt::float4_e2m1fn_x2_, zt::float4_e2m1fn_x2_) == zt::float4_e2m1fn_x2_);
  for (zt::DType other : {zt::bool_, zt::int64, zt::float32, zt::complex64, zt::float8_e4m3fnuz_, zt::float6_e2m3fn_x4_}) {
    BOOST_CHECK_EXCEPTION((void)zt::promote_types(zt::float8_e4m3fn_, other), zt::TypeError, [&](const zt::TypeError& e) {
      return std::string(e.what()) ==
             "promotion for float8 and sub-byte types is not supported, attempted to promote float8_e4m3fn and " +
                 std::string(zt::name(other));
    });
  }
  BOOST_CHECK_THROW((void)zt::promote_types(zt::float32, zt::float4_e2m1fn_x2_), zt::TypeError);
}

BOOST_AUTO_TEST_CASE(complex32_promotes_as_in_pytorch) {
  // torch 2.15's promote_types with complex32.
  using zt::complex32_;
  for (zt::DType other : {zt::bool_, zt::uint8, zt::int8, zt::int16, zt::int32, zt::int64, zt::float16, complex32_})
    BOOST_TEST(zt::promote_types(complex32_, other) == complex32_, other);
  for (zt::DType other : {zt::bfloat16, zt::float32, zt::complex64})
    BOOST_TEST(zt::promote_types(other, complex32_) == zt::complex64, other);
  for (zt::DType other : {zt::float64, zt::complex128})
    BOOST_TEST(zt::promote_types(complex32_, other) == zt::complex128, other);
  BOOST_CHECK_THROW((void)zt::promote_types(complex32_, zt::uint16), zt::TypeError);
}

BOOST_AUTO_TEST_CASE(complex32_is_complex_for_every_trait_and_view) {
  static_assert(zt::is_complex(zt::complex32_) && zt::detail::is_complex_element<zt::complex32>);
  static_assert(zt::real_dtype(zt::complex32_) == zt::float16 && zt::complex_dtype(zt::float16) == zt::complex32_);
  static_assert(zt::real_dtype(zt::complex128) == zt::float64 && zt::complex_dtype(zt::float32) == zt::complex64);
  static_assert(zt::real_dtype(zt::int32) == zt::int32 && zt::complex_dtype(zt::bfloat16) == zt::bfloat16);
  for (zt::DType dtype : zt::all_dtypes) {
    const bool complex = dtype == zt::complex32_ || dtype == zt::complex64 || dtype == zt::complex128;
    BOOST_TEST(zt::is_complex(dtype) == complex, zt::name(dtype));
    BOOST_TEST((zt::real_dtype(dtype) != dtype) == complex, zt::name(dtype));
  }
  // As torch.view_as_real of chalf: float16 parts, real first; view_as_complex of half gives chalf.
  alignas(4) std::array<Eigen::half, 4> parts = {Eigen::half(1), Eigen::half(-2), Eigen::half(3), Eigen::half(4)};
  const zt::AnyTensor chalf = zt::frombuffer(parts, zt::complex32_);
  const zt::AnyTensor real = chalf.view_as_real();
  BOOST_TEST(real.dtype() == zt::float16);
  BOOST_TEST(real.shape() == (zt::DynamicExtents{2, 2}));
  BOOST_TEST(real.data_ptr() == parts.data());
  BOOST_TEST(float(real.as<const Eigen::half, 2>()(0, 1)) == -2.0f);
  const auto typed = chalf.as<zt::complex32, 1>().view_as_real();
  static_assert(std::is_same_v<decltype(typed), const zt::Tensor<Eigen::half, 2>>);
  BOOST_TEST(float(typed(1, 0)) == 3.0f);
  const zt::AnyTensor back = real.view_as_complex();
  BOOST_TEST(back.dtype() == zt::complex32_);
  BOOST_TEST(float(back.as<const zt::complex32, 1>()(1).imag()) == 4.0f);
  BOOST_TEST((std::is_same_v<decltype(typed.view_as_complex()), zt::Tensor<zt::complex32, 1>>));
  // The conjugate transpose of complex32 is no view, as of the other complex dtypes.
  BOOST_CHECK_THROW((void)chalf.view(std::array<zt::index_t, 2>{1, 2}).mH(), zt::TypeError);
}

BOOST_AUTO_TEST_CASE(view_as_complex_takes_half_float_and_double_as_pytorch) {
  std::array<Eigen::bfloat16, 2> values{};
  BOOST_CHECK_EXCEPTION((void)zt::frombuffer(values, zt::bfloat16).view(std::array<zt::index_t, 2>{1, 2}).view_as_complex(),
                        zt::TypeError,
                        with_message<zt::TypeError>("view_as_complex is only supported for half, float and double "
                                                    "tensors, but got a tensor of dtype bfloat16"));
}

BOOST_AUTO_TEST_CASE(only_the_four_classic_floating_types_can_be_the_default) {
  for (zt::DType refused : {zt::float8_e4m3fn_, zt::float4_e2m1fn_x2_, zt::complex32_}) {
    BOOST_CHECK_EXCEPTION(zt::set_default_dtype(refused), zt::TypeError, [&](const zt::TypeError& e) {
      return std::string(e.what()) ==
             "only floating-point types are supported as the default type; got " + std::string(zt::name(refused));
    });
  }
  BOOST_TEST(zt::default_dtype() == zt::float32);
}

BOOST_AUTO_TEST_CASE(wide_unsigned_promote_only_with_themselves_and_floats) {
  BOOST_TEST(zt::promote_types(zt::uint32, zt::uint32) == zt::uint32);
  BOOST_TEST(zt::promote_types(zt::uint16, zt::float32) == zt::float32);
  BOOST_TEST(zt::promote_types(zt::float64, zt::uint64) == zt::float64);
  BOOST_CHECK_EXCEPTION((void)zt::promote_types(zt::uint16, zt::int8), zt::TypeError, [](const zt::TypeError& e) {
    return std::string(e.what()).find("attempted to promote uint16 and int8") != std::string::npos;
  });
  BOOST_CHECK_THROW((void)zt::promote_types(zt::uint64, zt::uint8), zt::TypeError);
}

BOOST_AUTO_TEST_CASE(default_dtype_is_float32_and_accepts_only_floating) {
  BOOST_TEST(zt::default_dtype() == zt::float32);
  zt::set_default_dtype(zt::float64);
  BOOST_TEST(zt::default_dtype() == zt::float64);
  BOOST_CHECK_EXCEPTION(zt::set_default_dtype(zt::int64), zt::TypeError, [](const zt::TypeError& e) {
    return std::string(e.what()).find("got int64") != std::string::npos;
  });
  BOOST_TEST(zt::default_dtype() == zt::float64);
  zt::set_default_dtype(zt::float32);
}

BOOST_AUTO_TEST_CASE(devices_print_like_pytorch) {
  BOOST_TEST(zt::to_string(zt::cpu) == "cpu");
  BOOST_TEST(zt::to_string(zt::cuda(1)) == "cuda:1");
  BOOST_TEST(zt::cuda(0) != zt::cpu);
  BOOST_TEST(!zt::cuda(0).is_host_accessible());
  BOOST_TEST((zt::Device{zt::DeviceKind::CUDAManaged, 0}).is_host_accessible());
}

BOOST_AUTO_TEST_SUITE_END()
