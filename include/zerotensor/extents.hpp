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
  DynamicExtents(std::size_t count, index_t value) { assign(count, [&](std::size_t) { return value; }); }
  DynamicExtents(std::initializer_list<index_t> values) { assign_from(values.begin(), values.size()); }
  explicit DynamicExtents(std::span<const index_t> values) { assign_from(values.data(), values.size()); }
  DynamicExtents(const DynamicExtents& other) { assign_from(other.data(), other.size()); }
  DynamicExtents& operator=(const DynamicExtents& other) {
    if (this != &other) assign_from(other.data(), other.size());
    return *this;
  }
  DynamicExtents(DynamicExtents&& other) noexcept { take(std::move(other)); }
  DynamicExtents& operator=(DynamicExtents&& other) noexcept {
    if (this != &other) take(std::move(other));
    return *this;
  }
  ~DynamicExtents() = default;

  void resize(std::size_t count) { assign(count, [](std::size_t) { return index_t{0}; }); }

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
  template <class Value>
  void assign(std::size_t count, Value value) {
    if (count > inline_capacity) heap_ = std::make_unique_for_overwrite<index_t[]>(count);
    else heap_.reset();
    size_ = count;
    for (std::size_t i = 0; i < count; ++i) data()[i] = value(i);
  }
  void assign_from(const index_t* values, std::size_t count) {
    assign(count, [values](std::size_t i) { return values[i]; });
  }
  void take(DynamicExtents&& other) noexcept {
    inline_ = other.inline_;
    heap_ = std::move(other.heap_);
    size_ = other.size_;
    other.size_ = 0;
  }

  std::array<index_t, inline_capacity> inline_{};
  std::unique_ptr<index_t[]> heap_;
  std::size_t size_ = 0;
};

/// Shape or strides of a tensor of rank `Rank`.
template <std::size_t Rank>
using Extents = std::conditional_t<Rank == dynamic, DynamicExtents, std::array<index_t, Rank>>;

}  // namespace zt
