// The one JSON reader of foreign input (.safetensors headers, checkpoint indexes, Arrow
// extension metadata): simdjson parses and validates the text, ParsedJson checks the limits
// every reader needs, and each reader walks the document itself. The writers build
// nlohmann-json values.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>
#include <simdjson.h>

namespace zt::detail {

using Json = nlohmann::json;

/// The document of `text`, parsed by this thread's parser: valid while this lives.
/// Refused, with a ValueError that begins with `what` (e.g. "load_safetensors: <a.safetensors>:
/// the header names 'w' twice"): anything but RFC 8259 JSON in UTF-8 (simdjson's checks: no
/// comments, nothing after the value, integers that fit int64 or uint64), containers nested
/// deeper than `max_depth` levels (the outermost is level 1) and an object that names a key
/// twice (JSON would keep only the last). The parser's memory is kept for the thread's next
/// document, unless this one made it large (a header may be 100 MB): that is given back when
/// this is destroyed. Not reentrant: a thread reads one document at a time.
class ParsedJson {
 public:
  ParsedJson(std::string_view text, int max_depth, std::string_view what);
  ~ParsedJson();
  ParsedJson(const ParsedJson&) = delete;
  ParsedJson& operator=(const ParsedJson&) = delete;

  [[nodiscard]] simdjson::dom::element root() const { return root_; }

 private:
  simdjson::dom::element root_;
};

/// The JSON type of `value`, as messages name it: "object", "array", "string", "number",
/// "boolean" or "null".
const char* json_type_name(simdjson::dom::element value);

/// `text` cut to its first `limit` characters, "…" marking the cut: messages name what was
/// found without printing a whole, possibly huge, name.
std::string text_prefix(std::string_view text, std::size_t limit = 48);

/// A value as at most about `limit` characters of minified JSON, "…" marking the cut.
std::string json_prefix(simdjson::dom::element value, std::size_t limit = 48);

}  // namespace zt::detail
