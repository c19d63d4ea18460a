// What the C++ blocks of README.md's tour and of docs/*.md name without declaring: the
// headers they need and the variables they use. Declared, never defined: readme_tour only
// compiles the blocks.
#pragma once

#include <algorithm>
#include <array>
#include <cassert>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
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
extern zt::AnyTensor tensor, batch;
extern zt::CudaStreamHandle stream;
extern zt::arrow::Array out_array;
extern zt::arrow::Schema out_schema;
zt::dlpack::ManagedTensorVersioned* producer_export();
