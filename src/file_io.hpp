// Internal: the one way an operating-system error becomes zt::IOError, and plain file
// output for the format writers (save_npy, save_safetensors).
#pragma once

#include <filesystem>
#include <span>
#include <string_view>
#include <vector>

namespace zt::detail {

/// Throws IOError "<context>: <OS reason> (<errno>)"; `context` names the path and the operation.
[[noreturn]] void throw_io_error(std::string_view context, int os_error);

/// The same for a library error (Boost.Interprocess) that may carry no OS error number;
/// then `message` gives the reason.
[[noreturn]] void throw_io_error(std::string_view context, int os_error, std::string_view message);

/// Creates or truncates `path` and writes `parts` one after another. IOError with the path
/// and the OS reason when any step fails; a failed write leaves a partial file behind.
void write_file(const std::filesystem::path& path, const std::vector<std::span<const std::byte>>& parts);

}  // namespace zt::detail
