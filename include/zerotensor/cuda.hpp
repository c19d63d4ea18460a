// The CUDA path (ZT_CUDA builds only): device memory owned by tensors, what the driver
// says about an address, and zt::GpuContext, which owns a stream and gives the
// Eigen::GpuDevice that runs tensor expressions over device tensors:
//
//   zt::GpuContext gpu(0);
//   gpu.tensor(out).device(gpu.eigen()) = gpu.tensor(a) + 2.0f * gpu.tensor(b);
//
// Include it from .cu files compiled by nvcc with --expt-relaxed-constexpr (the
// zerotensor::zerotensor target adds that flag to CUDA sources), before
// <zerotensor/eigen_tensor.hpp> and any other Eigen Tensor header: Eigen's Tensor module
// compiles its GPU support only when EIGEN_USE_GPU is defined the first time it is
// included. Include it first: a zerotensor header before it brings in Eigen/Core without
// EIGEN_USE_GPU, and nvcc then fails in Eigen's GPU tensor code.
#pragma once

#if !defined(ZT_CUDA) || !ZT_CUDA
#error "zerotensor/cuda.hpp needs a zerotensor built with -DZT_CUDA=ON (link zerotensor::zerotensor, which defines ZT_CUDA=1)."
#endif

#if defined(EIGEN_CXX11_TENSOR_MODULE_H) && !defined(EIGEN_USE_GPU)
#error "Include zerotensor/cuda.hpp before zerotensor/eigen_tensor.hpp and any Eigen Tensor header (or define EIGEN_USE_GPU first): Eigen's Tensor module was already included without GPU support."
#endif
#ifndef EIGEN_USE_GPU
#define EIGEN_USE_GPU
#endif

#include <cuda_runtime.h>

#include <cstddef>
#include <memory>
#include <span>
#include <string>

#include <unsupported/Eigen/CXX11/Tensor>

#include "zerotensor/any_tensor.hpp"
#include "zerotensor/device_of.hpp"
#include "zerotensor/eigen_tensor.hpp"
#include "zerotensor/empty.hpp"
#include "zerotensor/export.hpp"
#include "zerotensor/storage.hpp"

namespace zt {

/// How many CUDA devices the driver reports; 0 when there is no GPU or no driver.
[[nodiscard]] ZT_API int cuda_device_count() noexcept;

/// Whether a CUDA device can be used (as torch.cuda.is_available()).
[[nodiscard]] inline bool cuda_is_available() noexcept { return cuda_device_count() > 0; }

namespace detail {

/// DeviceError "`operation` failed: cudaErrorNoDevice (no CUDA-capable device is detected)",
/// after clearing the runtime's last error so the next call starts clean.
[[noreturn]] ZT_API void throw_cuda_error(const std::string& operation, cudaError_t error);

}  // namespace detail

/// Checks a CUDA runtime call the way zerotensor checks its own: nothing when `error` is
/// cudaSuccess, else DeviceError "`operation` failed: cudaErrorMemoryAllocation (out of
/// memory)", after clearing the runtime's last error so the next call starts clean.
///   zt::check_cuda("cudaMalloc", cudaMalloc(&p, bytes));
inline void check_cuda(const std::string& operation, cudaError_t error) {
  if (error != cudaSuccess) detail::throw_cuda_error(operation, error);
}

namespace detail {

using zt::check_cuda;

/// DeviceError unless `device` is a CUDA device that exists, naming the device count.
ZT_API void require_cuda_device(const std::string& operation, Device device);

/// DeviceError unless a tensor on `memory` can be read by kernels on `context`: device
/// memory of the same GPU, pinned or managed memory.
ZT_API void require_reachable_from(const char* operation, Device memory, Device context);

/// A stream on one device, destroyed with its owner.
class ZT_API CudaStream {
 public:
  explicit CudaStream(int device_index);
  ~CudaStream();
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;
  [[nodiscard]] const cudaStream_t& handle() const noexcept { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

}  // namespace detail

/// A GPU to compute on: a stream of its own on cuda(device_index) and the
/// Eigen::GpuDevice that queues Eigen expressions on it. Work is asynchronous; call
/// synchronize() before reading results on the host. The stream is a blocking one, so
/// AnyTensor::to() copies (on the legacy default stream) wait for queued work.
/// Not copyable or movable: the Eigen device points into the context.
class ZT_API GpuContext {
 public:
  /// DeviceError naming the CUDA error when there is no GPU or driver, or naming the
  /// device count when `device_index` does not exist.
  explicit GpuContext(int device_index = 0);
  GpuContext(const GpuContext&) = delete;
  GpuContext& operator=(const GpuContext&) = delete;
  ~GpuContext() = default;

  [[nodiscard]] Device device() const noexcept { return cuda(device_index_); }
  [[nodiscard]] cudaStream_t stream() const noexcept { return stream_.handle(); }
  /// The Eigen device for `tensor_map.device(gpu.eigen()) = expression`.
  [[nodiscard]] const Eigen::GpuDevice& eigen() const noexcept { return eigen_device_; }

  /// Waits for the work queued on the stream; DeviceError naming the CUDA error of a
  /// kernel that failed.
  void synchronize() const;

  /// A contiguous tensor of static rank as a row-major Eigen::TensorMap for expressions on
  /// this GPU. DeviceError unless the memory is device memory of this GPU, pinned or
  /// managed; ValueError when it is not contiguous.
  template <class T, std::size_t Rank>
    requires(Rank != dynamic)
  [[nodiscard]] EigenTensorMap<T, int(Rank)> tensor(const Tensor<T, Rank>& t) const {
    return map<int(Rank)>(t);
  }

  /// The same for a dynamic-rank tensor whose rank is `TensorRank` (ValueError otherwise).
  template <int TensorRank, class T>
  [[nodiscard]] EigenTensorMap<T, TensorRank> tensor(const Tensor<T>& t) const {
    return map<TensorRank>(t);
  }

 private:
  template <int TensorRank, class T, std::size_t Rank>
  [[nodiscard]] EigenTensorMap<T, TensorRank> map(const Tensor<T, Rank>& t) const {
    detail::require_reachable_from("GpuContext::tensor", t.device(), device());
    return detail::contiguous_tensor_map<TensorRank>("GpuContext::tensor", t);
  }

  int device_index_;
  detail::CudaStream stream_;
  Eigen::GpuStreamDevice stream_device_;
  Eigen::GpuDevice eigen_device_;
};

}  // namespace zt
