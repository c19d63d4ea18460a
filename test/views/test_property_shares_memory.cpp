// shares_memory against a brute-force oracle, on seeded random pairs of views
// (property_support.hpp says what is generated and how to reproduce a case): of one buffer
// or of two, overlapping, interleaved, broadcast, negative-stride and zero-size, of dtypes of
// different sizes. The oracle enumerates every byte each view touches.
//
// The contract (shares_memory.hpp) is conservative: two views share memory when the byte
// ranges from each one's lowest to its highest reachable byte overlap, so views that
// interleave without touching a common byte count as sharing. The suite checks exactly that
// contract against the enumerated bytes, and that a byte both views touch always counts.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "support/property_support.hpp"
#include "zerotensor/shares_memory.hpp"

using namespace zt_test;
using zt::AnyTensor;
using zt::DType;

namespace {

constexpr int default_cases = 20000;

/// A random view of `dtype` whose every byte lies in `storage`, at a random start aligned for
/// `dtype`; `bytes` is how many bytes of `storage` it may use.
AnyTensor place(std::mt19937_64& rng, DType dtype, const Layout& layout, std::vector<std::uint64_t>& storage,
                index_t bytes) {
  const auto size = index_t(zt::itemsize(dtype));
  const auto align = index_t(zt::alignment(dtype));
  const index_t span = (layout.below + layout.above + 1) * size;
  const index_t start = uniform(rng, 0, (bytes - span) / align) * align;
  auto* first = reinterpret_cast<std::byte*>(storage.data()) + start + layout.below * size;
  return make_tensor(dtype, first, layout, {}, true);
}

/// Every byte address `t` touches, sorted, each once.
std::vector<std::uintptr_t> touched_bytes(const AnyTensor& t) {
  std::vector<std::uintptr_t> bytes;
  const auto base = reinterpret_cast<std::uintptr_t>(t.data_ptr());
  for_each_element(t, [&](index_t offset) {
    for (std::size_t i = 0; i < t.itemsize(); ++i) bytes.push_back(base + std::uintptr_t(offset) + i);
  });
  std::sort(bytes.begin(), bytes.end());
  bytes.erase(std::unique(bytes.begin(), bytes.end()), bytes.end());
  return bytes;
}

bool have_common_byte(const std::vector<std::uintptr_t>& a, const std::vector<std::uintptr_t>& b) {
  for (auto i = a.begin(), j = b.begin(); i != a.end() && j != b.end();) {
    if (*i == *j) return true;
    *i < *j ? ++i : ++j;
  }
  return false;
}

/// Whether the ranges from the lowest to the highest byte of each overlap: the contract.
bool ranges_overlap(const std::vector<std::uintptr_t>& a, const std::vector<std::uintptr_t>& b) {
  return !a.empty() && !b.empty() && a.front() <= b.back() && b.front() <= a.back();
}

/// How many cases fell in each class: the generator must reach all of them.
struct Classes {
  int common_byte = 0;  ///< a byte both touch
  int interleaved = 0;  ///< ranges overlap, no common byte
  int apart = 0;        ///< both non-empty, ranges apart
  int empty = 0;        ///< at least one has no element
};

}  // namespace

BOOST_AUTO_TEST_CASE(shares_memory_agrees_with_the_bytes_each_view_touches) {
  const std::uint64_t seed = property_seed();
  const int cases = property_cases(default_cases);
  Classes classes;
  for (int c = 0; c < cases; ++c) {
    std::mt19937_64 rng = case_rng(seed, c);
    const DType dtype_a = random_dtype(rng), dtype_b = random_dtype(rng);
    const Layout layout_a = random_layout(rng), layout_b = random_layout(rng);
    const auto span_a = (layout_a.below + layout_a.above + 1) * index_t(zt::itemsize(dtype_a));
    const auto span_b = (layout_b.below + layout_b.above + 1) * index_t(zt::itemsize(dtype_b));
    const bool one_buffer = chance(rng, 0.8);
    const index_t bytes = std::max(span_a, span_b) + uniform(rng, 0, 24);
    std::vector<std::uint64_t> first(std::size_t(bytes + 7) / 8), second(one_buffer ? 0 : first.size());
    const AnyTensor a = place(rng, dtype_a, layout_a, first, bytes);
    const AnyTensor b = place(rng, dtype_b, layout_b, one_buffer ? first : second, bytes);
    const std::vector<std::uintptr_t> bytes_a = touched_bytes(a), bytes_b = touched_bytes(b);
    const bool common = have_common_byte(bytes_a, bytes_b), overlap = ranges_overlap(bytes_a, bytes_b);
    BOOST_TEST_CONTEXT("ZT_PROPERTY_SEED=" << seed << " case " << c << (one_buffer ? ", one buffer" : ", two buffers")
                                           << ": a " << describe(a) << " at +"
                                           << (bytes_a.empty() ? 0 : bytes_a.front() - std::uintptr_t(first.data()))
                                           << " (" << layout_a.kind << "), b " << describe(b) << " ("
                                           << layout_b.kind << "); a common byte: " << common) {
      BOOST_TEST(zt::shares_memory(a, b) == overlap);
      BOOST_TEST(zt::shares_memory(b, a) == overlap);
      BOOST_TEST(zt::shares_memory(a, a) == (a.numel() > 0));
      if (common) BOOST_TEST(zt::shares_memory(a, b));
    }
    if (common) ++classes.common_byte;
    else if (overlap) ++classes.interleaved;
    else if (a.numel() > 0 && b.numel() > 0) ++classes.apart;
    else ++classes.empty;
  }
  BOOST_TEST_MESSAGE("shares_memory: " << classes.common_byte << " with a common byte, " << classes.interleaved
                                       << " interleaved, " << classes.apart << " apart, " << classes.empty
                                       << " with an empty view");
  // Fewer cases than the default (ZT_PROPERTY_CASES) may miss a class; the default reaches each.
  if (cases < default_cases) return;
  BOOST_TEST_CONTEXT("ZT_PROPERTY_SEED=" << seed << ", " << cases << " cases") {
    BOOST_TEST(classes.common_byte > 0);
    BOOST_TEST(classes.interleaved > 0);
    BOOST_TEST(classes.apart > 0);
    BOOST_TEST(classes.empty > 0);
  }
}
