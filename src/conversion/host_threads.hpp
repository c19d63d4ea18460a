// Internal: how a host copy runs on threads and which destinations it may split, as
// ToOptions::threads documents: copy_into and dequantize_into share it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <system_error>
#include <thread>
#include <vector>

#include "zerotensor/any_tensor.hpp"
#include "zerotensor/extents.hpp"

namespace zt::detail {

/// Threads for a host copy writing `output_bytes`: as many as asked (0: one per hardware
/// thread), but no more than one per MiB of output, so that starting a thread (tens of
/// microseconds) stays small against its share of the copy.
inline unsigned host_copy_threads(std::size_t output_bytes, unsigned asked) {
  constexpr std::size_t copy_bytes_per_thread = std::size_t{1} << 20;
  if (asked == 0) asked = std::max(1u, std::thread::hardware_concurrency());
  return unsigned(std::min<std::size_t>(asked, std::max<std::size_t>(1, output_bytes / copy_bytes_per_thread)));
}

/// Runs `work(begin, count)` over [0, extent) in min(threads, extent) near-equal parts in
/// order, one per thread: the calling thread takes the last, and a thread that cannot be
/// started leaves its part to the caller. Every thread is joined before it returns; `work`
/// must not throw.
template <class Work>
void run_in_parts(index_t extent, unsigned threads, const Work& work) {
  const index_t parts = std::max<index_t>(1, std::min(index_t(threads), extent));
  std::vector<std::jthread> workers;  // joined when this returns
  index_t begin = 0;
  for (index_t part = 0; part < parts; ++part) {
    const index_t count = extent / parts + (part < extent % parts ? 1 : 0);
    if (part + 1 == parts) {
      work(begin, count);
      break;
    }
    try {
      workers.emplace_back([&work, begin, count] { work(begin, count); });
    } catch (const std::system_error&) {
      work(begin, count);
    }
    begin += count;
  }
}

/// Whether no two elements of `view` share memory, by a sufficient test: ordered by stride,
/// each dimension steps past everything the smaller ones reach (convert.cpp).
bool provably_distinct_elements(const AnyTensor& view);

/// PyTorch's assert_no_internal_overlap: ValueError, the message starting with `operation`,
/// for a destination whose elements are the same memory (an extent above 1 with stride 0,
/// as expand() makes), which would be written more than once (convert.cpp).
void refuse_internal_overlap(const char* operation, const AnyTensor& destination);

}  // namespace zt::detail
