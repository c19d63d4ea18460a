// Internal: the schedule of a copy between host memory and a device through a few staging
// buffers. Host threads fill (or drain) one buffer while the device copies another, so a
// copy runs at the speed of the slower side instead of the sum of both. Plain C++, so the
// schedule is tested without a GPU (test/conversion/test_staged_copy.cpp, with fake operations);
// src/cuda/pinned_transfer.cu gives it pinned buffers, cudaMemcpyAsync and events.
#pragma once

#include <algorithm>
#include <concepts>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

namespace zt::detail {

/// Bytes [offset, offset + length) of the whole copy, staged in buffer `buffer`.
struct StagedChunk {
  std::size_t index;
  std::size_t buffer;
  std::size_t offset;
  std::size_t length;
};

enum class StagingDirection {
  to_device,    ///< per chunk: host step (fill the buffer), then device step (copy it out)
  from_device,  ///< per chunk: device step (copy into the buffer), then host step (drain it)
};

struct StagingPlan {
  std::size_t total_bytes = 0;
  std::size_t chunk_bytes = 1;   ///< the size of each buffer; > 0
  std::size_t buffers = 1;       ///< > 0; at most this many chunks are staged at once
  std::size_t host_threads = 0;  ///< threads for the host steps; 0: the calling thread runs them
  StagingDirection direction = StagingDirection::to_device;
};

/// What a staged copy does:
/// - host_step(chunk): fills the chunk's buffer from the source (to_device) or drains it into
///   the destination (from_device). Runs on a host thread; steps of different chunks overlap.
/// - device_step(chunk): queues the device copy between the chunk's buffer and the device and
///   returns; the buffer is busy until that copy completes. The calling thread, chunk order.
/// - wait_for_device(buffer): blocks until the last device step queued on `buffer` completed
///   (at once when none was). Any thread; never for a buffer whose device step is being queued.
/// - start_host_thread(): runs on each host thread before its first step, to set the thread
///   up as the calling thread is (the CUDA layer selects the copy's GPU there).
/// Any of them may throw; run_staged_copy then stops, waits until no step runs and no device
/// copy is in flight, and rethrows the first exception.
template <class Operations>
concept StagingOperations = requires(Operations& operations, const StagedChunk& chunk, std::size_t buffer) {
  operations.host_step(chunk);
  operations.device_step(chunk);
  operations.wait_for_device(buffer);
  operations.start_host_thread();
};

namespace staging {

/// Runs host steps: on `threads` worker threads, each set up by `start` first, or (none) on
/// the calling thread when it waits for them, so that a single thread still fills chunk
/// k+1 while chunk k is copied.
class HostSteps {
 public:
  HostSteps(std::size_t threads, std::size_t chunks, std::function<void()> start, std::function<void(std::size_t)> step)
      : start_(std::move(start)), run_(std::move(step)), done_(chunks, false) {
    try {
      for (std::size_t i = 0; i < threads; ++i) workers_.emplace_back([this] { work(); });
    } catch (...) {
      stop();  // the threads already started wait for it
      throw;
    }
  }
  ~HostSteps() { stop(); }
  HostSteps(const HostSteps&) = delete;
  HostSteps& operator=(const HostSteps&) = delete;

  void launch(std::size_t index) {
    const std::lock_guard lock(mutex_);
    queue_.push_back(index);
    changed_.notify_all();
  }

  /// Blocks until step `index` is done; rethrows the first failure of any step.
  void wait(std::size_t index) {
    std::unique_lock lock(mutex_);
    while (!done_[index] && !failure_) {
      if (workers_.empty()) {
        run_next(lock);
      } else {
        changed_.wait(lock);
      }
    }
    if (failure_) std::rethrow_exception(failure_);
  }

  /// Drops queued steps and joins the workers once running steps have returned.
  void stop() {
    {
      const std::lock_guard lock(mutex_);
      queue_.clear();
      stopping_ = true;
      changed_.notify_all();
    }
    workers_.clear();  // jthread joins
  }

 private:
  /// Runs `step`; its exception, or none.
  template <class Step>
  static std::exception_ptr failure_of(const Step& step) {
    try {
      step();
      return nullptr;
    } catch (...) {
      return std::current_exception();
    }
  }

  void work() {
    const std::exception_ptr failure = failure_of(start_);
    std::unique_lock lock(mutex_);
    if (failure) return record_failure(failure);
    while (true) {
      changed_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      run_next(lock);
    }
  }

  /// Runs the oldest queued step without the lock; records its completion or failure.
  void run_next(std::unique_lock<std::mutex>& lock) {
    const std::size_t index = queue_.front();
    queue_.pop_front();
    lock.unlock();
    const std::exception_ptr failure = failure_of([&] { run_(index); });
    lock.lock();
    done_[index] = true;
    record_failure(failure);
  }

  /// Keeps the first failure (none: `failure` is empty) and wakes the waiters. Under the lock.
  void record_failure(const std::exception_ptr& failure) {
    if (failure && !failure_) failure_ = failure;
    changed_.notify_all();
  }

  std::function<void()> start_;
  std::function<void(std::size_t)> run_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::size_t> queue_;
  std::vector<bool> done_;
  std::exception_ptr failure_;
  bool stopping_ = false;
  std::vector<std::jthread> workers_;  // last: joined before the state they use is destroyed
};

}  // namespace staging

/// For bytes [offset, offset + length) of parts laid end to end, where part i ends at byte
/// ends[i] (ascending), calls piece(part, part_offset, done, size) for each part they overlap:
/// `size` bytes from `part_offset` of the part, which are bytes `done` onwards of the range.
/// Empty parts are skipped. So one chunk of a staged copy can carry several small parts.
template <class Piece>
void for_each_part(std::span<const std::size_t> ends, std::size_t offset, std::size_t length, Piece&& piece) {
  auto part = std::size_t(std::upper_bound(ends.begin(), ends.end(), offset) - ends.begin());
  for (std::size_t done = 0; done < length; ++part) {
    const std::size_t begin = part == 0 ? 0 : ends[part - 1];
    const std::size_t size = std::min(length - done, ends[part] - (offset + done));
    if (size == 0) continue;
    piece(part, offset + done - begin, done, size);
    done += size;
  }
}

/// Copies plan.total_bytes through plan.buffers staging buffers of plan.chunk_bytes: chunk
/// k uses buffer k % buffers, and is staged again only after the device copy of chunk
/// k - buffers completed (to_device) or its host step drained it (from_device). Every byte
/// is in exactly one chunk; when this returns, normally or by exception, no step runs and
/// no device copy is in flight.
template <StagingOperations Operations>
void run_staged_copy(const StagingPlan& plan, Operations& operations) {
  const std::size_t chunks = (plan.total_bytes + plan.chunk_bytes - 1) / plan.chunk_bytes;
  const std::size_t ahead = std::min(plan.buffers, chunks);
  const auto chunk = [&](std::size_t index) {
    const std::size_t offset = index * plan.chunk_bytes;
    return StagedChunk{index, index % plan.buffers, offset, std::min(plan.chunk_bytes, plan.total_bytes - offset)};
  };
  const bool to_device = plan.direction == StagingDirection::to_device;
  // to_device: a buffer's previous chunk must have left it; from_device: its copy arrived.
  const auto host_step = [&](std::size_t index) {
    const StagedChunk c = chunk(index);
    if (!to_device || index >= plan.buffers) operations.wait_for_device(c.buffer);
    operations.host_step(c);
  };
  staging::HostSteps host(chunks > 1 ? std::min(plan.host_threads, chunks) : 0, chunks,
                          [&] { operations.start_host_thread(); }, host_step);
  std::size_t queued = 0;  // device steps queued so far
  const auto device_step = [&](std::size_t index) {
    operations.device_step(chunk(index));
    queued = index + 1;
  };
  try {
    for (std::size_t index = 0; index < ahead; ++index) {
      if (!to_device) device_step(index);
      host.launch(index);
    }
    for (std::size_t index = 0; index < chunks; ++index) {
      host.wait(index);
      if (to_device) device_step(index);
      const std::size_t next = index + plan.buffers;
      if (next >= chunks) continue;
      if (!to_device) device_step(next);
      host.launch(next);
    }
    for (std::size_t buffer = 0; buffer < std::min(queued, plan.buffers); ++buffer) operations.wait_for_device(buffer);
  } catch (...) {
    host.stop();
    for (std::size_t buffer = 0; buffer < std::min(queued, plan.buffers); ++buffer) {
      try {
        operations.wait_for_device(buffer);
      } catch (...) {  // the first failure is the one reported
      }
    }
    throw;
  }
}

}  // namespace zt::detail
