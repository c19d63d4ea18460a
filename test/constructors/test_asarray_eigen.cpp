// asarray on C++'s NumPy arrays: Eigen dense objects (Matrix, Array, Map, Ref, Block, both
// storage orders), Eigen::Tensor/TensorMap, and typed contiguous ranges. The AA*/AT* cases
// about NumPy arrays, with an Eigen object or a std::vector in the array's place.
#include <boost/test/unit_test.hpp>

#include <array>
#include <memory>
#include <numeric>
#include <set>
#include <span>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "zerotensor/as_tensor.hpp"
#include "zerotensor/asarray.hpp"
#include "zerotensor/eigen_tensor.hpp"
#include "zerotensor/shares_memory.hpp"
#include "support/message_check.hpp"

namespace {

template <class X>
concept Accepted = requires(X&& x) { zt::asarray(std::forward<X>(x)); };

using RowMajorXd = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ArrayXl = Eigen::Array<std::int64_t, Eigen::Dynamic, 1>;

/// np.arange(n) as an Eigen int64 array.
ArrayXl arange(Eigen::Index n) { return ArrayXl::LinSpaced(n, 0, n - 1); }

}  // namespace

BOOST_AUTO_TEST_SUITE(asarray_eigen)

BOOST_AUTO_TEST_CASE(column_major_matrix_gives_its_real_strides) {
  Eigen::Matrix<float, 3, 4> m;
  for (int i = 0; i < 12; ++i) m.data()[i] = float(i);
  zt::AnyTensor r = zt::asarray(m);
  BOOST_TEST(r.dtype() == zt::float32);
  BOOST_TEST(r.shape() == zt::DynamicExtents({3, 4}));
  BOOST_TEST(r.strides() == zt::DynamicExtents({1, 3}));
  BOOST_TEST(r.data_ptr() == m.data());
  BOOST_TEST(r.is_writable());
  auto typed = r.as<float, 2>();
  BOOST_TEST(typed(2, 1) == m(2, 1));
  typed(0, 3) = 100.0f;
  BOOST_TEST(m(0, 3) == 100.0f);
}

BOOST_AUTO_TEST_CASE(row_major_matrix_and_const_objects) {
  RowMajorXd m(2, 3);
  m << 1, 2, 3, 4, 5, 6;
  zt::AnyTensor r = zt::asarray(m);
  BOOST_TEST(r.strides() == zt::DynamicExtents({3, 1}));
  BOOST_TEST(r.is_contiguous());
  const RowMajorXd& constant = m;
  zt::AnyTensor read_only = zt::asarray(constant);
  BOOST_TEST(!read_only.is_writable());
  BOOST_TEST(read_only.data_ptr() == m.data());
  BOOST_TEST((read_only.as<const double, 2>()(1, 2)) == 6.0);
}

BOOST_AUTO_TEST_CASE(AA65_blocks_and_strided_maps_share_with_element_strides) {
  // np.arange(6).reshape(2, 3)[:, ::2] → shape (2, 2), strides (3, 2)
  Eigen::Matrix<std::int64_t, 2, 3, Eigen::RowMajor> a;
  a << 0, 1, 2, 3, 4, 5;
  Eigen::Map<Eigen::Matrix<std::int64_t, 2, 2, Eigen::RowMajor>, 0, Eigen::Stride<3, 2>> every_other(a.data());
  zt::AnyTensor r = zt::asarray(every_other);
  BOOST_TEST(r.dtype() == zt::int64);
  BOOST_TEST(r.shape() == zt::DynamicExtents({2, 2}));
  BOOST_TEST(r.strides() == zt::DynamicExtents({3, 2}));
  BOOST_TEST(r.data_ptr() == a.data());
  auto typed = r.as<std::int64_t, 2>();
  BOOST_TEST(typed(0, 1) == 2);
  BOOST_TEST(typed(1, 1) == 5);

  Eigen::MatrixXd m = Eigen::MatrixXd::Zero(4, 5);
  auto block = m.block(1, 2, 2, 3);
  zt::AnyTensor b = zt::asarray(block);
  BOOST_TEST(b.shape() == zt::DynamicExtents({2, 3}));
  BOOST_TEST(b.strides() == zt::DynamicExtents({1, 4}));
  BOOST_TEST(b.data_ptr() == &m(1, 2));
  zt::AnyTensor row = zt::asarray(m.row(2));  // a row of a column-major matrix: stride 4
  BOOST_TEST(row.shape() == zt::DynamicExtents({5}));
  BOOST_TEST(row.strides() == zt::DynamicExtents({4}));
  BOOST_TEST(row.data_ptr() == &m(2, 0));
  BOOST_TEST(row.owner() == nullptr);  // a view is borrowed, even as an rvalue
  zt::AnyTensor column = zt::asarray(m.col(3));
  BOOST_TEST(column.strides() == zt::DynamicExtents({1}));
  BOOST_TEST(column.data_ptr() == &m(0, 3));
}

BOOST_AUTO_TEST_CASE(refs_and_const_maps) {
  Eigen::MatrixXf m = Eigen::MatrixXf::Constant(3, 3, 2.0f);
  Eigen::Ref<Eigen::MatrixXf> ref(m);
  BOOST_TEST(zt::asarray(ref).data_ptr() == m.data());
  BOOST_TEST(zt::asarray(ref).is_writable());
  Eigen::Ref<const Eigen::MatrixXf> const_ref(m);
  BOOST_TEST(!zt::asarray(const_ref).is_writable());
  Eigen::Map<const Eigen::VectorXf> const_map(m.data(), 9);
  zt::AnyTensor r = zt::asarray(const_map);
  BOOST_TEST(!r.is_writable());
  BOOST_TEST(r.shape() == zt::DynamicExtents({9}));
}

BOOST_AUTO_TEST_CASE(AA33_AA58_AA73_an_array_is_shared_with_its_dtype) {
  ArrayXl a = arange(4);
  zt::AnyTensor r = zt::asarray(a);
  BOOST_TEST(r.dtype() == zt::int64);
  BOOST_TEST(r.shape() == zt::DynamicExtents({4}));
  BOOST_TEST(r.strides() == zt::DynamicExtents({1}));
  BOOST_TEST(r.data_ptr() == a.data());
  BOOST_TEST(zt::asarray(a, {.dtype = zt::int64, .copy = false}).data_ptr() == a.data());  // AA73
  Eigen::ArrayXd floats = Eigen::ArrayXd::LinSpaced(3, 0, 2);
  zt::AnyTensor f = zt::asarray(floats, {.copy = false});  // AA58
  BOOST_TEST(f.dtype() == zt::float64);
  BOOST_TEST(f.data_ptr() == floats.data());
}

BOOST_AUTO_TEST_CASE(AA34_AA35_a_dtype_change_copies_or_is_refused) {
  ArrayXl a = arange(4);
  zt::AnyTensor r = zt::asarray(a, {.dtype = zt::float64});
  BOOST_TEST(r.dtype() == zt::float64);
  BOOST_TEST(!zt::shares_memory(r, zt::asarray(a)));
  BOOST_TEST(r.as<double>()(3) == 3.0);
  BOOST_CHECK_EXCEPTION((void)zt::asarray(a, {.dtype = zt::float64, .copy = false}), zt::ValueError,
                        with_message<zt::ValueError>("can't alias tensor with dtype 'int64' into dtype 'float64'"));
}

BOOST_AUTO_TEST_CASE(an_rvalue_matrix_is_moved_into_the_owner) {
  Eigen::MatrixXd m = Eigen::MatrixXd::Constant(2, 2, 4.0);
  const double* address = m.data();
  zt::AnyTensor r = zt::asarray(std::move(m));
  BOOST_TEST(r.data_ptr() == address);  // the heap block changed hands, no element copied
  BOOST_TEST(r.owner() != nullptr);
  BOOST_TEST(r.is_writable());
  BOOST_TEST((r.as<double, 2>()(1, 1)) == 4.0);
  zt::AnyTensor fixed = zt::asarray(Eigen::Vector3f(1, 2, 3));
  BOOST_TEST(fixed.owner() != nullptr);
  BOOST_TEST((fixed.as<float, 1>()(2)) == 3.0f);
}

BOOST_AUTO_TEST_CASE(eigen_tensors_in_either_layout) {
  Eigen::Tensor<float, 3> column_major(2, 3, 4);  // Eigen's default layout
  column_major.setZero();
  column_major(1, 2, 3) = 7.0f;
  zt::AnyTensor c = zt::asarray(column_major);
  BOOST_TEST(c.shape() == zt::DynamicExtents({2, 3, 4}));
  BOOST_TEST(c.strides() == zt::DynamicExtents({1, 2, 6}));
  BOOST_TEST(c.data_ptr() == column_major.data());
  BOOST_TEST((c.as<float, 3>()(1, 2, 3)) == 7.0f);

  Eigen::Tensor<std::int16_t, 2, Eigen::RowMajor> row_major(3, 5);
  zt::AnyTensor r = zt::asarray(row_major);
  BOOST_TEST(r.strides() == zt::DynamicExtents({5, 1}));
  BOOST_TEST(r.dtype() == zt::int16);

  Eigen::TensorMap<const Eigen::Tensor<float, 3>> map(column_major.data(), 2, 3, 4);
  zt::AnyTensor m = zt::asarray(map);
  BOOST_TEST(!m.is_writable());
  BOOST_TEST(m.data_ptr() == column_major.data());

  Eigen::TensorFixedSize<double, Eigen::Sizes<2, 2>, Eigen::RowMajor> fixed;
  fixed.setConstant(1.5);
  BOOST_TEST(zt::asarray(fixed).strides() == zt::DynamicExtents({2, 1}));

  Eigen::Tensor<double, 2> owned(2, 2);
  owned.setConstant(3.0);
  const double* address = owned.data();
  zt::AnyTensor moved = zt::asarray(std::move(owned));
  BOOST_TEST(moved.data_ptr() == address);
  BOOST_TEST(moved.owner() != nullptr);
  BOOST_TEST((moved.as<double, 2>()(1, 1)) == 3.0);
}

BOOST_AUTO_TEST_CASE(AA69_AT23_a_zero_dim_tensor_keeps_its_dtype) {
  // np.array(5) and np.float64(2.0): a 0-dim typed object is C++'s dtype-carrying scalar.
  Eigen::Tensor<std::int64_t, 0> five;
  five() = 5;
  zt::AnyTensor r = zt::asarray(five);
  BOOST_TEST(r.dtype() == zt::int64);
  BOOST_TEST(r.rank() == 0u);
  BOOST_TEST(r.strides().empty());
  BOOST_TEST(r.data_ptr() == five.data());
  Eigen::Tensor<double, 0> two;
  two() = 2.0;
  zt::AnyTensor t = zt::as_tensor(two);
  BOOST_TEST(t.dtype() == zt::float64);
  BOOST_TEST((t.as<double, 0>()()) == 2.0);
}

BOOST_AUTO_TEST_CASE(zero_sized_tensors_have_pytorch_strides) {
  Eigen::Tensor<float, 2, Eigen::RowMajor> empty(2, 0);
  BOOST_TEST(zt::asarray(empty).strides() == zt::DynamicExtents({1, 1}));
}

BOOST_AUTO_TEST_CASE(a_transpose_has_direct_access_and_an_expression_does_not) {
  Eigen::MatrixXd m = Eigen::MatrixXd::Zero(2, 3);
  m(0, 2) = 9.0;
  zt::AnyTensor t = zt::asarray(m.transpose());
  BOOST_TEST(t.shape() == zt::DynamicExtents({3, 2}));
  BOOST_TEST(t.strides() == zt::DynamicExtents({2, 1}));
  BOOST_TEST(t.data_ptr() == m.data());
  BOOST_TEST((t.as<double, 2>()(2, 0)) == 9.0);
  // An expression has no memory to share: evaluate it first (.eval()).
  BOOST_TEST((!Accepted<decltype(m + m)>));
  BOOST_TEST((Accepted<decltype((m + m).eval())>));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(asarray_typed_ranges)

BOOST_AUTO_TEST_CASE(vectors_arrays_spans_and_c_arrays_share_with_their_dtype) {
  std::vector<float> v = {1, 2, 3};
  zt::AnyTensor rv = zt::asarray(v);
  BOOST_TEST(rv.dtype() == zt::float32);
  BOOST_TEST(rv.shape() == zt::DynamicExtents({3}));
  BOOST_TEST(rv.data_ptr() == v.data());
  BOOST_TEST(rv.is_writable());

  std::array<std::int32_t, 4> a = {1, 2, 3, 4};
  BOOST_TEST(zt::asarray(a).dtype() == zt::int32);
  BOOST_TEST(zt::asarray(a).data_ptr() == a.data());

  std::uint16_t c[2] = {7, 8};  // AA40/AT29: unsigned types are accepted (PyTorch 2.x)
  zt::AnyTensor rc = zt::asarray(c);
  BOOST_TEST(rc.dtype() == zt::uint16);
  BOOST_TEST(rc.data_ptr() == c);
  std::vector<std::uint32_t> u32 = {1};
  BOOST_TEST(zt::as_tensor(u32).dtype() == zt::uint32);

  const std::vector<std::complex<double>> z = {{1, 2}};
  zt::AnyTensor rz = zt::asarray(z);
  BOOST_TEST(rz.dtype() == zt::complex128);
  BOOST_TEST(!rz.is_writable());  // AT07: a read-only array gives const elements

  std::span<const Eigen::half> halves(reinterpret_cast<const Eigen::half*>(c), 2);
  BOOST_TEST(zt::asarray(halves).dtype() == zt::float16);
  BOOST_TEST(!zt::asarray(halves).is_writable());
}

BOOST_AUTO_TEST_CASE(an_empty_vector_is_shape_zero_of_its_dtype) {
  std::vector<double> none;
  zt::AnyTensor r = zt::asarray(none);
  BOOST_TEST(r.dtype() == zt::float64);
  BOOST_TEST(r.shape() == zt::DynamicExtents({0}));
}

BOOST_AUTO_TEST_CASE(an_rvalue_vector_is_moved_and_kept_alive) {
  std::vector<std::int64_t> v = {4, 5};
  const std::int64_t* address = v.data();
  zt::AnyTensor r = zt::asarray(std::move(v));
  BOOST_TEST(r.data_ptr() == address);
  BOOST_TEST(r.owner() != nullptr);
  BOOST_TEST((r.as<std::int64_t, 1>()(1)) == 5);
}

BOOST_AUTO_TEST_CASE(AT06_a_range_with_another_dtype_is_copied) {
  std::vector<std::int64_t> a = {0, 1, 2, 3};
  zt::AnyTensor r = zt::as_tensor(a, {.dtype = zt::int32});
  BOOST_TEST(r.dtype() == zt::int32);
  BOOST_TEST(r.data_ptr() != a.data());
  BOOST_TEST((r.as<std::int32_t, 1>()(3)) == 3);
}

BOOST_AUTO_TEST_CASE(AA19_AT14_text_sets_and_bytes_do_not_compile) {
  // PyTorch: "Could not infer dtype of set", "new(): invalid data type 'str'".
  BOOST_TEST(!Accepted<std::set<int>>);
  BOOST_TEST(!Accepted<std::string>);
  BOOST_TEST(!Accepted<std::vector<char>>);
  BOOST_TEST(!Accepted<std::vector<std::byte>>);
  BOOST_TEST(!Accepted<const char*>);
  BOOST_TEST(Accepted<zt::Buffer>);  // bytes are viewed through an explicit Buffer
}

BOOST_AUTO_TEST_SUITE_END()
