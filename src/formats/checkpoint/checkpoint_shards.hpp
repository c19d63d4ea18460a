// Internal: load_checkpoint's shards read in parallel, with prefetch and progress.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <mutex>
#include <vector>

#include "zerotensor/checkpoint.hpp"

namespace zt::detail {

struct ShardFile {
  std::filesystem::path path;
  std::uint64_t size;  ///< bytes, for progress
};

/// Runs a job per shard file on up to `options.threads` threads, each thread on one shard
/// at a time: first, with `options.prefetch`, the whole file is read into the page cache
/// through one buffer per thread; then the job. Progress is reported as `options` say.
/// When jobs throw, the error of the first such shard (in `files` order) is rethrown after
/// every thread has stopped; no new shard is started once one has failed.
class ShardReader {
 public:
  ShardReader(const CheckpointOptions& options, std::vector<ShardFile> files);

  void run(const std::function<void(std::size_t shard)>& job);

 private:
  void prefetch(const ShardFile& file, std::vector<std::byte>& buffer);
  void read_one(std::size_t shard, std::vector<std::byte>& buffer, const std::function<void(std::size_t)>& job);
  void advance(std::uint64_t bytes);

  const CheckpointOptions& options_;
  std::vector<ShardFile> files_;
  std::uint64_t total_ = 0;
  std::uint64_t done_ = 0;
  std::mutex progress_mutex_;
};

}  // namespace zt::detail
