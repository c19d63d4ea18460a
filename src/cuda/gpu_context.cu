// zt::GpuContext: a stream of its own on one GPU and the Eigen::GpuDevice over it.
#include "zerotensor/cuda.hpp"

#include "vocabulary/concat.hpp"
#include "cuda/current_device.hpp"

namespace zt {
namespace {

/// Checked before Eigen sees the index: Eigen's GpuStreamDevice only asserts, and in a
/// release build would go on with a device that does not exist.
int existing_device(int device_index) {
  detail::require_cuda_device("GpuContext", cuda(device_index));
  return device_index;
}

}  // namespace

namespace detail {

CudaStream::CudaStream(int device_index) {
  const CurrentDevice current("GpuContext", device_index);
  // A blocking stream: work on the legacy default stream (AnyTensor::to's copies) waits for it.
  check_cuda(concat("GpuContext: cudaStreamCreate on ", cuda(device_index)), cudaStreamCreate(&stream_));
}

CudaStream::~CudaStream() { (void)cudaStreamDestroy(stream_); }

}  // namespace detail

GpuContext::GpuContext(int device_index)
    : device_index_(existing_device(device_index)),
      stream_(device_index_),
      stream_device_(&stream_.handle(), device_index_),
      eigen_device_(&stream_device_) {}

void GpuContext::synchronize() const {
  detail::check_cuda(detail::concat("GpuContext::synchronize on ", device()), cudaStreamSynchronize(stream()));
  // A kernel that failed to launch reports it here, not from the (asynchronous) launch.
  detail::check_cuda(detail::concat("GpuContext::synchronize on ", device()), cudaGetLastError());
}

}  // namespace zt
