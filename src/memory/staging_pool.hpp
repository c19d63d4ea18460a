// Internal: the idle staging buffers kept between staged copies (pinning memory costs far
// more than copying a chunk). Plain C++ over any move-only buffer owner, so that its
// bookkeeping is tested on any machine (test_staging_pool); src/cuda/pinned_transfer.cu
// keeps its pinned buffers in one.
#pragma once

#include <cstddef>
#include <mutex>
#include <utility>
#include <vector>

namespace zt::detail {

/// Idle buffers of one size, shared by the copies of every thread. `Buffer` owns one buffer
/// and frees it when destroyed (a std::unique_ptr with the right deleter).
template <class Buffer>
class StagingPool {
 public:
  /// `count` buffers of `bytes`: idle ones first, then new ones from `allocate(bytes)`. When
  /// an allocation throws, the buffers taken so far go back to the pool (the next copy needs
  /// them as much as this one did) before the exception propagates.
  template <class Allocate>
  std::vector<Buffer> take(std::size_t count, std::size_t bytes, Allocate&& allocate) {
    std::vector<Buffer> taken;
    taken.reserve(count);  // so that a buffer, once allocated, is always held
    {
      const std::lock_guard lock(mutex_);
      if (bytes != bytes_) idle_.clear();
      bytes_ = bytes;
      for (; taken.size() < count && !idle_.empty(); idle_.pop_back()) taken.push_back(std::move(idle_.back()));
    }
    try {
      while (taken.size() < count) taken.push_back(allocate(bytes));
    } catch (...) {
      give_back(taken, bytes, count);
      throw;
    }
    return taken;
  }

  /// Keeps up to `keep` of `buffers` for the next copy; frees the rest, and all of them when
  /// the buffer size changed meanwhile.
  void give_back(std::vector<Buffer>& buffers, std::size_t bytes, std::size_t keep) {
    const std::lock_guard lock(mutex_);
    if (bytes != bytes_) return;
    for (Buffer& buffer : buffers)
      if (idle_.size() < keep) idle_.push_back(std::move(buffer));
  }

 private:
  std::mutex mutex_;
  std::size_t bytes_ = 0;
  std::vector<Buffer> idle_;
};

}  // namespace zt::detail
