// Shapes and strides. A static rank stores a std::array; a dynamic rank stores
// DynamicExtents, which keeps up to 6 values inline (views are made in nanoseconds) and
// is a contiguous range, so either converts to std::span<const index_t>.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <type_traits>

namespace zt {

/// Element counts, indices and strides are signed 64-bit, as in PyTorch and DLPack.
using index_t = std::int64_t;

/// The rank of a Tensor whose rank is known only at run time.
inline constexpr std::size_t dynamic = std::dynamic_extent;

class DynamicExtents {
 public:
  static constexpr std::size_t inline_capacity = 6;

  DynamicExtents() noexcept = default;
  DynamicExtents(std::size_t count, index_t value) : DynamicExtents(uninitialized(count)) {
    std::fill_n(data(), count, value);
  }
  DynamicExtents(std::initializer_list<index_t> values)
      : DynamicExtents(std::span<const index_t>(values.begin(), values.size())) {}
  explicit DynamicExtents(std::span<const index_t> values) : DynamicExtents(uninitialized(values.size())) {
    if (heap_) std::copy_n(values.data(), values.size(), heap_.get());
    else copy_slots(inline_.data(), values.data(), size_);
  }
  DynamicExtents(const DynamicExtents& other) : DynamicExtents(std::span<const index_t>(other)) {}
  DynamicExtents& operator=(const DynamicExtents& other) {
    if (this != &other) *this = DynamicExtents(other);
    return *this;
  }
  DynamicExtents(DynamicExtents&& other) noexcept { take(std::move(other)); }
  DynamicExtents& operator=(DynamicExtents&& other) noexcept {
    if (this != &other) take(std::move(other));
    return *this;
  }
  ~DynamicExtents() = default;

  /// Sets the size; the values are zero.
  void resize(std::size_t count) { *this = DynamicExtents(count, 0); }

  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] index_t* data() noexcept { return heap_ ? heap_.get() : inline_.data(); }
  [[nodiscard]] const index_t* data() const noexcept { return heap_ ? heap_.get() : inline_.data(); }
  [[nodiscard]] index_t* begin() noexcept { return data(); }
  [[nodiscard]] index_t* end() noexcept { return data() + size_; }
  [[nodiscard]] const index_t* begin() const noexcept { return data(); }
  [[nodiscard]] const index_t* end() const noexcept { return data() + size_; }
  [[nodiscard]] index_t& operator[](std::size_t i) noexcept { return data()[i]; }
  [[nodiscard]] const index_t& operator[](std::size_t i) const noexcept { return data()[i]; }
  operator std::span<const index_t>() const noexcept { return {data(), size_}; }  // NOLINT

  friend bool operator==(const DynamicExtents& a, const DynamicExtents& b) noexcept {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  struct Uninitialized {
    std::size_t count;
  };
  static Uninitialized uninitialized(std::size_t count) noexcept { return {count}; }
  explicit DynamicExtents(Uninitialized request) : size_(request.count) {
    if (size_ > inline_capacity) [[unlikely]] heap_ = allocate(size_);
  }
  /// Out of line so that building a view of rank 6 or less stays a few inlined moves.
  [[gnu::noinline, gnu::cold]] static std::unique_ptr<index_t[]> allocate(std::size_t count) {
    return std::make_unique_for_overwrite<index_t[]>(count);
  }
  /// Copies up to inline_capacity values one 8-byte move each. A view is built and moved
  /// right after its extents are written, so this must neither call memmove nor load with
  /// wider vectors than the stores that just wrote the values (a store-forwarding stall).
  static void copy_slots(index_t* to, const index_t* from, std::size_t count) noexcept {
    switch (count) {
      case 6: to[5] = from[5]; [[fallthrough]];
      case 5: to[4] = from[4]; [[fallthrough]];
      case 4: to[3] = from[3]; [[fallthrough]];
      case 3: to[2] = from[2]; [[fallthrough]];
      case 2: to[1] = from[1]; [[fallthrough]];
      case 1: to[0] = from[0]; [[fallthrough]];
      default: break;
    }
  }
  void take(DynamicExtents&& other) noexcept {
    size_ = other.size_;
    heap_ = std::move(other.heap_);
    if (!heap_) copy_slots(inline_.data(), other.inline_.data(), size_);
    other.size_ = 0;
  }

  std::array<index_t, inline_capacity> inline_;  // only the first size_ are meaningful
  std::unique_ptr<index_t[]> heap_;
  std::size_t size_ = 0;
};

/// Shape or strides of a tensor of rank `Rank`.
template <std::size_t Rank>
using Extents = std::conditional_t<Rank == dynamic, DynamicExtents, std::array<index_t, Rank>>;

}  // namespace zt
