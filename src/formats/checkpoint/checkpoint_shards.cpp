#include "formats/checkpoint/checkpoint_shards.hpp"

#include <fcntl.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <exception>
#include <thread>

#include "vocabulary/concat.hpp"
#include "memory/file_io.hpp"

namespace zt::detail {
namespace {

constexpr unsigned max_default_threads = 16;

/// The shard threads: as asked, or by default the hardware's threads (at most 16) for a load
/// into host memory and one for a load elsewhere, whose staged copy has host threads of its own
/// and a bounded set of pinned buffers that concurrent copies would each allocate anew.
unsigned thread_count(const CheckpointOptions& options, std::size_t shards) {
  const unsigned hardware = std::min(std::max(std::thread::hardware_concurrency(), 1u), max_default_threads);
  const unsigned wanted = options.threads != 0 ? options.threads : options.device == cpu ? hardware : 1;
  return unsigned(std::max<std::size_t>(1, std::min<std::size_t>(wanted, shards)));
}

}  // namespace

ShardReader::ShardReader(const CheckpointOptions& options, std::vector<ShardFile> files)
    : options_(options), files_(std::move(files)) {
  for (const ShardFile& file : files_) total_ += file.size;
}

void ShardReader::advance(std::uint64_t bytes) {
  if (!options_.progress) return;
  const std::lock_guard lock(progress_mutex_);
  done_ += bytes;
  options_.progress(done_, total_);
}

void ShardReader::prefetch(const ShardFile& file, std::vector<std::byte>& buffer) {
  const InputFile in(file.path);
  if (in.open_error() != 0)
    throw_io_error(concat("load_checkpoint: unable to open file <", file.path.native(), "> to prefetch"),
                   in.open_error());
  ::posix_fadvise(in.descriptor(), 0, 0, POSIX_FADV_SEQUENTIAL);
  buffer.resize(std::max<std::size_t>(options_.prefetch_chunk, 1));
  for (std::uint64_t offset = 0;;) {
    const ssize_t got = in.read_some(offset, buffer);
    if (got < 0) throw_io_error(concat("load_checkpoint: unable to read file <", file.path.native(), ">"), errno);
    if (got == 0) return;
    offset += std::uint64_t(got);
    advance(std::uint64_t(got));
  }
}

std::function<void(std::uint64_t)> ShardReader::staged_progress() {
  if (!options_.progress || options_.prefetch) return {};
  return [this](std::uint64_t bytes) { advance(bytes); };
}

void ShardReader::read_one(std::size_t shard, std::vector<std::byte>& buffer,
                           const std::function<std::uint64_t(std::size_t)>& job) {
  if (options_.prefetch) prefetch(files_[shard], buffer);  // closes the file before the job opens it
  const std::uint64_t later = job(shard);
  if (!options_.prefetch) advance(files_[shard].size - later);
}

void ShardReader::run(const std::function<std::uint64_t(std::size_t)>& job) {
  std::vector<std::exception_ptr> errors(files_.size());
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  const auto work = [&] {
    std::vector<std::byte> buffer;
    for (std::size_t shard; !failed && (shard = next++) < files_.size();) {
      try {
        read_one(shard, buffer, job);
      } catch (...) {
        errors[shard] = std::current_exception();
        failed = true;
      }
    }
  };
  {
    std::vector<std::jthread> helpers;
    for (unsigned i = 1; i < thread_count(options_, files_.size()); ++i) helpers.emplace_back(work);
    work();
  }
  for (const std::exception_ptr& error : errors)
    if (error) std::rethrow_exception(error);
}

}  // namespace zt::detail
