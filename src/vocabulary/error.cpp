#include "zerotensor/error.hpp"

#include <ostream>
#include <sstream>

#include "zerotensor/shape.hpp"

namespace zt {

std::string shape_string(std::span<const std::int64_t> extents) {
  std::ostringstream out;
  out << '(';
  for (std::size_t i = 0; i < extents.size(); ++i) out << (i ? ", " : "") << extents[i];
  out << (extents.size() == 1 ? ",)" : ")");
  return out.str();
}

std::ostream& operator<<(std::ostream& out, const DynamicExtents& extents) { return out << to_string(extents); }

}  // namespace zt
