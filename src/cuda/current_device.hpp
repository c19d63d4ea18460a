// Internal to src/cuda/: makes a GPU the calling thread's current device for a scope.
#pragma once

#include "zerotensor/cuda.hpp"

namespace zt::detail {

/// Selects `device_index` for the scope and restores the previous device afterwards, so
/// library calls never change which GPU the caller's own CUDA code runs on.
class CurrentDevice {
 public:
  CurrentDevice(const std::string& operation, int device_index) : index_(device_index) {
    check_cuda(operation + ": cudaGetDevice", cudaGetDevice(&previous_));
    if (index_ != previous_) check_cuda(operation + ": cudaSetDevice", cudaSetDevice(index_));
  }
  ~CurrentDevice() {
    if (index_ != previous_) (void)cudaSetDevice(previous_);  // it was valid a moment ago
  }
  CurrentDevice(const CurrentDevice&) = delete;
  CurrentDevice& operator=(const CurrentDevice&) = delete;

 private:
  int index_;
  int previous_ = 0;
};

}  // namespace zt::detail
