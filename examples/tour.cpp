// A tour of zerotensor: each function on real data, printed.
#include <iostream>
#include <numeric>
#include <vector>

#include "zerotensor/zerotensor.hpp"

namespace {

void section(const char* title) { std::cout << "\n== " << title << " ==\n"; }

void print(const char* label, const zt::AnyTensor& t) {
  std::cout << label << ": " << t.dtype() << ", shape " << zt::detail::shape_string(t.shape()) << ", strides "
            << zt::detail::shape_string(t.strides()) << (t.is_writable() ? "" : ", read-only") << " = [";
  const zt::AnyTensor flat = t.to(zt::float64).clone();
  const auto values = flat.as<const double>();
  for (zt::index_t i = 0; i < values.numel() && i < 8; ++i) std::cout << (i ? ", " : "") << values.data()[i];
  std::cout << (values.numel() > 8 ? ", ...]\n" : "]\n");
}

void tour_frombuffer() {
  section("frombuffer: bytes become a typed 1-D view, no copy");
  std::vector<std::uint8_t> bytes = {0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 64, 64};  // 1.0f, 2.0f, 3.0f
  zt::Tensor<float, 1> floats = zt::frombuffer<float>(bytes);
  std::cout << "frombuffer<float>(12 bytes) -> " << floats.numel() << " floats, sum " << floats.array().sum()
            << ", same address: " << std::boolalpha << (static_cast<void*>(floats.data()) == bytes.data()) << '\n';
  floats(0) = 10.0f;  // writes reach the bytes
  std::cout << "after floats(0) = 10: bytes[3] = " << int(bytes[3]) << '\n';

  zt::AnyTensor any = zt::frombuffer(bytes, zt::int16, {.count = 4, .offset = 4});
  print("frombuffer(bytes, int16, {.count = 4, .offset = 4})", any);

  const std::vector<double> constants = {3.5, 4.5};
  zt::AnyTensor read_only = zt::frombuffer(constants, zt::float64);
  print("frombuffer(const vector<double>)", read_only);
  try {
    (void)read_only.as<double>();
  } catch (const zt::TypeError& e) {
    std::cout << "as<double>() on read-only memory: TypeError: " << e.what() << '\n';
  }
  try {
    (void)zt::frombuffer(bytes, zt::int32, {.count = 2, .offset = 1});
  } catch (const zt::ValueError& e) {
    std::cout << "int32 at offset 1: ValueError: " << e.what() << '\n';
  }
}

void tour_views() {
  section("Tensor views: Eigen without copies");
  std::vector<float> storage(12);
  std::iota(storage.begin(), storage.end(), 1.0f);
  zt::Tensor<float, 2> rows(storage.data(), {3, 4}, {4, 1});
  std::cout << "3x4 row-major matrix() row sums: " << rows.matrix().rowwise().sum().transpose() << '\n';
  zt::Tensor<float, 2> transposed(storage.data(), {4, 3}, {1, 4});
  std::cout << "its transpose through strides (1, 4), column 0: " << transposed.matrix().col(0).transpose() << '\n';
  Eigen::Tensor<float, 1, Eigen::RowMajor> per_row = rows.tensor().sum(Eigen::array<int, 1>{1});
  std::cout << "tensor().sum over dim 1: " << per_row(0) << ' ' << per_row(1) << ' ' << per_row(2) << '\n';

  zt::AnyTensor any = rows;
  print("AnyTensor of it", any);
  print("to(int32) (converted copy)", any.to(zt::int32));
  std::cout << "shares_memory(view, clone) = " << zt::shares_memory(any, any.clone())
            << ", shares_memory(view, view) = " << zt::shares_memory(any, rows) << '\n';
  std::cout << "promote_types(int64, float16) = " << zt::promote_types(zt::int64, zt::float16)
            << ", default_dtype() = " << zt::default_dtype() << '\n';
}

}  // namespace

int main() {
  tour_frombuffer();
  tour_views();
  return 0;
}
