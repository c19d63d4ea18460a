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

  /// `job(shard)` returns how many of the shard's bytes a later copy reads: those are reported
  /// through staged_progress() as that copy reads them, the rest when the job returns.
  void run(const std::function<std::uint64_t(std::size_t shard)>& job);

  /// What reports bytes a later copy read, from its threads; unset when nothing is to be
  /// reported (no progress asked, or prefetch has reported every byte already).
  [[nodiscard]] std::function<void(std::uint64_t bytes)> staged_progress();

 private:
  void prefetch(const ShardFile& file, std::vector<std::byte>& buffer);
  void read_one(std::size_t shard, std::vector<std::byte>& buffer,
                const std::function<std::uint64_t(std::size_t)>& job);
  void advance(std::uint64_t bytes);

  const CheckpointOptions& options_;
  std::vector<ShardFile> files_;
  std::uint64_t total_ = 0;
  std::uint64_t done_ = 0;
  std::mutex progress_mutex_;
};

}  // namespace zt::detail
