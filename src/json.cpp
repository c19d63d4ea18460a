#include "json.hpp"

#include <utility>
#include <vector>

#include "zerotensor/error.hpp"

namespace zt::detail {
namespace {

/// Builds the document from nlohmann-json's SAX events, checking depth and keys as they come.
class StrictBuilder {
 public:
  StrictBuilder(int max_depth, std::string_view what) : max_depth_(max_depth), what_(what) {}

  bool null() { return add(nullptr); }
  bool boolean(bool value) { return add(value); }
  bool number_integer(Json::number_integer_t value) { return add(value); }
  bool number_unsigned(Json::number_unsigned_t value) { return add(value); }
  bool number_float(Json::number_float_t value, const Json::string_t&) { return add(value); }
  bool string(Json::string_t& value) { return add(std::move(value)); }
  bool binary(Json::binary_t& value) { return add(std::move(value)); }

  bool start_object(std::size_t) { return open(Json::object()); }
  bool start_array(std::size_t) { return open(Json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(Json::string_t& name) {
    if (open_.back()->contains(name))
      throw ValueError(concat(what_, " names '", name.substr(0, 48), name.size() > 48 ? "…'" : "'", " twice"));
    key_ = std::move(name);
    return true;
  }

  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& error) {
    throw ValueError(concat(what_, " is not valid JSON: ", error.what()));
  }

  Json result() { return std::move(root_); }

 private:
  /// Places a value in the container being read (or as the root); returns where it lies.
  Json* place(Json&& value) {
    if (open_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    Json& container = *open_.back();
    if (container.is_array()) {
      container.push_back(std::move(value));
      return &container.back();
    }
    return &(container[std::move(key_)] = std::move(value));
  }

  bool add(Json&& value) {
    place(std::move(value));
    return true;
  }

  bool open(Json&& container) {
    if (int(open_.size()) == max_depth_)
      throw ValueError(concat(what_, " nests JSON deeper than ", max_depth_, " levels"));
    open_.push_back(place(std::move(container)));
    return true;
  }

  bool close() {
    open_.pop_back();
    return true;
  }

  int max_depth_;
  std::string_view what_;
  Json root_;
  std::vector<Json*> open_;  // the containers being read, outermost first
  std::string key_;          // the key of the object member read next
};

}  // namespace

Json read_json(std::string_view text, int max_depth, std::string_view what) {
  StrictBuilder builder(max_depth, what);
  Json::sax_parse(text.begin(), text.end(), &builder);
  return builder.result();
}

std::string json_prefix(const Json& value, std::size_t limit) {
  std::string text;
  if (value.is_string()) {
    text = Json(value.get_ref<const std::string&>().substr(0, limit)).dump();
  } else if (!value.is_structured()) {
    text = value.dump();
  } else {
    const bool array = value.is_array();
    text = array ? "[" : "{";
    for (auto item = value.begin(); item != value.end() && text.size() <= limit; ++item) {
      if (item != value.begin()) text += ',';
      if (!array) text += Json(item.key()).dump() + ':';
      text += json_prefix(*item, limit);
    }
    text += array ? ']' : '}';
  }
  if (text.size() > limit) text.replace(limit, std::string::npos, "…");
  return text;
}

}  // namespace zt::detail
