// Eigen's products through zerotensor's views: y = W x (GEMV, 2048 x 2048) and C = W B
// (GEMM, 512 x 512), float and double, W in C order and in Fortran order, each through
// `std::visit(..., view.matrix())` against a plain Eigen::Map of the storage order over the
// same memory. Then the same GEMV with W loaded by load_npy (C and Fortran order) and
// load_safetensors, against a plain Map over the mapping; and the strided fall-backs (every
// other column of a C-order matrix, every other row of a Fortran one) against plain Maps
// with the same two run-time strides. Each row is one paired benchmark (ratio.hpp): both
// products timed in turn in the same loop, so the shared machine's drift slows both alike.
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "../ratio.hpp"
#include "zerotensor/npy.hpp"
#include "zerotensor/safetensors.hpp"
#include "zerotensor/tensor.hpp"

namespace {

constexpr zt::index_t gemv_size = 2048;  // 16 MiB of float: beyond the last-level cache
constexpr zt::index_t gemm_size = 512;

template <class T>
using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
template <class T>
using Vector = Eigen::Matrix<T, Eigen::Dynamic, 1>;
template <class T, int Storage, class Stride = Eigen::Stride<0, 0>>
using PlainMap = Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Storage>, Eigen::Unaligned, Stride>;

enum class Order { c, fortran };

template <class T>
std::vector<T> random_values(zt::index_t count) {
  const Vector<T> values = Vector<T>::Random(count);
  return {values.begin(), values.end()};
}

/// A square W in `order` over `values`, the operand `rhs` (a vector or a matrix) and the
/// result, shared by the subject and its floor so that both read the same memory.
template <class T, class Rhs>
struct Product {
  std::vector<T> values;
  zt::Tensor<const T, 2> view;
  Rhs rhs;
  Rhs out;

  Product(zt::index_t n, Order order, Rhs operand)
      : values(random_values<T>(n * n)),
        view(values.data(), {n, n}, order == Order::c ? zt::Extents<2>{n, 1} : zt::Extents<2>{1, n}),
        rhs(std::move(operand)) {}
};

/// One `out = w * rhs` with the map `make_map()` gives, as a caller would write it.
template <class Operands, class MakeMap>
auto product(std::shared_ptr<Operands> p, MakeMap make_map) {
  return [p, make_map] {
    make_map([&](const auto& w) { p->out.noalias() = w * p->rhs; });
    benchmark::DoNotOptimize(p->out.data());
    benchmark::ClobberMemory();
  };
}

/// The subject: whatever map matrix() picks for the view's layout.
template <class T>
auto through_zerotensor(const zt::Tensor<const T, 2>& view) {
  return [view](const auto& multiply) { std::visit(multiply, view.matrix()); };
}

/// The floor: a plain Eigen::Map in the storage order of the memory.
template <class T>
auto through_plain_map(const zt::Tensor<const T, 2>& view) {
  return [view](const auto& multiply) {
    if (view.stride(1) == 1)
      multiply(PlainMap<T, Eigen::RowMajor>(view.data(), view.size(0), view.size(1)));
    else
      multiply(PlainMap<T, Eigen::ColMajor>(view.data(), view.size(0), view.size(1)));
  };
}

/// The floor of a view with no unit stride: a plain Map in `StorageOrder` with the view's two
/// strides at run time.
template <int StorageOrder>
auto through_plain_strided_map(const zt::Tensor<const float, 2>& view) {
  constexpr bool row_major = StorageOrder == Eigen::RowMajor;
  using Stride = Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>;
  const Stride stride(view.stride(row_major ? 0 : 1), view.stride(row_major ? 1 : 0));
  return [view, stride](const auto& multiply) {
    multiply(PlainMap<float, StorageOrder, Stride>(view.data(), view.size(0), view.size(1), stride));
  };
}

std::vector<zt_bench::Comparison> comparisons;

/// Registers the row `name`: zerotensor's product against `floor`'s over the same operands.
template <class Operands, class FloorMap>
void register_pair(const std::string& name, std::shared_ptr<Operands> p, const std::string& floor_name,
                   FloorMap floor) {
  zt_bench::register_paired(comparisons, "BM_zt_" + name, floor_name, product(p, through_zerotensor(p->view)),
                            product(p, floor))
      ->Unit(benchmark::kMillisecond);
}

template <class Operands>
void register_pair(const std::string& name, std::shared_ptr<Operands> p) {
  register_pair(name, p, "plain Eigen::Map", through_plain_map(p->view));
}

template <class T>
void register_products(const std::string& type) {
  for (const Order order : {Order::c, Order::fortran}) {
    const std::string suffix = type + (order == Order::c ? "_c_order" : "_fortran_order");
    register_pair("gemv_" + suffix,
                  std::make_shared<Product<T, Vector<T>>>(gemv_size, order, Vector<T>::Random(gemv_size)));
    register_pair("gemm_" + suffix,
                  std::make_shared<Product<T, Matrix<T>>>(gemm_size, order, Matrix<T>::Random(gemm_size, gemm_size)));
  }
}

/// GEMV over a float matrix mapped from a file; `loaded` keeps the mapping alive.
struct LoadedGemv {
  zt::AnyTensor loaded;
  zt::Tensor<const float, 2> view;
  Vector<float> rhs = Vector<float>::Random(gemv_size);
  Vector<float> out;

  explicit LoadedGemv(zt::AnyTensor tensor) : loaded(std::move(tensor)), view(loaded.as<const float, 2>()) {}
};

/// A Fortran-order .npy file, as NumPy writes one for a Fortran-ordered array (save_npy
/// writes C order): the header, padded to 64 bytes, then the columns.
void write_fortran_npy(const std::filesystem::path& path, const Matrix<float>& columns) {
  std::string header = "{'descr': '<f4', 'fortran_order': True, 'shape': (" + std::to_string(columns.rows()) + ", " +
                       std::to_string(columns.cols()) + "), }";
  header.resize(128 - 10 - 1, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x01\x00\x76\x00", 10);  // version 1.0, header length 118
  out << header;
  out.write(reinterpret_cast<const char*>(columns.data()), std::streamsize(columns.size() * sizeof(float)));
}

void register_loaded_gemv() {
  std::string pattern = (std::filesystem::temp_directory_path() / "zerotensor-bench-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  const std::filesystem::path directory = pattern;
  const Matrix<float> w = Matrix<float>::Random(gemv_size, gemv_size);
  const zt::Tensor<const float, 2> fortran_view(w.data(), {gemv_size, gemv_size}, {1, gemv_size});
  zt::save_npy(directory / "c.npy", fortran_view);  // written in C order
  write_fortran_npy(directory / "fortran.npy", w);
  zt::save_safetensors(directory / "w.safetensors", {{"w", fortran_view}});
  // Mapped pages outlive the directory's entries.
  register_pair("gemv_float_load_npy_c_order", std::make_shared<LoadedGemv>(zt::load_npy(directory / "c.npy")));
  register_pair("gemv_float_load_npy_fortran_order",
                std::make_shared<LoadedGemv>(zt::load_npy(directory / "fortran.npy")));
  register_pair("gemv_float_load_safetensors",
                std::make_shared<LoadedGemv>(zt::load_safetensors(directory / "w.safetensors").at("w")));
  std::filesystem::remove_all(directory);
}

/// A view with no unit stride: both sides run Eigen's strided loops. `strides` step over
/// every other column of a C-order matrix (walked by rows) or every other row of a Fortran
/// one (walked by columns).
struct StridedGemv {
  std::vector<float> values = random_values<float>(2 * gemv_size * gemv_size);
  zt::Tensor<const float, 2> view;
  Vector<float> rhs = Vector<float>::Random(gemv_size);
  Vector<float> out;

  explicit StridedGemv(zt::Extents<2> strides) : view(values.data(), {gemv_size, gemv_size}, strides) {}
};

template <int StorageOrder>
void register_strided_gemv(const std::string& name, zt::Extents<2> strides) {
  auto p = std::make_shared<StridedGemv>(strides);
  register_pair("gemv_float_" + name, p, "plain strided Eigen::Map", through_plain_strided_map<StorageOrder>(p->view));
}

}  // namespace

int main(int argc, char** argv) {
  register_products<float>("float");
  register_products<double>("double");
  register_loaded_gemv();
  register_strided_gemv<Eigen::RowMajor>("every_other_column", {2 * gemv_size, 2});
  register_strided_gemv<Eigen::ColMajor>("every_other_fortran_row", {2, 2 * gemv_size});
  return zt_bench::run(argc, argv, comparisons);
}
