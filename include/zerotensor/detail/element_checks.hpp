// The checks every way into typed memory shares (frombuffer, asarray, files, shared memory):
// a view starts at an address aligned for its element type, and bytes that become `bool`
// are 0 or 1 (any other byte is undefined behaviour in C++).
#pragma once

#include <cstddef>
#include <string_view>

#include "zerotensor/dtype.hpp"
#include "zerotensor/export.hpp"
#include "zerotensor/extents.hpp"

namespace zt::detail {

/// ValueError: `operation`'s data at `address` (`offset` bytes in) is not aligned for `dtype`.
[[noreturn]] ZT_API void throw_misaligned(const char* operation, const void* address, index_t offset, DType dtype);

/// ValueError naming the first byte that is not 0 or 1, after `context` when not empty.
ZT_API void check_bool_bytes(const std::byte* bytes, index_t count, std::string_view context = {});

/// A typed view may start only at an address aligned for its element type.
inline void check_alignment(const char* operation, const std::byte* start, index_t offset, DType dtype) {
  if (!is_aligned(start, dtype))
    throw_misaligned(operation, start, offset, dtype);
}

}  // namespace zt::detail
