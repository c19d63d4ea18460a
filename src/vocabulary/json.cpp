#include "vocabulary/json.hpp"

#include <array>
#include <unordered_set>
#include <vector>

#include "vocabulary/concat.hpp"
#include "zerotensor/error.hpp"

namespace zt::detail {
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

[[noreturn]] void throw_too_deep(std::string_view what, int max_depth) {
  throw ValueError(concat(what, " nests JSON deeper than ", max_depth, " levels"));
}

[[noreturn]] void throw_invalid(std::string_view what, simdjson::error_code error, int max_depth) {
  // Every reader's limit is far below simdjson's own (1024 levels), which is then passed too.
  if (error == simdjson::DEPTH_ERROR) throw_too_deep(what, max_depth);
  throw ValueError(concat(what, " is not valid JSON: ", simdjson::error_message(error),
                          error == simdjson::NUMBER_ERROR ? " (integers must fit 64 bits)" : ""));
}

/// ValueError naming the first key of `object` that it gives twice: keys compared in order
/// while the object has few, hashed when it has many.
void check_unique_keys(simdjson::dom::object object, std::string_view what) {
  const auto refuse = [what](std::string_view key) {
    throw ValueError(concat(what, " names '", text_prefix(key), "' twice"));
  };
  constexpr std::size_t few = 16;  // a tensor's fields, an extension's parameters
  const std::size_t size = object.size();
  if (size <= 1) return;
  if (size <= few) {
    std::array<std::string_view, few> seen;
    std::size_t count = 0;
    for (const simdjson::dom::key_value_pair member : object) {
      for (std::size_t i = 0; i < count; ++i)
        if (seen[i] == member.key) refuse(member.key);
      seen[count++] = member.key;
    }
    return;
  }
  std::unordered_set<std::string_view> seen;  // a header's tensor names: views of the document's strings
  seen.reserve(size);
  for (const simdjson::dom::key_value_pair member : object)
    if (!seen.insert(member.key).second) refuse(member.key);
}

/// Refuses, in document order, a container at level `max_depth + 1` or deeper and an object
/// that names a key twice; `depth` containers are open around `value`.
void check_limits(simdjson::dom::element value, int max_depth, std::string_view what, int depth) {
  const simdjson::dom::element_type type = value.type();
  if (type != simdjson::dom::element_type::ARRAY && type != simdjson::dom::element_type::OBJECT) return;
  if (depth == max_depth) throw_too_deep(what, max_depth);
  if (type == simdjson::dom::element_type::ARRAY) {
    const simdjson::dom::array array = value.get_array().value_unsafe();
    for (const simdjson::dom::element item : array) check_limits(item, max_depth, what, depth + 1);
    return;
  }
  const simdjson::dom::object object = value.get_object().value_unsafe();
  check_unique_keys(object, what);
  for (const simdjson::dom::key_value_pair member : object) check_limits(member.value, max_depth, what, depth + 1);
}

}  // namespace

ParsedJson::ParsedJson(std::string_view text, int max_depth, std::string_view what) {
  ThreadParser& state = thread_parser;
  state.padded.resize(text.size() + simdjson::SIMDJSON_PADDING);
  std::copy(text.begin(), text.end(), state.padded.begin());
  const simdjson::error_code error = state.parser.parse(state.padded.data(), text.size(), false).get(root_);
  try {
    if (error != simdjson::SUCCESS) throw_invalid(what, error, max_depth);
    check_limits(root_, max_depth, what, 0);
  } catch (...) {  // no destructor runs for a constructor that throws
    release_if_large();
    throw;
  }
}

ParsedJson::~ParsedJson() { release_if_large(); }

const char* json_type_name(simdjson::dom::element value) {
  switch (value.type()) {
    case simdjson::dom::element_type::OBJECT: return "object";
    case simdjson::dom::element_type::ARRAY: return "array";
    case simdjson::dom::element_type::STRING: return "string";
    case simdjson::dom::element_type::BOOL: return "boolean";
    case simdjson::dom::element_type::NULL_VALUE: return "null";
    default: return "number";  // INT64, UINT64, DOUBLE
  }
}

std::string text_prefix(std::string_view text, std::size_t limit) {
  return text.size() > limit ? concat(text.substr(0, limit), "…") : std::string(text);
}

std::string json_prefix(simdjson::dom::element value, std::size_t limit) {
  std::string text = simdjson::minify(value);
  if (text.size() > limit) text.replace(limit, std::string::npos, "…");
  return text;
}

}  // namespace zt::detail
