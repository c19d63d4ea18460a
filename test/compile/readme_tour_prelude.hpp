// What README.md's tour names without declaring: the headers it needs and the variables it
// uses. Declared, never defined: readme_tour only compiles the tour.
#pragma once

#include <algorithm>
#include <array>
#include <cassert>
#include <cstdint>
#include <memory>
#include <variant>
#include <vector>

#include <zerotensor/eigen_tensor.hpp>
#include <zerotensor/zerotensor.hpp>

extern std::vector<float> owned_vector;
extern std::vector<std::uint8_t> bytes;
extern float* data;
extern std::vector<zt::index_t> shape, strides;
extern zt::KeepAlive owner;
extern Eigen::VectorXf x;
extern zt::arrow::Array *array, *batch_array;
extern zt::arrow::Schema *schema, *batch_schema;
extern const zt::arrow::Schema& shared_schema;
extern zt::AnyTensor tensor;
extern zt::arrow::Array out_array;
extern zt::arrow::Schema out_schema;
