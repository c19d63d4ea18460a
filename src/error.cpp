#include "zerotensor/error.hpp"

#include <sstream>

namespace zt::detail {

std::string shape_string(std::span<const std::int64_t> extents) {
  std::ostringstream out;
  out << '(';
  for (std::size_t i = 0; i < extents.size(); ++i) out << (i ? ", " : "") << extents[i];
  out << (extents.size() == 1 ? ",)" : ")");
  return out.str();
}

}  // namespace zt::detail
