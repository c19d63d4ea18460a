// zt::map_file: the one place zerotensor maps a file into memory (Boost.Interprocess
// file_mapping + mapped_region). Everything file-backed — from_file, load_npy,
// load_safetensors — maps through here and gets a Buffer whose owner is the mapping, so
// the mapping lives exactly as long as any view of it.
//
// The file's size is checked before mapping: Boost maps past the end of a file without
// complaint, and touching that memory kills the process with SIGBUS. Zero bytes are never
// mapped: an empty request gives an empty Buffer with no mapping.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "zerotensor/buffer.hpp"
#include "zerotensor/export.hpp"
#include "zerotensor/path_ref.hpp"

namespace zt {

/// How the mapped bytes may be used.
enum class MapAccess : std::uint8_t {
  read_only,      ///< PROT_READ: the Buffer is read-only; the file is opened read-only
  copy_on_write,  ///< MAP_PRIVATE: writable; writes stay in this process and never reach the file
  shared,         ///< MAP_SHARED read-write: writes reach the file and every other mapping of it
};

struct MapFileOptions {
  MapAccess access = MapAccess::read_only;
  /// Bytes to map from the start of the file; unset: the whole file.
  std::optional<std::size_t> length{};
  /// Shared access only: create a missing file (mode 0600) and grow a shorter one to
  /// `length` with zero bytes, keeping every existing byte (PyTorch overwrites the first).
  bool create = false;
};

/// Maps `path` as `options` say. IOError (path, mode, OS reason) when the file cannot be
/// opened or mapped or is not a regular file; ValueError "file <p> size <S> is smaller than
/// the required mapping size <N>" when it is too short; ValueError for `create` without
/// shared access. The Buffer is read-only exactly when the access is read_only.
[[nodiscard]] ZT_API Buffer map_file(PathRef path, MapFileOptions options = {});

}  // namespace zt
