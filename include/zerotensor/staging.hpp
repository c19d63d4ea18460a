// zt::StagingOptions: the pinned staging buffers through which copies between ordinary
// (pageable) host memory and a GPU run — AnyTensor::to(cuda(i)) of host memory, to(cpu) of
// device memory, and the loaders' `.device` option. Bytes reach a GPU at full speed only
// from pinned memory, so host threads copy each chunk into a pinned buffer (the first touch
// of a mapped file included) while the GPU copies the previous one. A copy holds at most
// `buffers` x `buffer_bytes` of pinned host memory; idle buffers are kept for the next copy.
#pragma once

#include <cstddef>

#include "zerotensor/export.hpp"

namespace zt {

struct StagingOptions {
  /// Bytes per pinned buffer: a positive multiple of 64, so no element straddles two chunks.
  /// Copies of at most this many bytes go to the CUDA runtime in one call instead.
  std::size_t buffer_bytes = std::size_t{4} << 20;
  /// Buffers per copy (at least 1; 2 or more let filling and copying overlap). At most this
  /// many buffers are filled or drained at once, so more host threads than buffers idle.
  std::size_t buffers = 8;
  /// Host threads that fill or drain the buffers; 0: the calling thread does it. A copy
  /// starts at most one per chunk. The defaults are the fastest measured on an H200 host
  /// within 64 MiB of pinned memory (docs/performance.md, "Host ↔ GPU copies").
  std::size_t host_threads = 8;
};

/// The options copies that start from now on use (copies already running keep theirs).
/// ValueError for buffer_bytes that is 0 or not a multiple of 64, or for 0 buffers.
/// Thread-safe.
ZT_API void set_staging_options(const StagingOptions& options);

/// The options in effect. Thread-safe.
[[nodiscard]] ZT_API StagingOptions staging_options();

}  // namespace zt
