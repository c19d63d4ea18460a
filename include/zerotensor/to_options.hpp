// zt::ToOptions: how a copy runs (AnyTensor::to, clone, contiguous, copy_into): PyTorch's
// non_blocking and a stream for copies to and from a GPU, host threads for copies on the host.
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
  /// Host threads for a copy on the host: 1 (default) copies on the calling thread; n > 1
  /// splits the copy's outermost dimension (in the destination's memory order) across up
  /// to n threads, started for the copy and joined before it returns, at most one per MiB
  /// of output (smaller copies stay on fewer threads); 0 asks for one per hardware thread.
  /// The result is the same for any count. One by default, unlike PyTorch's intra-op pool:
  /// a library call that starts threads unasked competes with the caller's own.
  unsigned threads = 1;
};

}  // namespace zt
