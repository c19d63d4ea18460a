#include "checkpoint_index.hpp"

#include "concat.hpp"
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

/// The index's JSON events: the members of "weight_map" go straight into the result (an
/// index lists tens of thousands), every other member of the root object is read as a
/// small document.
class IndexEvents : public CapturingJsonEvents<IndexEvents> {
 public:
  IndexEvents(const std::string& description, CheckpointIndex& index) : description_(description), index_(index) {}

  bool string(std::string_view v) {
    if (!capturing() && level_ == 2) return shard(v);
    return CapturingJsonEvents::string(v);
  }
  bool start_object(std::size_t n) {
    if (!capturing() && (level_ == 0 || (level_ == 1 && member_ == "weight_map"))) {
      has_weight_map_ = has_weight_map_ || level_ == 1;
      ++level_;
      return true;
    }
    return capture_object(n);
  }
  bool key(std::string_view name) {
    if (capturing()) return capture_key(name);
    (level_ == 1 ? member_ : tensor_) = name;  // a copy: the event's string lasts only while it runs
    return true;
  }
  bool end_object() {
    if (capturing()) return capture_end_object();
    if (--level_ == 0 && !has_weight_map_) fail("the index has no \"weight_map\"");
    return true;
  }

  /// A value outside "weight_map"'s members starts: any member of the root but "weight_map"'s own.
  void start_capture(const char* type) const {
    if (level_ == 0) fail("the index must be a JSON object; found ", type);
    if (level_ == 2)
      fail("\"weight_map\" value for tensor '", text_prefix(tensor_), "' must be a string (a shard file name); found ",
           type);
  }

  void captured(const Json& value) const {
    if (member_ == "weight_map") fail("\"weight_map\" must be an object; found ", value.type_name());
    if (member_ != "metadata") return;  // other members are not ours to judge
    if (!value.is_object()) fail("\"metadata\" must be an object; found ", value.type_name());
    for (const auto& [key, item] : value.items())
      index_.metadata.emplace(key, item.is_string() ? item.get<std::string>() : item.dump());
  }

 private:
  template <class... Parts>
  [[noreturn]] void fail(const Parts&... parts) const {
    throw ValueError(concat(description_, ": ", parts...));
  }

  bool shard(std::string_view file) {
    if (!plain_file_name(file))
      fail("tensor '", text_prefix(tensor_), "' names shard '", text_prefix(file),
           "', which is not a plain file name in the index's directory (no '/', no '..')");
    index_.shard_of.emplace(std::move(tensor_), file);
    return true;
  }

  const std::string& description_;
  CheckpointIndex& index_;
  int level_ = 0;           // the root (1) and "weight_map" (2) open outside any captured document
  bool has_weight_map_ = false;
  std::string member_;  // the root's member being read
  std::string tensor_;  // the "weight_map" member being read
};

}  // namespace

CheckpointIndex read_checkpoint_index(PathRef path, const std::string& description) {
  const Buffer mapping = map_file(path);
  if (mapping.nbytes() > max_index_size)
    throw ValueError(concat(description, ": ", mapping.nbytes(), " bytes exceed the limit of ", max_index_size,
                            " bytes for an index"));
  const auto bytes = mapping.bytes();
  CheckpointIndex index;
  IndexEvents events(description, index);
  read_json_events({reinterpret_cast<const char*>(bytes.data()), bytes.size()}, max_index_depth, description,
                   events);
  return index;
}

}  // namespace zt::detail
