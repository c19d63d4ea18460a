#include "zerotensor/storage.hpp"

#include <sys/mman.h>

#include <cstdlib>
#include <new>

namespace zt {
namespace {

constexpr std::size_t storage_alignment = 64;
constexpr std::size_t huge_page_size = std::size_t{2} << 20;

}  // namespace

std::shared_ptr<std::byte> allocate_bytes(std::size_t size_bytes) {
  // Large blocks are rounded to whole huge pages so the kernel can back them with THP:
  // fresh-memory page faults dominate conversion copies otherwise.
  const bool huge = size_bytes >= huge_page_size;
  const std::size_t align = huge ? huge_page_size : storage_alignment;
  const std::size_t rounded = (size_bytes + align - 1) / align * align;
  if (rounded < size_bytes) throw std::bad_alloc();
  void* memory = std::aligned_alloc(align, rounded == 0 ? align : rounded);
  if (memory == nullptr) throw std::bad_alloc();
  if (huge) ::madvise(memory, rounded, MADV_HUGEPAGE);
  return {static_cast<std::byte*>(memory), [](std::byte* p) { std::free(p); }};
}

}  // namespace zt
