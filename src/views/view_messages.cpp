// Every error of the view operations' layouts, with PyTorch's wording: IndexError where
// PyTorch raises IndexError, ValueError where it raises RuntimeError (docs/design.md,
// "Errors"). The layouts themselves are in view_layout.cpp and detail/view_layout.hpp.
#include "views/view_messages.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <sstream>

#include "vocabulary/concat.hpp"
#include "zerotensor/error.hpp"

namespace zt::detail {

namespace {

[[noreturn]] void throw_invalid_shape(Sizes sizes, index_t numel) {
  throw ValueError(concat("shape '", bracketed(sizes), "' is invalid for input of size ", numel));
}

/// PyTorch's rules of view(dtype) between element sizes, in its order: ValueError for the
/// first that the layout breaks.
void check_view_dtype_rules(Sizes shape, Sizes strides, DType from, DType to) {
  if (itemsize(from) == itemsize(to)) return;
  const auto refuse = [&](const std::string& rule, const std::string& found) {
    throw ValueError(concat(rule, " to view ", from, " as ", to, " (different element sizes)", found));
  };
  if (shape.empty()) refuse("self.dim() cannot be 0", "");
  const std::size_t last = shape.size() - 1;
  if (strides[last] != 1) refuse("self.stride(-1) must be 1", concat(", but got ", strides[last]));
  if (itemsize(to) < itemsize(from)) return;
  const index_t ratio = index_t(itemsize(to) / itemsize(from));
  if (shape[last] % ratio != 0)
    refuse(concat("self.size(-1) must be divisible by ", ratio), concat(", but got ", shape[last]));
  for (std::size_t d = 0; d < last; ++d) {
    if (strides[d] % ratio != 0)
      refuse(concat("self.stride(", d, ") must be divisible by ", ratio), concat(", but got ", strides[d]));
  }
}

}  // namespace

std::string bracketed(Sizes values) {
  std::ostringstream out;
  out << '[';
  for (std::size_t i = 0; i < values.size(); ++i) out << (i ? ", " : "") << values[i];
  out << ']';
  return out.str();
}

void throw_infer_size(Sizes sizes, index_t numel) {
  bool inferred = false;
  index_t product = 1;
  for (index_t size : sizes) {
    if (size == -1) {
      if (inferred) throw ValueError("only one dimension can be inferred");
      inferred = true;
    } else if (size < 0) {
      throw ValueError(concat("invalid shape dimension ", size));
    } else if (mul_overflows(product, size, product)) {
      throw_invalid_shape(sizes, numel);
    }
  }
  if (inferred && product == 0 && numel == 0)
    throw ValueError(concat("cannot reshape tensor of 0 elements into shape ", bracketed(sizes),
                            " because the unspecified dimension size -1 can be any value and is ambiguous"));
  throw_invalid_shape(sizes, numel);
}

void throw_unflatten_rank(Sizes sizes, std::size_t dim) {
  if (sizes.empty()) throw ValueError("unflatten: sizes must be non-empty");
  throw IndexError(concat("Dimension specified as ", dim, " but tensor has no dimensions"));
}

void throw_unflatten_sizes(Sizes sizes, std::size_t dim, index_t size) {
  if (std::all_of(sizes.begin(), sizes.end(), [](index_t s) { return s >= 0; }))
    throw ValueError(concat("unflatten: Provided sizes ", bracketed(sizes), " don't multiply up to the size of dim ",
                            dim, " (", size, ") in the input tensor"));
  throw_infer_size(sizes, size);
}

void throw_as_strided_outside(index_t first, index_t last, index_t low, index_t high) {
  throw ValueError(concat("as_strided: the view reaches elements [", first, ", ", last,
                          "] from the tensor's first element, outside the elements [", low, ", ", high,
                          "] the tensor reaches"));
}

void throw_dim_out_of_range(index_t dim, index_t low, index_t high) {
  throw IndexError(concat("Dimension out of range (expected to be in range of [", low, ", ", high, "], but got ", dim,
                          ")"));
}

void throw_view_overflow(index_t a, index_t b) {
  throw ValueError(concat("view: the stride or offset product ", a, " * ", b, " overflows 64 bits"));
}

void throw_zero_dim(const char* operation) {
  throw ValueError(concat(operation, " cannot be applied to a 0-dim tensor."));
}

void throw_zero_dim_index(const char* operation) {
  throw IndexError(concat(operation, " cannot be applied to a 0-dim tensor."));
}

void throw_narrow(index_t start, index_t length, index_t size) {
  if (length < 0) throw ValueError("narrow(): length must be non-negative.");
  if (start < -size || start > size)
    throw IndexError(concat("start out of range (expected to be in range of [", -size, ", ", size, "], but got ",
                            start, ")"));
  throw ValueError(concat("start (", start, ") + length (", length, ") exceeds dimension size (", size, ")."));
}

void throw_slice_step() { throw ValueError("slice step must be positive"); }

void throw_select_index(index_t index, Sizes shape, std::size_t dim) {
  throw IndexError(concat("select(): index ", index, " out of range for tensor of size ", bracketed(shape),
                          " at dimension ", dim));
}

void throw_permute(Sizes dims, std::size_t rank) {
  if (dims.size() != rank)
    throw ValueError(concat("permute(): number of dimensions in the tensor input does not match the length of the "
                            "desired ordering of dimensions i.e. input.dim() = ",
                            rank, " is not equal to len(dims) = ", dims.size()));
  throw ValueError("permute(): duplicate dims are not allowed.");
}

void throw_expand(Sizes shape, Sizes sizes) {
  if (sizes.size() < shape.size())
    throw ValueError(concat("expand(", bracketed(shape), ", size=", bracketed(sizes), "): the number of sizes provided (",
                            sizes.size(), ") must be greater or equal to the number of dimensions in the tensor (",
                            shape.size(), ")"));
  const std::size_t lead = sizes.size() - shape.size();
  for (std::size_t d = 0; d < lead; ++d) {
    if (sizes[d] == -1)
      throw ValueError(concat("The expanded size of the tensor (-1) isn't allowed in a leading, non-existing "
                              "dimension ",
                              d));
    if (sizes[d] < 0)
      throw ValueError(concat("Trying to create tensor with negative dimension ", sizes[d], ": ", bracketed(sizes)));
  }
  for (std::size_t d = lead; d < sizes.size(); ++d) {
    const index_t size = shape[d - lead];
    if (sizes[d] < -1)
      throw ValueError(concat("Trying to create tensor with negative dimension ", sizes[d], ": ", bracketed(sizes)));
    if (sizes[d] != -1 && sizes[d] != size && size != 1)
      throw ValueError(concat("The expanded size of the tensor (", sizes[d], ") must match the existing size (", size,
                              ") at non-singleton dimension ", d, ".  Target sizes: ", bracketed(sizes),
                              ".  Tensor sizes: ", bracketed(shape)));
  }
  throw ValueError(concat("expand(): invalid sizes ", bracketed(sizes), " for a tensor of size ", bracketed(shape)));
}

void throw_diagonal_dims(std::size_t dim1, std::size_t dim2) {
  throw ValueError(concat("diagonal dimensions cannot be identical ", dim1, ", ", dim2));
}

void throw_diagonal_overflow(index_t stride1, index_t stride2) {
  throw ValueError(concat("diagonal: the diagonal's stride, the sum of the strides ", stride1, " + ", stride2,
                          ", overflows 64 bits"));
}

void throw_unfold(index_t size, index_t step, index_t dim_size, std::size_t dim) {
  if (size < 0) throw ValueError(concat("size is ", size, " but must be >= 0"));
  if (size > dim_size)
    throw ValueError(concat("maximum size for tensor at dimension ", dim, " is ", dim_size, " but size is ", size));
  throw ValueError(concat("step is ", step, " but must be > 0"));
}

void throw_squeeze_repeated(std::size_t dim) {
  throw ValueError(concat("dim ", dim, " appears multiple times in the list of dims"));
}

void throw_flatten_order() {
  throw ValueError("flatten() has invalid args: start_dim cannot come after end_dim");
}

void throw_view_dtype(Sizes shape, Sizes strides, DType from, DType to, const void* address) {
  if (to == DType::Bool && from != DType::Bool)
    throw TypeError(concat("view(bool): ", from,
                           " bytes other than 0 and 1 are no valid bool; view a bool tensor, or convert with to()"));
  check_view_dtype_rules(shape, strides, from, to);
  // PyTorch's rules hold: the address is what was refused.
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  throw ValueError(concat("view(", to, ") of a ", from, " tensor: the data at ", address, " (aligned to ",
                          std::uintptr_t{1} << std::countr_zero(at), " bytes) is not aligned to ", alignment(to),
                          " bytes, the alignment of ", to));
}

void throw_t_rank(std::size_t rank) {
  throw ValueError(concat("t() expects a tensor with <= 2 dimensions, but self is ", rank, "D"));
}

void throw_matrix_rank(const char* operation, std::size_t rank) {
  throw ValueError(concat("tensor.", operation, " is only supported on matrices or batches of matrices. Got ", rank,
                          "-D tensor."));
}

void throw_conjugate_view(const char* operation, DType dtype) {
  throw TypeError(concat(operation, ": a ", dtype,
                         " tensor's conjugate transpose is not a view (zerotensor has no lazy conjugation); use "
                         "mT() and conjugate a copy"));
}

void throw_view_incompatible() {
  throw ValueError(
      "view size is not compatible with input tensor's size and stride (at least one dimension spans across two "
      "contiguous subspaces). Use .reshape(...) instead.");
}

}  // namespace zt::detail
