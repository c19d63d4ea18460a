// The one JSON reader of foreign input (.safetensors headers, Arrow extension metadata):
// nlohmann-json's parser, with the limits checked while it reads.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace zt::detail {

using Json = nlohmann::json;

/// Reads `text` as exactly one JSON value (RFC 8259: UTF-8, no comments, nothing after the
/// value), refusing while it reads containers nested deeper than `max_depth` levels (the
/// outermost container is level 1) and an object that names a key twice (JSON would keep
/// only the last). Errors are ValueErrors that begin with `what`, e.g.
/// "load_safetensors: <a.safetensors>: the header names 'w' twice".
Json read_json(std::string_view text, int max_depth, std::string_view what);

/// A value as at most about `limit` characters of JSON: messages name what was found
/// without printing a whole, possibly huge, value.
std::string json_prefix(const Json& value, std::size_t limit = 48);

}  // namespace zt::detail
