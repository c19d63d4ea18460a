// zt::Buffer: the C++ form of Python's buffer protocol — bytes, their length, whether
// they may be written, the device, and an optional keep-alive owner. Bytes know nothing
// of shapes or dtypes.
//
// The device is the caller's word, as with PyTorch's from_blob: no constructor asks the
// CUDA driver, so a view costs the same in every build. A device pointer handed in as host
// memory (the default `cpu`) is not detected and must not be touched by host code; label
// it with its device, or ask zt::device_of(address) (device_of.hpp) where its origin is
// unknown. Memory zerotensor allocates, DLPack and Arrow imports carry their real device.
#pragma once

#include <concepts>
#include <cstddef>
#include <iterator>
#include <memory>
#include <span>
#include <type_traits>
#include <utility>

#include "zerotensor/device.hpp"
#include "zerotensor/export.hpp"

namespace zt {

/// Type-erased shared ownership of whatever keeps memory alive. Empty means borrowed:
/// the caller guarantees the memory outlives every view.
using KeepAlive = std::shared_ptr<const void>;

namespace detail {
// Spelled with the range access of <iterator> rather than <ranges>' concepts: <ranges>
// would double what every zerotensor header costs to compile beyond Eigen's own.

/// A range whose elements lie contiguously in memory: std::ranges::data gives their
/// address (a .data() member or a contiguous iterator) and std::ranges::size their count.
template <class R>
concept ByteRange = requires(R& range) {
  { std::ranges::data(range) } -> std::same_as<std::add_pointer_t<std::remove_reference_t<decltype(*std::ranges::data(range))>>>;
  std::ranges::size(range);
};

/// The element type of a ByteRange, const when its elements are.
template <class R>
using range_element_t = std::remove_reference_t<decltype(*std::ranges::data(std::declval<R&>()))>;

template <class R>
inline constexpr bool range_is_read_only = std::is_const_v<range_element_t<R>>;

/// A view (std::span, std::string_view) whose pointer stays valid after it dies.
template <class R>
inline constexpr bool borrows_memory = std::ranges::enable_borrowed_range<std::remove_cvref_t<R>>;

[[noreturn]] ZT_API void throw_null_container();

/// The container a shared_ptr owns; ValueError when there is none.
template <class Range>
Range& shared_container(const std::shared_ptr<Range>& container) {
  if (!container) throw_null_container();
  return *container;
}
}  // namespace detail

class ZT_API Buffer {
 public:
  /// Borrows an lvalue range (the caller keeps it alive); a const range is read-only.
  /// Takes ownership of an rvalue container by moving it into the keep-alive owner.
  /// Views such as std::span are borrowed either way.
  template <class Range>
    requires detail::ByteRange<Range> && (!std::is_same_v<std::remove_cvref_t<Range>, Buffer>)
  Buffer(Range&& range) {  // NOLINT(google-explicit-constructor): implicit by design
    using Plain = std::remove_cvref_t<Range>;
    if constexpr (std::is_lvalue_reference_v<Range> || detail::borrows_memory<Range>) {
      set_range(range, detail::range_is_read_only<Range>);
    } else {
      auto owned = std::make_shared<Plain>(std::forward<Range>(range));
      set_range(*owned, detail::range_is_read_only<Plain&>);
      owner_ = std::move(owned);
    }
  }

  /// Shares ownership of a container, like PyTorch's refcount bump on the exporter.
  /// ValueError for a null pointer.
  template <class Range>
    requires detail::ByteRange<Range&>
  Buffer(std::shared_ptr<Range> container)  // NOLINT(google-explicit-constructor)
      : Buffer(detail::shared_container(container)) {
    owner_ = std::move(container);
  }

  /// Writable bytes at `data`, kept alive by `owner` (empty: borrowed).
  Buffer(void* data, std::size_t size_bytes, KeepAlive owner = {}, Device device = cpu) noexcept
      : data_(static_cast<std::byte*>(data)), size_(size_bytes), writable_(true), device_(device),
        owner_(std::move(owner)) {}

  /// Read-only bytes at `data`, kept alive by `owner` (empty: borrowed).
  Buffer(const void* data, std::size_t size_bytes, KeepAlive owner = {}, Device device = cpu) noexcept
      : data_(static_cast<std::byte*>(const_cast<void*>(data))), size_(size_bytes), writable_(false),
        device_(device), owner_(std::move(owner)) {}

  [[nodiscard]] const std::byte* data() const noexcept { return data_; }
  /// Bytes, as PyTorch's nbytes (size means elements or an extent elsewhere).
  [[nodiscard]] std::size_t nbytes() const noexcept { return size_; }
  [[nodiscard]] bool is_writable() const noexcept { return writable_; }
  [[nodiscard]] Device device() const noexcept { return device_; }
  [[nodiscard]] const KeepAlive& owner() const noexcept { return owner_; }
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept;

  /// The bytes for writing; throws TypeError when the buffer is read-only.
  [[nodiscard]] std::span<std::byte> writable_bytes() const;

  /// Moves the owner out, so a view can take it without an atomic increment.
  [[nodiscard]] KeepAlive release_owner() noexcept { return std::move(owner_); }

 private:
  template <class Range>
  void set_range(Range& range, bool read_only) noexcept {
    using Element = detail::range_element_t<Range>;
    data_ = reinterpret_cast<std::byte*>(
        const_cast<std::remove_const_t<Element>*>(std::ranges::data(range)));
    size_ = std::ranges::size(range) * sizeof(Element);
    writable_ = !read_only;
  }

  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
  bool writable_ = false;
  Device device_ = cpu;
  KeepAlive owner_;
};

namespace detail {
/// The buffer's first byte as the non-const pointer a view stores, for building a view that
/// carries the buffer's writability (is_writable()), which guards every write through it.
inline std::byte* view_address(const Buffer& buffer) noexcept { return const_cast<std::byte*>(buffer.data()); }
}  // namespace detail

}  // namespace zt
