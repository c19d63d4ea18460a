// zt::AnyTensor: the dtype-variant layer. One value holding a Tensor<T> of whichever of
// the 15 dtypes was resolved at run time, plus whether its memory may be written.
#pragma once

#include <functional>
#include <tuple>
#include <variant>

#include "zerotensor/tensor.hpp"
#include "zerotensor/to_options.hpp"

namespace zt {

namespace detail {
template <class Types>
struct tensor_variant;
template <class... Types>
struct tensor_variant<std::tuple<Types...>> {
  using type = std::variant<Tensor<Types>...>;
  using read_only = std::variant<Tensor<const Types>...>;
};

[[noreturn]] void throw_as_mismatch(DType expected_dtype, std::size_t expected_rank, bool want_writable,
                                    const AnyTensor& found);
[[noreturn]] void throw_read_only(const char* operation);
}  // namespace detail

class AnyTensor {
  static DynamicExtents&& dynamic_extents(DynamicExtents&& extents) noexcept { return std::move(extents); }
  template <std::size_t Rank>
  static DynamicExtents dynamic_extents(std::array<index_t, Rank>&& extents) {
    return DynamicExtents(std::span<const index_t>(extents));
  }

  /// Reads a layout field that every alternative has.
  template <class F>
  decltype(auto) layout(F&& f) const noexcept {
    return std::visit(std::forward<F>(f), tensor_);
  }

 public:
  /// Alternative i holds dtype i; read-only memory is stored as Tensor<T> with
  /// is_writable() false and handed out only as Tensor<const T>.
  using variant_type = detail::tensor_variant<element_types>::type;
  /// What variant() returns: alternative i is a read-only view of dtype i.
  using read_only_variant_type = detail::tensor_variant<element_types>::read_only;

  /// Any typed view converts implicitly; `const T` becomes a read-only AnyTensor.
  template <class T, std::size_t Rank>
  AnyTensor(Tensor<T, Rank> tensor)  // NOLINT(google-explicit-constructor)
      : tensor_(alternative(std::move(tensor))), writable_(!std::is_const_v<T>) {}

  /// Builds the typed view in place from validated metadata (see Tensor's constructors):
  /// the constructor functions' path, where each extents object is written once. The
  /// tensor is read-only when `writable` is false or `T` is const.
  template <Element T>
  AnyTensor(T* data, std::span<const index_t> shape, std::span<const index_t> strides, KeepAlive owner = {},
            Device device = cpu, bool writable = !std::is_const_v<T>)
      : tensor_(std::in_place_type<Tensor<std::remove_const_t<T>>>, detail::FromSpans{},
                const_cast<std::remove_const_t<T>*>(data), shape, strides, std::move(owner), device),
        writable_(writable && !std::is_const_v<T>) {}

  [[nodiscard]] DType dtype() const noexcept { return static_cast<DType>(tensor_.index()); }
  [[nodiscard]] std::size_t itemsize() const noexcept { return zt::itemsize(dtype()); }
  [[nodiscard]] Device device() const noexcept { return layout([](const auto& t) { return t.device(); }); }
  [[nodiscard]] const Extents<dynamic>& shape() const noexcept {
    return layout([](const auto& t) -> const Extents<dynamic>& { return t.shape(); });
  }
  [[nodiscard]] const Extents<dynamic>& strides() const noexcept {
    return layout([](const auto& t) -> const Extents<dynamic>& { return t.strides(); });
  }
  [[nodiscard]] index_t size(std::size_t dim) const noexcept { return shape()[dim]; }
  [[nodiscard]] index_t stride(std::size_t dim) const noexcept { return strides()[dim]; }
  [[nodiscard]] std::size_t rank() const noexcept { return shape().size(); }
  [[nodiscard]] index_t numel() const noexcept { return detail::numel(shape()); }
  [[nodiscard]] std::size_t nbytes() const noexcept { return std::size_t(numel()) * itemsize(); }
  [[nodiscard]] bool is_contiguous() const noexcept { return detail::is_contiguous(shape(), strides()); }
  [[nodiscard]] bool is_writable() const noexcept { return writable_; }
  [[nodiscard]] const KeepAlive& owner() const noexcept {
    return layout([](const auto& t) -> const KeepAlive& { return t.owner(); });
  }
  [[nodiscard]] const void* data_ptr() const noexcept {
    return layout([](const auto& t) -> const void* { return t.data(); });
  }
  /// The start address for writing; TypeError when the memory is read-only.
  [[nodiscard]] void* mutable_data_ptr() const {
    if (!writable_) detail::throw_read_only("mutable_data_ptr()");
    return const_cast<void*>(data_ptr());
  }

  /// The typed view. TypeError when the dtype differs or when `T` is not const but the
  /// memory is read-only; ValueError when a static `Rank` differs from rank().
  template <Element T, std::size_t Rank = dynamic>
  [[nodiscard]] Tensor<T, Rank> as() const {
    using Value = std::remove_const_t<T>;
    const auto* typed = std::get_if<Tensor<Value>>(&tensor_);
    const bool rank_ok = Rank == dynamic || rank() == Rank;
    if (typed == nullptr || !rank_ok || (!std::is_const_v<T> && !writable_))
      detail::throw_as_mismatch(dtype_of<T>, Rank, !std::is_const_v<T>, *this);
    return Tensor<T, Rank>(*typed);
  }

  /// Calls `f` with the typed view: Tensor<T> when writable, Tensor<const T> when not.
  /// Like std::visit, every instantiation of `f` must return the same type.
  template <class F>
  decltype(auto) visit(F&& f) const {
    return std::visit(
        [&](const auto& typed) -> decltype(auto) {
          using Value = typename std::remove_cvref_t<decltype(typed)>::value_type;
          if (writable_) return std::invoke(f, typed);
          return std::invoke(f, Tensor<const Value>(typed));
        },
        tensor_);
  }

  /// The typed view as a std::variant of read-only views, for std::visit by code that only
  /// reads (writable or not, its elements are const). visit() hands out writable views.
  [[nodiscard]] read_only_variant_type variant() const {
    return std::visit(
        [](const auto& typed) -> read_only_variant_type {
          using Value = typename std::remove_cvref_t<decltype(typed)>::value_type;
          return Tensor<const Value>(typed);
        },
        tensor_);
  }

  /// This tensor when the dtype already matches (no copy, as PyTorch), else a contiguous
  /// converted copy with PyTorch's value rules (see convert.hpp).
  [[nodiscard]] AnyTensor to(DType dtype) const;
  /// This tensor when already on `device`, else a contiguous copy there that owns its
  /// memory (strided sources included). Copies to or from GPU memory need the CUDA build
  /// (DeviceError otherwise, or when the GPU or driver is missing, naming the CUDA error).
  [[nodiscard]] AnyTensor to(Device device) const;
  /// The same, queued on `options.stream` and, with non_blocking, returning before a copy
  /// from pinned or device memory completes (to_options.hpp says when the source may be reused).
  [[nodiscard]] AnyTensor to(Device device, const ToOptions& options) const;
  /// A contiguous, writable copy in memory of its own.
  [[nodiscard]] AnyTensor clone() const;

 private:
  /// The variant alternative for a typed view: moved in whole when it already is one (each
  /// extra move of its extents shows in view creation), rebuilt otherwise.
  template <class T, std::size_t Rank>
  static variant_type alternative(Tensor<T, Rank>&& tensor) {
    using Value = std::remove_const_t<T>;
    if constexpr (std::is_same_v<Tensor<T, Rank>, Tensor<Value>>) {
      return variant_type(std::in_place_type<Tensor<Value>>, std::move(tensor));
    } else {
      return variant_type(std::in_place_type<Tensor<Value>>, const_cast<Value*>(tensor.data_),
                          dynamic_extents(std::move(tensor.shape_)), dynamic_extents(std::move(tensor.strides_)),
                          std::move(tensor.owner_), tensor.device_);
    }
  }

  variant_type tensor_;
  bool writable_;
};

namespace detail {

/// The one place a run-time dtype becomes a view: `data` holds elements of `dtype` that
/// the caller has validated against `shape` and `strides`; `owner` keeps them alive.
/// The owner is taken by reference: each by-value hop would be one more store and reload
/// of the handle on the import's critical path.
inline AnyTensor make_view(DType dtype, void* data, std::span<const index_t> shape, std::span<const index_t> strides,
                           KeepAlive&& owner, Device device, bool writable) {
  return dispatch(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return AnyTensor(static_cast<T*>(data), shape, strides, std::move(owner), device, writable);
  });
}

}  // namespace detail

}  // namespace zt
