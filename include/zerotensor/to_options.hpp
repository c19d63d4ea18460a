// zt::ToOptions: how AnyTensor::to(Device, ToOptions) copies, with PyTorch's non_blocking.
// The stream is CUDA's own handle type (cudaStream_t is `CUstream_st*`), named here without
// the CUDA headers so that plain C++ code and CPU builds can spell the options.
#pragma once

struct CUstream_st;

namespace zt {

/// cudaStream_t; nullptr is the legacy default stream.
using CudaStreamHandle = CUstream_st*;

struct ToOptions {
  /// false (default): to() returns once the copy is complete.
  /// true: a copy whose source is pinned (CUDAHost) or managed memory or a GPU, and whose
  /// destination is not ordinary host memory, is only queued on `stream` when to() returns:
  /// the result is ready for work queued on that stream after it, and for the host after
  /// cudaStreamSynchronize(stream). Until then the source must stay alive and unchanged,
  /// as with cudaMemcpyAsync; a pinned (CUDAHost) result must not be read. Copies from or
  /// into ordinary (pageable) host memory are complete when to() returns, as in PyTorch.
  bool non_blocking = false;
  /// The stream the copy is queued on, on the destination's GPU (the source's for a copy to
  /// the host). The default stream waits for the work of every blocking stream (such as a
  /// GpuContext's) and makes later work wait for it.
  CudaStreamHandle stream = nullptr;
};

}  // namespace zt
