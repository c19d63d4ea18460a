// The Conan test_package consumer (also built against a plain `cmake --install` tree):
// frombuffer, asarray, from_file and a DLPack round trip through the installed
// zerotensor. Exits non-zero on any wrong result.
#include <zerotensor/zerotensor.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <vector>

namespace {

int failures = 0;

void expect(bool ok, const char* what) {
  std::printf("%s: %s\n", ok ? "ok  " : "FAIL", what);
  if (!ok) ++failures;
}

}  // namespace

int main() {
  try {
    // frombuffer: a view of the vector's memory, no copy.
    std::vector<float> values = {1.0f, 2.0f, 3.0f, 4.0f};
    const zt::Tensor<float, 1> view = zt::frombuffer<float>(values);
    expect(view.data() == values.data() && view.numel() == 4, "frombuffer shares the vector's memory");
    expect(view.array().sum() == 10.0f, "frombuffer's Eigen array sums to 10");

    // asarray: an Eigen matrix is viewed with its strides; another dtype is a copy.
    Eigen::Matrix<double, 2, 3> matrix;
    matrix << 1, 2, 3, 4, 5, 6;
    const zt::AnyTensor shared = zt::asarray(matrix);
    expect(shared.data_ptr() == matrix.data() && shared.stride(0) == 1 && shared.stride(1) == 2,
           "asarray views a column-major Eigen matrix with strides (1, 2)");
    const zt::AnyTensor converted = zt::asarray(matrix, {.dtype = zt::int32});
    expect(converted.dtype() == zt::int32 && (converted.as<const std::int32_t, 2>().at(1, 2)) == 6,
           "asarray with another dtype copies and converts");
    const zt::AnyTensor nested = zt::asarray({{1, 2}, {3, 4}});
    expect(nested.dtype() == zt::int64 && (nested.as<const std::int64_t, 2>().at(1, 0)) == 3,
           "asarray infers int64 for a nested list of integers");

    // from_file: a file of six int32 values, mapped copy-on-write.
    const std::filesystem::path path = std::filesystem::temp_directory_path() / "zerotensor_test_package.bin";
    {
      const std::int32_t numbers[6] = {5, 6, 7, 8, 9, 10};
      std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(numbers), sizeof numbers);
    }
    const zt::AnyTensor mapped = zt::from_file(path, {.size = 6, .dtype = zt::int32});
    expect(mapped.dtype() == zt::int32 && mapped.numel() == 6, "from_file maps 6 int32 values");
    expect(mapped.as<const std::int32_t, 1>().at(5) == 10, "from_file reads the last value back");
    std::filesystem::remove(path);

    // DLPack: export and import again; the memory is shared, not copied.
    const zt::AnyTensor original = zt::Tensor<float, 2>(values.data(), {2, 2}, {2, 1});
    const zt::AnyTensor round_trip = zt::from_dlpack(zt::to_dlpack(original));
    expect(round_trip.data_ptr() == values.data(), "a DLPack round trip shares memory");
    expect(round_trip.shape() == original.shape() && round_trip.dtype() == zt::float32,
           "a DLPack round trip keeps shape and dtype");
    expect((round_trip.as<const float, 2>().at(1, 0)) == 3.0f, "a DLPack round trip reads element (1, 0)");
  } catch (const zt::Error& e) {
    std::printf("FAIL: zerotensor threw: %s\n", e.what());
    return 1;
  }
  std::printf("zerotensor %d.%d.%d test_package: %s\n", zt::version_major, zt::version_minor, zt::version_patch,
              failures == 0 ? "all checks passed" : "checks failed");
  return failures == 0 ? 0 : 1;
}
