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
  /// true (PyTorch's non_blocking=True): to() may return while the copy is still queued on
  /// `stream`. The result is then ready for work queued on `stream` after it, and for the
  /// host after cudaStreamSynchronize(stream); until then a pinned (CUDAHost) or managed
  /// result must not be read, and a pinned, managed or device source must stay alive and
  /// unchanged, as with cudaMemcpyAsync. An ordinary (pageable) host source has been read
  /// when to() returns, and an ordinary host result is complete, as in PyTorch.
  bool non_blocking = false;
  /// The stream the copy is queued on, on the destination's GPU (the source's for a copy to
  /// the host). The default stream waits for the work of every blocking stream (such as a
  /// GpuContext's) and makes later work wait for it.
  CudaStreamHandle stream = nullptr;
};

}  // namespace zt
