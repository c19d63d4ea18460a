// Shapes and strides. A static rank stores a std::array; a dynamic rank stores
// DynamicExtents, which keeps up to 6 values inline (a view of rank 6 or less allocates
// nothing for them) and is a contiguous range, so either converts to std::span<const index_t>.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <span>
#include <type_traits>
#include <utility>

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
    // Inline, the whole array: a fixed-size fill, also of the slots past size_.
    if (heap_)
      std::fill_n(heap_, size_, value);
    else
      inline_.fill(value);
  }
  DynamicExtents(std::initializer_list<index_t> values)
      : DynamicExtents(std::span<const index_t>(values.begin(), values.size())) {}
  explicit DynamicExtents(std::span<const index_t> values) : DynamicExtents(uninitialized(values.size())) {
    std::copy_n(values.data(), size_, data());
  }
  DynamicExtents(const DynamicExtents& other) : DynamicExtents(other.span()) {}
  DynamicExtents& operator=(const DynamicExtents& other) {
    if (this != &other) *this = DynamicExtents(other.span());
    return *this;
  }
  DynamicExtents(DynamicExtents&& other) noexcept { take(std::move(other)); }
  DynamicExtents& operator=(DynamicExtents&& other) noexcept {
    if (this != &other) take(std::move(other));
    return *this;
  }
  ~DynamicExtents() { delete[] heap_; }

  /// Sets the size; the values are zero.
  void resize(std::size_t count) { *this = DynamicExtents(count, 0); }

  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] index_t* data() noexcept { return heap_ ? heap_ : inline_.data(); }
  [[nodiscard]] const index_t* data() const noexcept { return heap_ ? heap_ : inline_.data(); }
  [[nodiscard]] index_t* begin() noexcept { return data(); }
  [[nodiscard]] index_t* end() noexcept { return data() + size_; }
  [[nodiscard]] const index_t* begin() const noexcept { return data(); }
  [[nodiscard]] const index_t* end() const noexcept { return data() + size_; }
  [[nodiscard]] index_t& operator[](std::size_t i) noexcept { return data()[i]; }
  [[nodiscard]] const index_t& operator[](std::size_t i) const noexcept { return data()[i]; }
  operator std::span<const index_t>() const noexcept { return span(); }  // NOLINT
  /// The same span, spelled out. Non-template code in headers uses it: an implicit
  /// conversion also weighs std::span's range constructor, whose concept checks on this
  /// class every program including the header would compile.
  [[nodiscard]] std::span<const index_t> span() const noexcept { return {data(), size_}; }

  friend bool operator==(const DynamicExtents& a, const DynamicExtents& b) noexcept {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  struct Uninitialized {
    std::size_t count;
  };
  static Uninitialized uninitialized(std::size_t count) noexcept { return {count}; }
  explicit DynamicExtents(Uninitialized request) : size_(request.count) {
    if (size_ > inline_capacity) heap_ = new index_t[size_];
  }
  void take(DynamicExtents&& other) noexcept {
    delete[] heap_;
    // The whole array, as bytes: a fixed-size copy (values past size_ are never read).
    std::memcpy(inline_.data(), other.inline_.data(), sizeof(inline_));
    heap_ = std::exchange(other.heap_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }

  std::array<index_t, inline_capacity> inline_;  // only the first size_ are meaningful
  // Owned, past inline_capacity values: a plain pointer rather than std::unique_ptr, whose
  // instantiation every includer of this vocabulary header would compile.
  index_t* heap_ = nullptr;
  std::size_t size_ = 0;
};

/// Shape or strides of a tensor of rank `Rank`.
template <std::size_t Rank>
using Extents = std::conditional_t<Rank == dynamic, DynamicExtents, std::array<index_t, Rank>>;

}  // namespace zt
