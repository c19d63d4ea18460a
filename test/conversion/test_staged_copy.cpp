// The staged copy's schedule (src/conversion/staged_copy.hpp) with fake operations, on any machine: a
// fake stream runs the queued device copies late and in order on a thread of its own, so a
// buffer staged again before its copy completed shows up as wrong bytes, and every step
// checks what the real CUDA layer relies on (bounds, buffer reuse, bounded staging, errors,
// every helper thread set up before it steps).
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "conversion/staged_copy.hpp"
#include "support/message_check.hpp"

namespace {

using zt::detail::StagedChunk;
using zt::detail::StagingDirection;
using zt::detail::StagingPlan;

/// A device stream: copies run in the order queued, each a little late, on one thread.
class FakeStream {
 public:
  explicit FakeStream(std::size_t buffers) : queued_(buffers, 0), completed_(buffers, 0) {
    thread_ = std::jthread([this] { run(); });
  }
  ~FakeStream() {
    {
      const std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
  }

  void queue(std::size_t buffer, std::function<void()> copy) {
    const std::lock_guard lock(mutex_);
    ++queued_[buffer];
    jobs_.push_back({buffer, std::move(copy)});
    changed_.notify_all();
  }
  void wait(std::size_t buffer) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return completed_[buffer] == queued_[buffer]; });
  }
  [[nodiscard]] bool busy(std::size_t buffer) {
    const std::lock_guard lock(mutex_);
    return completed_[buffer] != queued_[buffer];
  }
  [[nodiscard]] bool idle() {
    const std::lock_guard lock(mutex_);
    return jobs_.empty() && queued_ == completed_;
  }

 private:
  struct Job {
    std::size_t buffer;
    std::function<void()> copy;
  };

  void run() {
    std::unique_lock lock(mutex_);
    while (true) {
      changed_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (jobs_.empty()) return;
      Job job = std::move(jobs_.front());
      jobs_.pop_front();
      lock.unlock();
      std::this_thread::sleep_for(std::chrono::microseconds(50));  // the copy is still in flight a while
      job.copy();
      lock.lock();
      ++completed_[job.buffer];
      changed_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Job> jobs_;
  std::vector<std::size_t> queued_, completed_;
  bool stopping_ = false;
  std::jthread thread_;  // last: joined first
};

/// Copies `source` into `destination` as a staged copy would, checking every step.
class FakeCopy {
 public:
  FakeCopy(const StagingPlan& plan, const std::vector<std::byte>& source)
      : plan_(plan), source_(source), destination_(source.size(), std::byte{0xEE}),
        staging_(plan.buffers, std::vector<std::byte>(plan.chunk_bytes)), holds_data_(plan.buffers, false),
        host_steps_(chunk_count()), device_steps_(chunk_count()), stream_(plan.buffers) {}

  std::optional<std::size_t> fail_host_at, fail_device_at, fail_wait_at;
  bool fail_start = false;

  void start_host_thread() {
    {
      const std::lock_guard lock(mutex_);
      started_threads_.insert(std::this_thread::get_id());
    }
    if (fail_start) throw std::runtime_error("setting up a host thread failed");
  }

  void host_step(const StagedChunk& chunk) {
    check_thread_started(chunk);
    const int running = ++running_host_steps_;
    record_max(max_running_host_steps_, running);
    check_bounds(chunk);
    ++host_steps_[chunk.index];
    if (stream_.busy(chunk.buffer)) violation("host step on a buffer whose device copy is in flight", chunk);
    std::this_thread::sleep_for(std::chrono::microseconds(20));
    if (fail_host_at == chunk.index) {
      --running_host_steps_;
      throw std::runtime_error("host step failed at chunk " + std::to_string(chunk.index));
    }
    if (plan_.direction == StagingDirection::to_device) {
      std::memcpy(staging_[chunk.buffer].data(), source_.data() + chunk.offset, chunk.length);
      set_holds_data(chunk.buffer, true);
    } else {
      if (!holds_data(chunk.buffer)) violation("drained a buffer that holds no copied chunk", chunk);
      std::memcpy(destination_.data() + chunk.offset, staging_[chunk.buffer].data(), chunk.length);
      set_holds_data(chunk.buffer, false);
    }
    --running_host_steps_;
  }

  void device_step(const StagedChunk& chunk) {
    check_bounds(chunk);
    ++device_steps_[chunk.index];
    if (fail_device_at == chunk.index) throw std::runtime_error("device step failed at chunk " + std::to_string(chunk.index));
    std::byte* staged = staging_[chunk.buffer].data();
    if (plan_.direction == StagingDirection::to_device) {
      if (host_steps_[chunk.index] != 1 || !holds_data(chunk.buffer))
        violation("device copy of a chunk that was not filled", chunk);
      stream_.queue(chunk.buffer, [this, chunk, staged] {
        std::memcpy(destination_.data() + chunk.offset, staged, chunk.length);
        set_holds_data(chunk.buffer, false);
      });
    } else {
      if (holds_data(chunk.buffer)) violation("device copy into a buffer not yet drained", chunk);
      set_holds_data(chunk.buffer, true);
      stream_.queue(chunk.buffer, [this, chunk, staged] { std::memcpy(staged, source_.data() + chunk.offset, chunk.length); });
    }
  }

  void wait_for_device(std::size_t buffer) {
    check_thread_started(StagedChunk{0, buffer, 0, 0});
    stream_.wait(buffer);
    if (fail_wait_at == buffer) throw std::runtime_error("waiting for buffer " + std::to_string(buffer) + " failed");
  }

  [[nodiscard]] std::size_t chunk_count() const {
    return (plan_.total_bytes + plan_.chunk_bytes - 1) / plan_.chunk_bytes;
  }
  [[nodiscard]] const std::vector<std::byte>& destination() const { return destination_; }
  [[nodiscard]] const std::vector<int>& host_steps() const { return host_steps_; }
  [[nodiscard]] const std::vector<int>& device_steps() const { return device_steps_; }
  [[nodiscard]] int max_running_host_steps() const { return max_running_host_steps_; }
  [[nodiscard]] int running_host_steps() const { return running_host_steps_; }
  [[nodiscard]] bool stream_idle() { return stream_.idle(); }
  [[nodiscard]] std::string violations() {
    const std::lock_guard lock(mutex_);
    return violations_;
  }

 private:
  void check_bounds(const StagedChunk& chunk) {
    const bool fits = chunk.buffer < plan_.buffers && chunk.buffer == chunk.index % plan_.buffers &&
                      chunk.offset == chunk.index * plan_.chunk_bytes && chunk.length > 0 &&
                      chunk.length <= plan_.chunk_bytes && chunk.offset + chunk.length <= plan_.total_bytes &&
                      chunk.index < chunk_count();
    if (!fits) violation("chunk out of bounds", chunk);
  }
  /// The CUDA layer selects the GPU on the calling thread itself and on each helper thread in
  /// start_host_thread: a runtime call on any other thread would run on GPU 0.
  void check_thread_started(const StagedChunk& chunk) {
    bool started = std::this_thread::get_id() == calling_thread_;
    {
      const std::lock_guard lock(mutex_);
      started = started || started_threads_.count(std::this_thread::get_id()) != 0;
    }
    if (!started) violation("a step on a host thread that was not started", chunk);
  }
  void violation(const std::string& what, const StagedChunk& chunk) {
    const std::lock_guard lock(mutex_);
    violations_ += what + " (chunk " + std::to_string(chunk.index) + ", buffer " + std::to_string(chunk.buffer) + "); ";
  }
  bool holds_data(std::size_t buffer) {
    const std::lock_guard lock(mutex_);
    return holds_data_[buffer];
  }
  void set_holds_data(std::size_t buffer, bool value) {
    const std::lock_guard lock(mutex_);
    holds_data_[buffer] = value;
  }
  static void record_max(std::atomic<int>& maximum, int value) {
    int seen = maximum.load();
    while (value > seen && !maximum.compare_exchange_weak(seen, value)) {
    }
  }

  StagingPlan plan_;
  const std::vector<std::byte>& source_;
  std::vector<std::byte> destination_;
  std::vector<std::vector<std::byte>> staging_;
  std::mutex mutex_;
  std::vector<bool> holds_data_;
  std::string violations_;
  std::vector<int> host_steps_, device_steps_;  // each chunk's entry is touched by one step at a time
  std::atomic<int> running_host_steps_{0}, max_running_host_steps_{0};
  const std::thread::id calling_thread_ = std::this_thread::get_id();
  std::set<std::thread::id> started_threads_;
  FakeStream stream_;  // last: stops before the buffers its copies use
};

std::vector<std::byte> pattern(std::size_t size) {
  std::vector<std::byte> bytes(size);
  for (std::size_t i = 0; i < size; ++i) bytes[i] = std::byte((i * 131 + i / 251 + 7) & 0xFF);
  return bytes;
}

std::string describe(const StagingPlan& plan) {
  return (plan.direction == StagingDirection::to_device ? "to_device" : "from_device") +
         std::string(", total ") + std::to_string(plan.total_bytes) + ", chunk " + std::to_string(plan.chunk_bytes) +
         ", buffers " + std::to_string(plan.buffers) + ", threads " + std::to_string(plan.host_threads);
}

constexpr StagingDirection directions[] = {StagingDirection::to_device, StagingDirection::from_device};

}  // namespace

BOOST_AUTO_TEST_SUITE(staged_copy)

BOOST_AUTO_TEST_CASE(every_byte_arrives_once_in_either_direction) {
  for (const StagingDirection direction : directions) {
    for (const std::size_t total : {0, 1, 63, 64, 65, 640, 1000}) {
      for (const std::size_t buffers : {1, 2, 3, 4}) {
        for (const std::size_t threads : {0, 1, 2, 3}) {
          const StagingPlan plan{total, 64, buffers, threads, direction};
          BOOST_TEST_CONTEXT(describe(plan)) {
            const std::vector<std::byte> source = pattern(total);
            FakeCopy copy(plan, source);
            zt::detail::run_staged_copy(plan, copy);
            BOOST_TEST(copy.violations() == "");
            BOOST_TEST((copy.destination() == source));
            BOOST_TEST((copy.host_steps() == std::vector<int>(copy.chunk_count(), 1)));
            BOOST_TEST((copy.device_steps() == std::vector<int>(copy.chunk_count(), 1)));
            BOOST_TEST(copy.max_running_host_steps() <= int(std::max<std::size_t>(threads, 1)));
            BOOST_TEST(copy.stream_idle());
          }
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(host_threads_fill_buffers_at_the_same_time) {
  // With more buffers than threads, the threads' steps overlap: the copy is not serial.
  const std::vector<std::byte> source = pattern(64 * 200);
  const StagingPlan plan{source.size(), 64, 4, 3, StagingDirection::to_device};
  FakeCopy copy(plan, source);
  zt::detail::run_staged_copy(plan, copy);
  BOOST_TEST((copy.destination() == source));
  BOOST_TEST(copy.max_running_host_steps() > 1);
  BOOST_TEST(copy.max_running_host_steps() <= 3);
}

BOOST_AUTO_TEST_CASE(a_failing_step_stops_the_copy_and_leaves_nothing_in_flight) {
  const std::vector<std::byte> source = pattern(64 * 12 + 5);  // 13 chunks
  for (const StagingDirection direction : directions) {
    for (const std::size_t threads : {0, 2}) {
      for (const std::size_t failing : {0, 5, 12}) {
        for (const bool in_host_step : {true, false}) {
          const StagingPlan plan{source.size(), 64, 3, threads, direction};
          BOOST_TEST_CONTEXT(describe(plan) << (in_host_step ? ", host" : ", device") << " step fails at " << failing) {
            FakeCopy copy(plan, source);
            (in_host_step ? copy.fail_host_at : copy.fail_device_at) = failing;
            const std::string expected =
                std::string(in_host_step ? "host" : "device") + " step failed at chunk " + std::to_string(failing);
            BOOST_CHECK_EXCEPTION(zt::detail::run_staged_copy(plan, copy), std::runtime_error,
                                  with_message<std::runtime_error>(expected));
            BOOST_TEST(copy.violations() == "");
            BOOST_TEST(copy.running_host_steps() == 0);  // no step outlives the call
            BOOST_TEST(copy.stream_idle());              // no copy is left in flight
            // Staging stays bounded after a failure: nothing past the buffers in flight starts.
            const auto started = std::count(copy.host_steps().begin(), copy.host_steps().end(), 1);
            BOOST_TEST(std::size_t(started) <= failing + plan.buffers + 1);
          }
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(a_host_thread_that_cannot_be_set_up_fails_the_copy) {
  const std::vector<std::byte> source = pattern(64 * 7);
  for (const StagingDirection direction : directions) {
    const StagingPlan plan{source.size(), 64, 3, 2, direction};
    BOOST_TEST_CONTEXT(describe(plan)) {
      FakeCopy copy(plan, source);
      copy.fail_start = true;
      BOOST_CHECK_EXCEPTION(zt::detail::run_staged_copy(plan, copy), std::runtime_error,
                            with_message<std::runtime_error>("setting up a host thread failed"));
      BOOST_TEST(copy.violations() == "");
      BOOST_TEST(copy.running_host_steps() == 0);
      BOOST_TEST(copy.stream_idle());
    }
  }
}

BOOST_AUTO_TEST_CASE(a_failing_wait_is_reported_after_every_copy_completed) {
  const std::vector<std::byte> source = pattern(64 * 7);
  for (const StagingDirection direction : directions) {
    for (const std::size_t threads : {0, 2}) {
      const StagingPlan plan{source.size(), 64, 3, threads, direction};
      BOOST_TEST_CONTEXT(describe(plan)) {
        FakeCopy copy(plan, source);
        copy.fail_wait_at = 1;
        BOOST_CHECK_EXCEPTION(zt::detail::run_staged_copy(plan, copy), std::runtime_error,
                              with_message<std::runtime_error>("waiting for buffer 1 failed"));
        BOOST_TEST(copy.running_host_steps() == 0);
        BOOST_TEST(copy.stream_idle());
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(parts_laid_end_to_end_are_cut_where_a_range_crosses_them) {
  using Piece = std::tuple<std::size_t, std::size_t, std::size_t, std::size_t>;
  const std::vector<std::size_t> ends{3, 3, 10, 10, 12};  // sizes 3, 0, 7, 0, 2
  const auto pieces = [&](std::size_t offset, std::size_t length) {
    std::vector<Piece> found;
    zt::detail::for_each_part(ends, offset, length, [&](std::size_t part, std::size_t at, std::size_t done,
                                                        std::size_t size) {
      found.emplace_back(part, at, done, size);
    });
    return found;
  };
  BOOST_TEST((pieces(0, 12) == std::vector<Piece>{{0, 0, 0, 3}, {2, 0, 3, 7}, {4, 0, 10, 2}}));
  BOOST_TEST((pieces(2, 5) == std::vector<Piece>{{0, 2, 0, 1}, {2, 0, 1, 4}}));
  BOOST_TEST((pieces(3, 7) == std::vector<Piece>{{2, 0, 0, 7}}));
  BOOST_TEST((pieces(9, 3) == std::vector<Piece>{{2, 6, 0, 1}, {4, 0, 1, 2}}));
  BOOST_TEST(pieces(5, 0).empty());
  // Every byte of every chunk size lands once, in its own part, in order.
  for (std::size_t chunk = 1; chunk <= 13; ++chunk) {
    std::vector<int> seen(12, 0);
    for (std::size_t offset = 0; offset < 12; offset += chunk)
      for (const auto& [part, at, done, size] : pieces(offset, std::min(chunk, 12 - offset))) {
        const std::size_t begin = part == 0 ? 0 : ends[part - 1];
        BOOST_TEST(at + size <= ends[part] - begin);
        BOOST_TEST(begin + at == offset + done);
        for (std::size_t i = 0; i < size; ++i) ++seen[begin + at + i];
      }
    BOOST_TEST((seen == std::vector<int>(12, 1)));
  }
}

BOOST_AUTO_TEST_SUITE_END()
