#include "zerotensor/storage.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>

namespace zt {
namespace {

constexpr std::size_t storage_alignment = 64;
constexpr std::size_t huge_page_size = std::size_t{2} << 20;

}  // namespace

std::shared_ptr<std::byte> allocate_bytes(std::size_t size_bytes) {
  // Large blocks are rounded to whole huge pages so the kernel can back them with THP:
  // fresh-memory page faults dominate conversion copies otherwise.
  if (size_bytes >= huge_page_size) {
    const std::size_t rounded = (size_bytes + huge_page_size - 1) / huge_page_size * huge_page_size;
    if (rounded < size_bytes) throw std::bad_alloc();
    void* memory = std::aligned_alloc(huge_page_size, rounded);
    if (memory == nullptr) throw std::bad_alloc();
    ::madvise(memory, rounded, MADV_HUGEPAGE);
    return {static_cast<std::byte*>(memory), [](std::byte* p) { std::free(p); }};
  }
  // Smaller blocks share one allocation with their reference count, with room to align their
  // start by hand: glibc's aligned_alloc splits a chunk and frees its head on every call,
  // which costs a small load as much as the rest of its allocations together.
  std::shared_ptr<std::byte[]> block = std::make_shared_for_overwrite<std::byte[]>(size_bytes + storage_alignment);
  const std::uintptr_t address = reinterpret_cast<std::uintptr_t>(block.get());
  std::byte* start = block.get() + (storage_alignment - address % storage_alignment);
  return {std::move(block), start};
}

}  // namespace zt
