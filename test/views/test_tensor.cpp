// Tensor<T, Rank>: layout queries, element access, contiguity rules, Eigen views,
// conversions between const/rank forms, and what must not compile.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "zerotensor/eigen_tensor.hpp"
#include "zerotensor/tensor.hpp"
#include "support/message_check.hpp"

namespace {

template <class T>
concept Writable = requires(T t) { t(0) = {}; };
template <class T>
concept Resizable = requires(T t) { t.resize(4); };

}  // namespace

BOOST_AUTO_TEST_SUITE(tensor)

BOOST_AUTO_TEST_CASE(element_access_follows_strides) {
  std::vector<float> data(12);
  std::iota(data.begin(), data.end(), 0.0f);
  zt::Tensor<float, 2> rows(data.data(), {3, 4}, {4, 1});
  zt::Tensor<float, 2> transposed(data.data(), {4, 3}, {1, 4});
  BOOST_TEST(rows(1, 2) == 6.0f);
  BOOST_TEST(transposed(2, 1) == 6.0f);
  BOOST_TEST(rows.numel() == 12);
  BOOST_TEST(rows.rank() == 2u);
  BOOST_TEST(rows.nbytes() == 48u);
  BOOST_TEST(rows.is_contiguous());
  BOOST_TEST(!transposed.is_contiguous());
  rows(2, 3) = -1.0f;
  BOOST_TEST(data[11] == -1.0f);
  BOOST_TEST(rows.dtype() == zt::float32);
}

BOOST_AUTO_TEST_CASE(contiguity_ignores_extent_one_and_small_tensors) {
  float x = 0;
  BOOST_TEST((zt::Tensor<float, 2>(&x, {1, 1}, {99, -5}).is_contiguous()));
  BOOST_TEST((zt::Tensor<float, 2>(&x, {3, 1}, {1, 7}).is_contiguous()));
  BOOST_TEST((zt::Tensor<float, 2>(&x, {0, 4}, {3, 3}).is_contiguous()));
  BOOST_TEST((zt::Tensor<float, 0>(&x, {}, {}).is_contiguous()));
  BOOST_TEST((zt::Tensor<float, 0>(&x, {}, {}).numel() == 1));
  BOOST_TEST(!(zt::Tensor<float, 2>(&x, {2, 2}, {2, 2}).is_contiguous()));
}

BOOST_AUTO_TEST_CASE(checked_at_names_the_index_and_extent) {
  std::vector<int> data(6, 7);
  zt::Tensor<int> t(data.data(), {2, 3}, {3, 1});
  BOOST_TEST(t.at(1, 2) == 7);
  BOOST_CHECK_EXCEPTION((void)t.at(1, 3), zt::ValueError, [](const zt::ValueError& e) {
    return message_has(e, "index 3 is out of range for dimension 1 with size 3");
  });
  BOOST_CHECK_EXCEPTION((void)t.at(1), zt::ValueError,
                        [](const zt::ValueError& e) { return message_has(e, "expected rank 2; got rank 1"); });
  BOOST_CHECK_THROW((void)t.at(-1, 0), zt::ValueError);
}

BOOST_AUTO_TEST_CASE(array_is_the_contiguous_fast_path) {
  std::vector<double> data = {1, 2, 3, 4, 5, 6};
  zt::Tensor<double, 2> t(data.data(), {2, 3}, {3, 1});
  static_assert(decltype(t.array())::InnerStrideAtCompileTime == 1);
  BOOST_TEST(t.array().sum() == 21.0);
  BOOST_TEST(t.array().data() == data.data());
  t.array() *= 2.0;
  BOOST_TEST(data[5] == 12.0);
  zt::Tensor<double, 1> every_other(data.data(), {3}, {2});
  BOOST_CHECK_EXCEPTION((void)every_other.array(), zt::ValueError, [](const zt::ValueError& e) {
    return message_has(e, "array(): expected a C-contiguous tensor; got shape (3,), strides (2,)");
  });
  BOOST_TEST(every_other.strided_array().sum() == 2.0 + 6.0 + 10.0);
  zt::Tensor<double, 2> columns(data.data(), {3, 2}, {1, 3});
  BOOST_CHECK_THROW((void)columns.strided_array(), zt::ValueError);
}

BOOST_AUTO_TEST_CASE(negative_strides_reach_backwards) {
  std::vector<int> data = {1, 2, 3, 4};
  zt::Tensor<int, 1> reversed(data.data() + 3, {4}, {-1});
  BOOST_TEST(reversed(0) == 4);
  BOOST_TEST(reversed.strided_array()(3) == 1);
}

BOOST_AUTO_TEST_CASE(matrix_picks_the_map_of_the_layout) {
  // A column-major 3x2 matrix viewed through its real strides.
  Eigen::MatrixXf column_major(3, 2);
  column_major << 1, 2, 3, 4, 5, 6;
  zt::Tensor<float, 2> view(column_major.data(), {3, 2}, {1, 3});
  BOOST_TEST(view.matrix().index() == 1u);
  BOOST_TEST(view.column_major_matrix().isApprox(column_major));
  BOOST_TEST((view.strided_matrix() * Eigen::Vector2f(1, 1))(2) == 11.0f);
  zt::Tensor<float> flat(column_major.data(), {6}, {1});
  BOOST_CHECK_EXCEPTION((void)flat.matrix(), zt::ValueError,
                        [](const zt::ValueError& e) { return message_has(e, "expected rank 2; got rank 1"); });
}

BOOST_AUTO_TEST_CASE(tensor_map_for_static_and_dynamic_rank) {
  std::vector<float> data(24);
  std::iota(data.begin(), data.end(), 0.0f);
  zt::Tensor<float, 3> t(data.data(), {2, 3, 4}, {12, 4, 1});
  BOOST_TEST(t.tensor()(1, 2, 3) == 23.0f);
  Eigen::Tensor<float, 0, Eigen::RowMajor> total = t.tensor().sum();
  BOOST_TEST(total() == 276.0f);
  zt::Tensor<float> dyn = t;
  BOOST_TEST(dyn.tensor<3>()(1, 0, 0) == 12.0f);
  BOOST_CHECK_THROW((void)dyn.tensor<2>(), zt::ValueError);
  zt::Tensor<float, 2> strided(data.data(), {2, 2}, {1, 2});
  BOOST_CHECK_THROW((void)strided.tensor(), zt::ValueError);
}

BOOST_AUTO_TEST_CASE(conversions_add_const_and_check_rank) {
  std::vector<int> data = {1, 2, 3, 4, 5, 6};
  zt::Tensor<int, 2> t(data.data(), {2, 3}, {3, 1});
  zt::Tensor<const int, 2> read_only = t;
  zt::Tensor<const int> dynamic_read_only = t;
  BOOST_TEST(dynamic_read_only.rank() == 2u);
  BOOST_TEST(read_only(1, 0) == 4);
  zt::Tensor<const int, 2> back(dynamic_read_only);
  BOOST_TEST(back.data() == data.data());
  BOOST_CHECK_EXCEPTION((zt::Tensor<const int, 3>{dynamic_read_only}), zt::ValueError,
                        [](const zt::ValueError& e) { return message_has(e, "expected rank 3; got rank 2"); });
  static_assert(!std::is_convertible_v<zt::Tensor<const int, 2>, zt::Tensor<int, 2>>);
  static_assert(!std::is_convertible_v<zt::Tensor<int>, zt::Tensor<int, 2>>);
  static_assert(!std::is_constructible_v<zt::Tensor<float, 2>, zt::Tensor<int, 2>>);
}

namespace {
/// Converts a dynamic-rank view of rank `From` to static rank `To` and back: equal ranks
/// keep shape and strides, others throw ValueError before anything is copied.
template <std::size_t From, std::size_t To>
void check_rank_conversion(std::vector<int>& data) {
  zt::DynamicExtents shape(From, 1), strides(From, 1);
  if constexpr (From > 0) shape[0] = zt::index_t(data.size());
  const zt::Tensor<int> dynamic(data.data(), shape, strides);
  BOOST_TEST_CONTEXT("rank " << From << " to static rank " << To) {
    if constexpr (From == To) {
      const zt::Tensor<int, To> fixed(dynamic);
      BOOST_TEST(std::equal(fixed.shape().begin(), fixed.shape().end(), shape.begin(), shape.end()));
      const zt::Tensor<const int> back = fixed;
      BOOST_TEST(back.shape() == shape);
      BOOST_TEST(back.strides() == strides);
    } else {
      BOOST_CHECK_EXCEPTION((zt::Tensor<int, To>{dynamic}), zt::ValueError, [](const zt::ValueError& e) {
        return message_has(e, "Tensor conversion: expected rank " + std::to_string(To) + "; got rank " +
                                  std::to_string(From));
      });
    }
  }
}

template <std::size_t... From, std::size_t... To>
void check_every_rank_pair(std::vector<int>& data, std::index_sequence<From...>, std::index_sequence<To...> to) {
  (([&]<std::size_t F>(std::integral_constant<std::size_t, F>) { (check_rank_conversion<F, To>(data), ...); }(
       std::integral_constant<std::size_t, From>{})),
   ...);
  (void)to;
}
}  // namespace

BOOST_AUTO_TEST_CASE(dynamic_to_static_rank_is_checked_before_copying_for_every_rank_pair) {
  // Ranks 0 to 8 both ways, past the 6 extents DynamicExtents keeps inline.
  std::vector<int> data = {1, 2, 3};
  check_every_rank_pair(data, std::make_index_sequence<9>{}, std::make_index_sequence<9>{});
}

BOOST_AUTO_TEST_CASE(read_only_views_do_not_compile_writes_and_never_resize) {
  using ConstArrayElement = decltype(std::declval<zt::Tensor<const float, 1>>().array()(0));
  BOOST_TEST((Writable<zt::Tensor<float, 1>>));
  BOOST_TEST(!(Writable<zt::Tensor<const float, 1>>));
  BOOST_TEST(!(std::is_assignable_v<ConstArrayElement, float>));
  BOOST_TEST(!(Resizable<zt::Tensor<float, 1>>));
}

BOOST_AUTO_TEST_CASE(device_memory_is_refused_by_host_operations) {
  float x = 0;
  zt::Tensor<float, 1> on_gpu(&x, {1}, {1}, {}, zt::cuda(0));
  BOOST_CHECK_EXCEPTION((void)on_gpu.array(), zt::DeviceError,
                        [](const zt::DeviceError& e) { return message_has(e, "array(): the memory is on cuda:0"); });
  BOOST_CHECK_THROW((void)on_gpu.vector(), zt::DeviceError);
  BOOST_CHECK_THROW((void)on_gpu.at(0), zt::DeviceError);
}

BOOST_AUTO_TEST_CASE(copies_share_the_owner) {
  auto owner = std::make_shared<std::vector<float>>(4, 2.0f);
  zt::Tensor<float, 1> t(owner->data(), {4}, {1}, owner);
  {
    zt::Tensor<float, 1> copy = t;
    BOOST_TEST(owner.use_count() == 3);
  }
  BOOST_TEST(owner.use_count() == 2);
}

BOOST_AUTO_TEST_CASE(dynamic_extents_spill_past_six_dimensions) {
  zt::DynamicExtents big{1, 2, 3, 4, 5, 6, 7, 8};
  zt::DynamicExtents copy = big;
  BOOST_TEST(copy.size() == 8u);
  BOOST_TEST(copy[7] == 8);
  BOOST_TEST((copy == big));
  zt::DynamicExtents moved = std::move(copy);
  BOOST_TEST(moved[0] == 1);
  std::span<const zt::index_t> view = moved;
  BOOST_TEST(view.size() == 8u);
}

BOOST_AUTO_TEST_SUITE_END()
