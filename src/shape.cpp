#include "zerotensor/shape.hpp"

#include <sstream>

#include "zerotensor/error.hpp"

namespace zt::detail {

void throw_bad_shape(std::span<const index_t> shape, std::size_t itemsize) {
  index_t count = 1;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 0)
      throw ValueError(concat("negative extent ", shape[d], " in dimension ", d, " of shape ", shape_string(shape)));
    if (mul_overflows(count, shape[d], count))
      throw ValueError(concat("shape ", shape_string(shape), " has more than 2^63 elements"));
  }
  throw ValueError(
      concat("shape ", shape_string(shape), " of ", itemsize, "-byte elements needs more than 2^63 bytes"));
}

void throw_stride_overflow(std::span<const index_t> leading_extents, std::size_t dim, index_t extent,
                           index_t stride) {
  std::ostringstream leading;
  for (index_t e : leading_extents) leading << e << ", ";
  throw ValueError(concat("the C-order strides of shape (", leading.str(), "…) overflow 64 bits: dimension ", dim - 1,
                          " would step ", stride, " × ", extent, " elements"));
}

}  // namespace zt::detail
