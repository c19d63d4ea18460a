#include "zerotensor/gguf_value.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <iterator>

#include "vocabulary/concat.hpp"
#include "vocabulary/json.hpp"
#include "zerotensor/error.hpp"

namespace zt {
namespace {

/// `number` in the shortest decimal form that reads back as the same float.
std::string shortest_text(float number) {
  char text[32];
  const auto result = std::to_chars(std::begin(text), std::end(text), number);
  return {text, result.ptr};
}

/// The value as JSON: numbers as they are stored (a float32 as the double nearest its shortest
/// decimal form, which JSON then writes as that form), strings and arrays as JSON has them.
detail::Json json_of(const GgufValue& value) {
  switch (value.type()) {
    case GgufType::UInt8: return value.as<std::uint8_t>();
    case GgufType::Int8: return value.as<std::int8_t>();
    case GgufType::UInt16: return value.as<std::uint16_t>();
    case GgufType::Int16: return value.as<std::int16_t>();
    case GgufType::UInt32: return value.as<std::uint32_t>();
    case GgufType::Int32: return value.as<std::int32_t>();
    case GgufType::Float32: return std::strtod(shortest_text(value.as<float>()).c_str(), nullptr);
    case GgufType::Bool: return value.as<bool>();
    case GgufType::String: return std::string(value.as<std::string_view>());
    case GgufType::UInt64: return value.as<std::uint64_t>();
    case GgufType::Int64: return value.as<std::int64_t>();
    case GgufType::Float64: return value.as<double>();
    case GgufType::Array: break;
  }
  detail::Json array = detail::Json::array();
  for (const GgufValue& element : value.elements()) array.push_back(json_of(element));
  return array;
}

constexpr std::array<std::string_view, 13> type_names = {"uint8",  "int8",    "uint16", "int16",  "uint32",
                                                         "int32",  "float32", "bool",   "string", "array",
                                                         "uint64", "int64",   "float64"};

}  // namespace

std::string_view name(GgufType type) noexcept {
  const auto index = std::size_t(type);
  return index < type_names.size() ? type_names[index] : "unknown";
}

void detail::throw_gguf_type_mismatch(GgufType stored, GgufType asked) {
  throw TypeError(detail::concat("GgufValue: the value is of type ", name(stored), ", not ", name(asked)));
}

GgufValue::GgufValue(GgufType element_type, std::vector<GgufValue> elements)
    : value_(Array{element_type, std::move(elements)}) {
  if (std::size_t(element_type) >= type_names.size())
    throw ValueError(detail::concat("GgufValue: element type ", std::uint32_t(element_type),
                                    " is not a GGUF type (0 to ", type_names.size() - 1, ")"));
  const std::vector<GgufValue>& stored = std::get<Array>(value_).elements;
  for (std::size_t i = 0; i < stored.size(); ++i) {
    if (stored[i].type() != element_type)
      throw TypeError(detail::concat("GgufValue: element ", i, " of an array of ", name(element_type), " is of type ",
                                     name(stored[i].type())));
  }
}

const GgufValue::Array& GgufValue::array() const {
  const Array* held = std::get_if<Array>(&value_);
  if (held == nullptr)
    throw TypeError(detail::concat("GgufValue: the value is of type ", name(type()), ", not an array"));
  return *held;
}

GgufType GgufValue::element_type() const { return array().element_type; }

std::size_t GgufValue::size() const { return array().elements.size(); }

std::span<const GgufValue> GgufValue::elements() const { return array().elements; }

const GgufValue& GgufValue::operator[](std::size_t i) const {
  const std::vector<GgufValue>& elements = array().elements;
  if (i >= elements.size())
    throw IndexError(
        detail::concat("GgufValue: index ", i, " is out of range for an array of ", elements.size(), " elements"));
  return elements[i];
}

std::string to_string(const GgufValue& value) {
  switch (value.type()) {
    case GgufType::String: return std::string(value.as<std::string_view>());
    case GgufType::Float32:
    case GgufType::Float64: {
      const double number = value.type() == GgufType::Float32 ? value.as<float>() : value.as<double>();
      if (std::isnan(number)) return "nan";
      if (std::isinf(number)) return number > 0 ? "inf" : "-inf";
      break;
    }
    default: break;
  }
  // Replacement, not an exception, for bytes that are not UTF-8: the text is for people.
  return json_of(value).dump(-1, ' ', false, detail::Json::error_handler_t::replace);
}

}  // namespace zt
