// The pool of idle staging buffers (src/memory/staging_pool.hpp) with counted fake buffers, on any
// machine: which buffers a copy gets, which it gives back, and that a failed allocation
// frees none of those the pool held.
#include <boost/test/unit_test.hpp>

#include <cstddef>
#include <memory>
#include <set>
#include <stdexcept>
#include <vector>

#include "memory/staging_pool.hpp"
#include "support/message_check.hpp"

namespace {

/// Counts the buffers freed.
struct CountingFree {
  int* freed;
  void operator()(std::byte* buffer) const noexcept {
    ++*freed;
    delete[] buffer;
  }
};
using FakeBuffer = std::unique_ptr<std::byte, CountingFree>;
using Pool = zt::detail::StagingPool<FakeBuffer>;

/// An allocator of fake buffers that counts its allocations and fails the `fail_at`-th (from 0).
struct FakeAllocate {
  int* freed;
  int allocated = 0;
  int fail_at = -1;
  FakeBuffer operator()(std::size_t bytes) {
    if (allocated == fail_at) throw std::runtime_error("no pinned memory left");
    ++allocated;
    return FakeBuffer(new std::byte[bytes], CountingFree{freed});
  }
};

std::set<const std::byte*> addresses(const std::vector<FakeBuffer>& buffers) {
  std::set<const std::byte*> out;
  for (const FakeBuffer& buffer : buffers) out.insert(buffer.get());
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(staging_pool)

BOOST_AUTO_TEST_CASE(idle_buffers_are_taken_before_new_ones) {
  int freed = 0;
  Pool pool;
  FakeAllocate allocate{&freed};
  std::vector<FakeBuffer> first = pool.take(3, 64, allocate);
  BOOST_TEST(allocate.allocated == 3);
  const std::set<const std::byte*> kept = addresses(first);
  pool.give_back(first, 64, 4);
  std::vector<FakeBuffer> second = pool.take(4, 64, allocate);
  BOOST_TEST(allocate.allocated == 4);  // three idle ones, one new
  std::set<const std::byte*> now = addresses(second);
  for (const std::byte* address : kept) BOOST_TEST(now.count(address) == 1u);
  BOOST_TEST(freed == 0);
}

BOOST_AUTO_TEST_CASE(give_back_keeps_at_most_keep_and_a_new_size_frees_the_idle_ones) {
  int freed = 0;
  Pool pool;
  FakeAllocate allocate{&freed};
  {
    std::vector<FakeBuffer> buffers = pool.take(3, 64, allocate);
    pool.give_back(buffers, 64, 2);  // one freed with the vector
  }
  BOOST_TEST(freed == 1);
  std::vector<FakeBuffer> bigger = pool.take(1, 128, allocate);
  BOOST_TEST(freed == 3);  // the two idle 64-byte buffers
  BOOST_TEST(allocate.allocated == 4);
  std::vector<FakeBuffer> small = pool.take(1, 64, allocate);  // the size changes again
  pool.give_back(bigger, 128, 4);  // a size no longer in use: not kept
  bigger.clear();
  BOOST_TEST(freed == 4);
}

BOOST_AUTO_TEST_CASE(a_failed_allocation_keeps_the_idle_buffers_it_had_taken) {
  // Two idle buffers, a copy that needs four: the second new one fails. The idle buffers go
  // back to the pool instead of being freed, and the next copy finds them there.
  int freed = 0;
  Pool pool;
  FakeAllocate allocate{&freed};
  std::vector<FakeBuffer> first = pool.take(2, 64, allocate);
  const std::set<const std::byte*> idle = addresses(first);
  pool.give_back(first, 64, 4);
  allocate.fail_at = 3;
  BOOST_CHECK_EXCEPTION(static_cast<void>(pool.take(4, 64, allocate)), std::runtime_error,
                        with_message<std::runtime_error>("no pinned memory left"));
  BOOST_TEST(allocate.allocated == 3);
  BOOST_TEST(freed == 0);  // the new buffer of the failed take is kept too: the pool holds up to four
  allocate.fail_at = -1;
  std::vector<FakeBuffer> next = pool.take(4, 64, allocate);
  BOOST_TEST(allocate.allocated == 4);  // three from the pool, one new
  const std::set<const std::byte*> now = addresses(next);
  for (const std::byte* address : idle) BOOST_TEST(now.count(address) == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
