#include "checkpoint_index.hpp"

#include "json.hpp"
#include "zerotensor/error.hpp"
#include "zerotensor/mapped_file.hpp"

namespace zt::detail {
namespace {

constexpr std::uint64_t max_index_size = 100'000'000;  // as a safetensors header
constexpr int max_index_depth = 3;  // {"metadata": {"key": value}}: a value may be one flat container

/// A shard named by a plain file name in the index's directory: not empty, no '/' (so no
/// absolute path and no subdirectory), not "." or "..", and no NUL (which would end the
/// path early).
bool plain_file_name(std::string_view name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string_view::npos &&
         name.find('\0') == std::string_view::npos;
}

std::string short_name(std::string_view text) {
  return text.size() > 48 ? concat(text.substr(0, 48), "…") : std::string(text);
}

}  // namespace

CheckpointIndex read_checkpoint_index(PathRef path, const std::string& description) {
  const Buffer mapping = map_file(path);
  if (mapping.nbytes() > max_index_size)
    throw ValueError(concat(description, ": ", mapping.nbytes(), " bytes exceed the limit of ", max_index_size,
                            " bytes for an index"));
  const auto bytes = mapping.bytes();
  const Json index = read_json({reinterpret_cast<const char*>(bytes.data()), bytes.size()}, max_index_depth,
                               description);
  const auto fail = [&](const auto&... what) { throw ValueError(concat(description, ": ", what...)); };
  if (!index.is_object()) fail("the index must be a JSON object; found ", index.type_name());

  CheckpointIndex result;
  if (const auto metadata = index.find("metadata"); metadata != index.end()) {
    if (!metadata->is_object()) fail("\"metadata\" must be an object; found ", metadata->type_name());
    for (const auto& [key, value] : metadata->items())
      result.metadata.emplace(key, value.is_string() ? value.get<std::string>() : value.dump());
  }
  const auto weight_map = index.find("weight_map");
  if (weight_map == index.end()) fail("the index has no \"weight_map\"");
  if (!weight_map->is_object()) fail("\"weight_map\" must be an object; found ", weight_map->type_name());
  for (const auto& [name, shard] : weight_map->items()) {
    if (!shard.is_string())
      fail("\"weight_map\" gives tensor '", short_name(name), "' a ", shard.type_name(), ", not a shard file name");
    const auto& file = shard.get_ref<const std::string&>();
    if (!plain_file_name(file))
      fail("tensor '", short_name(name), "' names shard '", short_name(file),
           "', which is not a plain file name in the index's directory (no '/', no '..')");
    result.shard_of.emplace(name, file);
  }
  return result;
}

}  // namespace zt::detail
