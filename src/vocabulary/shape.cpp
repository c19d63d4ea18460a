#include "zerotensor/shape.hpp"

#include <algorithm>

#include "zerotensor/error.hpp"
#include "vocabulary/concat.hpp"

namespace zt::detail {

namespace {
/// "context: what", or `what` alone when there is no context.
[[noreturn]] void throw_in_context(std::string_view context, const std::string& what) {
  throw ValueError(context.empty() ? what : concat(context, ": ", what));
}
}  // namespace

void throw_bad_shape(std::span<const index_t> shape, std::size_t itemsize, std::string_view context) {
  // An empty shape holds no element, but a copy of it needs C-order strides that fit.
  const bool empty = std::find(shape.begin(), shape.end(), index_t{0}) != shape.end();
  const std::string named = concat("shape ", shape_string(shape), empty ? " is empty, but its C-order strides" : "");
  index_t steps = 1;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 0)
      throw_in_context(context,
                       concat("negative extent ", shape[d], " in dimension ", d, " of shape ", shape_string(shape)));
    if (mul_overflows(steps, shape[d] > 1 ? shape[d] : 1, steps))
      throw_in_context(context, concat(named, empty ? " span" : " has", " more than 2^63 elements"));
  }
  throw_in_context(context, concat(named, " of ", itemsize, "-byte elements ", empty ? "span" : "needs",
                                   " more than 2^63 bytes"));
}

}  // namespace zt::detail
