// Internal: a whole file read into memory of its own with pread, for the loaders' copy = true
// (a copy needs no mapping: mapping and unmapping a small file costs more than reading it).
#pragma once

#include "zerotensor/buffer.hpp"
#include "zerotensor/path_ref.hpp"

namespace zt::detail {

/// Every byte of the file at `path`, in writable memory of its own (allocate_bytes: 64-byte
/// aligned, so offsets into it are aligned as they are in a mapping). IOError with the path
/// and the OS reason for a file that cannot be opened or read (a directory included), a
/// file of 4 KiB or more that is not regular, and one that shrinks while it is read.
Buffer read_file(PathRef path);

}  // namespace zt::detail
