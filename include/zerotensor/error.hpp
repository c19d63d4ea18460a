// The zt::Error family. Every message states the numbers involved; mismatch messages
// print what was expected and what was found, shapes and strides as shape_string writes them.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>

#include "zerotensor/export.hpp"

namespace zt {

/// Base of every exception zerotensor throws.
struct ZT_API Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A count, offset, size, shape or value that does not fit.
struct ZT_API ValueError : Error {
  using Error::Error;
};

/// An index or dimension out of range (PyTorch's IndexError); a kind of ValueError.
struct ZT_API IndexError : ValueError {
  using ValueError::ValueError;
};

/// A dtype, element type or kind of object that is not accepted.
struct ZT_API TypeError : Error {
  using Error::Error;
};

/// A file that cannot be opened, read, written or mapped (path, operation, OS reason).
struct ZT_API IOError : Error {
  using Error::Error;
};

/// A device that is absent, or memory on a device an operation cannot touch.
struct ZT_API DeviceError : Error {
  using Error::Error;
};

/// A shape or strides list as a Python tuple: "(2, 3)", "()" for rank 0, "(4,)" for rank 1.
/// Every message writes shapes this way, and so does a tensor's repr ("size=(0, 3)", as
/// PyTorch's; NumPy prints shapes so too). The list form of torch.Size's repr,
/// "torch.Size([2, 3])", would read differently from all of them. Takes both kinds of shape:
/// DynamicExtents and the std::array of a static rank.
[[nodiscard]] ZT_API std::string shape_string(std::span<const std::int64_t> extents);

namespace detail {
using zt::shape_string;
}  // namespace detail
}  // namespace zt
