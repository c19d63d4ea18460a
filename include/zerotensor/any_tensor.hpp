// zt::AnyTensor: the dtype-variant layer. One value holding a view whose element type
// was resolved at run time: the untyped layout (address, shape, strides, device, owner),
// its dtype and whether its memory may be written. Typed views are made on demand.
#pragma once

#include <functional>
#include <span>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>

#include "zerotensor/export.hpp"
#include "zerotensor/tensor.hpp"
#include "zerotensor/to_options.hpp"

namespace zt {

class AnyTensor;

namespace detail {
template <class Types>
struct ReadOnlyViews;
template <class... Types>
struct ReadOnlyViews<std::tuple<Types...>> {
  using type = std::variant<Tensor<const Types>...>;
};

[[noreturn]] ZT_API void throw_as_mismatch(DType expected_dtype, std::size_t expected_rank, bool want_writable,
                                           const AnyTensor& found);
[[noreturn]] ZT_API void throw_read_only(const char* operation);

ZT_API AnyTensor make_view(DType dtype, void* data, std::span<const index_t> shape, std::span<const index_t> strides,
                           KeepAlive&& owner, Device device, bool writable);
}  // namespace detail

/// What `AnyTensor::variant()` returns: alternative i is a `Tensor<const T>` of dtype i.
using ReadOnlyTensorVariant = detail::ReadOnlyViews<element_types>::type;

class ZT_API AnyTensor {
 public:
  /// Any typed view converts implicitly; `const T` becomes a read-only AnyTensor.
  template <class T, std::size_t Rank>
  AnyTensor(Tensor<T, Rank> tensor)  // NOLINT(google-explicit-constructor)
      : data_(const_cast<std::remove_const_t<T>*>(tensor.data_)),
        shape_(dynamic_extents(std::move(tensor.shape_))),
        strides_(dynamic_extents(std::move(tensor.strides_))),
        owner_(std::move(tensor.owner_)),
        device_{tensor.device_.kind, tensor.device_.index},
        dtype_(dtype_of<T>),
        writable_(!std::is_const_v<T>) {}

  /// Builds the view from validated metadata held elsewhere (see Tensor's constructors):
  /// `shape` and `strides` (in elements) must stay inside memory that `owner` keeps alive.
  /// The tensor is read-only when `writable` is false or `T` is const.
  template <Element T>
  AnyTensor(T* data, std::span<const index_t> shape, std::span<const index_t> strides, KeepAlive owner = {},
            Device device = cpu, bool writable = !std::is_const_v<T>)
      : AnyTensor(dtype_of<T>, const_cast<void*>(static_cast<const void*>(data)), shape, strides,
                  std::move(owner), device, writable && !std::is_const_v<T>) {}

  [[nodiscard]] DType dtype() const noexcept { return dtype_; }
  [[nodiscard]] std::size_t itemsize() const noexcept { return detail::itemsizes[std::size_t(dtype_)]; }
  [[nodiscard]] Device device() const noexcept { return device_; }
  [[nodiscard]] const DynamicExtents& shape() const noexcept { return shape_; }
  [[nodiscard]] const DynamicExtents& strides() const noexcept { return strides_; }
  [[nodiscard]] index_t size(std::size_t dim) const noexcept { return shape_[dim]; }
  [[nodiscard]] index_t stride(std::size_t dim) const noexcept { return strides_[dim]; }
  [[nodiscard]] std::size_t rank() const noexcept { return shape_.size(); }
  [[nodiscard]] index_t numel() const noexcept { return detail::numel(shape_.span()); }
  [[nodiscard]] std::size_t nbytes() const noexcept { return std::size_t(numel()) * itemsize(); }
  [[nodiscard]] bool is_contiguous() const noexcept { return detail::is_contiguous(shape_.span(), strides_.span()); }
  [[nodiscard]] bool is_writable() const noexcept { return writable_; }
  /// The keep-alive handle; empty when the memory is borrowed.
  [[nodiscard]] const KeepAlive& owner() const noexcept { return owner_; }
  [[nodiscard]] const void* data_ptr() const noexcept { return data_; }
  /// The start address for writing; TypeError when the memory is read-only.
  [[nodiscard]] void* mutable_data_ptr() const {
    if (!writable_) detail::throw_read_only("mutable_data_ptr()");
    return data_;
  }

  /// The typed view. TypeError when the dtype differs or when `T` is not const but the
  /// memory is read-only; ValueError when a static `Rank` differs from rank().
  template <Element T, std::size_t Rank = dynamic>
  [[nodiscard]] Tensor<T, Rank> as() const {
    const bool rank_ok = Rank == dynamic || rank() == Rank;
    if (dtype_ != dtype_of<T> || !rank_ok || (!std::is_const_v<T> && !writable_))
      detail::throw_as_mismatch(dtype_of<T>, Rank, !std::is_const_v<T>, *this);
    return typed<T, Rank>();
  }

  /// Calls `f` with the typed view: a `const Tensor<T>&` when writable, a
  /// `const Tensor<const T>&` when not, so `element_type` tells the two apart. The view
  /// lives for the call; `f`'s result is returned by value and, like std::visit's, must
  /// have one type for every dtype.
  template <class F>
  auto visit(F&& f) const {
    return dispatch(dtype_, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if (writable_) {
        const Tensor<T> view = typed<T>();
        return std::invoke(f, view);
      }
      const Tensor<const T> view = typed<const T>();
      return std::invoke(f, view);
    });
  }

  /// The typed view as a std::variant of read-only views (alternative i has dtype i), for
  /// std::visit by code that only reads: writable or not, its elements are const. visit()
  /// hands out writable views. Compiled once, in the library.
  [[nodiscard]] ReadOnlyTensorVariant variant() const;

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
  friend AnyTensor detail::make_view(DType, void*, std::span<const index_t>, std::span<const index_t>,
                                     KeepAlive&&, Device, bool);

  /// The one untyped builder: shape and strides are written once, where they stay.
  AnyTensor(DType dtype, void* data, std::span<const index_t> shape, std::span<const index_t> strides,
            KeepAlive&& owner, Device device, bool writable)
      : data_(data), shape_(shape), strides_(strides), owner_(std::move(owner)), device_{device.kind, device.index},
        dtype_(dtype), writable_(writable) {}

  static DynamicExtents&& dynamic_extents(DynamicExtents&& extents) noexcept { return std::move(extents); }
  template <std::size_t Rank>
  static DynamicExtents dynamic_extents(std::array<index_t, Rank>&& extents) {
    return DynamicExtents(std::span<const index_t>(extents));
  }

  /// The view as `Tensor<T, Rank>`; the dtype, rank and writability are known to allow it.
  template <class T, std::size_t Rank = dynamic>
  [[nodiscard]] Tensor<T, Rank> typed() const {
    using Shape = Extents<Rank>;
    return Tensor<T, Rank>(static_cast<T*>(data_), detail::to_extents<Shape>(shape_),
                           detail::to_extents<Shape>(strides_), owner_, device_);
  }

  void* data_;
  DynamicExtents shape_;
  DynamicExtents strides_;
  KeepAlive owner_;
  Device device_;
  DType dtype_;
  bool writable_;
};

namespace detail {

/// The one place a run-time dtype becomes a view: `data` holds elements of `dtype` that
/// the caller has validated against `shape` and `strides`; `owner` keeps them alive.
/// The owner is taken by reference: each by-value hop would be one more store and reload
/// of the handle on the import's critical path.
inline AnyTensor make_view(DType dtype, void* data, std::span<const index_t> shape, std::span<const index_t> strides,
                           KeepAlive&& owner, Device device, bool writable) {
  return AnyTensor(dtype, data, shape, strides, std::move(owner), device, writable);
}

}  // namespace detail

}  // namespace zt
