#include "zerotensor/staging.hpp"

#include <mutex>

#include "zerotensor/error.hpp"
#include "vocabulary/concat.hpp"

namespace zt {
namespace {

std::mutex options_mutex;
StagingOptions current_options;

}  // namespace

void set_staging_options(const StagingOptions& options) {
  if (options.buffer_bytes == 0 || options.buffer_bytes % 64 != 0)
    throw ValueError(detail::concat("set_staging_options: buffer_bytes must be a positive multiple of 64; got ",
                                    options.buffer_bytes));
  if (options.buffers == 0) throw ValueError("set_staging_options: buffers must be at least 1; got 0");
  const std::lock_guard lock(options_mutex);
  current_options = options;
}

StagingOptions staging_options() {
  const std::lock_guard lock(options_mutex);
  return current_options;
}

}  // namespace zt
