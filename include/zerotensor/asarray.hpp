// zt::asarray: torch.asarray for C++. Every input first becomes a zero-copy view (or, for
// numbers and sequences, a tensor built by PyTorch's inference rules); then one function
// applies the options.
//
// Inputs, and what they become:
// - zt tensors (Tensor<T, Rank> converts implicitly to AnyTensor): the same view.
// - Eigen dense objects with direct access (Matrix, Array, Map, Ref, Block, either storage
//   order), and with <zerotensor/eigen_tensor.hpp> Eigen::Tensor / TensorFixedSize /
//   TensorMap: a view with their real strides
//   (a column-major 3x4 matrix gives strides (1, 3)); vectors known at compile time are 1-D.
// - contiguous ranges whose elements are one of the element types (std::vector<T>,
//   std::array, std::span, C arrays): a 1-D view of dtype dtype_of<T>.
//   Ownership follows zt::Buffer: an lvalue is borrowed (the caller keeps it alive), a const
//   one gives a read-only tensor, an rvalue Matrix/Array/Tensor/container is moved into the
//   tensor's owner (no element is copied when its storage is on the heap); views (Map, Ref,
//   Block, TensorMap, std::span) are borrowed even as rvalues.
// - zt::Buffer (raw bytes, Python's buffer protocol): `options.dtype`, default_dtype() if
//   unset, with torch.frombuffer's checks (a length that is not a multiple of the itemsize
//   is a ValueError). Bytes are viewed only through an explicit Buffer: a std::string or a
//   range of char or std::byte is not accepted (the dtype of bytes is chosen, never inferred).
// - numbers (bool, integers, floating, std::complex, Eigen::half/bfloat16, zt::Scalar):
//   a 0-dim tensor; nested sequences — braced lists `{{1, 2.5}, {true, 4}}` of any depth and
//   random-access ranges of numbers nested to any depth (std::vector<std::vector<int>>,
//   std::vector<bool>, std::views::iota): a new tensor. C++ numbers here are Python numbers
//   (see scalar.hpp): bool → bool, integers → int64, floating → default_dtype(), complex →
//   complex64 (complex128 when the default is float64), promoted bool < int < float <
//   complex over all elements; an empty sequence is shape (0,) of the default dtype; ragged
//   nesting throws ValueError ("expected sequence of length 2 at dim 1 (got 1)").
//   With an explicit dtype, values are stored as PyTorch stores Python numbers: floating →
//   integer truncates toward zero, a value outside the target integer type throws ValueError
//   ("value 300 cannot be converted to type uint8 without overflow") except that negative
//   integers wrap into unsigned types down to -max (-1 → 255, -256 throws); complex into a
//   real type throws TypeError; anything into bool is `!= 0`; floating narrowing overflows
//   to inf.
//
// Options:
// - copy unset: share whenever dtype, device and alignment allow, else copy.
// - copy = true: the result always has memory of its own.
// - copy = false: ValueError where a copy would be needed — a different device, a different
//   dtype, bytes not aligned for the dtype, or a number/sequence (PyTorch's "can't alias
//   arbitrary sequence into a tensor").
// - device: reached through AnyTensor::to(Device); DeviceError where the build cannot reach
//   it (a build without CUDA and zt::cuda(i)). Devices compare exactly (cuda(0) != cuda(1)).
#pragma once

#include <concepts>
#include <initializer_list>
#include <memory>
#include <optional>
#include <ranges>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "zerotensor/any_tensor.hpp"
#include "zerotensor/buffer.hpp"
#include "zerotensor/device.hpp"
#include "zerotensor/dtype.hpp"
#include "zerotensor/export.hpp"
#include "zerotensor/scalar.hpp"
#include "zerotensor/empty.hpp"

namespace zt {

struct AsArrayOptions {
  std::optional<DType> dtype{};    ///< unset: the input's own (inferred for numbers and sequences)
  std::optional<Device> device{};  ///< unset: the input's own (cpu for numbers and sequences)
  std::optional<bool> copy{};      ///< unset: share when possible; true: always copy; false: never
};

/// One element of a braced nested list: a number or a list. Built by the compiler from
/// the braces of an asarray/as_tensor call; owns its elements.
class NestedScalars {
 public:
  template <class T>
    requires std::constructible_from<Scalar, T>
  NestedScalars(T value) : scalar_(Scalar(value)) {}  // NOLINT(google-explicit-constructor)
  NestedScalars(std::initializer_list<NestedScalars> elements)  // NOLINT(google-explicit-constructor)
      : elements_(elements) {}

  [[nodiscard]] bool is_sequence() const noexcept { return !scalar_.has_value(); }
  [[nodiscard]] const std::vector<NestedScalars>& elements() const noexcept { return elements_; }
  [[nodiscard]] const Scalar& scalar() const noexcept { return *scalar_; }

 private:
  std::optional<Scalar> scalar_;
  std::vector<NestedScalars> elements_;
};

namespace detail {

template <class X>
using plain_t = std::remove_cvref_t<X>;

/// Eigen's dense objects whose elements are addressed by pointer and strides.
template <class X>
concept EigenDirectAccess =
    std::is_base_of_v<Eigen::DenseBase<plain_t<X>>, plain_t<X>> &&
    (int(plain_t<X>::Flags) & Eigen::DirectAccessBit) != 0 && Element<typename plain_t<X>::Scalar>;

template <class X>
concept EigenObject = EigenDirectAccess<X> || std::is_base_of_v<Eigen::EigenBase<plain_t<X>>, plain_t<X>>;

/// std::vector<T>, std::array<T, N>, std::span<T>, T[N] for the element types.
template <class R>
concept TypedContiguousRange =
    std::ranges::contiguous_range<R> && std::ranges::sized_range<R> && !EigenObject<R> &&
    Element<std::remove_reference_t<std::ranges::range_reference_t<R>>>;

/// A number asarray infers a dtype for (scalar.hpp).
template <class T>
concept ScalarLike = std::constructible_from<Scalar, T> && !std::ranges::range<T>;

/// A random-access range (PySequence_Check) of numbers or of such ranges, to any depth.
template <class R>
inline constexpr bool is_scalar_sequence_v = false;
template <class R>
  requires std::ranges::random_access_range<const R> && std::ranges::sized_range<const R> &&
           (!EigenObject<R>)
inline constexpr bool is_scalar_sequence_v<R> =
    ScalarLike<std::ranges::range_value_t<const R>> || is_scalar_sequence_v<std::ranges::range_value_t<const R>>;

template <class R>
concept NestedSequenceRange = is_scalar_sequence_v<plain_t<R>> && !TypedContiguousRange<R>;

/// Whether the memory behind `data()` may be written through this object.
template <class X>
inline constexpr bool writable_data_v =
    !std::is_const_v<std::remove_pointer_t<decltype(std::declval<std::remove_reference_t<X>&>().data())>>;

/// Where the result of a conversion stands before the options apply.
enum class Origin : std::uint8_t {
  view,  ///< shares the input's memory
  own,   ///< memory of its own already (a copy, or built from numbers)
};

/// The one place options are applied: dtype (converted where the host can touch the
/// data), then device, then copy = true; copy = false refuses what would copy.
[[nodiscard]] ZT_API AnyTensor apply_options(AnyTensor tensor, const AsArrayOptions& options, Origin origin);

/// Eigen objects that own their elements (the rest — Map, Ref, Block, TensorMap — are
/// views); eigen_tensor.hpp adds Eigen::Tensor and TensorFixedSize.
template <class X>
inline constexpr bool owns_elements_v = std::is_base_of_v<Eigen::PlainObjectBase<X>, X>;

/// The object itself when borrowed (an lvalue, or a view); an rvalue that owns its
/// elements is moved into `owner`, which the tensor keeps.
template <class X>
auto hold(X&& obj, KeepAlive& owner) -> std::remove_reference_t<X>& {
  if constexpr (std::is_lvalue_reference_v<X> || !owns_elements_v<plain_t<X>>) {
    return obj;
  } else {
    auto moved = std::make_shared<plain_t<X>>(std::move(obj));
    auto& held = *moved;
    owner = std::move(moved);
    return held;
  }
}

template <class X>
AnyTensor eigen_dense_view(X&& obj) {
  using Plain = plain_t<X>;
  KeepAlive owner;
  auto& held = hold(std::forward<X>(obj), owner);
  constexpr bool writable = writable_data_v<X>;
  if constexpr (Plain::IsVectorAtCompileTime) {
    return AnyTensor(held.data(), DynamicExtents{index_t(held.size())}, DynamicExtents{index_t(held.innerStride())},
                     std::move(owner), cpu, writable);
  } else {
    const index_t inner = held.innerStride(), outer = held.outerStride();
    DynamicExtents strides = Plain::IsRowMajor ? DynamicExtents{outer, inner} : DynamicExtents{inner, outer};
    return AnyTensor(held.data(), DynamicExtents{index_t(held.rows()), index_t(held.cols())}, strides,
                     std::move(owner), cpu, writable);
  }
}

template <class R>
AnyTensor typed_range_view(R&& range) {
  using T = std::remove_reference_t<std::ranges::range_reference_t<R>>;
  const auto count = index_t(std::ranges::size(range));
  Buffer buffer(std::forward<R>(range));  // borrowed, or moved into the owner as Buffer does
  // Read-only unless the buffer is writable.
  auto* data = reinterpret_cast<T*>(view_address(buffer));
  return AnyTensor(data, DynamicExtents{count}, DynamicExtents{1}, buffer.release_owner(), cpu, buffer.is_writable());
}

// ---- nested sequences: one walk for braced lists and for nested ranges ----

[[noreturn]] ZT_API void throw_alias_sequence();
[[noreturn]] ZT_API void throw_too_many_dimensions(std::size_t limit);
[[noreturn]] ZT_API void throw_ragged(index_t expected, std::size_t dim, index_t found);
[[noreturn]] ZT_API void throw_not_a_sequence(index_t expected, std::size_t dim);
[[noreturn]] ZT_API void throw_sequence_for_number(std::size_t dim, index_t length);

/// PyTorch's MAX_DIMS for nested sequences.
inline constexpr std::size_t max_sequence_dims = 128;

/// Folds PyTorch's promotion over every number of a sequence.
class KindInference {
 public:
  void add(ScalarKind kind) noexcept {
    if (!found_ || kind > kind_) kind_ = kind;
    found_ = true;
  }
  /// The default dtype when the sequence holds no number.
  [[nodiscard]] DType dtype() const { return found_ ? Scalar::inferred_dtype(kind_) : default_dtype(); }

 private:
  ScalarKind kind_ = ScalarKind::Bool;
  bool found_ = false;
};

/// Stores numbers one after another, in C order, into a new contiguous tensor.
class ZT_API ScalarWriter {
 public:
  explicit ScalarWriter(const AnyTensor& destination)
      : next_(static_cast<std::byte*>(destination.mutable_data_ptr())), dtype_(destination.dtype()),
        itemsize_(destination.itemsize()) {}
  void store(const Scalar& value);

 private:
  std::byte* next_;
  DType dtype_;
  std::size_t itemsize_;
};

template <class Node>
bool node_is_sequence(const Node& node) {
  if constexpr (std::is_same_v<Node, NestedScalars>) return node.is_sequence();
  else return !ScalarLike<Node>;
}

template <class Node>
index_t node_length(const Node& node) {
  if constexpr (std::is_same_v<Node, NestedScalars>) return index_t(node.elements().size());
  else if constexpr (ScalarLike<Node>) return 0;
  else return index_t(std::ranges::size(node));
}

template <class Node, class F>
void for_each_element(const Node& node, F&& f) {
  if constexpr (std::is_same_v<Node, NestedScalars>) {
    for (const NestedScalars& element : node.elements()) f(element);
  } else if constexpr (!ScalarLike<Node>) {
    for (auto&& element : node) f(static_cast<const std::ranges::range_value_t<const Node>&>(element));
  }
}

template <class Node, class F>
void with_first_element(const Node& node, F&& f) {
  if constexpr (std::is_same_v<Node, NestedScalars>) f(node.elements().front());
  else if constexpr (!ScalarLike<Node>) f(static_cast<const std::ranges::range_value_t<const Node>&>(*std::ranges::begin(node)));
}

template <class Node>
Scalar node_scalar(const Node& node) {
  if constexpr (std::is_same_v<Node, NestedScalars>) return node.scalar();
  else if constexpr (ScalarLike<Node>) return Scalar(node);
  else return Scalar(false);  // unreachable: callers ask sequences for their length
}

/// compute_sizes: follow the first element down; a length-0 level ends the shape.
template <class Node>
void sequence_shape(const Node& node, std::vector<index_t>& extents) {
  if (!node_is_sequence(node)) return;
  if (extents.size() == max_sequence_dims) throw_too_many_dimensions(max_sequence_dims);
  const index_t length = node_length(node);
  extents.push_back(length);
  if (length == 0) return;
  with_first_element(node, [&](const auto& element) { sequence_shape(element, extents); });
}

template <class Node>
void infer_kinds(const Node& node, KindInference& inference) {
  if (node_is_sequence(node)) for_each_element(node, [&](const auto& element) { infer_kinds(element, inference); });
  else inference.add(node_scalar(node).kind());
}

/// recursive_store's walk: checks every level against the shape and calls `f` with each
/// number, in C order.
template <class Node, class F>
void for_each_number(const Node& node, std::span<const index_t> shape, std::size_t dim, F&& f) {
  if (dim == shape.size()) {
    if (node_is_sequence(node)) throw_sequence_for_number(dim, node_length(node));
    return f(node_scalar(node));
  }
  if (!node_is_sequence(node)) throw_not_a_sequence(shape[dim], dim);
  if (node_length(node) != shape[dim]) throw_ragged(shape[dim], dim, node_length(node));
  for_each_element(node, [&](const auto& element) { for_each_number(element, shape, dim + 1, f); });
}

template <class Node>
AnyTensor from_sequence(const Node& root, const AsArrayOptions& options) {
  if (options.copy == false) throw_alias_sequence();
  std::vector<index_t> extents;
  sequence_shape(root, extents);
  DType dtype;
  if (options.dtype) {
    dtype = *options.dtype;
  } else {
    KindInference inference;
    infer_kinds(root, inference);
    dtype = inference.dtype();
  }
  // As PyTorch, nothing is stored (or checked) when a length-0 level empties the tensor.
  const bool has_elements = std::ranges::find(extents, index_t{0}) == extents.end();
  // The whole list is checked before memory is taken: a ragged list whose first elements
  // are long would otherwise allocate the product of their lengths.
  if (has_elements) for_each_number(root, extents, 0, [](const Scalar&) {});
  AnyTensor result = empty(extents, dtype);
  if (has_elements) {
    ScalarWriter writer(result);
    for_each_number(root, extents, 0, [&](const Scalar& number) { writer.store(number); });
  }
  return apply_options(std::move(result), {.dtype = std::nullopt, .device = options.device, .copy = std::nullopt},
                       Origin::own);
}

}  // namespace detail

/// zt tensors: the same view unless an option asks for a copy. Typed Tensors convert implicitly.
[[nodiscard]] ZT_API AnyTensor asarray(const AnyTensor& obj, AsArrayOptions options = {});

/// Eigen Matrix, Array, Map, Ref, Block (direct access, either storage order) with their
/// strides; an rvalue Matrix/Array is moved into the result's owner.
template <class X>
  requires detail::EigenDirectAccess<X>
[[nodiscard]] AnyTensor asarray(X&& obj, AsArrayOptions options = {}) {
  return detail::apply_options(detail::eigen_dense_view(std::forward<X>(obj)), options, detail::Origin::view);
}

/// std::vector<T>, std::array<T, N>, std::span<T>, T[N]: a 1-D view of dtype_of<T>.
template <class R>
  requires detail::TypedContiguousRange<R>
[[nodiscard]] AnyTensor asarray(R&& range, AsArrayOptions options = {}) {
  return detail::apply_options(detail::typed_range_view(std::forward<R>(range)), options, detail::Origin::view);
}

namespace detail {
[[nodiscard]] ZT_API AnyTensor asarray_buffer(Buffer buffer, const AsArrayOptions& options);
}

/// Raw bytes as `options.dtype` (default_dtype() if unset), with torch.frombuffer's checks;
/// bytes not aligned for the dtype are copied (ValueError with copy = false). Only a Buffer
/// itself binds here: a range never turns into bytes implicitly.
template <std::same_as<Buffer> B>
[[nodiscard]] AnyTensor asarray(B buffer, AsArrayOptions options = {}) {
  return detail::asarray_buffer(std::move(buffer), options);
}

/// A number: a 0-dim tensor of the inferred dtype (or `options.dtype`).
[[nodiscard]] ZT_API AnyTensor asarray(Scalar value, AsArrayOptions options = {});

/// A braced nested list of numbers, e.g. `asarray({{1, 2.5}, {true, 4}})`.
[[nodiscard]] ZT_API AnyTensor asarray(std::initializer_list<NestedScalars> sequence, AsArrayOptions options = {});

/// Random-access ranges of numbers nested to any depth (std::vector<std::vector<int>>,
/// std::vector<bool>, std::views::iota(0, 3), std::vector<zt::Scalar>).
template <class R>
  requires detail::NestedSequenceRange<R>
[[nodiscard]] AnyTensor asarray(const R& sequence, AsArrayOptions options = {}) {
  return detail::from_sequence(sequence, options);
}

}  // namespace zt
