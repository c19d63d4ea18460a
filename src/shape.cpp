#include "zerotensor/shape.hpp"

#include <sstream>

#include "zerotensor/error.hpp"

namespace zt::detail {

namespace {
/// "context: what", or `what` alone when there is no context.
[[noreturn]] void throw_in_context(std::string_view context, const std::string& what) {
  throw ValueError(context.empty() ? what : concat(context, ": ", what));
}
}  // namespace

void throw_bad_shape(std::span<const index_t> shape, std::size_t itemsize, std::string_view context) {
  index_t count = 1;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 0)
      throw_in_context(context,
                       concat("negative extent ", shape[d], " in dimension ", d, " of shape ", shape_string(shape)));
    if (mul_overflows(count, shape[d], count))
      throw_in_context(context, concat("shape ", shape_string(shape), " has more than 2^63 elements"));
  }
  throw_in_context(context,
                   concat("shape ", shape_string(shape), " of ", itemsize, "-byte elements needs more than 2^63 bytes"));
}

void throw_stride_overflow(std::span<const index_t> leading_extents, std::size_t dim, index_t extent,
                           index_t stride, std::string_view context) {
  std::ostringstream leading;
  for (index_t e : leading_extents) leading << e << ", ";
  throw_in_context(context, concat("the C-order strides of shape (", leading.str(), "…) overflow 64 bits: dimension ",
                                   dim - 1, " would step ", stride, " × ", extent, " elements"));
}

}  // namespace zt::detail
