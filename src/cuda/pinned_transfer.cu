// The staged copy's CUDA side: pinned buffers kept in a pool, one event per buffer, and
// cudaMemcpyAsync on the caller's stream. The schedule itself is src/conversion/staged_copy.hpp.
#include "cuda/pinned_transfer.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "zerotensor/staging.hpp"
#include "zerotensor/storage.hpp"

#include "vocabulary/concat.hpp"
#include "conversion/staged_copy.hpp"
#include "memory/staging_pool.hpp"
#include "cuda/current_device.hpp"

namespace zt::detail {
namespace {

struct FreePinned {
  void operator()(std::byte* memory) const noexcept { (void)cudaFreeHost(memory); }
};
using PinnedBuffer = std::unique_ptr<std::byte, FreePinned>;

struct DestroyEvent {
  void operator()(cudaEvent_t event) const noexcept { (void)cudaEventDestroy(event); }
};
using Event = std::unique_ptr<CUevent_st, DestroyEvent>;

using PinnedPool = StagingPool<PinnedBuffer>;

/// A new pinned buffer (portable: any GPU copies from it at the pinned rate).
PinnedBuffer allocate_pinned(std::size_t bytes, const std::string& operation) {
  void* memory = nullptr;
  check_cuda(concat(operation, ": cudaHostAlloc of a ", bytes, "-byte staging buffer"),
             cudaHostAlloc(&memory, bytes, cudaHostAllocPortable));
  return PinnedBuffer(static_cast<std::byte*>(memory));
}

PinnedPool& pinned_pool() {
  static PinnedPool pool;
  return pool;
}

/// The plan and the buffers and events of one staged copy; the buffers go back to the pool
/// however the copy ends.
class StagingSet {
 public:
  StagingSet(std::size_t size_bytes, StagingDirection direction, const std::string& operation)
      : options_(staging_options()),
        plan_{size_bytes, options_.buffer_bytes, options_.buffers, options_.host_threads, direction},
        buffers_(pinned_pool().take(std::min(plan_.buffers, (size_bytes + plan_.chunk_bytes - 1) / plan_.chunk_bytes),
                                    plan_.chunk_bytes,
                                    [&](std::size_t bytes) { return allocate_pinned(bytes, operation); })) {
    for (std::size_t i = 0; i < buffers_.size(); ++i) {
      cudaEvent_t event = nullptr;
      check_cuda(operation + ": cudaEventCreateWithFlags", cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
      events_.emplace_back(event);
    }
  }
  ~StagingSet() { pinned_pool().give_back(buffers_, options_.buffer_bytes, options_.buffers); }
  StagingSet(const StagingSet&) = delete;
  StagingSet& operator=(const StagingSet&) = delete;

  [[nodiscard]] const StagingPlan& plan() const noexcept { return plan_; }
  [[nodiscard]] std::byte* buffer(std::size_t index) const noexcept { return buffers_[index].get(); }
  [[nodiscard]] cudaEvent_t event(std::size_t index) const noexcept { return events_[index].get(); }

 private:
  StagingOptions options_;
  StagingPlan plan_;
  std::vector<PinnedBuffer> buffers_;
  std::vector<Event> events_;
};

/// What both directions share: the copies of a chunk on the stream, marked by the buffer's
/// event, and the copy's GPU current on every thread that calls the runtime.
class StreamSteps {
 public:
  StreamSteps(const StagingSet& staging, int device_index, cudaStream_t stream, const std::string& operation)
      : staging_(staging), device_index_(device_index), stream_(stream), operation_(operation) {}

  /// A helper thread of this copy only: it ends with the copy, so the device stays set.
  void start_host_thread() const {
    check_cuda(operation_ + ": cudaSetDevice on a staging thread", cudaSetDevice(device_index_));
  }

  void wait_for_device(std::size_t buffer) const {
    check_cuda(operation_ + ": cudaEventSynchronize", cudaEventSynchronize(staging_.event(buffer)));
  }

 protected:
  /// Queues `length` bytes of the chunk's copy.
  void copy(void* destination, const void* source, std::size_t length, const StagedChunk& chunk,
            cudaMemcpyKind kind) const {
    check_cuda(concat(operation_, ": cudaMemcpyAsync of chunk ", chunk.index, " (", length, " bytes)"),
               cudaMemcpyAsync(destination, source, length, kind, stream_));
  }
  /// Marks the chunk's buffer busy until its queued copies complete.
  void mark(const StagedChunk& chunk) const {
    check_cuda(operation_ + ": cudaEventRecord", cudaEventRecord(staging_.event(chunk.buffer), stream_));
  }
  const StagingSet& staging_;

 private:
  int device_index_;
  cudaStream_t stream_;
  const std::string& operation_;
};

/// Parts laid end to end: each chunk is cut where it crosses from one part into the next.
class UploadSteps : public StreamSteps {
 public:
  UploadSteps(const StagingSet& staging, std::span<std::byte* const> destinations, std::span<const UploadPart> parts,
              std::span<const std::size_t> ends, int device_index, cudaStream_t stream, const std::string& operation)
      : StreamSteps(staging, device_index, stream, operation),
        destinations_(destinations),
        parts_(parts),
        ends_(ends) {}

  void host_step(const StagedChunk& chunk) const {
    std::byte* buffer = staging_.buffer(chunk.buffer);
    for_each_part(ends_, chunk.offset, chunk.length, [&](std::size_t part, std::size_t at, std::size_t done,
                                                         std::size_t size) { parts_[part].fill(at, {buffer + done, size}); });
  }
  void device_step(const StagedChunk& chunk) const {
    const std::byte* buffer = staging_.buffer(chunk.buffer);
    for_each_part(ends_, chunk.offset, chunk.length, [&](std::size_t part, std::size_t at, std::size_t done,
                                                         std::size_t size) {
      copy(destinations_[part] + at, buffer + done, size, chunk, cudaMemcpyHostToDevice);
    });
    mark(chunk);
  }

 private:
  std::span<std::byte* const> destinations_;
  std::span<const UploadPart> parts_;
  std::span<const std::size_t> ends_;
};

class DownloadSteps : public StreamSteps {
 public:
  DownloadSteps(const StagingSet& staging, const DrainStaging& drain, const std::byte* source, int device_index,
                cudaStream_t stream, const std::string& operation)
      : StreamSteps(staging, device_index, stream, operation), drain_(drain), source_(source) {}

  void host_step(const StagedChunk& chunk) const {
    drain_(chunk.offset, {staging_.buffer(chunk.buffer), chunk.length});
  }
  void device_step(const StagedChunk& chunk) const {
    copy(staging_.buffer(chunk.buffer), source_ + chunk.offset, chunk.length, chunk, cudaMemcpyDeviceToHost);
    mark(chunk);
  }

 private:
  const DrainStaging& drain_;
  const std::byte* source_;
};

/// One staged copy on `device_index`: the pinned buffers, then `Steps` over the plan.
template <class Steps, class... Ends>
void run_staged(StagingDirection direction, int device_index, std::size_t size_bytes, cudaStream_t stream,
                const std::string& operation, const Ends&... ends) {
  if (size_bytes == 0) return;
  const CurrentDevice current(operation, device_index);
  const StagingSet staging(size_bytes, direction, operation);
  Steps steps(staging, ends..., device_index, stream, operation);
  run_staged_copy(staging.plan(), steps);
}

}  // namespace

void upload_staged_into(std::span<std::byte* const> destinations, std::span<const UploadPart> parts, int device_index,
                        cudaStream_t stream, const std::string& operation) {
  std::vector<std::size_t> ends;
  ends.reserve(parts.size());
  std::size_t total = 0;
  for (const UploadPart& part : parts) ends.push_back(total += part.size_bytes);
  run_staged<UploadSteps>(StagingDirection::to_device, device_index, total, stream, operation, destinations, parts,
                          std::span<const std::size_t>(ends));
}

void download_staged(std::byte* destination, const std::byte* source, int device_index, std::size_t size_bytes,
                     cudaStream_t stream, const std::string& operation) {
  const DrainStaging copy_out = [destination](std::size_t offset, std::span<const std::byte> staging) {
    std::memcpy(destination + offset, staging.data(), staging.size());
  };
  run_staged<DownloadSteps>(StagingDirection::from_device, device_index, size_bytes, stream, operation, copy_out,
                            source);
}

void download_staged_chunks(const std::byte* source, Device device, std::size_t size_bytes, const DrainStaging& drain,
                            const std::string& operation) {
  require_cuda_device(operation, device);
  run_staged<DownloadSteps>(StagingDirection::from_device, device.index, size_bytes, nullptr, operation, drain,
                            source);
}

std::vector<std::shared_ptr<std::byte>> upload_staged(std::span<const UploadPart> parts, Device target,
                                                      const std::string& operation) {
  require_cuda_device(operation, target);  // first, so the message names what was being loaded
  std::vector<std::shared_ptr<std::byte>> memory;
  std::vector<std::byte*> destinations;
  memory.reserve(parts.size());
  destinations.reserve(parts.size());
  for (const UploadPart& part : parts) {
    memory.push_back(allocate_bytes(part.size_bytes, target));
    destinations.push_back(memory.back().get());
  }
  if (target.is_host_accessible()) {  // pinned or managed memory: written in place
    for (std::size_t i = 0; i < parts.size(); ++i) parts[i].fill(0, {destinations[i], parts[i].size_bytes});
  } else {
    upload_staged_into(destinations, parts, target.index, nullptr, operation);
  }
  return memory;
}

}  // namespace zt::detail
