// The Eigen half of torch_gpu_interop: compiled by nvcc (torch_gpu_triad.cu) without
// libtorch's headers, called from the C++ test that has them.
#pragma once

#include "zerotensor/any_tensor.hpp"

namespace zt_test {

/// out = a + 2 b on cuda(0) through zt::GpuContext's Eigen::GpuDevice, synchronized.
/// All three are contiguous float32 device tensors of rank 1 and the same size.
void triad_on_gpu(const zt::AnyTensor& out, const zt::AnyTensor& a, const zt::AnyTensor& b);

}  // namespace zt_test
