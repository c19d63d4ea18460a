// DLPack against a real peer: libtorch (Debian's libtorch-dev, 1.13). Torch tensors exported
// with at::toDLPack go into zt::from_dlpack, zt tensors exported with zt::to_dlpack_legacy
// go into at::fromDLPack (1.13 knows only the legacy struct), and both sides see the same
// memory. Built only when libtorch is found (test/CMakeLists.txt).
#include <boost/test/unit_test.hpp>

#include "support/message_check.hpp"

#include <ATen/ATen.h>
#include <ATen/DLConvertor.h>
#include <torch/version.h>

#include <atomic>
#include <complex>
#include <string>
#include <vector>

#include "zerotensor/from_dlpack.hpp"
#include "zerotensor/empty.hpp"
#include "zerotensor/to_dlpack.hpp"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

namespace dl = zt::dlpack;

// libtorch's own declaration goes into zt::from_dlpack as it is; zt's export goes into
// at::fromDLPack through the same layout guarantee.
static_assert(dl::LegacyManagedTensorLayout<::DLManagedTensor>);

namespace {

/// Counts calls of torch's deleter: installed in place of it, then forwards to it.
std::atomic<int> torch_deleter_calls{0};
void (*torch_deleter)(::DLManagedTensor*) = nullptr;

void counting_deleter(::DLManagedTensor* self) {
  ++torch_deleter_calls;
  torch_deleter(self);
}

/// at::toDLPack with its deleter counted.
::DLManagedTensor* torch_export(const at::Tensor& t) {
  ::DLManagedTensor* managed = at::toDLPack(t);
  BOOST_REQUIRE(torch_deleter == nullptr || torch_deleter == managed->deleter);
  torch_deleter = managed->deleter;
  managed->deleter = &counting_deleter;
  return managed;
}

/// zt's legacy export handed to at::fromDLPack. Torch takes ownership only when it succeeds,
/// so until then the RAII owner holds it (and releases it if torch throws).
at::Tensor to_torch(const zt::AnyTensor& tensor) {
  auto held = dl::adopt(zt::to_dlpack_legacy(tensor));
  at::Tensor result = at::fromDLPack(reinterpret_cast<::DLManagedTensor*>(held.get()));
  (void)held.release();
  return result;
}

/// libtorch 1.13's at::toDLPack allocates its export before checking the dtype and leaks it
/// when the check throws. Under LeakSanitizer, only the allocations made inside such a call
/// (this scope) are exempt from the leak report; everything else is still checked.
struct LibtorchLeakScope {
#if defined(__SANITIZE_ADDRESS__)
  __lsan::ScopedDisabler disabler;
#endif
};

std::vector<std::int64_t> shape_of(const at::Tensor& t) { return t.sizes().vec(); }
std::vector<std::int64_t> strides_of(const at::Tensor& t) { return t.strides().vec(); }
std::vector<std::int64_t> vec(const zt::DynamicExtents& e) { return {e.begin(), e.end()}; }

}  // namespace

BOOST_AUTO_TEST_SUITE(torch_interop)

BOOST_AUTO_TEST_CASE(DL01_torch_export_shares_address_values_and_writes) {
  at::Tensor t = at::arange(6, at::kLong).reshape({2, 3});
  const int calls_before = torch_deleter_calls;
  {
    zt::AnyTensor r = zt::from_dlpack(torch_export(t));
    BOOST_TEST(r.dtype() == zt::int64);
    BOOST_TEST(vec(r.shape()) == std::vector<std::int64_t>({2, 3}));
    BOOST_TEST(vec(r.strides()) == std::vector<std::int64_t>({3, 1}));
    BOOST_TEST(r.data_ptr() == t.data_ptr());
    auto m = r.as<std::int64_t, 2>();
    BOOST_TEST(m(1, 1) == 4);
    m(1, 2) = -9;  // written through zt, seen by torch
    BOOST_TEST(t[1][2].item<std::int64_t>() == -9);
    t[0][0] = 42;  // and the other way
    BOOST_TEST(m(0, 0) == 42);
    zt::AnyTensor copy = r;
    zt::Tensor<const std::int64_t> typed = r.as<const std::int64_t>();
    r = zt::AnyTensor(zt::Tensor<std::int64_t>(nullptr, {0}, {1}));
    copy = r;
    BOOST_TEST(torch_deleter_calls == calls_before);  // the typed view still holds it
  }
  BOOST_TEST(torch_deleter_calls == calls_before + 1);  // exactly once, with the last view
}

BOOST_AUTO_TEST_CASE(DL07_transposed_sliced_and_expanded_torch_tensors_keep_their_strides) {
  at::Tensor base = at::arange(12, at::kInt).reshape({3, 4});
  at::Tensor transposed = base.t();
  zt::AnyTensor r = zt::from_dlpack(torch_export(transposed));
  BOOST_TEST(vec(r.shape()) == shape_of(transposed));
  BOOST_TEST(vec(r.strides()) == std::vector<std::int64_t>({1, 4}));
  BOOST_TEST(r.data_ptr() == transposed.data_ptr());
  BOOST_TEST((r.as<std::int32_t, 2>().column_major_matrix()(3, 2) == 11));

  at::Tensor whole = at::arange(10, at::kDouble);
  at::Tensor sliced = whole.slice(0, 3, 9, 2);  // 3., 5., 7.
  zt::AnyTensor s = zt::from_dlpack(torch_export(sliced));
  BOOST_TEST(s.data_ptr() == sliced.data_ptr());
  BOOST_TEST(static_cast<const double*>(s.data_ptr()) - static_cast<const double*>(whole.data_ptr()) == 3);
  BOOST_TEST(vec(s.strides()) == std::vector<std::int64_t>({2}));
  BOOST_TEST((s.as<double, 1>().strided_array()(2) == 7.0));

  at::Tensor expanded = at::arange(3, at::kFloat).expand({4, 3});
  zt::AnyTensor e = zt::from_dlpack(torch_export(expanded));
  BOOST_TEST(vec(e.shape()) == std::vector<std::int64_t>({4, 3}));
  BOOST_TEST(vec(e.strides()) == std::vector<std::int64_t>({0, 1}));
  BOOST_TEST(e.data_ptr() == expanded.data_ptr());
  BOOST_TEST((e.as<float, 2>().strided_matrix()(3, 2) == 2.0f));
}

BOOST_AUTO_TEST_CASE(DL20_size_one_dims_keep_the_strides_torch_exports) {
  // Whether torch rewrites the stride of a size-one dimension on export differs between
  // versions (1.13 writes 1, gh-83069; 2.x keeps 2): zt keeps what the producer gave.
  at::Tensor x = at::arange(6, at::kLong).reshape({3, 2}).slice(0, 0, 1);
  BOOST_TEST(strides_of(x) == std::vector<std::int64_t>({2, 1}));
  ::DLManagedTensor* exported = torch_export(x);
  const std::vector<std::int64_t> given(exported->dl_tensor.strides, exported->dl_tensor.strides + 2);
  zt::AnyTensor r = zt::from_dlpack(exported);
  BOOST_TEST(vec(r.strides()) == given);
  BOOST_TEST(given[1] == 1);
  BOOST_TEST(r.is_contiguous());
  BOOST_TEST(r.data_ptr() == x.data_ptr());
}

BOOST_AUTO_TEST_CASE(DL09_DL38_zero_dim_and_empty_torch_tensors) {
  at::Tensor scalar = at::scalar_tensor(5.0, at::kDouble);
  zt::AnyTensor r = zt::from_dlpack(torch_export(scalar));
  BOOST_TEST(r.rank() == 0u);
  BOOST_TEST(*r.as<double>().data() == 5.0);
  at::Tensor empty = at::empty({0, 3}, at::kFloat);
  zt::AnyTensor e = zt::from_dlpack(torch_export(empty));
  BOOST_TEST(vec(e.shape()) == std::vector<std::int64_t>({0, 3}));
  BOOST_TEST(e.numel() == 0);
}

BOOST_AUTO_TEST_CASE(an_empty_tensor_exported_to_torch_is_released_once) {
  // libtorch 1.13 never calls the deleter of a legacy export whose data is NULL.
  zt::AnyTensor z = zt::empty(std::vector<zt::index_t>{0, 3}, zt::float32);
  const long owners_before = z.owner().use_count();
  {
    at::Tensor a = to_torch(z);
    BOOST_TEST(shape_of(a) == std::vector<std::int64_t>({0, 3}));
    BOOST_TEST(z.owner().use_count() == owners_before + 1);
  }
  BOOST_TEST(z.owner().use_count() == owners_before);
}

BOOST_AUTO_TEST_CASE(zt_legacy_export_into_torch_shares_and_writes) {
  zt::AnyTensor z = zt::empty(std::vector<zt::index_t>{2, 3}, zt::float32);
  z.as<float>().array() = Eigen::ArrayXf::LinSpaced(6, 0.0f, 5.0f);
  const long owners_before = z.owner().use_count();
  {
    at::Tensor a = to_torch(z);
    BOOST_TEST(z.owner().use_count() == owners_before + 1);  // the export shares zt's owner
    BOOST_TEST(a.data_ptr() == z.data_ptr());
    BOOST_TEST(a.scalar_type() == at::kFloat);
    BOOST_TEST(shape_of(a) == std::vector<std::int64_t>({2, 3}));
    BOOST_TEST(strides_of(a) == std::vector<std::int64_t>({3, 1}));
    BOOST_TEST(a[1][2].item<float>() == 5.0f);
    a.mul_(2);  // written by torch, seen by zt
    BOOST_TEST((z.as<float, 2>()(1, 2) == 10.0f));
    at::Tensor alias = a.view({6});
    a = at::Tensor();
    BOOST_TEST(z.owner().use_count() == owners_before + 1);  // the view keeps torch's storage
  }
  BOOST_TEST(z.owner().use_count() == owners_before);  // torch called our deleter, once
}

BOOST_AUTO_TEST_CASE(zt_strided_views_reach_torch_with_their_strides) {
  zt::AnyTensor base = zt::empty(std::vector<zt::index_t>{3, 4}, zt::int64);
  auto b = base.as<std::int64_t, 2>();
  for (int i = 0; i < 12; ++i) b.data()[i] = i;
  // Transposed, and a slice whose first element is not the allocation's (byte_offset 0,
  // data already offset: what 1.13, which ignores byte_offset, reads correctly).
  zt::AnyTensor transposed = zt::Tensor<std::int64_t>(b.data(), {4, 3}, {1, 4}, base.owner());
  zt::AnyTensor column = zt::Tensor<std::int64_t>(b.data() + 2, {3}, {4}, base.owner());
  at::Tensor t = to_torch(transposed);
  BOOST_TEST(strides_of(t) == std::vector<std::int64_t>({1, 4}));
  BOOST_TEST(t[3][2].item<std::int64_t>() == 11);
  at::Tensor c = to_torch(column);
  BOOST_TEST(c.data_ptr() == static_cast<void*>(b.data() + 2));
  BOOST_TEST(c[0].item<std::int64_t>() == 2);
  BOOST_TEST(c[2].item<std::int64_t>() == 10);
  at::Tensor broadcast = to_torch(zt::Tensor<std::int64_t>(b.data() + 1, {2, 3}, {0, 1}, base.owner()));
  BOOST_TEST(strides_of(broadcast) == std::vector<std::int64_t>({0, 1}));
  BOOST_TEST(broadcast[1][0].item<std::int64_t>() == 1);
}

BOOST_AUTO_TEST_CASE(float16_bfloat16_complex64_int8_round_trip_both_ways) {
  const std::vector<at::ScalarType> types = {at::kHalf, at::kBFloat16, at::kComplexFloat, at::kChar};
  const std::vector<zt::DType> dtypes = {zt::float16, zt::bfloat16, zt::complex64, zt::int8};
  for (std::size_t i = 0; i < types.size(); ++i) {
    BOOST_TEST_CONTEXT(zt::name(dtypes[i])) {
      at::Tensor t = at::arange(-2, 3, at::kFloat).to(types[i]);  // -2 .. 2, exact in every type
      zt::AnyTensor r = zt::from_dlpack(torch_export(t));
      BOOST_TEST(r.dtype() == dtypes[i]);
      BOOST_TEST(r.data_ptr() == t.data_ptr());
      // zt's own conversion reads the values torch wrote.
      zt::AnyTensor as_double = r.to(zt::float64);
      const auto d = as_double.as<double, 1>();
      for (int k = 0; k < 5; ++k) BOOST_TEST(d(k) == double(k - 2));
      at::Tensor back = to_torch(r);
      BOOST_TEST(back.scalar_type() == types[i]);
      BOOST_TEST(back.data_ptr() == t.data_ptr());
      BOOST_TEST(at::equal(back, t));
    }
  }
  // Complex with a nonzero imaginary part, from zt's side.
  zt::AnyTensor z = zt::empty(std::vector<zt::index_t>{2}, zt::complex64);
  z.as<std::complex<float>, 1>()(0) = {1.0f, -1.0f};
  z.as<std::complex<float>, 1>()(1) = {0.5f, 2.0f};
  at::Tensor c = to_torch(z);
  BOOST_TEST(at::imag(c)[0].item<float>() == -1.0f);
  BOOST_TEST(at::real(c)[1].item<float>() == 0.5f);
}

#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 2)
BOOST_AUTO_TEST_CASE(DL15_DL28_bool_round_trips) {
  at::Tensor t = at::arange(3, at::kLong) != 1;  // true, false, true: a comparison is Bool in every version
  zt::AnyTensor r = zt::from_dlpack(torch_export(t));
  BOOST_TEST(r.dtype() == zt::bool_);
  BOOST_TEST((r.as<bool, 1>()(2) == true));
  at::Tensor back = to_torch(r);
  BOOST_TEST(back.scalar_type() == at::kBool);
  BOOST_TEST(at::equal(back, t));
}
#else
BOOST_AUTO_TEST_CASE(DL15_DL28_libtorch_before_2_2_refuses_dlpack_bool_cleanly) {
  // zt exports bool as DLPack's kDLBool (code 6, 8 bits); libtorch 1.13 predates kDLBool
  // (pytorch#108486) and throws, without taking ownership: the RAII owner releases it.
  zt::AnyTensor z = zt::empty(std::vector<zt::index_t>{3}, zt::bool_);
  z.as<bool, 1>()(0) = true;
  const long owners_before = z.owner().use_count();
  BOOST_CHECK_EXCEPTION((void)to_torch(z), c10::Error, with_message<c10::Error>("Unsupported code 6"));
  BOOST_TEST(z.owner().use_count() == owners_before);  // our deleter ran, once
  // Torch refuses to export bool as well (and leaks its half-built export doing so).
  at::Tensor flags = at::ones({2}, at::kBool);
  {
    [[maybe_unused]] const LibtorchLeakScope exempt;
    BOOST_CHECK_EXCEPTION((void)at::toDLPack(flags), c10::Error,
                          with_message<c10::Error>("Bool type is not supported by dlpack"));
  }
}
#endif

BOOST_AUTO_TEST_CASE(zt_view_keeps_torch_storage_after_the_torch_tensor_dies) {
  // The torch tensor dies first; the zt view keeps torch's storage through the deleter.
  const int calls_before = torch_deleter_calls;
  zt::AnyTensor r = [] {
    at::Tensor t = at::full({1000}, 3.5, at::kDouble);
    return zt::from_dlpack(torch_export(t));
  }();
  BOOST_TEST((r.as<double, 1>()(999) == 3.5));  // ASan would flag freed memory
  r = zt::AnyTensor(zt::Tensor<double>(nullptr, {0}, {1}));
  BOOST_TEST(torch_deleter_calls == calls_before + 1);
}

BOOST_AUTO_TEST_SUITE_END()
