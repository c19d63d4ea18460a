#include "formats/checkpoint/checkpoint_index.hpp"

#include "vocabulary/concat.hpp"
#include "vocabulary/json.hpp"
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

/// Reads the index's document (ParsedJson has checked its nesting and keys): "weight_map"'s
/// members go into `index_.shard_of`, "metadata"'s into `index_.metadata`; other members of
/// the root are not ours to judge.
class IndexReader {
 public:
  IndexReader(const std::string& description, CheckpointIndex& index) : description_(description), index_(index) {}

  void read(simdjson::dom::element root) const {
    simdjson::dom::object members;
    if (root.get(members) != simdjson::SUCCESS)
      fail("the index must be a JSON object; found ", json_type_name(root));
    bool has_weight_map = false;
    for (const simdjson::dom::key_value_pair member : members) {
      if (member.key == "weight_map") {
        weight_map(member.value);
        has_weight_map = true;
      } else if (member.key == "metadata") {
        metadata(member.value);
      }
    }
    if (!has_weight_map) fail("the index has no \"weight_map\"");
  }

 private:
  template <class... Parts>
  [[noreturn]] void fail(const Parts&... parts) const {
    throw ValueError(concat(description_, ": ", parts...));
  }

  void weight_map(simdjson::dom::element value) const {
    simdjson::dom::object members;
    if (value.get(members) != simdjson::SUCCESS)
      fail("\"weight_map\" must be an object; found ", json_type_name(value));
    for (const simdjson::dom::key_value_pair member : members) {
      std::string_view file;
      if (member.value.get(file) != simdjson::SUCCESS)
        fail("\"weight_map\" value for tensor '", text_prefix(member.key),
             "' must be a string (a shard file name); found ", json_type_name(member.value));
      if (!plain_file_name(file))
        fail("tensor '", text_prefix(member.key), "' names shard '", text_prefix(file),
             "', which is not a plain file name in the index's directory (no '/', no '..')");
      index_.shard_of.emplace(member.key, file);
    }
  }

  /// Each value as its text: a string's characters, any other value as minified JSON.
  void metadata(simdjson::dom::element value) const {
    simdjson::dom::object members;
    if (value.get(members) != simdjson::SUCCESS)
      fail("\"metadata\" must be an object; found ", json_type_name(value));
    for (const simdjson::dom::key_value_pair member : members) {
      std::string_view text;
      index_.metadata.emplace(member.key, member.value.get(text) == simdjson::SUCCESS ? std::string(text)
                                                                                     : simdjson::minify(member.value));
    }
  }

  const std::string& description_;
  CheckpointIndex& index_;
};

}  // namespace

CheckpointIndex read_checkpoint_index(PathRef path, const std::string& description) {
  const Buffer mapping = map_file(path);
  if (mapping.nbytes() > max_index_size)
    throw ValueError(concat(description, ": ", mapping.nbytes(), " bytes exceed the limit of ", max_index_size,
                            " bytes for an index"));
  const auto bytes = mapping.bytes();
  CheckpointIndex index;
  const ParsedJson document({reinterpret_cast<const char*>(bytes.data()), bytes.size()}, max_index_depth, description);
  IndexReader(description, index).read(document.root());
  return index;
}

}  // namespace zt::detail
