// Printing: dtype names, shapes as "(2, 3)", and tensors as PyTorch's repr prints them. Every
// expected tensor text is what torch 2.15 prints for the same values, with "torch." left out
// of dtype names.
#include <boost/test/unit_test.hpp>

#include <complex>
#include <cstdint>
#include <limits>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "zerotensor/any_tensor.hpp"
#include "zerotensor/asarray.hpp"
#include "zerotensor/device.hpp"
#include "zerotensor/dtype.hpp"
#include "zerotensor/print.hpp"
#include "zerotensor/shape.hpp"
#include "zerotensor/tensor.hpp"

namespace {

template <class T>
std::string streamed(const T& value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

/// 0, 1, ..., n - 1.
template <class T>
std::vector<T> arange(std::size_t n) {
  std::vector<T> values(n);
  std::iota(values.begin(), values.end(), T{0});
  return values;
}

/// A 1-D view of `values`, which must outlive it.
template <class T>
zt::AnyTensor over(std::vector<T>& values, zt::Device device = zt::cpu) {
  return zt::Tensor<T, 1>(values.data(), {zt::index_t(values.size())}, {1}, {}, device);
}

/// Restores the default dtype when a test changed it.
struct DefaultDTypeGuard {
  zt::DType saved = zt::default_dtype();
  ~DefaultDTypeGuard() { zt::set_default_dtype(saved); }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(print)

BOOST_AUTO_TEST_CASE(dtype_to_string_is_the_text_of_operator_shift) {
  BOOST_TEST(zt::to_string(zt::float32) == "float32");
  BOOST_TEST(zt::to_string(zt::bool_) == "bool");
  BOOST_TEST(zt::to_string(zt::complex128) == "complex128");
  BOOST_TEST(zt::to_string(zt::float8_e4m3fn_) == "float8_e4m3fn");
  for (zt::DType dtype : zt::all_dtypes) {
    BOOST_TEST(zt::to_string(dtype) == zt::name(dtype));
    BOOST_TEST(streamed(dtype) == zt::name(dtype));
  }
  // The std overloads stay reachable next to zt's, qualified or through a using-directive.
  using namespace zt;
  using std::to_string;
  BOOST_TEST(to_string(5) == "5");
  BOOST_TEST(to_string(int64) == "int64");
}

BOOST_AUTO_TEST_CASE(shapes_print_as_python_tuples) {
  BOOST_TEST(zt::shape_string({}) == "()");
  const std::vector<zt::index_t> zero = {0}, matrix = {2, 3};
  BOOST_TEST(zt::shape_string(zero) == "(0,)");
  BOOST_TEST(zt::shape_string(matrix) == "(2, 3)");

  const zt::AnyTensor any = zt::asarray({{1, 2, 3}, {4, 5, 6}});
  BOOST_TEST(streamed(any.shape()) == "(2, 3)");
  BOOST_TEST(streamed(any.strides()) == "(3, 1)");
  BOOST_TEST(zt::to_string(any.shape()) == "(2, 3)");
  BOOST_TEST(zt::to_string(any[0].shape()) == "(3,)");
  BOOST_TEST(zt::to_string(any[0][0].shape()) == "()");

  // A static rank's shape is a std::array: shape_string takes it.
  const auto typed = any.as<const std::int64_t, 2>().t();
  BOOST_TEST(zt::shape_string(typed.shape()) == "(3, 2)");
  BOOST_TEST(zt::shape_string(typed.strides()) == "(1, 3)");
}

BOOST_AUTO_TEST_CASE(integers_and_bool) {
  BOOST_TEST(zt::to_string(zt::asarray({1, 2, 3})) == "tensor([1, 2, 3])");
  BOOST_TEST(zt::to_string(zt::asarray({true, false})) == "tensor([ True, False])");
  BOOST_TEST(zt::to_string(zt::asarray({1, 200}, {.dtype = zt::uint8})) == "tensor([  1, 200], dtype=uint8)");
  std::vector<std::uint64_t> large = {(std::uint64_t{1} << 63) + 5};
  BOOST_TEST(zt::to_string(over(large)) == "tensor([9223372036854775813], dtype=uint64)");
}

BOOST_AUTO_TEST_CASE(floats_fixed_integer_and_scientific) {
  BOOST_TEST(zt::to_string(zt::asarray({1.0, 2.5})) == "tensor([1.0000, 2.5000])");
  BOOST_TEST(zt::to_string(zt::asarray({-1.0, 0.5})) == "tensor([-1.0000,  0.5000])");
  BOOST_TEST(zt::to_string(zt::asarray({1.0, 2.0})) == "tensor([1., 2.])");
  BOOST_TEST(zt::to_string(zt::asarray({-0.0, 1.0})) == "tensor([-0., 1.])");
  BOOST_TEST(zt::to_string(zt::asarray({0.0, 0.0, 0.0})) == "tensor([0., 0., 0.])");
  // Scientific: a smallest value under 1e-4, a ratio over 1000, a largest value over 1e8.
  BOOST_TEST(zt::to_string(zt::asarray({1e-5, 1e3})) == "tensor([1.0000e-05, 1.0000e+03])");
  BOOST_TEST(zt::to_string(zt::asarray({1.0, 1e8}, {.dtype = zt::float64})) ==
             "tensor([1.0000e+00, 1.0000e+08], dtype=float64)");
}

BOOST_AUTO_TEST_CASE(nan_and_infinities_take_no_part_in_the_style) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  BOOST_TEST(zt::to_string(zt::asarray({nan, 1.0, inf, -inf})) == "tensor([nan, 1., inf, -inf])");
  BOOST_TEST(zt::to_string(zt::asarray({-nan, 1.5, -inf})) == "tensor([   nan, 1.5000,   -inf])");
}

BOOST_AUTO_TEST_CASE(the_smaller_floats_print_through_float) {
  BOOST_TEST(zt::to_string(zt::asarray({1.5, 2.0}, {.dtype = zt::float16})) ==
             "tensor([1.5000, 2.0000], dtype=float16)");
  BOOST_TEST(zt::to_string(zt::asarray({0.1, 2.0}, {.dtype = zt::bfloat16})) ==
             "tensor([0.1001, 2.0000], dtype=bfloat16)");
  BOOST_TEST(zt::to_string(zt::asarray({1.5, -2.0, 448.0}, {.dtype = zt::float8_e4m3fn_})) ==
             "tensor([  1.5000,  -2.0000, 448.0000], dtype=float8_e4m3fn)");
  BOOST_TEST(zt::to_string(zt::asarray({1.0, 4.0, 0.5}, {.dtype = zt::float8_e8m0fnu_})) ==
             "tensor([1.0000, 4.0000, 0.5000], dtype=float8_e8m0fnu)");
}

BOOST_AUTO_TEST_CASE(complex_parts_have_a_style_each) {
  using c = std::complex<double>;
  BOOST_TEST(zt::to_string(zt::asarray({c(1, 2), c(3.5, -1)})) == "tensor([1.0000+2.j, 3.5000-1.j])");
  BOOST_TEST(zt::to_string(zt::asarray(c(1, -2))) == "tensor(1.-2.j)");
  BOOST_TEST(zt::to_string(zt::asarray({c(1, 1)}, {.dtype = zt::complex128})) == "tensor([1.+1.j], dtype=complex128)");
  BOOST_TEST(zt::to_string(zt::asarray({c(1.5, 0.5), c(-0.0, -2)}, {.dtype = zt::complex32_})) ==
             "tensor([1.5000+0.5000j, -0.0000-2.0000j], dtype=complex32)");
}

BOOST_AUTO_TEST_CASE(rank_0_and_empty) {
  BOOST_TEST(zt::to_string(zt::asarray(3)) == "tensor(3)");
  BOOST_TEST(zt::to_string(zt::asarray(3.25)) == "tensor(3.2500)");
  std::vector<float> none;
  BOOST_TEST(zt::to_string(over(none)) == "tensor([])");
  std::vector<std::int64_t> no_integers;
  BOOST_TEST(zt::to_string(over(no_integers)) == "tensor([], dtype=int64)");
  BOOST_TEST(zt::to_string(over(none).reshape({0, 3})) == "tensor([], size=(0, 3))");
}

BOOST_AUTO_TEST_CASE(nested_rows_and_blocks) {
  BOOST_TEST(zt::to_string(zt::asarray({{1, 2, 3}, {40, 50, 60}})) ==
             "tensor([[ 1,  2,  3],\n"
             "        [40, 50, 60]])");
  std::vector<std::int64_t> eight = arange<std::int64_t>(8);
  BOOST_TEST(zt::to_string(over(eight).reshape({2, 2, 2})) ==
             "tensor([[[0, 1],\n"
             "         [2, 3]],\n"
             "\n"
             "        [[4, 5],\n"
             "         [6, 7]]])");
  // A strided view prints its own order: the transpose of arange(6).reshape(2, 3).
  std::vector<double> six = arange<double>(6);
  const zt::Tensor<double, 2> transposed(six.data(), {3, 2}, {1, 3});
  BOOST_TEST(zt::to_string(transposed) == "tensor([[0., 3.],\n        [1., 4.],\n        [2., 5.]], dtype=float64)");
}

BOOST_AUTO_TEST_CASE(rows_wrap_at_80_columns) {
  std::vector<float> thirds(30);
  for (std::size_t i = 0; i < thirds.size(); ++i) thirds[i] = float(i) / 3;
  BOOST_TEST(zt::to_string(over(thirds)) ==
             "tensor([0.0000, 0.3333, 0.6667, 1.0000, 1.3333, 1.6667, 2.0000, 2.3333, 2.6667,\n"
             "        3.0000, 3.3333, 3.6667, 4.0000, 4.3333, 4.6667, 5.0000, 5.3333, 5.6667,\n"
             "        6.0000, 6.3333, 6.6667, 7.0000, 7.3333, 7.6667, 8.0000, 8.3333, 8.6667,\n"
             "        9.0000, 9.3333, 9.6667])");
  std::vector<std::int32_t> forty = arange<std::int32_t>(40);
  BOOST_TEST(zt::to_string(over(forty).reshape({2, 20})) ==
             "tensor([[ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16, 17,\n"
             "         18, 19],\n"
             "        [20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37,\n"
             "         38, 39]], dtype=int32)");
  // A suffix that would pass column 80 goes on a line of its own.
  std::vector<std::int16_t> thousands(20);
  for (std::size_t i = 0; i < thousands.size(); ++i) thousands[i] = std::int16_t(1000 * i);
  BOOST_TEST(zt::to_string(over(thousands)) ==
             "tensor([    0,  1000,  2000,  3000,  4000,  5000,  6000,  7000,  8000,  9000,\n"
             "        10000, 11000, 12000, 13000, 14000, 15000, 16000, 17000, 18000, 19000],\n"
             "       dtype=int16)");
}

BOOST_AUTO_TEST_CASE(over_1000_elements_show_3_at_each_edge) {
  std::vector<std::int64_t> values = arange<std::int64_t>(2000);
  BOOST_TEST(zt::to_string(over(values)) == "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])");
  BOOST_TEST(zt::to_string(over(values).reshape({40, 50})) ==
             "tensor([[   0,    1,    2,  ...,   47,   48,   49],\n"
             "        [  50,   51,   52,  ...,   97,   98,   99],\n"
             "        [ 100,  101,  102,  ...,  147,  148,  149],\n"
             "        ...,\n"
             "        [1850, 1851, 1852,  ..., 1897, 1898, 1899],\n"
             "        [1900, 1901, 1902,  ..., 1947, 1948, 1949],\n"
             "        [1950, 1951, 1952,  ..., 1997, 1998, 1999]])");
  // The widths come from the values shown only; "..." between blocks keeps their blank line.
  BOOST_TEST(zt::to_string(over(values).narrow(0, 0, 1001).reshape({1001, 1, 1})) ==
             "tensor([[[   0]],\n\n        [[   1]],\n\n        [[   2]],\n\n        ...,\n\n"
             "        [[ 998]],\n\n        [[ 999]],\n\n        [[1000]]])");
  // 1000 elements are not summarised.
  const std::string thousand = zt::to_string(over(values).narrow(0, 0, 1000));
  BOOST_TEST(thousand.find("...") == std::string::npos);
  BOOST_TEST(thousand.find(" 500,") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_default_dtype_decides_which_dtype_is_named) {
  const DefaultDTypeGuard guard;
  zt::set_default_dtype(zt::float64);
  BOOST_TEST(zt::to_string(zt::asarray({1.5, 2.0}, {.dtype = zt::float64})) == "tensor([1.5000, 2.0000])");
  BOOST_TEST(zt::to_string(zt::asarray({1.5, 2.0}, {.dtype = zt::float32})) ==
             "tensor([1.5000, 2.0000], dtype=float32)");
  using c = std::complex<double>;
  BOOST_TEST(zt::to_string(zt::asarray({c(1, 1)}, {.dtype = zt::complex128})) == "tensor([1.+1.j])");
  BOOST_TEST(zt::to_string(zt::asarray({c(1, 1)}, {.dtype = zt::complex64})) == "tensor([1.+1.j], dtype=complex64)");
  std::vector<float> none;
  BOOST_TEST(zt::to_string(over(none)) == "tensor([], dtype=float32)");
}

BOOST_AUTO_TEST_CASE(memory_the_host_cannot_read_prints_no_values) {
  // Views only: nothing reads the memory, so host memory labelled as a GPU's stands in.
  std::vector<float> floats = {1, 2, 3, 4, 5, 6};
  BOOST_TEST(zt::to_string(over(floats, zt::cuda(0)).reshape({2, 3})) == "tensor(..., device='cuda:0', size=(2, 3))");
  std::vector<std::int64_t> integers = {1, 2};
  BOOST_TEST(zt::to_string(over(integers, zt::cuda(1))) == "tensor(..., device='cuda:1', size=(2,), dtype=int64)");
  // Pinned and managed memory is host memory: its values print, and where it lives.
  const zt::Device pinned{zt::DeviceKind::CUDAHost, 0};
  BOOST_TEST(zt::to_string(over(floats, pinned).narrow(0, 0, 2)) == "tensor([1., 2.], device='cuda_host:0')");
}

BOOST_AUTO_TEST_CASE(packed_types_print_shape_and_dtype) {
  std::vector<zt::float4_e2m1fn_x2> packed(4);
  BOOST_TEST(zt::to_string(over(packed)) == "tensor(..., size=(4,), dtype=float4_e2m1fn_x2)");
}

BOOST_AUTO_TEST_CASE(operator_shift_writes_to_string_for_any_and_typed_tensors) {
  std::vector<float> values = {1.0f, 2.5f};
  const zt::Tensor<float, 1> typed(values.data(), {2}, {1});
  const zt::Tensor<const float> dynamic_rank = typed;
  BOOST_TEST(streamed(typed) == "tensor([1.0000, 2.5000])");
  BOOST_TEST(zt::to_string(dynamic_rank) == "tensor([1.0000, 2.5000])");
  BOOST_TEST(streamed(zt::AnyTensor(typed)) == "tensor([1.0000, 2.5000])");
  // The other operator<< overloads are untouched.
  BOOST_TEST(streamed(zt::float16) == "float16");
  BOOST_TEST(streamed(42) == "42");
  BOOST_TEST(streamed(zt::cuda(0)) == "cuda:0");
}

BOOST_AUTO_TEST_SUITE_END()
