// Internal: the messages of the view operations' layouts (view_layout.cpp) that are not
// declared with the inline layouts in zerotensor/detail/view_layout.hpp.
#pragma once

#include <string>

#include "zerotensor/detail/view_layout.hpp"

namespace zt::detail {

/// "[3, 4]": how PyTorch prints sizes in its messages.
std::string bracketed(Sizes values);

/// infer_size's errors, in PyTorch's order, for `sizes` that infer_size refused.
[[noreturn]] void throw_infer_size(Sizes sizes, index_t numel);

/// unflatten's errors for empty `sizes` or a rank-0 source.
[[noreturn]] void throw_unflatten_rank(Sizes sizes, std::size_t dim);

/// unflatten's errors for `sizes` that inferred_size refused for dimension `dim` of extent
/// `size`: sizes without a -1 (nor another negative one) get unflatten's own message.
[[noreturn]] void throw_unflatten_sizes(Sizes sizes, std::size_t dim, index_t size);

/// as_strided's error for a view that reaches elements [first, last] outside [low, high].
[[noreturn]] void throw_as_strided_outside(index_t first, index_t last, index_t low, index_t high);

/// view()'s error for sizes its source's strides cannot give.
[[noreturn]] void throw_view_incompatible();

}  // namespace zt::detail
