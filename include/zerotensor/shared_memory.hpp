// Named tensors in POSIX shared memory (Boost.Interprocess shared_memory_object), shared
// zero-copy between processes: one process creates a tensor of a given dtype and shape,
// others open it by name and see each other's writes, and someone removes the name when
// done. The segment begins with a small header (magic, version, dtype, shape) that
// open_shared_tensor validates, so a wrong or foreign segment is refused, never misread.
//
// Lifetime: each tensor keeps its own mapping alive, also after remove_shared_tensor (which
// only deletes the name, like unlink). A segment that nobody removes outlives every
// process until reboot.
//
// Synchronisation between writers and readers is the caller's (a pipe, a semaphore,
// waiting for the other process); the tensor is plain memory.
//
// Bool: a created tensor is zero-filled (all false). open_shared_tensor checks that every
// byte of a Bool tensor is 0 or 1 (ValueError naming the first bad one); what other
// processes write later is theirs to keep valid.
#pragma once

#include <span>
#include <string_view>

#include "zerotensor/any_tensor.hpp"
#include "zerotensor/export.hpp"

namespace zt {

struct OpenSharedOptions {
  /// false: map the segment read-only and return a read-only tensor.
  bool writable = true;
};

/// Creates the shared memory segment `name` holding a zero-filled, contiguous, writable
/// tensor of `shape` and `dtype`. ValueError for an empty name, a name containing '/', or
/// a bad shape; IOError (name, OS reason) when the segment exists already or cannot be
/// created or mapped.
[[nodiscard]] ZT_API AnyTensor create_shared_tensor(std::string_view name, std::span<const index_t> shape, DType dtype);

/// Opens the tensor another process created under `name`, sharing its memory. IOError when
/// there is no such segment or it cannot be mapped; ValueError when the segment is not a
/// zerotensor tensor (too small, bad magic or version, a header inconsistent with the size).
[[nodiscard]] ZT_API AnyTensor open_shared_tensor(std::string_view name, OpenSharedOptions options = {});

/// Deletes the name; existing mappings stay valid. False when there was no such segment.
ZT_API bool remove_shared_tensor(std::string_view name);

}  // namespace zt
