#include "zerotensor/gguf_value.hpp"

#include <array>

#include "vocabulary/concat.hpp"
#include "zerotensor/error.hpp"

namespace zt {
namespace {

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

}  // namespace zt
