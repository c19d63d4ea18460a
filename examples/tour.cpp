// A tour of zerotensor: each function on real data, printed.
#include <unistd.h>

#include <filesystem>
#include <complex>
#include <iostream>
#include <numeric>
#include <variant>
#include <vector>

#include "zerotensor/eigen_tensor.hpp"
#include "zerotensor/zerotensor.hpp"

namespace {

void section(const char* title) { std::cout << "\n== " << title << " ==\n"; }

/// The label, the view's layout, then the tensor as PyTorch prints it.
void print(const char* label, const zt::AnyTensor& t) {
  std::cout << label << ": " << t.dtype() << ", shape " << t.shape() << ", strides " << t.strides()
            << (t.is_writable() ? "" : ", read-only") << '\n'
            << t << '\n';
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
  std::cout << "3x4 row_major_matrix() row sums: " << rows.row_major_matrix().rowwise().sum().transpose() << '\n';
  zt::Tensor<float, 2> transposed(storage.data(), {4, 3}, {1, 4});
  std::cout << "its transpose through strides (1, 4) is column-major, column 0: "
            << transposed.column_major_matrix().col(0).transpose() << '\n';
  // matrix() picks the map of the layout at run time; the product compiles for each.
  const Eigen::Vector3f ones = Eigen::Vector3f::Ones();
  std::visit([&](const auto& m) { std::cout << "matrix() * ones: " << (m * ones).transpose() << '\n'; },
             transposed.matrix());
  Eigen::Tensor<float, 1, Eigen::RowMajor> per_row = rows.tensor().sum(Eigen::array<int, 1>{1});
  std::cout << "tensor().sum over dim 1: " << per_row(0) << ' ' << per_row(1) << ' ' << per_row(2) << '\n';

  zt::AnyTensor any = rows;
  print("AnyTensor of it", any);
  print("to(int32) (converted copy)", any.to(zt::int32));
  std::cout << "shares_memory(view, clone) = " << zt::shares_memory(any, any.clone())
            << ", shares_memory(view, view) = " << zt::shares_memory(any, rows) << '\n';
  // Shape and strides held elsewhere (another library's metadata): copied once, into the view.
  const std::vector<zt::index_t> shape = {2, 2}, strides = {4, 2};
  const zt::AnyTensor corners(static_cast<const float*>(storage.data()), shape, strides);
  print("AnyTensor from spans: rows 0-1, every other column", corners);
  std::cout << "promote_types(int64, float16) = " << zt::promote_types(zt::int64, zt::float16)
            << ", default_dtype() = " << zt::default_dtype() << '\n';
}

void tour_asarray() {
  section("asarray / as_tensor: Eigen, ranges, numbers and nested lists, shared when possible");
  Eigen::MatrixXf column_major(2, 3);
  column_major << 1, 2, 3, 4, 5, 6;
  zt::AnyTensor shared = zt::asarray(column_major);
  print("asarray(Eigen::MatrixXf 2x3, column-major)", shared);
  std::cout << "same address: " << (shared.data_ptr() == column_major.data()) << '\n';
  print("asarray(matrix, {.dtype = float64})", zt::asarray(column_major, {.dtype = zt::float64}));
  std::vector<std::int32_t> ints = {7, 8, 9};
  print("as_tensor(std::vector<int32_t>)", zt::as_tensor(ints));
  print("asarray({{1, 2.5}, {true, 4}})", zt::asarray({{1, 2.5}, {true, 4}}));
  print("asarray(std::complex<double>(1, 2))", zt::asarray(std::complex<double>(1, 2)));
  try {
    (void)zt::asarray({{1, 2}, {3}});
  } catch (const zt::ValueError& e) {
    std::cout << "ragged list: ValueError: " << e.what() << '\n';
  }
  try {
    (void)zt::asarray(ints, {.dtype = zt::float32, .copy = false});
  } catch (const zt::ValueError& e) {
    std::cout << "copy = false with a new dtype: ValueError: " << e.what() << '\n';
  }
}

void tour_dlpack() {
  section("DLPack: export to any consumer, import from any producer, deleter exactly once");
  std::vector<double> values = {0.5, 1.5, 2.5, 3.5};
  zt::AnyTensor matrix = zt::Tensor<double, 2>(values.data(), {2, 2}, {1, 2});  // a transposed view
  zt::dlpack::ManagedTensorVersioned* exported = zt::to_dlpack(matrix);
  std::cout << "to_dlpack: ndim " << exported->dl_tensor.ndim << ", strides (" << exported->dl_tensor.strides[0]
            << ", " << exported->dl_tensor.strides[1] << "), flags " << exported->flags << '\n';
  zt::AnyTensor imported = zt::from_dlpack(exported);  // takes ownership; the deleter runs with the last view
  print("from_dlpack(to_dlpack(view))", imported);
  std::cout << "same address: " << (imported.data_ptr() == values.data()) << '\n';
}

void tour_arrow() {
  section("Arrow: arrays and record batches through the C Data Interface, release exactly once");
  std::vector<float> pixels(2 * 3 * 4);
  std::iota(pixels.begin(), pixels.end(), 0.0f);
  zt::AnyTensor images = zt::Tensor<float, 3>(pixels.data(), {2, 3, 4}, {12, 4, 1});
  zt::arrow::Array array{};
  zt::arrow::Schema schema{};
  zt::to_arrow(images, &array, &schema);  // what pyarrow's pa.Array._import_from_c reads
  std::cout << "to_arrow: format \"" << schema.format << "\" (arrow.fixed_shape_tensor over it), length "
            << array.length << '\n';
  zt::AnyTensor back = zt::from_arrow(&array, &schema);  // takes both structs
  print("from_arrow(to_arrow(images))", back);
  std::cout << "same address: " << (back.data_ptr() == pixels.data()) << '\n';

  zt::RecordBatchTensors batch{{"x", "y"}, {zt::asarray(std::vector<double>{1, 2, 3}),
                                            zt::asarray(std::vector<double>{4, 5, 6})}};
  zt::to_arrow_record_batch(batch, &array, &schema);  // pa.RecordBatch._import_from_c reads this
  const zt::RecordBatchTensors columns = zt::from_arrow_record_batch(&array, &schema);
  print("from_arrow_record_batch(...).at(\"y\")", columns.at("y"));
  print("columns.stack() (a copy: columns are separate buffers)", columns.stack());
}

void tour_files() {
  section("files: from_file, .npy, .safetensors and shared memory, all mapped, no copies");
  const std::filesystem::path directory = std::filesystem::temp_directory_path() / ("zerotensor-tour-" + std::to_string(::getpid()));
  std::filesystem::create_directories(directory);

  // shared = true creates the file and grows it; writes reach the file.
  auto written = zt::from_file(directory / "ramp.bin", {.shared = true, .size = 6, .dtype = zt::float32});
  written.as<float, 1>().array().setLinSpaced(6, 0.0f, 5.0f);
  auto mapped = zt::from_file(directory / "ramp.bin", {.size = 6, .dtype = zt::float32, .writable = false});
  print("from_file(ramp.bin, {.size = 6, .dtype = float32, .writable = false})", mapped);

  zt::Tensor<const float, 2> matrix(static_cast<const float*>(mapped.data_ptr()), {2, 3}, {3, 1}, mapped.owner());
  zt::save_npy(directory / "matrix.npy", matrix);
  print("load_npy(matrix.npy)", zt::load_npy(directory / "matrix.npy"));

  zt::save_safetensors(directory / "model.safetensors", {{"weight", matrix}, {"bias", mapped}}, {{"format", "pt"}});
  const zt::SafetensorsFile model = zt::load_safetensors(directory / "model.safetensors");
  print("load_safetensors(model.safetensors).at(\"weight\")", model.at("weight"));
  std::cout << "metadata format = " << model.metadata.at("format") << ", one mapping for all tensors: "
            << (model.at("weight").owner() == model.at("bias").owner()) << '\n';
  try {
    (void)zt::from_file(directory / "ramp.bin", {.size = 100, .dtype = zt::float64});
  } catch (const zt::ValueError& e) {
    std::cout << "a mapping past the end: ValueError: " << e.what() << '\n';
  }

  const std::string name = "zerotensor_tour_" + std::to_string(::getpid());
  zt::AnyTensor shared = zt::create_shared_tensor(name, std::array<zt::index_t, 1>{3}, zt::int32);
  zt::AnyTensor opened = zt::open_shared_tensor(name);  // what another process would do
  shared.as<std::int32_t, 1>()(2) = 42;
  print("open_shared_tensor after the creator wrote 42", opened);
  zt::remove_shared_tensor(name);
  std::filesystem::remove_all(directory);
}

}  // namespace

int main() {
  tour_frombuffer();
  tour_views();
  tour_asarray();
  tour_dlpack();
  tour_arrow();
  tour_files();
  return 0;
}
