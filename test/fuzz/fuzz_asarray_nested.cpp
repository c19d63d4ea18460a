// asarray on nested lists built from the input: any depth (past PyTorch's 128 dimensions),
// ragged or regular, numbers of every kind (bool, int, float, complex), with or without a
// dtype (the 15 and values that name none) and each copy option. A regular list must give
// its shape; a ragged one must be refused.
//
// Input: uint8 dtype (0-14: that dtype; 240-255: that invalid value; else unset), uint8
// copy (0: unset, 1: true, 2: false), then tokens, one byte each, low 3 bits the kind:
// 0 opens a list, 1 closes it, 2 bool (bit 3), 3 int64 (8 bytes follow), 4 double (8),
// 5 complex (16), 6 and 7 a small int (the high 5 bits). The outermost list is implied.
#include <complex>
#include <utility>

#include "fuzz/fuzz_support.hpp"

using namespace zt;
using namespace zt::fuzz;

namespace {

constexpr std::size_t max_depth = 200;
constexpr std::size_t max_length = 32;  // NestedScalars is built from braced lists only

/// Calls `f` with `elements` as a braced list, the only way a NestedScalars list is made.
template <std::size_t N = 0, class F>
decltype(auto) with_braced_list(const std::vector<NestedScalars>& elements, F&& f) {
  if constexpr (N < max_length) {
    if (elements.size() != N) return with_braced_list<N + 1>(elements, std::forward<F>(f));
  }
  return [&]<std::size_t... I>(std::index_sequence<I...>) -> decltype(auto) {
    return f(std::initializer_list<NestedScalars>{elements[I]...});
  }(std::make_index_sequence<N>{});
}

NestedScalars list_from(const std::vector<NestedScalars>& elements) {
  return with_braced_list(elements, [](std::initializer_list<NestedScalars> list) { return NestedScalars(list); });
}

/// Reads elements until a close token or the end of the input.
std::vector<NestedScalars> read_elements(InputReader& input, std::size_t depth) {
  std::vector<NestedScalars> elements;
  while (!input.rest().empty() && elements.size() < max_length) {
    const auto token = input.take<std::uint8_t>();
    switch (token & 7) {
      case 0:
        if (depth < max_depth) elements.push_back(list_from(read_elements(input, depth + 1)));
        break;
      case 1: return elements;
      case 2: elements.emplace_back((token & 8) != 0); break;
      case 3: elements.emplace_back(input.take<std::int64_t>()); break;
      case 4: elements.emplace_back(input.take<double>()); break;
      case 5: elements.emplace_back(input.take<std::complex<double>>()); break;
      default: elements.emplace_back(int(token >> 3)); break;
    }
  }
  return elements;
}

/// The shape PyTorch infers (down the first elements), and whether every element agrees.
void infer_shape(const NestedScalars& node, std::vector<index_t>& shape) {
  if (!node.is_sequence()) return;
  shape.push_back(index_t(node.elements().size()));
  if (!node.elements().empty()) infer_shape(node.elements().front(), shape);
}

bool is_regular(const NestedScalars& node, std::span<const index_t> shape) {
  if (shape.empty()) return !node.is_sequence();
  if (!node.is_sequence() || index_t(node.elements().size()) != shape[0]) return false;
  return std::ranges::all_of(node.elements(), [&](const NestedScalars& e) { return is_regular(e, shape.subspan(1)); });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  InputReader input(data, size);
  const auto dtype_byte = input.take<std::uint8_t>();
  const auto copy_byte = input.take<std::uint8_t>() % 3;
  AsArrayOptions options;
  if (dtype_byte < dtype_count || dtype_byte >= 240) options.dtype = DType(dtype_byte);
  if (copy_byte != 0) options.copy = copy_byte == 1;
  const std::vector<NestedScalars> elements = read_elements(input, 1);
  const NestedScalars root = list_from(elements);

  std::vector<index_t> shape;
  infer_shape(root, shape);
  // Length-0 levels end the shape, and then nothing below them is looked at.
  const bool regular = std::ranges::find(shape, 0) != shape.end() || is_regular(root, shape);
  const bool must_accept = regular && shape.size() <= zt::detail::max_sequence_dims && !options.dtype &&
                           options.copy != false;

  const auto tensor = unless_refused([&] {
    return with_braced_list(elements, [&](std::initializer_list<NestedScalars> list) { return asarray(list, options); });
  });
  if (!tensor) {
    require(!must_accept, "asarray refused a regular list");
    return 0;
  }
  require(regular, "asarray accepted a ragged list");
  require(std::ranges::equal(tensor->shape(), shape), "asarray's tensor does not have the list's shape");
  require(!options.dtype || tensor->dtype() == *options.dtype, "asarray ignored the dtype option");
  inspect(*tensor);
  return 0;
}
