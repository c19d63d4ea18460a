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
  if (rounded < size_bytes) throw ValueError(detail::concat("cannot allocate ", size_bytes, " bytes"));
  void* memory = std::aligned_alloc(align, rounded == 0 ? align : rounded);
  if (memory == nullptr)
    throw ValueError(detail::concat("out of memory allocating ", size_bytes, " bytes"));
  if (huge) ::madvise(memory, rounded, MADV_HUGEPAGE);
  return {static_cast<std::byte*>(memory), [](std::byte* p) { std::free(p); }};
}

namespace detail {

void throw_bad_shape(std::span<const index_t> shape, std::size_t itemsize) {
  index_t count = 1;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 0)
      throw ValueError(concat("negative extent ", shape[d], " in dimension ", d, " of shape ", shape_string(shape)));
    if (__builtin_mul_overflow(count, shape[d], &count))
      throw ValueError(concat("shape ", shape_string(shape), " has more than 2^63 elements"));
  }
  throw ValueError(
      concat("shape ", shape_string(shape), " of ", itemsize, "-byte elements needs more than 2^63 bytes"));
}

AnyTensor owning_view(std::shared_ptr<std::byte> memory, std::span<const index_t> shape, DType dtype,
                      Device device) {
  std::byte* data = memory.get();
  return make_view(dtype, data, shape, contiguous_strides(DynamicExtents(shape)), std::move(memory), device, true);
}

}  // namespace detail

AnyTensor empty(std::span<const index_t> shape, DType dtype) {
  const index_t count = checked_numel(shape, itemsize(dtype));
  return detail::owning_view(allocate_bytes(std::size_t(count) * itemsize(dtype)), shape, dtype, cpu);
}

}  // namespace zt
