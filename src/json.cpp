#include "json.hpp"

#include <algorithm>

#include "concat.hpp"
#include "zerotensor/error.hpp"

namespace zt::detail {

void throw_json_too_deep(std::string_view what, int max_depth) {
  throw ValueError(concat(what, " nests JSON deeper than ", max_depth, " levels"));
}

void throw_json_key_twice(std::string_view what, std::string_view key) {
  throw ValueError(concat(what, " names '", text_prefix(key), "' twice"));
}

void throw_json_invalid(std::string_view what, const nlohmann::detail::exception& error) {
  throw ValueError(concat(what, " is not valid JSON: ", error.what()));
}

bool ObjectKeys::insert(const std::string& key) {
  if (!many_.empty()) return many_.emplace(key.data(), key.size()).second;
  const auto known = few_.begin() + std::ptrdiff_t(count_);
  if (std::find(few_.begin(), known, key) != known) return false;
  if (count_ < few_.size()) {
    few_[count_++] = key;
    return true;
  }
  for (const std::string& name : few_) many_.emplace(name.data(), name.size());
  count_ = 0;
  return many_.emplace(key.data(), key.size()).second;
}

void ObjectKeys::clear() {
  count_ = 0;
  many_.clear();
}

Json* JsonBuilder::place(Json&& value) {
  if (open_.empty()) {
    started_ = true;
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

Json read_json(std::string_view text, int max_depth, std::string_view what) {
  JsonBuilder builder;
  read_json_events(text, max_depth, what, builder);
  return builder.take();
}

std::string text_prefix(std::string_view text, std::size_t limit) {
  return text.size() > limit ? concat(text.substr(0, limit), "…") : std::string(text);
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
