// The one JSON reader of foreign input (.safetensors headers, checkpoint indexes, Arrow
// extension metadata): simdjson parses and validates the text, and its document is handed to
// a consumer as events, with the limits checked on the way. Small documents read whole are
// nlohmann-json values, the type the writers use too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>
#include <simdjson.h>

namespace zt::detail {

using Json = nlohmann::json;

[[noreturn]] void throw_json_too_deep(std::string_view what, int max_depth);
[[noreturn]] void throw_json_key_twice(std::string_view what, std::string_view key);
[[noreturn]] void throw_json_invalid(std::string_view what, simdjson::error_code error, int max_depth);

/// Builds one document from the events of read_json_events.
class JsonBuilder {
 public:
  bool null() { return add(nullptr); }
  bool boolean(bool value) { return add(value); }
  bool number_integer(Json::number_integer_t value) { return add(value); }
  bool number_unsigned(Json::number_unsigned_t value) { return add(value); }
  bool number_float(Json::number_float_t value) { return add(value); }
  bool string(std::string_view value) { return add(Json::string_t(value)); }
  bool start_object(std::size_t) { return open(Json::object()); }
  bool start_array(std::size_t) { return open(Json::array()); }
  bool key(std::string_view name) {
    key_.assign(name);
    return true;
  }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  /// True once a whole value has been read.
  bool complete() const { return open_.empty() && started_; }
  /// The value read; the builder starts over.
  Json take() {
    started_ = false;
    return std::move(root_);
  }

 private:
  Json* place(Json&& value);
  bool add(Json&& value) {
    place(std::move(value));
    return true;
  }
  bool open(Json&& container) {
    open_.push_back(place(std::move(container)));
    return true;
  }
  bool close() {
    open_.pop_back();
    return true;
  }

  Json root_;
  bool started_ = false;
  std::vector<Json*> open_;  // the containers being read, outermost first
  std::string key_;          // the key of the object member read next
};

/// A consumer of read_json_events that reads the outer levels of a document itself and
/// each value below them as a small document of its own (a capture). `Derived` handles
/// start_object, key and end_object outside captures and passes them to capture_object,
/// capture_key and capture_end_object inside one; it provides
/// `void start_capture(const char* type)`, called when a value of that JSON type starts
/// outside a capture (it throws where no such value belongs), and
/// `void captured(Json&& value)`, called with each whole captured value.
template <class Derived>
class CapturingJsonEvents {
 public:
  bool null() { return capture("null", [](JsonBuilder& b) { return b.null(); }); }
  bool boolean(bool v) { return capture("boolean", [v](JsonBuilder& b) { return b.boolean(v); }); }
  bool number_integer(Json::number_integer_t v) {
    return capture("number", [v](JsonBuilder& b) { return b.number_integer(v); });
  }
  bool number_unsigned(Json::number_unsigned_t v) {
    return capture("number", [v](JsonBuilder& b) { return b.number_unsigned(v); });
  }
  bool number_float(Json::number_float_t v) {
    return capture("number", [v](JsonBuilder& b) { return b.number_float(v); });
  }
  bool string(std::string_view v) { return capture("string", [v](JsonBuilder& b) { return b.string(v); }); }
  bool start_array(std::size_t n) { return capture("array", [n](JsonBuilder& b) { return b.start_array(n); }); }
  bool end_array() { return forward([](JsonBuilder& b) { return b.end_array(); }); }

 protected:
  bool capturing() const { return capturing_; }
  bool capture_object(std::size_t n) { return capture("object", [n](JsonBuilder& b) { return b.start_object(n); }); }
  bool capture_key(std::string_view name) { return builder_.key(name); }
  bool capture_end_object() { return forward([](JsonBuilder& b) { return b.end_object(); }); }

 private:
  template <class Event>
  bool capture(const char* type, Event event) {
    if (!capturing_) {
      static_cast<Derived&>(*this).start_capture(type);
      capturing_ = true;
    }
    return forward(event);
  }

  template <class Event>
  bool forward(Event event) {
    event(builder_);
    if (builder_.complete()) {
      capturing_ = false;
      static_cast<Derived&>(*this).captured(builder_.take());
    }
    return true;
  }

  bool capturing_ = false;
  JsonBuilder builder_;
};

/// What read_json_events checks beyond simdjson, and the start of its messages.
struct JsonLimits {
  int max_depth;          ///< containers nested at most this deep; the outermost is level 1
  std::string_view what;  ///< begins every message
};

/// ValueError naming the first key of `object` that it gives twice (JSON would keep only the
/// last): keys compared in order while the object has few, hashed when it has many.
void check_unique_keys(simdjson::dom::object object, std::string_view what);

/// Hands `value` and everything in it to `consumer`, in document order, refusing what
/// `limits` refuse; `depth` containers are open around it.
template <class Consumer>
void send_json_events(simdjson::dom::element value, const JsonLimits& limits, Consumer& consumer, int depth) {
  using Type = simdjson::dom::element_type;
  const Type type = value.type();
  if ((type == Type::OBJECT || type == Type::ARRAY) && depth == limits.max_depth)
    throw_json_too_deep(limits.what, limits.max_depth);
  switch (type) {
    case Type::OBJECT: {
      const simdjson::dom::object object = value.get_object().value_unsafe();
      check_unique_keys(object, limits.what);
      consumer.start_object(object.size());
      for (const simdjson::dom::key_value_pair member : object) {
        consumer.key(member.key);
        send_json_events(member.value, limits, consumer, depth + 1);
      }
      consumer.end_object();
      return;
    }
    case Type::ARRAY: {
      const simdjson::dom::array array = value.get_array().value_unsafe();
      consumer.start_array(array.size());
      for (const simdjson::dom::element item : array) send_json_events(item, limits, consumer, depth + 1);
      consumer.end_array();
      return;
    }
    case Type::STRING:
      consumer.string(value.get_string().value_unsafe());
      return;
    case Type::INT64: {  // simdjson reads integers ≥ 0 as INT64 where they fit; events keep the sign apart
      const std::int64_t number = value.get_int64().value_unsafe();
      number < 0 ? consumer.number_integer(number) : consumer.number_unsigned(std::uint64_t(number));
      return;
    }
    case Type::UINT64:
      consumer.number_unsigned(value.get_uint64().value_unsafe());
      return;
    case Type::DOUBLE:
      consumer.number_float(value.get_double().value_unsafe());
      return;
    case Type::BOOL:
      consumer.boolean(value.get_bool().value_unsafe());
      return;
    case Type::NULL_VALUE:
      consumer.null();
      return;
  }
}

/// The document of `text`, parsed by this thread's simdjson parser: valid while this lives.
/// The parser's memory is kept for the thread's next document, unless this one made it large
/// (a header may be 100 MB): that is given back when this is destroyed. Errors as
/// read_json_events says.
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

/// Reads `text` as exactly one JSON value and hands its events to `consumer`: null(),
/// boolean(b), number_integer(n) (negative), number_unsigned(n), number_float(x), string(s),
/// start_object(size), key(s), end_object(), start_array(size), end_array(); the strings are
/// valid while the event runs. Refused: anything but RFC 8259 JSON in UTF-8 (simdjson's
/// checks: no comments, nothing after the value, integers that fit int64 or uint64),
/// containers nested deeper than `max_depth` levels (the outermost is level 1) and an object
/// that names a key twice. Errors are ValueErrors that begin with `what`, e.g.
/// "load_safetensors: <a.safetensors>: the header names 'w' twice". Not reentrant:
/// `consumer` must not read JSON itself.
template <class Consumer>
void read_json_events(std::string_view text, int max_depth, std::string_view what, Consumer& consumer) {
  const ParsedJson document(text, max_depth, what);
  send_json_events(document.root(), JsonLimits{max_depth, what}, consumer, 0);
}

/// Reads `text` as exactly one JSON value, checked as read_json_events checks it.
Json read_json(std::string_view text, int max_depth, std::string_view what);

/// `text` cut to its first `limit` characters, "…" marking the cut: messages name what was
/// found without printing a whole, possibly huge, name.
std::string text_prefix(std::string_view text, std::size_t limit = 48);

/// A value as at most about `limit` characters of JSON: messages name what was found
/// without printing a whole, possibly huge, value.
std::string json_prefix(const Json& value, std::size_t limit = 48);

}  // namespace zt::detail
