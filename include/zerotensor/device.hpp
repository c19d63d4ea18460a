// Where memory lives: the host, a CUDA device, or host memory the CUDA driver manages.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "zerotensor/export.hpp"

namespace zt {

enum class DeviceKind : std::uint8_t {
  CPU,          ///< ordinary host memory
  CUDA,         ///< device memory of GPU `index`; the host cannot touch it
  CUDAHost,     ///< pinned host memory (cudaMallocHost); the host can touch it
  CUDAManaged,  ///< unified memory (cudaMallocManaged); both sides can touch it
};

struct Device {
  DeviceKind kind = DeviceKind::CPU;
  int index = 0;  ///< the GPU ordinal; 0 for the CPU

  /// Whether host code may read and write the memory directly.
  [[nodiscard]] constexpr bool is_host_accessible() const noexcept {
    return kind != DeviceKind::CUDA;
  }
  friend constexpr bool operator==(const Device&, const Device&) = default;
};

inline constexpr Device cpu{};
[[nodiscard]] constexpr Device cuda(int index = 0) noexcept { return {DeviceKind::CUDA, index}; }

/// "cpu", "cuda:0", "cuda_host:0", "cuda_managed:1".
ZT_API std::string to_string(Device device);
ZT_API std::ostream& operator<<(std::ostream& out, Device device);

}  // namespace zt
