// Internal: a sharded checkpoint's index file (model.safetensors.index.json), read strictly.
#pragma once

#include <map>
#include <string>

#include "zerotensor/path_ref.hpp"

namespace zt::detail {

struct CheckpointIndex {
  std::map<std::string, std::string, std::less<>> shard_of;  ///< "weight_map": tensor -> shard file name
  std::map<std::string, std::string, std::less<>> metadata;  ///< strings as read, other values as JSON text
};

/// Reads the index at `path` through the one JSON reader (duplicate keys, nesting deeper
/// than 3 levels and malformed JSON refused) and checks it: an object whose "weight_map"
/// is an object of plain shard file names and whose "metadata", when present, is an object.
/// ValueErrors begin with `description`; IOError when the file cannot be mapped.
CheckpointIndex read_checkpoint_index(PathRef path, const std::string& description);

}  // namespace zt::detail
