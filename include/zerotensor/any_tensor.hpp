// zt::AnyTensor: the dtype-variant layer. One value holding a view whose element type
// was resolved at run time: the untyped layout (address, shape, strides, device, owner),
// its dtype and whether its memory may be written. Typed views are made on demand.
#pragma once

#include <array>
#include <functional>
#include <initializer_list>
#include <optional>
#include <span>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>
#include <variant>

#include "zerotensor/dtype_sets.hpp"
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
[[noreturn]] ZT_API void throw_visit_outside(DType dtype, std::string_view set_name, std::span<const DType> set);
/// `strides` when it has one entry per dimension of `shape`; ValueError naming both lengths otherwise.
ZT_API std::span<const index_t> checked_strides(std::span<const index_t> shape, std::span<const index_t> strides);

ZT_API AnyTensor make_view(DType dtype, void* data, std::span<const index_t> shape, std::span<const index_t> strides,
                           KeepAlive owner, Device device, bool writable);
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
        device_(tensor.device_),
        dtype_(dtype_of<T>),
        writable_(!std::is_const_v<T>) {}

  /// Builds the view from validated metadata held elsewhere (see Tensor's constructors):
  /// `shape` and `strides` (in elements) must stay inside memory that `owner` keeps alive.
  /// The tensor is read-only when `writable` is false or `T` is const. ValueError when
  /// `shape` and `strides` differ in length.
  template <Element T>
  AnyTensor(T* data, std::span<const index_t> shape, std::span<const index_t> strides, KeepAlive owner = {},
            Device device = cpu, bool writable = !std::is_const_v<T>)
      : AnyTensor(dtype_of<T>, const_cast<void*>(static_cast<const void*>(data)), shape,
                  detail::checked_strides(shape, strides), std::move(owner), device, writable && !std::is_const_v<T>) {}

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
  /// have one type for every dtype. `f` is compiled for the element types of `Set`
  /// (dtype_sets.hpp), by default the 15 classic dtypes; a set never grows, so code that
  /// compiles for it keeps compiling when zerotensor adds dtypes. TypeError naming the dtype
  /// and the set for a tensor whose dtype is not in it: `visit<zt::dtypes::numeric>(f)`
  /// also takes the 8-bit floats and complex32, `visit<zt::dtypes::all>(f)` every dtype
  /// PyTorch has, `visit<zt::dtypes::all_and_gguf_blocks>(f)` GGUF's blocks too.
  template <DTypeSetType Set = dtypes::classic, class F>
  auto visit(F&& f) const {
    using Result = std::invoke_result_t<F&, const Tensor<type_of<Set::members[0]>>&>;
    return dispatch(dtype_, [&](auto tag) -> Result {
      using T = typename decltype(tag)::type;
      if constexpr (!Set::contains(dtype_of<T>)) {
        detail::throw_visit_outside(dtype_, Set::name, Set::members);
      } else if (writable_) {
        const Tensor<T> view = typed<T>();
        return std::invoke(f, view);
      } else {
        const Tensor<const T> view = typed<const T>();
        return std::invoke(f, view);
      }
    });
  }

  /// The typed view as a std::variant of read-only views (alternative i has dtype i), for
  /// std::visit by code that only reads: writable or not, its elements are const. visit()
  /// hands out writable views. Compiled once, in the library.
  [[nodiscard]] ReadOnlyTensorVariant variant() const;

  /// This tensor when the dtype already matches (no copy, as PyTorch), else a contiguous
  /// converted copy on the same device with PyTorch's value rules (see convert.hpp). GPU
  /// memory is converted on the host: copied there, converted, and copied back.
  /// `options.threads`: threads for the conversion on the host (to_options.hpp).
  [[nodiscard]] AnyTensor to(DType dtype, const ToOptions& options = {}) const;
  /// This tensor when already on `device`, else a contiguous copy there that owns its
  /// memory (strided sources included). Copies to or from GPU memory need the CUDA build
  /// (DeviceError otherwise, or when the GPU or driver is missing, naming the CUDA error).
  [[nodiscard]] AnyTensor to(Device device) const;
  /// The same, queued on `options.stream` and, with non_blocking, returning before a copy
  /// from pinned or device memory completes (to_options.hpp says when the source may be reused).
  [[nodiscard]] AnyTensor to(Device device, const ToOptions& options) const;
  /// A contiguous, writable copy in memory of its own: host memory for memory the host can
  /// read (pinned and managed memory included), else on the same GPU, copied there (the
  /// CUDA build; DeviceError otherwise). `options`: as for to(Device, ToOptions), and
  /// `threads` for a copy on the host.
  [[nodiscard]] AnyTensor clone(const ToOptions& options = {}) const;

  // --- Views: PyTorch's view operations, as on Tensor (see tensor.hpp for each one's
  // contract); defined in src/views/view_ops.cpp. Each result shares this tensor's memory,
  // owner and device and keeps is_writable().

  using List = std::span<const index_t>;
  using BracedList = std::initializer_list<index_t>;

  [[nodiscard]] AnyTensor narrow(index_t dim, index_t start, index_t length) const;
  [[nodiscard]] AnyTensor slice(index_t dim = 0, std::optional<index_t> start = {}, std::optional<index_t> end = {},
                                index_t step = 1) const;
  [[nodiscard]] AnyTensor select(index_t dim, index_t index) const;
  [[nodiscard]] AnyTensor operator[](index_t index) const { return select(0, index); }
  [[nodiscard]] AnyTensor transpose(index_t dim0, index_t dim1) const;
  [[nodiscard]] AnyTensor swapaxes(index_t dim0, index_t dim1) const { return transpose(dim0, dim1); }
  [[nodiscard]] AnyTensor swapdims(index_t dim0, index_t dim1) const { return transpose(dim0, dim1); }
  [[nodiscard]] AnyTensor permute(List dims) const;
  [[nodiscard]] AnyTensor permute(BracedList dims) const { return permute(List(dims.begin(), dims.size())); }
  [[nodiscard]] AnyTensor movedim(index_t source, index_t destination) const;
  [[nodiscard]] AnyTensor movedim(List sources, List destinations) const;
  [[nodiscard]] AnyTensor movedim(BracedList sources, BracedList destinations) const {
    return movedim(List(sources.begin(), sources.size()), List(destinations.begin(), destinations.size()));
  }
  [[nodiscard]] AnyTensor t() const;
  [[nodiscard]] AnyTensor mT() const;
  /// mT() for real dtypes; TypeError for complex ones (no lazy conjugation).
  [[nodiscard]] AnyTensor mH() const;
  [[nodiscard]] AnyTensor adjoint() const;

  [[nodiscard]] AnyTensor squeeze() const;
  [[nodiscard]] AnyTensor squeeze(index_t dim) const { return squeeze(List(&dim, 1)); }
  [[nodiscard]] AnyTensor squeeze(List dims) const;
  [[nodiscard]] AnyTensor squeeze(BracedList dims) const { return squeeze(List(dims.begin(), dims.size())); }
  [[nodiscard]] AnyTensor unsqueeze(index_t dim) const;
  [[nodiscard]] AnyTensor expand(List sizes) const;
  [[nodiscard]] AnyTensor expand(BracedList sizes) const { return expand(List(sizes.begin(), sizes.size())); }
  [[nodiscard]] AnyTensor expand_as(const AnyTensor& other) const { return expand(other.shape_.span()); }
  [[nodiscard]] AnyTensor broadcast_to(List sizes) const { return expand(sizes); }
  [[nodiscard]] AnyTensor broadcast_to(BracedList sizes) const { return expand(List(sizes.begin(), sizes.size())); }
  [[nodiscard]] AnyTensor view(List sizes) const;
  [[nodiscard]] AnyTensor view(BracedList sizes) const { return view(List(sizes.begin(), sizes.size())); }
  [[nodiscard]] AnyTensor view_as(const AnyTensor& other) const { return view(other.shape_.span()); }
  [[nodiscard]] AnyTensor reshape(List sizes) const;
  [[nodiscard]] AnyTensor reshape(BracedList sizes) const { return reshape(List(sizes.begin(), sizes.size())); }
  [[nodiscard]] AnyTensor flatten(index_t start_dim = 0, index_t end_dim = -1) const;
  [[nodiscard]] AnyTensor unflatten(index_t dim, List sizes) const;
  [[nodiscard]] AnyTensor unflatten(index_t dim, BracedList sizes) const {
    return unflatten(dim, List(sizes.begin(), sizes.size()));
  }

  [[nodiscard]] AnyTensor diagonal(index_t offset = 0, index_t dim1 = 0, index_t dim2 = 1) const;
  [[nodiscard]] AnyTensor unfold(index_t dim, index_t size, index_t step) const;
  /// Inside the elements this tensor reaches only; `storage_offset` counts elements from
  /// this tensor's first element (see Tensor::as_strided).
  [[nodiscard]] AnyTensor as_strided(List size, List stride, index_t storage_offset = 0) const;
  [[nodiscard]] AnyTensor as_strided(BracedList size, BracedList stride, index_t storage_offset = 0) const {
    return as_strided(List(size.begin(), size.size()), List(stride.begin(), stride.size()), storage_offset);
  }

  [[nodiscard]] std::vector<AnyTensor> chunk(index_t chunks, index_t dim = 0) const;
  [[nodiscard]] std::vector<AnyTensor> split(index_t split_size, index_t dim = 0) const;
  [[nodiscard]] std::vector<AnyTensor> split(List split_sizes, index_t dim = 0) const;
  [[nodiscard]] std::vector<AnyTensor> split(BracedList split_sizes, index_t dim = 0) const {
    return split(List(split_sizes.begin(), split_sizes.size()), dim);
  }
  [[nodiscard]] std::vector<AnyTensor> tensor_split(index_t sections, index_t dim = 0) const;
  [[nodiscard]] std::vector<AnyTensor> tensor_split(List indices, index_t dim = 0) const;
  [[nodiscard]] std::vector<AnyTensor> tensor_split(BracedList indices, index_t dim = 0) const {
    return tensor_split(List(indices.begin(), indices.size()), dim);
  }
  [[nodiscard]] std::vector<AnyTensor> unbind(index_t dim = 0) const;

  /// The same bytes as `dtype` (PyTorch's view(dtype) rules; a non-bool tensor is not
  /// viewed as bool, whose bytes must be 0 or 1).
  [[nodiscard]] AnyTensor view(DType dtype) const;
  [[nodiscard]] AnyTensor view_as_real() const;
  [[nodiscard]] AnyTensor view_as_complex() const;
  /// This tensor when C-contiguous, else clone(options).
  [[nodiscard]] AnyTensor contiguous(const ToOptions& options = {}) const {
    return is_contiguous() ? *this : clone(options);
  }

 private:
  friend AnyTensor detail::make_view(DType, void*, std::span<const index_t>, std::span<const index_t>,
                                     KeepAlive, Device, bool);

  /// The one untyped builder: shape and strides are written once, where they stay.
  AnyTensor(DType dtype, void* data, std::span<const index_t> shape, std::span<const index_t> strides,
            KeepAlive owner, Device device, bool writable)
      : data_(data), shape_(shape), strides_(strides), owner_(std::move(owner)), device_(device),
        dtype_(dtype), writable_(writable) {}

  /// A view of rank `rank` whose extents are zero until derive() writes them.
  AnyTensor(DType dtype, void* data, std::size_t rank, KeepAlive owner, Device device, bool writable)
      : data_(data), shape_(rank, 0), strides_(rank, 0), owner_(std::move(owner)), device_(device), dtype_(dtype),
        writable_(writable) {}

  /// The view operations' builder (src/views/view_ops.cpp): a view of this memory, owner and
  /// device, of rank `rank` and dtype `dtype`, whose layout `write(shape, strides)` writes
  /// into the result's own shape and strides, returning its first element in elements
  /// from this one's (a layout that returns nothing keeps the first element).
  template <class Write>
  [[nodiscard]] AnyTensor derive(std::size_t rank, DType dtype, Write&& write) const;
  /// A view of each piece of a split (chunk, split, tensor_split).
  [[nodiscard]] std::vector<AnyTensor> pieces(const detail::Pieces& split) const;

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
inline AnyTensor make_view(DType dtype, void* data, std::span<const index_t> shape, std::span<const index_t> strides,
                           KeepAlive owner, Device device, bool writable) {
  return AnyTensor(dtype, data, shape, strides, std::move(owner), device, writable);
}

}  // namespace detail

}  // namespace zt
