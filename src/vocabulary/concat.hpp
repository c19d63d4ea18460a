// Internal: how the library's error messages are built. Kept out of the public headers,
// which only declare the throwing helpers, so that no user compiles <sstream> for them.
#pragma once

#include <sstream>
#include <string>

namespace zt::detail {

/// Streams every argument into one string: the single way messages are built.
template <class... Parts>
std::string concat(const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  return out.str();
}

}  // namespace zt::detail
