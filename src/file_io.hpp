// Internal: the one way an operating-system error becomes zt::IOError, and plain file
// output for the format writers (save_npy, save_safetensors).
#pragma once

#include <filesystem>
#include <span>
#include <string_view>
#include <vector>

#include "zerotensor/path_ref.hpp"

namespace zt::detail {

/// Throws IOError "<context>: <OS reason> (<errno>)"; `context` names the path and the operation.
[[noreturn]] void throw_io_error(std::string_view context, int os_error);

/// The same for a library error (Boost.Interprocess) that may carry no OS error number;
/// then `message` gives the reason.
[[noreturn]] void throw_io_error(std::string_view context, int os_error, std::string_view message);

/// Writes `parts` one after another to a temporary file beside `path` and renames it over
/// `path` (the target of a symbolic link): atomic and durable. Readers and mappings of the
/// old file keep its contents; the new file keeps the old one's permissions, and its owner
/// when the caller is root (a new file gets 0666 less the umask). No other user can read
/// the temporary file while it is written, and where the filesystem has O_TMPFILE (and /proc
/// is mounted, to name it) it has no name until it is complete. IOError with the path, the temporary file and the OS
/// reason when any step fails; then the old file is untouched and the temporary file removed.
void write_file(PathRef path, const std::vector<std::span<const std::byte>>& parts);

}  // namespace zt::detail
