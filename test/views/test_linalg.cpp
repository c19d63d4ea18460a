// Eigen linear algebra through zerotensor's views: which map each layout gets (checked at
// compile time), products against plain Eigen::Maps over the same memory, the strided
// fall-back, and Eigen::Ref parameters bound without a copy where the layouts allow.
#include <boost/test/unit_test.hpp>
#include <numeric>
#include <type_traits>
#include <variant>
#include <vector>

#include "support/file_test_support.hpp"
#include "zerotensor/asarray.hpp"
#include "zerotensor/npy.hpp"
#include "zerotensor/safetensors.hpp"
#include "zerotensor/tensor.hpp"

namespace {

using zt_test::TempDir;

using RowMatrixXf = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using DynamicStride = Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>;

/// The map types of a view, named by their compile-time stride properties.
template <class Map>
constexpr bool inner_stride_is_one =
    Map::InnerStrideAtCompileTime == 1 && Map::OuterStrideAtCompileTime == Eigen::Dynamic;
template <class Map>
constexpr bool both_strides_at_run_time =
    Map::InnerStrideAtCompileTime == Eigen::Dynamic&& Map::OuterStrideAtCompileTime == Eigen::Dynamic;

using View = zt::Tensor<float, 2>;
static_assert(inner_stride_is_one<View::RowMajorMatrixMap> && View::RowMajorMatrixMap::IsRowMajor);
static_assert(inner_stride_is_one<View::ColumnMajorMatrixMap> && !View::ColumnMajorMatrixMap::IsRowMajor);
static_assert(both_strides_at_run_time<View::StridedMatrixMap<Eigen::RowMajor>> &&
              View::StridedMatrixMap<Eigen::RowMajor>::IsRowMajor);
static_assert(both_strides_at_run_time<View::StridedMatrixMap<Eigen::ColMajor>> &&
              !View::StridedMatrixMap<Eigen::ColMajor>::IsRowMajor);
static_assert(std::is_same_v<decltype(std::declval<View>().strided_matrix()), View::StridedMatrixMap<Eigen::RowMajor>>);
static_assert(View::VectorMap::InnerStrideAtCompileTime == 1 && View::VectorMap::ColsAtCompileTime == 1);
static_assert(View::StridedVectorMap::InnerStrideAtCompileTime == Eigen::Dynamic);
static_assert(
    std::is_same_v<zt::AnyMatrixMap<View>,
                   std::variant<View::RowMajorMatrixMap, View::ColumnMajorMatrixMap,
                                View::StridedMatrixMap<Eigen::RowMajor>, View::StridedMatrixMap<Eigen::ColMajor>>>);
static_assert(std::is_same_v<decltype(std::declval<View>().matrix()), zt::AnyMatrixMap<View>>);
static_assert(std::is_same_v<decltype(std::declval<zt::Tensor<double>>().vector()), zt::Tensor<double>::VectorMap>);
// Read-only views give maps of const matrices: their elements cannot be assigned.
using ConstView = zt::Tensor<const float, 2>;
static_assert(!std::is_assignable_v<decltype(std::declval<ConstView>().row_major_matrix()(0, 0)), float>);
static_assert(!std::is_assignable_v<decltype(std::declval<ConstView>().strided_matrix()(0, 0)), float>);
static_assert(!std::is_assignable_v<decltype(std::declval<zt::Tensor<const float, 1>>().vector()(0)), float>);

/// The alternatives of AnyMatrixMap, in order.
enum Layout : std::size_t { row_major, column_major, row_major_strided, column_major_strided };

/// Each element through the view's own indexing: what every map must agree with.
template <class T>
Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic> elementwise(const zt::Tensor<T, 2>& t) {
  Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic> out(t.size(0), t.size(1));
  for (zt::index_t i = 0; i < t.size(0); ++i)
    for (zt::index_t j = 0; j < t.size(1); ++j) out(i, j) = t(i, j);
  return out;
}

/// `count` values 1, 2, ... (small integers: products of them are exact in float).
template <class T>
std::vector<T> ramp(std::size_t count) {
  std::vector<T> values(count);
  for (std::size_t i = 0; i < count; ++i) values[i] = T(int(i % 7) - 3);
  return values;
}

void check_layout(zt::index_t rows, zt::index_t cols, zt::index_t row_stride, zt::index_t col_stride, float* start,
                  Layout expected) {
  const zt::Tensor<float, 2> t(start, {rows, cols}, {row_stride, col_stride});
  BOOST_TEST_CONTEXT("shape (" << rows << ", " << cols << "), strides (" << row_stride << ", " << col_stride << ")") {
    const auto map = t.matrix();
    BOOST_TEST(map.index() == std::size_t(expected));
    std::visit(
        [&](const auto& m) {
          BOOST_TEST(m.data() == start);
          BOOST_TEST((m.rows() == rows && m.cols() == cols));
          BOOST_TEST((m == elementwise(t)));
        },
        map);
    BOOST_TEST((t.strided_matrix() == elementwise(t)));
    BOOST_TEST((t.strided_matrix<Eigen::ColMajor>() == elementwise(t)));
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(linalg)

BOOST_AUTO_TEST_CASE(matrix_picks_row_major_then_column_major_then_strided) {
  std::vector<float> s(64);
  std::iota(s.begin(), s.end(), 0.0f);
  float* p = s.data();
  check_layout(3, 4, 4, 1, p, row_major);     // C order
  check_layout(3, 4, 6, 1, p, row_major);     // rows padded apart (a column slice)
  check_layout(3, 4, 1, 3, p, column_major);  // Fortran order
  check_layout(4, 3, 1, 4, p, column_major);  // a C-order 3x4 transposed
  check_layout(3, 4, 1, 5, p, column_major);  // columns padded apart
  // Otherwise both strides at run time, stored along the smaller one.
  check_layout(3, 4, 8, 2, p, row_major_strided);          // every other column
  check_layout(3, 4, 2, 6, p, column_major_strided);       // every other row of a Fortran matrix
  check_layout(3, 4, -4, 1, p + 8, row_major_strided);     // rows flipped
  check_layout(3, 4, 1, -3, p + 9, column_major_strided);  // columns flipped
  check_layout(3, 4, 0, 1, p, column_major_strided);       // broadcast rows
  check_layout(3, 4, 2, 1, p, row_major_strided);          // rows overlap
  // The stride of an extent-1 dimension never matters, and C order wins a tie.
  check_layout(1, 4, 99, 1, p, row_major);
  check_layout(3, 1, 1, 99, p, row_major);
  check_layout(1, 4, 1, 7, p, column_major);
  check_layout(1, 1, -5, -9, p, row_major);
  check_layout(0, 4, 4, 1, p, row_major);
}

BOOST_AUTO_TEST_CASE(extent_one_dimensions_get_a_packed_outer_stride) {
  std::vector<float> s(8, 1.0f);
  const zt::Tensor<float, 2> row(s.data(), {1, 4}, {99, 1});
  BOOST_TEST(row.row_major_matrix().outerStride() == 4);
  const zt::Tensor<float, 2> column(s.data(), {4, 1}, {1, 99});
  BOOST_TEST(column.column_major_matrix().outerStride() == 4);
}

BOOST_AUTO_TEST_CASE(eigen_matrices_and_fortran_files_are_column_major_c_files_row_major) {
  Eigen::MatrixXf eigen = Eigen::MatrixXf::Random(5, 3);
  const auto shared = zt::asarray(eigen).as<float, 2>();
  BOOST_TEST(shared.matrix().index() == std::size_t(column_major));
  BOOST_TEST(shared.column_major_matrix().data() == eigen.data());
  BOOST_TEST((shared.column_major_matrix() == eigen));

  TempDir dir;
  const RowMatrixXf c_order = eigen;
  zt::save_npy(dir / "c.npy", zt::Tensor<const float, 2>(c_order.data(), {5, 3}, {3, 1}));
  const auto from_npy = zt::load_npy(dir / "c.npy").as<const float, 2>();
  BOOST_TEST(from_npy.matrix().index() == std::size_t(row_major));
  BOOST_TEST((from_npy.row_major_matrix() == eigen));
  const auto fortran = zt::load_npy(std::filesystem::path(ZT_TEST_DATA_DIR) / "npy" / "float64_fortran.npy");
  BOOST_TEST((fortran.as<const double, 2>().matrix().index() == std::size_t(column_major)));

  zt::save_safetensors(dir / "m.safetensors", {{"w", shared}});
  const auto weight = zt::load_safetensors(dir / "m.safetensors").at("w").as<const float, 2>();
  BOOST_TEST(weight.matrix().index() == std::size_t(row_major));
  BOOST_TEST((weight.row_major_matrix() == eigen));
}

namespace {
/// y = W x and C = W B through matrix(), against plain maps of the same memory.
template <class T>
void check_products(bool fortran_order) {
  using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
  using Vector = Eigen::Matrix<T, Eigen::Dynamic, 1>;
  const zt::index_t rows = 37, cols = 29;  // not multiples of a packet: the kernels' tails run too
  std::vector<T> storage = ramp<T>(std::size_t(rows * cols));
  const zt::Tensor<const T, 2> w(storage.data(), {rows, cols},
                                 fortran_order ? zt::Extents<2>{1, rows} : zt::Extents<2>{cols, 1});
  const Matrix plain = fortran_order
                           ? Matrix(Eigen::Map<const Matrix>(storage.data(), rows, cols))
                           : Matrix(Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
                                 storage.data(), rows, cols));
  const Vector x = Vector::LinSpaced(cols, T(-2), T(2));
  const Matrix b = Matrix::Ones(cols, 11) * T(0.5);
  Vector y;
  Matrix c;
  BOOST_TEST(w.matrix().index() == std::size_t(fortran_order ? column_major : row_major));
  std::visit([&](const auto& m) { y.noalias() = m * x; }, w.matrix());
  std::visit([&](const auto& m) { c.noalias() = m * b; }, w.matrix());
  const Vector expected_y = plain * x;
  const Matrix expected_c = plain * b;
  BOOST_TEST(y.isApprox(expected_y));
  BOOST_TEST(c.isApprox(expected_c));
  BOOST_TEST(((w.strided_matrix() * x).eval().isApprox(expected_y)));
}
}  // namespace

BOOST_AUTO_TEST_CASE(gemv_and_gemm_agree_with_plain_maps_in_c_and_fortran_order) {
  check_products<float>(false);
  check_products<float>(true);
  check_products<double>(false);
  check_products<double>(true);
}

BOOST_AUTO_TEST_CASE(non_contiguous_views_fall_back_to_the_strided_maps) {
  std::vector<double> storage = ramp<double>(6 * 8);
  const zt::Tensor<double, 2> every_other_column(storage.data(), {6, 4}, {8, 2});
  const zt::Tensor<double, 2> every_other_fortran_row(storage.data(), {4, 6}, {2, 8});
  BOOST_TEST(every_other_column.matrix().index() == std::size_t(row_major_strided));
  BOOST_TEST(every_other_fortran_row.matrix().index() == std::size_t(column_major_strided));
  for (const auto& view : {every_other_column, every_other_fortran_row}) {
    const Eigen::VectorXd x = Eigen::VectorXd::LinSpaced(view.size(1), -1.0, 2.0);
    Eigen::VectorXd y;
    std::visit([&](const auto& m) { y.noalias() = m * x; }, view.matrix());
    BOOST_TEST(y.isApprox(elementwise(view) * x));
  }
  // Writes through the strided map reach the viewed elements only.
  every_other_column.strided_matrix().col(3).setConstant(42.0);
  BOOST_TEST(storage[6] == 42.0);
  BOOST_TEST(storage[7] != 42.0);
  BOOST_CHECK_EXCEPTION((void)every_other_column.row_major_matrix(), zt::ValueError, [](const zt::ValueError& e) {
    return message_has(e,
                       "row_major_matrix(): expected rows of unit stride (C order); got shape (6, 4), strides (8, 2)");
  });
  BOOST_CHECK_EXCEPTION((void)every_other_column.column_major_matrix(), zt::ValueError, [](const zt::ValueError& e) {
    return message_has(e,
                       "column_major_matrix(): expected columns of unit stride (Fortran order); got shape (6, 4), "
                       "strides (8, 2)");
  });
  const zt::Tensor<double, 2> c_order(storage.data(), {6, 8}, {8, 1});
  BOOST_CHECK_THROW((void)c_order.column_major_matrix(), zt::ValueError);
}

BOOST_AUTO_TEST_CASE(vectors_are_contiguous_or_strided) {
  std::vector<float> storage = {1, 2, 3, 4, 5, 6};
  const zt::Tensor<float, 1> all(storage.data(), {6}, {1});
  BOOST_TEST(all.vector().data() == storage.data());
  BOOST_TEST(all.vector().sum() == 21.0f);
  all.vector() *= 2.0f;
  BOOST_TEST(storage[5] == 12.0f);
  const zt::Tensor<float, 1> every_other(storage.data() + 1, {3}, {2});
  BOOST_TEST(every_other.strided_vector().sum() == 4.0f + 8.0f + 12.0f);
  BOOST_CHECK_EXCEPTION((void)every_other.vector(), zt::ValueError, [](const zt::ValueError& e) {
    return message_has(e, "vector(): expected a C-contiguous tensor; got shape (3,), strides (2,)");
  });
  const zt::Tensor<float> matrix(storage.data(), {2, 3}, {3, 1});
  BOOST_CHECK_EXCEPTION((void)matrix.vector(), zt::ValueError, [](const zt::ValueError& e) {
    return message_has(e, "vector(): expected rank 1; got rank 2");
  });
  const zt::Tensor<float> vector(storage.data(), {6}, {1});
  BOOST_CHECK_EXCEPTION((void)vector.matrix(), zt::ValueError, [](const zt::ValueError& e) {
    return message_has(e, "matrix(): expected rank 2; got rank 1");
  });
  BOOST_CHECK_THROW((void)vector.row_major_matrix(), zt::ValueError);
  BOOST_CHECK_THROW((void)vector.strided_matrix(), zt::ValueError);
  const zt::Tensor<float, 1> on_gpu(storage.data(), {6}, {1}, {}, zt::cuda(0));
  BOOST_CHECK_THROW((void)on_gpu.vector(), zt::DeviceError);
  BOOST_CHECK_THROW((void)on_gpu.strided_vector(), zt::DeviceError);
}

namespace {
// Functions as a user's library declares them: each returns the address it was given.
const void* read_matrix(const Eigen::Ref<const Eigen::MatrixXf>& m) { return m.data(); }
const void* read_row_major(const Eigen::Ref<const RowMatrixXf>& m) { return m.data(); }
const void* read_strided(const Eigen::Ref<const Eigen::MatrixXf, 0, DynamicStride>& m) { return m.data(); }
const void* read_row_major_strided(const Eigen::Ref<const RowMatrixXf, 0, DynamicStride>& m) { return m.data(); }
const void* read_vector(const Eigen::Ref<const Eigen::VectorXf>& v) { return v.data(); }
const void* read_strided_vector(const Eigen::Ref<const Eigen::VectorXf, 0, Eigen::InnerStride<>>& v) {
  return v.data();
}
void scale_matrix(Eigen::Ref<Eigen::MatrixXf> m) { m *= 2.0f; }
void scale_row_major(Eigen::Ref<RowMatrixXf> m) { m *= 2.0f; }
void scale_vector(Eigen::Ref<Eigen::VectorXf> v) { v *= 2.0f; }
}  // namespace

BOOST_AUTO_TEST_CASE(ref_parameters_bind_without_a_copy_where_the_layout_allows) {
  std::vector<float> storage = ramp<float>(24);
  const void* start = storage.data();
  const zt::Tensor<float, 2> c_order(storage.data(), {4, 6}, {6, 1});
  const zt::Tensor<float, 2> fortran(storage.data(), {6, 4}, {1, 6});
  const zt::Tensor<float, 2> padded_columns(storage.data(), {4, 3}, {1, 8});
  const zt::Tensor<float, 2> every_other(storage.data(), {4, 3}, {6, 2});

  // The same storage order: no copy, whatever the outer stride.
  BOOST_TEST(read_matrix(fortran.column_major_matrix()) == start);
  BOOST_TEST(read_matrix(padded_columns.column_major_matrix()) == start);
  BOOST_TEST(read_row_major(c_order.row_major_matrix()) == start);
  BOOST_TEST(read_matrix(c_order.row_major_matrix().transpose()) == start);  // W^T of a C-order W
  BOOST_TEST(read_strided(every_other.strided_matrix<Eigen::ColMajor>()) == start);
  BOOST_TEST(read_strided(fortran.column_major_matrix()) == start);
  BOOST_TEST(read_row_major_strided(every_other.strided_matrix()) == start);
  BOOST_TEST(read_row_major_strided(c_order.row_major_matrix()) == start);
  // Another storage order, or a run-time inner stride other than 1: a const Ref copies.
  BOOST_TEST(read_matrix(c_order.row_major_matrix()) != start);
  BOOST_TEST(read_matrix(every_other.strided_matrix()) != start);
  BOOST_TEST(read_strided(every_other.strided_matrix()) != start);
  BOOST_TEST(read_row_major(fortran.column_major_matrix()) != start);

  const zt::Tensor<float, 1> contiguous(storage.data(), {24}, {1});
  const zt::Tensor<float, 1> strided(storage.data(), {12}, {2});
  BOOST_TEST(read_vector(contiguous.vector()) == start);
  BOOST_TEST(read_strided_vector(strided.strided_vector()) == start);
  BOOST_TEST(read_vector(strided.strided_vector()) != start);
  BOOST_TEST(read_vector(contiguous.strided_vector()) != start);  // the type says strided, whatever the stride

  // Writable Refs bind only without a copy, and the writes reach the storage.
  const std::vector<float> before = storage;
  scale_matrix(fortran.column_major_matrix());
  BOOST_TEST(storage[23] == 2.0f * before[23]);
  scale_row_major(c_order.row_major_matrix());
  BOOST_TEST(storage[23] == 4.0f * before[23]);
  scale_vector(contiguous.vector());
  BOOST_TEST(storage[0] == 8.0f * before[0]);
  static_assert(!std::is_convertible_v<zt::Tensor<float, 2>::RowMajorMatrixMap, Eigen::Ref<Eigen::MatrixXf>>);
}

BOOST_AUTO_TEST_SUITE_END()
