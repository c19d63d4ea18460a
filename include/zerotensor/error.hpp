// The zt::Error family. Every message states the numbers involved; mismatch messages
// print what was expected and what was found.
#pragma once

#include <cstdint>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>

namespace zt {

/// Base of every exception zerotensor throws.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A count, offset, size, shape or value that does not fit.
struct ValueError : Error {
  using Error::Error;
};

/// An index or dimension out of range (PyTorch's IndexError); a kind of ValueError.
struct IndexError : ValueError {
  using ValueError::ValueError;
};

/// A dtype, element type or kind of object that is not accepted.
struct TypeError : Error {
  using Error::Error;
};

/// A file that cannot be opened, read, written or mapped (path, operation, OS reason).
struct IOError : Error {
  using Error::Error;
};

/// A device that is absent, or memory on a device an operation cannot touch.
struct DeviceError : Error {
  using Error::Error;
};

namespace detail {

/// Streams every argument into one string: the single way messages are built.
template <class... Parts>
std::string concat(const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  return out.str();
}

/// "(2, 3)" for a shape or strides list; "()" for rank 0, "(4,)" for rank 1, as Python prints.
std::string shape_string(std::span<const std::int64_t> extents);

}  // namespace detail
}  // namespace zt
