// zt::GgufValue: one metadata value of a GGUF file (llama.cpp's model files): a number, a
// bool, a string, or an array of values of one type (arrays of arrays included). It owns what
// it holds, so it outlives the file it was read from.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "zerotensor/export.hpp"

namespace zt {

/// The types of GGUF metadata values, numbered as in the file and named as DType names its.
enum class GgufType : std::uint32_t {
  UInt8 = 0, Int8 = 1, UInt16 = 2, Int16 = 3, UInt32 = 4, Int32 = 5, Float32 = 6, Bool = 7,
  String = 8, Array = 9, UInt64 = 10, Int64 = 11, Float64 = 12,
};

/// "uint8", "int8", ..., "bool", "string", "array", ..., "float64"; "unknown" for a number
/// that names no type.
[[nodiscard]] ZT_API std::string_view name(GgufType type) noexcept;

namespace detail {
template <class T, class... Ts>
inline constexpr bool is_one_of_v = (std::is_same_v<T, Ts> || ...);

/// The number and bool types a GgufValue stores as they are.
template <class T>
concept GgufNumber = is_one_of_v<T, std::uint8_t, std::int8_t, std::uint16_t, std::int16_t, std::uint32_t,
                                 std::int32_t, float, bool, std::uint64_t, std::int64_t, double>;

/// The GgufType of the values GgufValue::as<T>() reads: T is exactly the type the value is
/// stored as, std::string_view for a string.
template <class T>
consteval GgufType gguf_type_of() {
  if constexpr (std::is_same_v<T, std::uint8_t>) return GgufType::UInt8;
  else if constexpr (std::is_same_v<T, std::int8_t>) return GgufType::Int8;
  else if constexpr (std::is_same_v<T, std::uint16_t>) return GgufType::UInt16;
  else if constexpr (std::is_same_v<T, std::int16_t>) return GgufType::Int16;
  else if constexpr (std::is_same_v<T, std::uint32_t>) return GgufType::UInt32;
  else if constexpr (std::is_same_v<T, std::int32_t>) return GgufType::Int32;
  else if constexpr (std::is_same_v<T, float>) return GgufType::Float32;
  else if constexpr (std::is_same_v<T, bool>) return GgufType::Bool;
  else if constexpr (std::is_same_v<T, std::string_view>) return GgufType::String;
  else if constexpr (std::is_same_v<T, std::uint64_t>) return GgufType::UInt64;
  else if constexpr (std::is_same_v<T, std::int64_t>) return GgufType::Int64;
  else {
    static_assert(std::is_same_v<T, double>,
                  "GgufValue::as<T>() reads a scalar as the type it is stored as: std::uint8_t, std::int8_t, "
                  "std::uint16_t, std::int16_t, std::uint32_t, std::int32_t, float, bool, std::string_view, "
                  "std::uint64_t, std::int64_t or double");
    return GgufType::Float64;
  }
}

[[noreturn]] ZT_API void throw_gguf_type_mismatch(GgufType stored, GgufType asked);
}  // namespace detail

class ZT_API GgufValue {
 public:
  /// A number or bool, stored as its type (an `int` is an int32, a `float` a float32).
  template <detail::GgufNumber T>
  explicit GgufValue(T value) noexcept : value_(value) {}

  explicit GgufValue(std::string text) noexcept : value_(std::move(text)) {}

  /// An array of `element_type` values (GgufType::Array: of arrays). ValueError when
  /// `element_type` names no type, TypeError when an element is of another type.
  GgufValue(GgufType element_type, std::vector<GgufValue> elements);

  [[nodiscard]] GgufType type() const noexcept { return GgufType(value_.index()); }

  /// The scalar as T, exactly the type it is stored as (std::string_view for a string, a view
  /// of this value's text); TypeError naming both types otherwise.
  template <class T>
  [[nodiscard]] T as() const {
    constexpr GgufType asked = detail::gguf_type_of<T>();
    if (type() != asked) detail::throw_gguf_type_mismatch(type(), asked);
    if constexpr (asked == GgufType::String) {
      return std::get<std::string>(value_);
    } else {
      return std::get<T>(value_);
    }
  }

  // An array's elements; each of these throws TypeError when the value is not an array.
  [[nodiscard]] GgufType element_type() const;
  [[nodiscard]] std::size_t size() const;
  [[nodiscard]] std::span<const GgufValue> elements() const;
  /// Element `i`; IndexError naming `i` and the size when it is out of range.
  [[nodiscard]] const GgufValue& operator[](std::size_t i) const;

  /// Of the same type and value (a NaN equals nothing, as in C++).
  friend bool operator==(const GgufValue&, const GgufValue&) = default;

 private:
  struct Array {
    GgufType element_type;
    std::vector<GgufValue> elements;
    friend bool operator==(const Array&, const Array&) = default;
  };

  const Array& array() const;

  // The alternatives in GgufType's order, so that the index is the type.
  std::variant<std::uint8_t, std::int8_t, std::uint16_t, std::int16_t, std::uint32_t, std::int32_t, float, bool,
               std::string, Array, std::uint64_t, std::int64_t, double>
      value_;
};

/// The value as text: a string as it is, a number in the shortest form that reads back exactly
/// (a NaN or infinity as nan, inf or -inf), a bool as true or false, an array as JSON
/// (["a", "b"], [[1, 2], [3]]; non-finite numbers in it as null).
[[nodiscard]] ZT_API std::string to_string(const GgufValue& value);

}  // namespace zt
