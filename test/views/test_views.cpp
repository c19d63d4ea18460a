// PyTorch's view operations on Tensor<T, Rank> and AnyTensor: layouts, static result
// ranks, exact errors, ownership, read-only memory, devices and overflow.
#include <boost/test/unit_test.hpp>

#include <array>
#include <complex>
#include <cstdint>
#include <limits>
#include <numeric>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "zerotensor/npy.hpp"
#include "zerotensor/zerotensor.hpp"
#include "support/file_test_support.hpp"
#include "support/message_check.hpp"

// Declared only, outside the anonymous namespace: the static_assert checks name them in decltype.
const zt::Tensor<const float, 3>& rank_3();
const zt::Tensor<const float>& dynamic_rank();

namespace {

using zt::index_t;
using Shape = std::vector<index_t>;

/// A BOOST_CHECK_EXCEPTION predicate: an `Error` whose message is exactly `text`.
template <class Error>
auto exactly(std::string text) {
  return [text = std::move(text)](const Error& e) {
    if (e.what() != text) BOOST_TEST_MESSAGE("message was: " << e.what() << "\nexpected: " << text);
    return e.what() == text;
  };
}

Shape shape_of(std::span<const index_t> extents) { return {extents.begin(), extents.end()}; }

/// 0, 1, ..., 23 as a C-order 2x3x4 tensor over `data`.
zt::Tensor<float, 3> cube(std::vector<float>& data) {
  data.resize(24);
  std::iota(data.begin(), data.end(), 0.0f);
  return zt::Tensor<float, 3>(data.data(), {2, 3, 4}, {12, 4, 1});
}

}  // namespace

BOOST_AUTO_TEST_CASE(narrow_select_slice_move_the_first_element_and_keep_strides) {
  std::vector<float> data;
  const auto x = cube(data);
  const zt::Tensor<float, 3> rows = x.narrow(1, 1, 2);
  BOOST_TEST(shape_of(rows.shape()) == Shape({2, 2, 4}));
  BOOST_TEST(shape_of(rows.strides()) == Shape({12, 4, 1}));
  BOOST_TEST(rows.data() == data.data() + 4);
  BOOST_TEST(x.narrow(-1, -2, 2).data() == data.data() + 2);

  const zt::Tensor<float, 2> layer = x.select(0, -1);
  BOOST_TEST(shape_of(layer.shape()) == Shape({3, 4}));
  BOOST_TEST(layer.data() == data.data() + 12);
  BOOST_TEST(x[1][2](3) == 23.0f);
  const zt::Tensor<float, 0> scalar = x[1][2][3];
  BOOST_TEST(scalar() == 23.0f);

  const auto stepped = x.slice(2, 1, std::nullopt, 2);
  BOOST_TEST(shape_of(stepped.shape()) == Shape({2, 3, 2}));
  BOOST_TEST(shape_of(stepped.strides()) == Shape({12, 4, 2}));
  BOOST_TEST(stepped(0, 0, 1) == 3.0f);
  // Python's clamping: out-of-range bounds clamp, a reversed range is empty.
  BOOST_TEST(x.slice(1, -100, 100).size(1) == 3);
  BOOST_TEST(x.slice(1, 2, 1).size(1) == 0);
  BOOST_TEST(x.slice().data() == data.data());
  BOOST_TEST(x.slice(0, 1).data() == data.data() + 12);
}

BOOST_AUTO_TEST_CASE(transpose_permute_movedim_t_and_mt) {
  std::vector<float> data;
  const auto x = cube(data);
  BOOST_TEST(shape_of(x.transpose(0, 2).strides()) == Shape({1, 4, 12}));
  BOOST_TEST(shape_of(x.swapaxes(0, -1).shape()) == Shape({4, 3, 2}));
  BOOST_TEST(shape_of(x.swapdims(1, 1).shape()) == Shape({2, 3, 4}));
  const auto p = x.permute({2, 0, 1});
  BOOST_TEST(shape_of(p.shape()) == Shape({4, 2, 3}));
  BOOST_TEST(shape_of(p.strides()) == Shape({1, 12, 4}));
  BOOST_TEST(shape_of(x.permute(std::vector<index_t>{-1, -2, -3}).shape()) == Shape({4, 3, 2}));
  BOOST_TEST(shape_of(x.movedim(0, 2).shape()) == Shape({3, 4, 2}));
  BOOST_TEST(shape_of(x.movedim(2, 0).strides()) == Shape({1, 12, 4}));
  BOOST_TEST(shape_of(x.movedim({0, 1}, {2, 0}).shape()) == Shape({3, 4, 2}));
  BOOST_TEST(shape_of(x.mT().shape()) == Shape({2, 4, 3}));
  const auto m = x.select(0, 0);
  BOOST_TEST(shape_of(m.t().strides()) == Shape({1, 4}));
  BOOST_TEST(shape_of(m.mH().strides()) == Shape({1, 4}));
  BOOST_TEST(shape_of(m.adjoint().shape()) == Shape({4, 3}));
  BOOST_TEST(x[0][0].t().data() == data.data());
}

BOOST_AUTO_TEST_CASE(squeeze_unsqueeze_expand) {
  std::vector<float> data(6);
  const zt::Tensor<float, 4> x(data.data(), {1, 2, 1, 3}, {6, 3, 3, 1});
  BOOST_TEST(shape_of(x.squeeze().shape()) == Shape({2, 3}));
  BOOST_TEST(shape_of(x.squeeze(0).shape()) == Shape({2, 1, 3}));
  BOOST_TEST(shape_of(x.squeeze(1).shape()) == Shape({1, 2, 1, 3}));
  BOOST_TEST(shape_of(x.squeeze({0, -2}).shape()) == Shape({2, 3}));
  const zt::Tensor<float, 5> u = x.unsqueeze(-1);
  BOOST_TEST(shape_of(u.shape()) == Shape({1, 2, 1, 3, 1}));
  BOOST_TEST(shape_of(u.strides()) == Shape({6, 3, 3, 1, 1}));
  BOOST_TEST(shape_of(x.unsqueeze(1).strides()) == Shape({6, 6, 3, 3, 1}));

  const zt::Tensor<float, 2> row(data.data(), {1, 3}, {3, 1});
  const zt::Tensor<float, 2> wide = row.expand({4, -1});
  BOOST_TEST(shape_of(wide.shape()) == Shape({4, 3}));
  BOOST_TEST(shape_of(wide.strides()) == Shape({0, 1}));
  const zt::Tensor<float> lead = row.expand<zt::dynamic>({2, 4, 3});
  BOOST_TEST(shape_of(lead.strides()) == Shape({0, 0, 1}));
  BOOST_TEST(shape_of(row.broadcast_to({5, 3}).shape()) == Shape({5, 3}));
  // New leading extent-1 dimensions take PyTorch's strides: the next extent times stride.
  const zt::AnyTensor one(data.data(), Shape{1}, Shape{3});
  BOOST_TEST(shape_of(one.broadcast_to({3, 1, -1}).strides()) == Shape({0, 3, 3}));
  BOOST_TEST(shape_of(one.expand({1, 2, 1}).strides()) == Shape({0, 0, 3}));
  BOOST_TEST(shape_of(zt::AnyTensor(data.data(), Shape{}, Shape{}).expand({1, 2}).strides()) == Shape({0, 0}));
  BOOST_TEST(shape_of(row.expand_as(wide).shape()) == Shape({4, 3}));
}

BOOST_AUTO_TEST_CASE(view_reshape_flatten_unflatten) {
  std::vector<float> data;
  const auto x = cube(data);
  const zt::Tensor<float, 2> v = x.view<2>({6, -1});
  BOOST_TEST(shape_of(v.shape()) == Shape({6, 4}));
  BOOST_TEST(v.data() == data.data());
  BOOST_TEST(shape_of(x.view({4, 6}).strides()) == Shape({6, 1}));
  // A permuted view splits and merges only along its contiguous chunks.
  const auto p = x.permute({1, 0, 2});  // strides (4, 12, 1)
  BOOST_TEST(shape_of(p.view({3, 2, 2, 2}).strides()) == Shape({4, 12, 2, 1}));
  const zt::Tensor<float> r = p.reshape({6, 4});  // not a view: a copy
  BOOST_TEST(r.data() != data.data());
  BOOST_TEST(r.owner() != x.owner());
  BOOST_TEST(r(1, 0) == 12.0f);
  BOOST_TEST(x.reshape<1>({-1}).data() == data.data());
  BOOST_TEST(shape_of(x.flatten().shape()) == Shape({24}));
  BOOST_TEST(shape_of(x.flatten(1).shape()) == Shape({2, 12}));
  BOOST_TEST(shape_of(x.flatten<2>(0, 1).shape()) == Shape({6, 4}));
  // flatten(d, d) is the tensor itself, strides of extent-1 dimensions included.
  const zt::Tensor<float, 2> odd(data.data(), {1, 4}, {7, 1});
  BOOST_TEST(shape_of(odd.flatten(0, 0).strides()) == Shape({7, 1}));
  BOOST_TEST(shape_of(zt::AnyTensor(odd).flatten(-1, -1).strides()) == Shape({7, 1}));
  BOOST_TEST(shape_of(zt::AnyTensor(odd).flatten().shape()) == Shape({4}));
  BOOST_TEST(shape_of(x.unflatten(2, {2, -1}).shape()) == Shape({2, 3, 2, 2}));
  BOOST_TEST(shape_of(x.view_as(v).shape()) == Shape({6, 4}));
  BOOST_TEST(x.contiguous().data() == data.data());
  const auto c = p.contiguous();
  BOOST_TEST(c.data() != data.data());
  BOOST_TEST(c.is_contiguous());
  BOOST_TEST(c(1, 0, 0) == 4.0f);
}

BOOST_AUTO_TEST_CASE(flatten_copies_where_no_view_exists_and_static_ranks_name_the_operation) {
  std::vector<float> data;
  const auto x = cube(data);
  const auto p = x.permute({1, 0, 2});  // strides (4, 12, 1): no two dimensions merge
  const zt::Tensor<float, 1> flat = p.flatten<1>();
  BOOST_TEST(flat.data() != data.data());
  BOOST_TEST(flat.stride(0) == 1);
  BOOST_TEST(flat(4) == 12.0f);
  const zt::AnyTensor any_flat = zt::AnyTensor(p).flatten(1);
  BOOST_TEST(any_flat.data_ptr() != data.data());
  BOOST_TEST(shape_of(any_flat.shape()) == Shape({3, 8}));
  BOOST_TEST(shape_of(any_flat.strides()) == Shape({8, 1}));
  BOOST_TEST(any_flat.as<float>()(0, 4) == 12.0f);
  BOOST_TEST(p.flatten(2).data() == data.data());  // one dimension: the tensor itself
  BOOST_CHECK_EXCEPTION((void)x.view<2>({24}), zt::ValueError,
                        exactly<zt::ValueError>("view(): expected rank 2; got rank 1"));
  BOOST_CHECK_EXCEPTION((void)x.reshape<2>({24}), zt::ValueError,
                        exactly<zt::ValueError>("reshape(): expected rank 2; got rank 1"));
  BOOST_CHECK_EXCEPTION((void)x.flatten<2>(), zt::ValueError,
                        exactly<zt::ValueError>("flatten(): expected rank 2; got rank 1"));
  BOOST_CHECK_EXCEPTION((void)x.unflatten<3>(2, {2, 2}), zt::ValueError,
                        exactly<zt::ValueError>("unflatten(): expected rank 3; got rank 4"));
}

BOOST_AUTO_TEST_CASE(diagonal_unfold_as_strided) {
  std::vector<float> data;
  const auto x = cube(data);
  const zt::Tensor<float, 2> d = x.diagonal(0, 1, 2);
  BOOST_TEST(shape_of(d.shape()) == Shape({2, 3}));
  BOOST_TEST(shape_of(d.strides()) == Shape({12, 5}));
  BOOST_TEST(x.diagonal(1, 1, 2).data() == data.data() + 1);
  BOOST_TEST(x.diagonal(-1, 1, 2).data() == data.data() + 4);
  BOOST_TEST(x.diagonal(-1, 1, 2).size(1) == 2);
  BOOST_TEST(x.diagonal(10, 1, 2).size(1) == 0);

  const zt::Tensor<float, 4> w = x.unfold(2, 2, 1);
  BOOST_TEST(shape_of(w.shape()) == Shape({2, 3, 3, 2}));
  BOOST_TEST(shape_of(w.strides()) == Shape({12, 4, 1, 1}));

  const zt::Tensor<float> s = x.as_strided({2, 2}, {1, 2}, 20);
  BOOST_TEST(s.data() == data.data() + 20);
  BOOST_TEST(shape_of(s.strides()) == Shape({1, 2}));
  BOOST_CHECK_EXCEPTION((void)x.as_strided({2, 2}, {1, 2}, 21), zt::ValueError,
                        exactly<zt::ValueError>("as_strided: the view reaches elements [21, 24] from the tensor's "
                                                "first element, outside the elements [0, 23] the tensor reaches"));
  BOOST_CHECK_EXCEPTION((void)x.select(0, 1).as_strided({2}, {1}, -1), zt::ValueError,
                        exactly<zt::ValueError>("Tensor: invalid storage offset -1"));
}

BOOST_AUTO_TEST_CASE(chunk_split_tensor_split_unbind) {
  std::vector<float> data(10);
  const zt::Tensor<float, 1> x(data.data(), {10}, {1});
  const std::vector<zt::Tensor<float, 1>> chunks = x.chunk(3);
  BOOST_TEST(chunks.size() == 3u);
  BOOST_TEST(chunks[2].size(0) == 2);
  BOOST_TEST(chunks[1].data() == data.data() + 4);
  BOOST_TEST(x.chunk(6).size() == 5u);  // pieces of 2: fewer than asked, as PyTorch
  BOOST_TEST(x.split(4).size() == 3u);
  BOOST_TEST(x.split(4)[2].size(0) == 2);
  const auto sized = x.split({3, 7});
  BOOST_TEST(sized[1].data() == data.data() + 3);
  const auto sections = x.tensor_split(3);
  BOOST_TEST(sections[0].size(0) == 4);
  BOOST_TEST(sections[2].size(0) == 3);
  const auto at = x.tensor_split({2, -3, 1});
  BOOST_TEST(at.size() == 4u);
  BOOST_TEST(at[1].size(0) == 5);
  BOOST_TEST(at[2].size(0) == 0);
  BOOST_TEST(at[3].size(0) == 9);
  std::vector<float> more;
  const std::vector<zt::Tensor<float, 2>> layers = cube(more).unbind(0);
  BOOST_TEST(layers.size() == 2u);
  BOOST_TEST(layers[1].data() == more.data() + 12);
  BOOST_TEST(shape_of(layers[1].shape()) == Shape({3, 4}));
  BOOST_TEST(shape_of(layers[1].strides()) == Shape({4, 1}));
  const std::vector<zt::Tensor<float, 2>> columns = cube(more).unbind(-1);  // every entry of the last dim
  BOOST_TEST(columns.size() == 4u);
  BOOST_TEST(columns[3].data() == more.data() + 3);
  BOOST_TEST(shape_of(columns[3].strides()) == Shape({12, 4}));
  // The pieces of a typed split are narrowed copies of the tensor: each has its own extent.
  const std::vector<zt::Tensor<float, 3>> slabs = cube(more).chunk(2, 2);
  BOOST_TEST(slabs.size() == 2u);
  BOOST_TEST(slabs[1].data() == more.data() + 2);
  BOOST_TEST(shape_of(slabs[0].shape()) == Shape({2, 3, 2}));
  BOOST_TEST(shape_of(slabs[1].strides()) == Shape({12, 4, 1}));
  BOOST_TEST(cube(more).narrow(0, 0, 0).unbind(0).empty());
  const zt::Tensor<float, 0> empty(data.data(), {}, {});
  BOOST_TEST(x.narrow(0, 0, 0).split(0).size() == 1u);
  BOOST_TEST(x.narrow(0, 0, 0).chunk(3).size() == 3u);
  (void)empty;
}

BOOST_AUTO_TEST_CASE(dtype_views_follow_pytorch_rules) {
  alignas(16) std::array<std::uint16_t, 8> bf16{};
  const zt::Tensor<const std::uint16_t, 2> bytes(bf16.data(), {2, 4}, {4, 1});
  const zt::Tensor<const Eigen::bfloat16, 2> same = bytes.view<Eigen::bfloat16>();
  BOOST_TEST(static_cast<const void*>(same.data()) == static_cast<const void*>(bf16.data()));
  const zt::Tensor<const std::uint8_t, 2> narrow = bytes.view<std::uint8_t>();
  BOOST_TEST(shape_of(narrow.shape()) == Shape({2, 8}));
  BOOST_TEST(shape_of(narrow.strides()) == Shape({8, 1}));
  const zt::Tensor<const float, 2> wide = bytes.view<float>();
  BOOST_TEST(shape_of(wide.shape()) == Shape({2, 2}));
  BOOST_TEST(shape_of(wide.strides()) == Shape({2, 1}));

  std::array<std::complex<float>, 3> z{};
  const zt::Tensor<std::complex<float>, 1> complex(z.data(), {3}, {1});
  const zt::Tensor<float, 2> parts = complex.view_as_real();
  BOOST_TEST(shape_of(parts.shape()) == Shape({3, 2}));
  BOOST_TEST(shape_of(parts.strides()) == Shape({2, 1}));
  const zt::Tensor<std::complex<float>, 1> back = parts.view_as_complex();
  BOOST_TEST(back.data() == z.data());

  const zt::AnyTensor any = bytes;
  BOOST_TEST(any.view(zt::float32).dtype() == zt::float32);
  BOOST_TEST(!any.view(zt::float32).is_writable());
  BOOST_CHECK_EXCEPTION((void)any.view(zt::bool_), zt::TypeError,
                        exactly<zt::TypeError>("view(bool): uint16 bytes other than 0 and 1 are no valid bool; view "
                                               "a bool tensor, or convert with to()"));
  BOOST_CHECK_EXCEPTION((void)any.t().view(zt::float32), zt::ValueError,
                        exactly<zt::ValueError>("self.stride(-1) must be 1 to view uint16 as float32 (different "
                                                "element sizes), but got 4"));
  BOOST_CHECK_EXCEPTION((void)any.narrow(1, 0, 3).view(zt::float64), zt::ValueError,
                        exactly<zt::ValueError>("self.size(-1) must be divisible by 4 to view uint16 as float64 "
                                                "(different element sizes), but got 3"));
  const zt::AnyTensor odd = zt::Tensor<const std::uint16_t, 2>(bf16.data(), {2, 2}, {3, 1});
  BOOST_CHECK_EXCEPTION((void)odd.view(zt::float32), zt::ValueError,
                        exactly<zt::ValueError>("self.stride(0) must be divisible by 2 to view uint16 as float32 "
                                                "(different element sizes), but got 3"));
  BOOST_CHECK_EXCEPTION((void)any.view_as_real(), zt::TypeError,
                        exactly<zt::TypeError>("view_as_real is only supported for complex tensors, but got a tensor "
                                               "of dtype uint16"));
  BOOST_CHECK_EXCEPTION((void)zt::AnyTensor(parts).narrow(1, 0, 1).view_as_complex(), zt::ValueError,
                        exactly<zt::ValueError>("Tensor must have a last dimension of size 2"));
  BOOST_CHECK_EXCEPTION((void)zt::AnyTensor(complex).mH(), zt::TypeError,
                        exactly<zt::TypeError>("mH: a complex64 tensor's conjugate transpose is not a view "
                                               "(zerotensor has no lazy conjugation); use mT() and conjugate a copy"));
}

BOOST_AUTO_TEST_CASE(static_result_ranks) {
  using T3 = zt::Tensor<const float, 3>;
  using D = zt::Tensor<const float>;
  static_assert(std::is_same_v<decltype(rank_3().select(0, 0)), zt::Tensor<const float, 2>>);
  static_assert(std::is_same_v<decltype(rank_3()[0]), zt::Tensor<const float, 2>>);
  static_assert(std::is_same_v<decltype(rank_3().unsqueeze(0)), zt::Tensor<const float, 4>>);
  static_assert(std::is_same_v<decltype(rank_3().narrow(0, 0, 1)), T3>);
  static_assert(std::is_same_v<decltype(rank_3().slice(0)), T3>);
  static_assert(std::is_same_v<decltype(rank_3().transpose(0, 1)), T3>);
  static_assert(std::is_same_v<decltype(rank_3().permute({0, 1, 2})), T3>);
  static_assert(std::is_same_v<decltype(rank_3().movedim(0, 1)), T3>);
  static_assert(std::is_same_v<decltype(rank_3().mT()), T3>);
  static_assert(std::is_same_v<decltype(rank_3().expand({1, 1, 1})), T3>);
  static_assert(std::is_same_v<decltype(rank_3().expand<zt::dynamic>({1, 1, 1, 1})), D>);
  static_assert(std::is_same_v<decltype(rank_3().squeeze()), D>);
  static_assert(std::is_same_v<decltype(rank_3().view({-1})), D>);
  static_assert(std::is_same_v<decltype(rank_3().view<1>({-1})), zt::Tensor<const float, 1>>);
  static_assert(std::is_same_v<decltype(rank_3().reshape<2>({2, -1})), zt::Tensor<const float, 2>>);
  static_assert(std::is_same_v<decltype(rank_3().flatten()), D>);
  static_assert(std::is_same_v<decltype(rank_3().diagonal()), zt::Tensor<const float, 2>>);
  static_assert(std::is_same_v<decltype(rank_3().unfold(0, 1, 1)), zt::Tensor<const float, 4>>);
  static_assert(std::is_same_v<decltype(rank_3().chunk(2)), std::vector<T3>>);
  static_assert(std::is_same_v<decltype(rank_3().unbind()), std::vector<zt::Tensor<const float, 2>>>);
  static_assert(std::is_same_v<decltype(rank_3().view<std::int32_t>()), zt::Tensor<const std::int32_t, 3>>);
  static_assert(std::is_same_v<decltype(rank_3().view_as_complex()), zt::Tensor<const std::complex<float>, 2>>);
  static_assert(std::is_same_v<decltype(rank_3().contiguous()), T3>);
  static_assert(std::is_same_v<decltype(dynamic_rank().select(0, 0)), D>);
  static_assert(std::is_same_v<decltype(dynamic_rank().unsqueeze(0)), D>);
  BOOST_TEST(true);  // the checks above are the test
}

BOOST_AUTO_TEST_CASE(errors_have_pytorch_wording_and_kinds) {
  std::vector<float> data;
  const zt::AnyTensor x = cube(data).select(0, 0);  // [3, 4]
  const zt::AnyTensor scalar = x[0][0];
  BOOST_CHECK_EXCEPTION((void)x.narrow(1, 2, 3), zt::ValueError,
                        exactly<zt::ValueError>("start (2) + length (3) exceeds dimension size (4)."));
  BOOST_CHECK_EXCEPTION((void)x.narrow(1, 5, 0), zt::IndexError,
                        exactly<zt::IndexError>("start out of range (expected to be in range of [-4, 4], but got 5)"));
  BOOST_CHECK_EXCEPTION((void)x.narrow(1, 0, -1), zt::ValueError,
                        exactly<zt::ValueError>("narrow(): length must be non-negative."));
  BOOST_CHECK_EXCEPTION((void)scalar.narrow(0, 0, 0), zt::ValueError,
                        exactly<zt::ValueError>("narrow() cannot be applied to a 0-dim tensor."));
  BOOST_CHECK_EXCEPTION(
      (void)x.transpose(2, 0), zt::IndexError,
      exactly<zt::IndexError>("Dimension out of range (expected to be in range of [-2, 1], but got 2)"));
  BOOST_CHECK_EXCEPTION(
      (void)scalar.unsqueeze(2), zt::IndexError,
      exactly<zt::IndexError>("Dimension out of range (expected to be in range of [-1, 0], but got 2)"));
  BOOST_CHECK_EXCEPTION((void)x.select(0, 5), zt::IndexError,
                        exactly<zt::IndexError>("select(): index 5 out of range for tensor of size [3, 4] at "
                                                "dimension 0"));
  BOOST_CHECK_THROW((void)x.select(1, -5), zt::ValueError);  // an IndexError is a ValueError
  BOOST_CHECK_EXCEPTION((void)scalar.select(0, 0), zt::IndexError,
                        exactly<zt::IndexError>("select() cannot be applied to a 0-dim tensor."));
  BOOST_CHECK_EXCEPTION((void)x.slice(0, 0, 2, 0), zt::ValueError,
                        exactly<zt::ValueError>("slice step must be positive"));
  BOOST_CHECK_EXCEPTION((void)x.permute({0}), zt::ValueError,
                        exactly<zt::ValueError>("permute(): number of dimensions in the tensor input does not match "
                                                "the length of the desired ordering of dimensions i.e. input.dim() = "
                                                "2 is not equal to len(dims) = 1"));
  BOOST_CHECK_EXCEPTION((void)x.permute({1, -1}), zt::ValueError,
                        exactly<zt::ValueError>("permute(): duplicate dims are not allowed."));
  BOOST_CHECK_EXCEPTION((void)x.movedim({0}, {0, 1}), zt::ValueError,
                        exactly<zt::ValueError>("movedim: Invalid source or destination dims: source ([0] dims) should "
                                                "contain the same number of dims as destination ([0, 1] dims)"));
  BOOST_CHECK_EXCEPTION((void)x.movedim({0, 0}, {0, 1}), zt::ValueError,
                        exactly<zt::ValueError>("movedim: repeated dim in `source` ([0, 0])"));
  BOOST_CHECK_EXCEPTION((void)x.movedim({0, 1}, {1, -1}), zt::ValueError,
                        exactly<zt::ValueError>("movedim: repeated dim in `destination` ([1, -1])"));
  // Both lists are wrapped before either is checked for repeats: a dim out of range wins.
  BOOST_CHECK_THROW((void)x.movedim({0, -1, -1}, {-4, 0, 1}), zt::IndexError);
  BOOST_CHECK_EXCEPTION((void)x.unsqueeze(0).t(), zt::ValueError,
                        exactly<zt::ValueError>("t() expects a tensor with <= 2 dimensions, but self is 3D"));
  BOOST_CHECK_EXCEPTION((void)x[0].mT(), zt::ValueError,
                        exactly<zt::ValueError>("tensor.mT is only supported on matrices or batches of matrices. Got "
                                                "1-D tensor."));
  BOOST_CHECK_EXCEPTION((void)x.squeeze({0, -2}), zt::ValueError,
                        exactly<zt::ValueError>("dim 0 appears multiple times in the list of dims"));
  BOOST_CHECK_EXCEPTION((void)x.expand({4}), zt::ValueError,
                        exactly<zt::ValueError>("expand([3, 4], size=[4]): the number of sizes provided (1) must be "
                                                "greater or equal to the number of dimensions in the tensor (2)"));
  BOOST_CHECK_EXCEPTION((void)x.expand({2, 4}), zt::ValueError,
                        exactly<zt::ValueError>("The expanded size of the tensor (2) must match the existing size (3) "
                                                "at non-singleton dimension 0.  Target sizes: [2, 4].  Tensor sizes: "
                                                "[3, 4]"));
  BOOST_CHECK_EXCEPTION((void)x.expand({-1, 3, 4}), zt::ValueError,
                        exactly<zt::ValueError>("The expanded size of the tensor (-1) isn't allowed in a leading, "
                                                "non-existing dimension 0"));
  BOOST_CHECK_EXCEPTION((void)x.view({5, -1}), zt::ValueError,
                        exactly<zt::ValueError>("shape '[5, -1]' is invalid for input of size 12"));
  BOOST_CHECK_EXCEPTION((void)x.view({-1, -1}), zt::ValueError,
                        exactly<zt::ValueError>("only one dimension can be inferred"));
  BOOST_CHECK_EXCEPTION((void)x.view({-2, 6}), zt::ValueError, exactly<zt::ValueError>("invalid shape dimension -2"));
  BOOST_CHECK_EXCEPTION((void)x.t().view({12}), zt::ValueError,
                        exactly<zt::ValueError>("view size is not compatible with input tensor's size and stride (at "
                                                "least one dimension spans across two contiguous subspaces). Use "
                                                ".reshape(...) instead."));
  BOOST_CHECK_EXCEPTION((void)x.flatten(1, 0), zt::ValueError,
                        exactly<zt::ValueError>("flatten() has invalid args: start_dim cannot come after end_dim"));
  BOOST_CHECK_EXCEPTION((void)scalar.unflatten(0, {1}), zt::IndexError,
                        exactly<zt::IndexError>("Dimension specified as 0 but tensor has no dimensions"));
  BOOST_CHECK_EXCEPTION((void)x.narrow(0, 0, 0).view({-1, 0}), zt::ValueError,
                        exactly<zt::ValueError>("cannot reshape tensor of 0 elements into shape [-1, 0] because the "
                                                "unspecified dimension size -1 can be any value and is ambiguous"));
  BOOST_CHECK_EXCEPTION((void)x.unflatten(1, {3, 2}), zt::ValueError,
                        exactly<zt::ValueError>("unflatten: Provided sizes [3, 2] don't multiply up to the size of dim "
                                                "1 (4) in the input tensor"));
  BOOST_CHECK_EXCEPTION((void)x.diagonal(0, 1, -1), zt::ValueError,
                        exactly<zt::ValueError>("diagonal dimensions cannot be identical 1, 1"));
  std::array<float, 1> one{};
  const zt::Tensor<float, 2> far(one.data(), {1, 1}, {INT64_MAX, 1});  // extents 1: no element is that far
  BOOST_CHECK_EXCEPTION((void)far.diagonal(), zt::ValueError,
                        exactly<zt::ValueError>("diagonal: the diagonal's stride, the sum of the strides "
                                                "9223372036854775807 + 1, overflows 64 bits"));
  BOOST_CHECK_EXCEPTION((void)x.unfold(1, 5, 1), zt::ValueError,
                        exactly<zt::ValueError>("maximum size for tensor at dimension 1 is 4 but size is 5"));
  BOOST_CHECK_EXCEPTION((void)x.unfold(1, 2, 0), zt::ValueError,
                        exactly<zt::ValueError>("step is 0 but must be > 0"));
  BOOST_CHECK_EXCEPTION((void)x.as_strided({2}, {1, 1}), zt::ValueError,
                        exactly<zt::ValueError>("mismatch in length of strides and shape"));
  BOOST_CHECK_EXCEPTION((void)x.as_strided({2, -3}, {-1, 1}), zt::ValueError,
                        exactly<zt::ValueError>("Trying to create tensor with negative dimension -3: [2, -3]"));
  BOOST_CHECK_EXCEPTION((void)x.unflatten(1, {}), zt::ValueError,
                        exactly<zt::ValueError>("unflatten: sizes must be non-empty"));
  BOOST_CHECK_EXCEPTION((void)x.unflatten(1, {-1, -1}), zt::ValueError,
                        exactly<zt::ValueError>("only one dimension can be inferred"));
  BOOST_CHECK_EXCEPTION((void)scalar.view(zt::float64), zt::ValueError,
                        exactly<zt::ValueError>("self.dim() cannot be 0 to view float32 as float64 (different element "
                                                "sizes)"));
  std::ostringstream misaligned;
  misaligned << "view(float64) of a float32 tensor: the data at " << x.narrow(1, 1, 2).data_ptr()
             << " (aligned to 4 bytes) is not aligned to 8 bytes, the alignment of float64";
  BOOST_CHECK_EXCEPTION((void)x.narrow(1, 1, 2).view(zt::float64), zt::ValueError,
                        exactly<zt::ValueError>(misaligned.str()));
  // An extent that overflows is refused before a negative one after it is seen.
  const zt::index_t big = zt::index_t(1) << 40;
  BOOST_CHECK_EXCEPTION((void)x.view({big, big, -5}), zt::ValueError,
                        exactly<zt::ValueError>("shape '[1099511627776, 1099511627776, -5]' is invalid for input of "
                                                "size 12"));
  BOOST_CHECK_EXCEPTION((void)x.as_strided({2}, {-1}), zt::ValueError,
                        exactly<zt::ValueError>("as_strided: Negative strides are not supported at the moment, got "
                                                "strides: [-1]"));
  BOOST_CHECK_EXCEPTION((void)x.chunk(0), zt::ValueError,
                        exactly<zt::ValueError>("chunk expects `chunks` to be greater than 0, got: 0"));
  BOOST_CHECK_EXCEPTION((void)scalar.chunk(1), zt::ValueError,
                        exactly<zt::ValueError>("chunk expects at least a 1-dimensional tensor"));
  BOOST_CHECK_EXCEPTION((void)x.split(-1), zt::ValueError,
                        exactly<zt::ValueError>("split expects split_size be non-negative, but got split_size=-1"));
  // The counts are checked before the dim, as PyTorch checks them.
  BOOST_CHECK_EXCEPTION((void)x.narrow(5, 0, -1), zt::ValueError,
                        exactly<zt::ValueError>("narrow(): length must be non-negative."));
  BOOST_CHECK_EXCEPTION((void)x.split(-1, 5), zt::ValueError,
                        exactly<zt::ValueError>("split expects split_size be non-negative, but got split_size=-1"));
  BOOST_CHECK_EXCEPTION((void)x.chunk(0, 5), zt::ValueError,
                        exactly<zt::ValueError>("chunk expects `chunks` to be greater than 0, got: 0"));
  BOOST_CHECK_EXCEPTION((void)x.split(0), zt::ValueError,
                        exactly<zt::ValueError>("split_size can only be 0 if dimension size is 0, but got dimension "
                                                "size of 3"));
  BOOST_CHECK_EXCEPTION((void)x.split({1, 1}), zt::ValueError,
                        exactly<zt::ValueError>("split_with_sizes expects split_sizes to sum exactly to 3 (input "
                                                "tensor's size at dimension 0), but got split_sizes=[1, 1]"));
  BOOST_CHECK_EXCEPTION((void)x.split({4, -1}), zt::ValueError,
                        exactly<zt::ValueError>("split_with_sizes expects split_sizes have only non-negative entries, "
                                                "but got split_sizes=[4, -1]"));
  BOOST_CHECK_EXCEPTION((void)x.tensor_split(0), zt::ValueError,
                        exactly<zt::ValueError>("number of sections must be larger than 0, got 0"));
  BOOST_CHECK_EXCEPTION((void)scalar.tensor_split({1}), zt::ValueError,
                        exactly<zt::ValueError>("tensor_split expected at least a 1-dimensional tensor, but got a "
                                                "tensor with 0 dims"));
  BOOST_CHECK_EXCEPTION((void)scalar.unbind(), zt::IndexError,
                        exactly<zt::IndexError>("Dimension specified as 0 but tensor has no dimensions"));
}

BOOST_AUTO_TEST_CASE(views_of_a_mapped_file_outlive_it_and_stay_read_only) {
  zt_test::TempDir dir;
  {
    std::vector<float> values(24);
    std::iota(values.begin(), values.end(), 0.0f);
    zt::save_npy(dir / "x.npy", zt::Tensor<float, 3>(values.data(), {2, 3, 4}, {12, 4, 1}));
  }
  zt::AnyTensor last = zt::AnyTensor(zt::Tensor<float>(nullptr, {}, {}));
  zt::Tensor<const float, 1> typed(nullptr, {0}, {1});
  {
    const zt::AnyTensor file = zt::load_npy(dir / "x.npy");
    BOOST_TEST(!file.is_writable());
    const zt::AnyTensor a = file.narrow(0, 1, 1);
    const zt::AnyTensor b = a.permute({2, 1, 0});
    last = b.select(0, 3).squeeze(-1);  // elements 15, 19, 23
    typed = file.as<const float, 3>().select(0, 1).t().select(0, 3);
  }
  // Every earlier view and the file object are gone; the mapping lives on in the views.
  BOOST_TEST(!last.is_writable());
  BOOST_TEST((last.as<const float, 1>()(2)) == 23.0f);
  BOOST_TEST(typed(1) == 19.0f);
  BOOST_CHECK_THROW((void)last.mutable_data_ptr(), zt::TypeError);

  const zt::AnyTensor file = zt::load_npy(dir / "x.npy");
  const std::vector<zt::AnyTensor> every = {
      file.narrow(0, 0, 1), file.slice(1, 1), file.select(0, 0), file.transpose(0, 1), file.permute({2, 0, 1}),
      file.movedim(0, 2), file.mT(), file.mH(), file.squeeze(), file.unsqueeze(0), file.expand({2, 2, 3, 4}),
      file.view({6, 4}), file.reshape({4, 6}), file.flatten(), file.unflatten(0, {1, 2}), file.diagonal(),
      file.unfold(2, 2, 2), file.as_strided({2}, {1}), file.chunk(2)[1], file.split(1)[0],
      file.tensor_split(2)[0], file.unbind()[1], file.view(zt::int32), file.contiguous(), file[1]};
  for (const zt::AnyTensor& view : every) {
    BOOST_TEST(!view.is_writable());
    BOOST_TEST(view.owner() == file.owner());
  }
}

BOOST_AUTO_TEST_CASE(views_keep_the_device_without_touching_it) {
  std::vector<float> data;
  const zt::Tensor<float, 3> host = cube(data);
  const zt::Tensor<float, 3> device(host.data(), host.shape(), host.strides(), host.owner(), zt::cuda(0));
  const zt::AnyTensor any = device;
  BOOST_TEST(device.narrow(0, 1, 1).select(1, 2).t().device() == zt::cuda(0));
  BOOST_TEST(device.view<std::int32_t>().device() == zt::cuda(0));
  BOOST_TEST(any.permute({1, 2, 0}).view({3, 4, 2}).unflatten(1, {2, 2}).device() == zt::cuda(0));
  BOOST_TEST(any.chunk(2)[1].data_ptr() == static_cast<const void*>(data.data() + 12));
  BOOST_TEST(any.diagonal(0, 1, 2).unfold(1, 2, 1).expand({2, 2, 2, 2}).device() == zt::cuda(0));
}

BOOST_AUTO_TEST_CASE(huge_strides_and_sizes_are_refused) {
  std::vector<float> data(4);
  constexpr index_t huge = index_t{1} << 62;
  const zt::Tensor<float, 2> x(data.data(), {2, 2}, {huge, 1});
  BOOST_CHECK_EXCEPTION((void)x.slice(0, 0, 2, 2), zt::ValueError,
                        exactly<zt::ValueError>("view: the stride or offset product 4611686018427387904 * 2 overflows "
                                                "64 bits"));
  BOOST_CHECK_EXCEPTION((void)x.unfold(0, 1, 4), zt::ValueError,
                        exactly<zt::ValueError>("view: the stride or offset product 4611686018427387904 * 4 overflows "
                                                "64 bits"));
  BOOST_CHECK_EXCEPTION((void)zt::AnyTensor(x).view(zt::uint8), zt::ValueError,
                        exactly<zt::ValueError>("view: the stride or offset product 4611686018427387904 * 4 overflows "
                                                "64 bits"));
  BOOST_CHECK_THROW((void)x.expand<zt::dynamic>({huge, huge, 2, 2}), zt::ValueError);
  BOOST_CHECK_THROW((void)x.as_strided({2, 2}, {huge, huge}), zt::ValueError);
  // The element offset of an AnyTensor view becomes bytes, checked too.
  const zt::Tensor<double, 1> far(reinterpret_cast<double*>(data.data()), {2}, {huge});
  BOOST_CHECK_THROW((void)zt::AnyTensor(far).select(0, 1), zt::ValueError);
}

BOOST_AUTO_TEST_CASE(mt_mh_and_adjoint_of_a_rank_0_tensor_are_the_tensor_itself) {
  float value = 2.0f;
  const zt::Tensor<float, 0> scalar(&value, {}, {});
  static_assert(std::is_same_v<decltype(scalar.mT()), zt::Tensor<float, 0>>);
  BOOST_TEST(scalar.mT().data() == &value);
  BOOST_TEST(scalar.mH().data() == &value);
  BOOST_TEST(scalar.adjoint().data() == &value);
  BOOST_TEST(zt::Tensor<float>(scalar).mT().rank() == 0u);
  const zt::AnyTensor any = scalar;
  for (const zt::AnyTensor& same : {any.mT(), any.mH(), any.adjoint()}) {
    BOOST_TEST(same.rank() == 0u);
    BOOST_TEST(same.dtype() == zt::float32);
    BOOST_TEST(same.data_ptr() == static_cast<const void*>(&value));
  }
  // Rank 1 stays an error, with PyTorch's message.
  const zt::AnyTensor vector = zt::Tensor<float, 1>(&value, {1}, {1});
  BOOST_CHECK_EXCEPTION((void)vector.mH(), zt::ValueError,
                        exactly<zt::ValueError>("tensor.mH is only supported on matrices or batches of matrices. Got "
                                                "1-D tensor."));
  BOOST_CHECK_EXCEPTION((void)zt::Tensor<float>(vector.as<float, 1>()).adjoint(), zt::ValueError,
                        exactly<zt::ValueError>("tensor.adjoint() is only supported on matrices or batches of "
                                                "matrices. Got 1-D tensor."));
}

BOOST_AUTO_TEST_CASE(a_dtype_view_of_the_same_item_size_refuses_an_address_the_new_type_is_not_aligned_to) {
  alignas(8) std::array<std::byte, 20> bytes{};
  const auto typed = zt::frombuffer<std::complex<float>>(zt::Buffer(bytes), {.offset = 4});
  const zt::AnyTensor any = zt::frombuffer(zt::Buffer(bytes), zt::complex64, {.offset = 4});
  std::ostringstream expected;
  expected << "the data at " << any.data_ptr() << " (aligned to 4 bytes) is not aligned to 8 bytes, the alignment "
           << "of float64";
  BOOST_CHECK_EXCEPTION((void)typed.view<double>(), zt::ValueError, with_message<zt::ValueError>(expected.str()));
  BOOST_CHECK_EXCEPTION((void)any.view(zt::float64), zt::ValueError, with_message<zt::ValueError>(expected.str()));
  BOOST_CHECK_EXCEPTION((void)any.view(zt::int64), zt::ValueError,
                        with_message<zt::ValueError>("is not aligned to 8 bytes, the alignment of int64"));
  // An element type the address is aligned to is still a view.
  BOOST_TEST(shape_of(any.view(zt::float32).shape()) == Shape({4}));
  const auto aligned = zt::frombuffer<std::complex<float>>(zt::Buffer(bytes), {.count = 1, .offset = 8});
  BOOST_TEST(static_cast<const void*>(aligned.view<double>().data()) == static_cast<const void*>(bytes.data() + 8));
}

BOOST_AUTO_TEST_CASE(typed_views_check_the_byte_offset_before_moving_the_pointer) {
  std::array<float, 1> one{};
  constexpr index_t huge = index_t{1} << 62;
  const zt::Tensor<float> far = zt::Tensor<float, 1>(one.data(), {1}, {1}).as_strided({1}, {huge});
  const std::string overflow = "view: the stride or offset product 4611686018427387904 * 4 overflows 64 bits";
  BOOST_CHECK_EXCEPTION((void)far.narrow(0, 1, 0), zt::ValueError, exactly<zt::ValueError>(overflow));
  BOOST_CHECK_EXCEPTION((void)far.slice(0, 1), zt::ValueError, exactly<zt::ValueError>(overflow));
  BOOST_CHECK_EXCEPTION((void)far.split({1, 0}), zt::ValueError, exactly<zt::ValueError>(overflow));
  BOOST_CHECK_EXCEPTION((void)far.tensor_split({1}), zt::ValueError, exactly<zt::ValueError>(overflow));
  BOOST_CHECK_EXCEPTION((void)zt::AnyTensor(far).narrow(0, 1, 0), zt::ValueError, exactly<zt::ValueError>(overflow));
}

BOOST_AUTO_TEST_CASE(views_whose_element_count_overflows_are_refused) {
  std::array<double, 1> one{};
  const zt::Tensor<double, 1> x(one.data(), {1}, {1});
  constexpr index_t p = index_t{1};
  BOOST_CHECK_EXCEPTION((void)x.expand({p << 40}).unfold(0, p << 39, 1), zt::ValueError,
                        exactly<zt::ValueError>("unfold(): shape (549755813889, 549755813888) has more than 2^63 "
                                                "elements"));
  BOOST_CHECK_EXCEPTION((void)zt::AnyTensor(x).expand({p << 40}).unfold(0, p << 39, 1), zt::ValueError,
                        with_message<zt::ValueError>("unfold(): shape (549755813889, 549755813888)"));
  BOOST_CHECK_EXCEPTION((void)x.expand<2>({p << 61, 1}).view<std::uint8_t>(), zt::ValueError,
                        exactly<zt::ValueError>("view(dtype): shape (2305843009213693952, 8) has more than 2^63 "
                                                "elements"));
  BOOST_CHECK_EXCEPTION((void)zt::AnyTensor(x).expand({p << 61, 1}).view(zt::uint8), zt::ValueError,
                        with_message<zt::ValueError>("view(dtype): shape (2305843009213693952, 8)"));
  std::array<std::complex<float>, 1> z{};
  const zt::Tensor<std::complex<float>, 1> complex(z.data(), {1}, {1});
  BOOST_CHECK_EXCEPTION((void)complex.expand({p << 62}).view_as_real(), zt::ValueError,
                        exactly<zt::ValueError>("view_as_real(): shape (4611686018427387904, 2) has more than 2^63 "
                                                "elements"));
  BOOST_CHECK_EXCEPTION((void)zt::AnyTensor(complex).expand({p << 62}).view_as_real(), zt::ValueError,
                        with_message<zt::ValueError>("view_as_real(): shape (4611686018427387904, 2)"));
  // An empty tensor takes any extents beside its 0, within the count its C-order strides allow.
  const zt::AnyTensor empty = zt::AnyTensor(x).narrow(0, 0, 0);
  BOOST_CHECK_EXCEPTION((void)empty.view({0, p << 32, p << 32}), zt::ValueError,
                        exactly<zt::ValueError>("view(): shape (0, 4294967296, 4294967296) is empty, but its C-order "
                                                "strides span more than 2^63 elements"));
  BOOST_CHECK_EXCEPTION((void)empty.reshape({0, p << 32, p << 32}), zt::ValueError,
                        with_message<zt::ValueError>("reshape(): shape (0, 4294967296, 4294967296) is empty"));
  BOOST_CHECK_EXCEPTION((void)empty.unflatten(0, {p << 32, 0, p << 32}), zt::ValueError,
                        with_message<zt::ValueError>("unflatten(): shape (4294967296, 0, 4294967296) is empty"));
  BOOST_CHECK_EXCEPTION((void)x.narrow(0, 0, 0).view({0, p << 32, p << 32}), zt::ValueError,
                        with_message<zt::ValueError>("view(): shape (0, 4294967296, 4294967296) is empty"));
  BOOST_TEST(shape_of(empty.view({0, p << 31, p << 31}).shape()) == Shape({0, p << 31, p << 31}));
}

BOOST_AUTO_TEST_CASE(views_of_views_feed_eigen) {
  std::vector<float> data;
  const auto x = cube(data);
  const zt::Tensor<float, 2> rows = x.select(0, 1).narrow(0, 1, 2);  // [[16..19], [20..23]]
  const Eigen::VectorXf ones = Eigen::VectorXf::Ones(4);
  const Eigen::VectorXf y = rows.row_major_matrix() * ones;
  BOOST_TEST(y(0) == 70.0f);
  BOOST_TEST(y(1) == 86.0f);
  BOOST_TEST(x.select(0, 0).select(0, 2).vector().sum() == 38.0f);
  // matrix()'s layout choice sees the transposed strides: columns of unit stride.
  BOOST_TEST(rows.t().column_major_matrix()(0, 1) == 20.0f);
  BOOST_TEST(std::visit([](const auto& m) { return m(3, 1); }, rows.t().matrix()) == 23.0f);
}
