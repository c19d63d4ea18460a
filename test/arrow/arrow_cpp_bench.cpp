// zerotensor's from_arrow against Arrow C++'s ImportArray + Array::ToTensor for the same
// arrow.fixed_shape_tensor arrays, in one process: rounds of 1,000 imports each, the two
// alternating, the median of each and their ratio printed. Every array is exported by
// zt::to_arrow before the clock starts; the timed part is the import and the destruction
// of the result (the producer's release included). Both consumers borrow the type: Arrow
// C++ imports it once (ImportType), zerotensor reads the borrowed ArrowSchema.
//
// Arrow C++ is the one pyarrow ships (a virtual environment with pyarrow; no CMake target):
//   P=$(venv/bin/python -c 'import pyarrow, os; print(os.path.dirname(pyarrow.__file__))')
//   g++ -O2 -std=c++20 -Iinclude -I/usr/include/eigen3 -I$P/include test/arrow/arrow_cpp_bench.cpp build/libzerotensor.a \
//       $P/libarrow.so.* -Wl,-rpath,$P -o arrow_cpp_bench && taskset -c 1 ./arrow_cpp_bench
#include <arrow/api.h>
#include <arrow/c/abi.h>
#include <arrow/c/bridge.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "zerotensor/from_arrow.hpp"
#include "zerotensor/to_arrow.hpp"

namespace {

constexpr int per_round = 1000;
constexpr int rounds = 31;

static_assert(sizeof(ArrowArray) == sizeof(zt::arrow::Array) && sizeof(ArrowSchema) == sizeof(zt::arrow::Schema));

/// `count` exports of `tensor` as arrow.fixed_shape_tensor arrays.
std::vector<zt::arrow::Array> exports(const zt::AnyTensor& tensor, int count) {
  std::vector<zt::arrow::Array> out(static_cast<std::size_t>(count));
  for (zt::arrow::Array& array : out) {
    zt::arrow::Schema schema{};
    zt::to_arrow(tensor, &array, &schema);
    schema.release(&schema);
  }
  return out;
}

template <class Body>
double seconds_per_import(Body&& body) {
  const auto start = std::chrono::steady_clock::now();
  body();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / per_round;
}

double median(std::vector<double> values) {
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2];
}

void check(const arrow::Status& status) {
  if (!status.ok()) {
    std::fprintf(stderr, "Arrow C++: %s\n", status.ToString().c_str());
    std::exit(1);
  }
}

}  // namespace

int main() {
  // 64 rows of 8 x 8 float32: the shape of bench_arrow's fixed_shape_tensor import.
  std::vector<float> values(64 * 64, 1.0f);
  const zt::index_t shape[3] = {64, 8, 8}, strides[3] = {64, 8, 1};
  const zt::AnyTensor tensor(values.data(), shape, strides);
  zt::arrow::Schema zt_schema{};
  zt::arrow::Array first{};
  zt::to_arrow(tensor, &first, &zt_schema);
  first.release(&first);
  zt::arrow::Schema copy{};
  zt::arrow::Array scratch{};
  zt::to_arrow(tensor, &scratch, &copy);
  scratch.release(&scratch);
  auto type = arrow::ImportType(reinterpret_cast<ArrowSchema*>(&copy));
  check(type.status());
  std::printf("Arrow C++ imports the type as %s\n", (*type)->ToString().c_str());

  std::vector<double> zt_times, arrow_times;
  for (int round = 0; round < rounds; ++round) {
    std::vector<zt::arrow::Array> for_zt = exports(tensor, per_round);
    std::vector<zt::arrow::Array> for_arrow = exports(tensor, per_round);
    const auto run_zt = [&] {
      for (zt::arrow::Array& array : for_zt) {
        const zt::AnyTensor view = zt::from_arrow(&array, zt_schema);
        if (view.shape()[1] != 8) std::abort();
      }
    };
    const auto run_arrow = [&] {
      for (zt::arrow::Array& array : for_arrow) {
        auto imported = arrow::ImportArray(reinterpret_cast<ArrowArray*>(&array), *type);
        check(imported.status());
        auto result = (*imported)->ToTensor();
        check(result.status());
        if ((*result)->shape()[1] != 8) std::abort();
      }
    };
    if (round % 2 == 0) {
      zt_times.push_back(seconds_per_import(run_zt));
      arrow_times.push_back(seconds_per_import(run_arrow));
    } else {
      arrow_times.push_back(seconds_per_import(run_arrow));
      zt_times.push_back(seconds_per_import(run_zt));
    }
  }
  zt_schema.release(&zt_schema);
  const double zt_ns = median(zt_times) * 1e9, arrow_ns = median(arrow_times) * 1e9;
  std::printf("fixed_shape_tensor (64 rows of 8 x 8 float32), median of %d rounds of %d imports:\n", rounds,
              per_round);
  std::printf("  zerotensor from_arrow:                  %8.1f ns\n", zt_ns);
  std::printf("  Arrow C++ ImportArray + ToTensor:       %8.1f ns\n", arrow_ns);
  std::printf("  Arrow C++ / zerotensor:                 %8.2fx\n", arrow_ns / zt_ns);
}
