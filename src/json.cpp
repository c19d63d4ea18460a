#include "json.hpp"

#include <algorithm>
#include <array>
#include <unordered_set>
#include <vector>

#include "concat.hpp"
#include "zerotensor/error.hpp"

namespace zt::detail {

void throw_json_too_deep(std::string_view what, int max_depth) {
  throw ValueError(concat(what, " nests JSON deeper than ", max_depth, " levels"));
}

void throw_json_key_twice(std::string_view what, std::string_view key) {
  throw ValueError(concat(what, " names '", text_prefix(key), "' twice"));
}

void throw_json_invalid(std::string_view what, simdjson::error_code error, int max_depth) {
  // Every reader's limit is far below simdjson's own (1024 levels), which is then passed too.
  if (error == simdjson::DEPTH_ERROR) throw_json_too_deep(what, max_depth);
  throw ValueError(concat(what, " is not valid JSON: ", simdjson::error_message(error),
                          error == simdjson::NUMBER_ERROR ? " (integers must fit 64 bits)" : ""));
}

namespace {

/// This thread's parser and the padded copy of its text: simdjson reads up to
/// SIMDJSON_PADDING bytes past the end, which a mapping need not have.
struct ThreadParser {
  std::vector<char> padded;
  simdjson::dom::parser parser;
};

thread_local ThreadParser thread_parser;

/// Gives a parser made large by a large document its memory back.
void release_if_large() {
  constexpr std::size_t kept_bytes = std::size_t{1} << 20;
  if (thread_parser.padded.capacity() > kept_bytes) thread_parser = ThreadParser();
}

}  // namespace

ParsedJson::ParsedJson(std::string_view text, int max_depth, std::string_view what) {
  ThreadParser& state = thread_parser;
  state.padded.resize(text.size() + simdjson::SIMDJSON_PADDING);
  std::copy(text.begin(), text.end(), state.padded.begin());
  const simdjson::error_code error = state.parser.parse(state.padded.data(), text.size(), false).get(root_);
  if (error == simdjson::SUCCESS) return;
  release_if_large();
  throw_json_invalid(what, error, max_depth);
}

ParsedJson::~ParsedJson() { release_if_large(); }

void check_unique_keys(simdjson::dom::object object, std::string_view what) {
  constexpr std::size_t few = 16;  // a tensor's fields, an extension's parameters
  const std::size_t size = object.size();
  if (size <= 1) return;
  if (size <= few) {
    std::array<std::string_view, few> seen;
    std::size_t count = 0;
    for (const simdjson::dom::key_value_pair member : object) {
      for (std::size_t i = 0; i < count; ++i)
        if (seen[i] == member.key) throw_json_key_twice(what, member.key);
      seen[count++] = member.key;
    }
    return;
  }
  std::unordered_set<std::string_view> seen;  // a header's tensor names: views of the document's strings
  seen.reserve(size);
  for (const simdjson::dom::key_value_pair member : object)
    if (!seen.insert(member.key).second) throw_json_key_twice(what, member.key);
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
