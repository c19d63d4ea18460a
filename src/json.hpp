// The one JSON reader of foreign input (.safetensors headers, checkpoint indexes, Arrow
// extension metadata):
// nlohmann-json's SAX parser, with the limits checked while it reads.
#pragma once

#include <array>
#include <cstddef>
#include <memory_resource>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace zt::detail {

using Json = nlohmann::json;

[[noreturn]] void throw_json_too_deep(std::string_view what, int max_depth);
[[noreturn]] void throw_json_key_twice(std::string_view what, std::string_view key);
[[noreturn]] void throw_json_invalid(std::string_view what, const nlohmann::detail::exception& error);

/// The keys of one open object, to refuse a key given twice: searched in order while the
/// object has few (a tensor's fields, an extension's parameters), hashed once it has many
/// (a header's tensor names), their copies taken from `arena`, which the reader frees at
/// once when it ends.
class ObjectKeys {
 public:
  explicit ObjectKeys(std::pmr::memory_resource* arena) : many_(arena) {}
  /// False when `key` is already there.
  bool insert(const std::string& key);
  void clear();

 private:
  std::array<std::string, 8> few_;  // the first keys, in order
  std::size_t count_ = 0;            // of them in few_; 0 once they moved to many_
  std::pmr::unordered_set<std::pmr::string> many_;
};

/// Builds one document from SAX events (a consumer of read_json_events).
class JsonBuilder {
 public:
  bool null() { return add(nullptr); }
  bool boolean(bool value) { return add(value); }
  bool number_integer(Json::number_integer_t value) { return add(value); }
  bool number_unsigned(Json::number_unsigned_t value) { return add(value); }
  bool number_float(Json::number_float_t value, const Json::string_t&) { return add(value); }
  bool string(Json::string_t& value) { return add(std::move(value)); }
  bool binary(Json::binary_t& value) { return add(std::move(value)); }
  bool start_object(std::size_t) { return open(Json::object()); }
  bool start_array(std::size_t) { return open(Json::array()); }
  bool key(Json::string_t& name) {
    key_ = std::move(name);
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
  bool number_float(Json::number_float_t v, const Json::string_t& text) {
    return capture("number", [&](JsonBuilder& b) { return b.number_float(v, text); });
  }
  bool string(Json::string_t& v) { return capture("string", [&](JsonBuilder& b) { return b.string(v); }); }
  bool binary(Json::binary_t& v) { return capture("binary", [&](JsonBuilder& b) { return b.binary(v); }); }
  bool start_array(std::size_t n) { return capture("array", [n](JsonBuilder& b) { return b.start_array(n); }); }
  bool end_array() { return forward([](JsonBuilder& b) { return b.end_array(); }); }

 protected:
  bool capturing() const { return capturing_; }
  bool capture_object(std::size_t n) { return capture("object", [n](JsonBuilder& b) { return b.start_object(n); }); }
  bool capture_key(Json::string_t& name) { return builder_.key(name); }
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

/// nlohmann-json's SAX events, passed on to `Consumer` (the same interface) only after the
/// reader's checks: containers nested at most `max_depth` levels (the outermost container
/// is level 1), no object that names a key twice (JSON would keep only the last), and
/// nlohmann-json's own: RFC 8259, UTF-8, no comments, nothing after the value.
template <class Consumer>
class CheckedJsonEvents {
 public:
  CheckedJsonEvents(Consumer& consumer, int max_depth, std::string_view what)
      : consumer_(consumer), max_depth_(max_depth), what_(what) {
    keys_.reserve(std::size_t(max_depth));  // the readers' limits are a few levels: one allocation
  }

  bool null() { return consumer_.null(); }
  bool boolean(bool value) { return consumer_.boolean(value); }
  bool number_integer(Json::number_integer_t value) { return consumer_.number_integer(value); }
  bool number_unsigned(Json::number_unsigned_t value) { return consumer_.number_unsigned(value); }
  bool number_float(Json::number_float_t value, const Json::string_t& text) {
    return consumer_.number_float(value, text);
  }
  bool string(Json::string_t& value) { return consumer_.string(value); }
  bool binary(Json::binary_t& value) { return consumer_.binary(value); }
  bool start_object(std::size_t size) {
    open();
    while (keys_.size() < depth_) keys_.emplace_back(&arena_);
    keys_[depth_ - 1].clear();
    return consumer_.start_object(size);
  }
  bool start_array(std::size_t size) {
    open();
    return consumer_.start_array(size);
  }
  bool key(Json::string_t& name) {
    if (!keys_[depth_ - 1].insert(name)) throw_json_key_twice(what_, name);
    return consumer_.key(name);
  }
  bool end_object() {
    --depth_;
    return consumer_.end_object();
  }
  bool end_array() {
    --depth_;
    return consumer_.end_array();
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& error) {
    throw_json_invalid(what_, error);
  }

 private:
  void open() {
    if (int(depth_) == max_depth_) throw_json_too_deep(what_, max_depth_);
    ++depth_;
  }

  Consumer& consumer_;
  int max_depth_;
  std::string_view what_;
  std::size_t depth_ = 0;
  std::pmr::monotonic_buffer_resource arena_;
  std::vector<ObjectKeys> keys_;  // the keys of each open object, by depth
};

/// Reads `text` as exactly one JSON value, handing its events to `consumer` after the
/// checks of CheckedJsonEvents. Errors are ValueErrors that begin with `what`, e.g.
/// "load_safetensors: <a.safetensors>: the header names 'w' twice".
template <class Consumer>
void read_json_events(std::string_view text, int max_depth, std::string_view what, Consumer& consumer) {
  CheckedJsonEvents<Consumer> events(consumer, max_depth, what);
  Json::sax_parse(text.begin(), text.end(), &events);
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
