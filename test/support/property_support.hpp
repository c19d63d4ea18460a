// Shared by the property suites (test_property_*.cpp): a seeded generator of random strided
// views (every dtype; rank 0-5 with zero-size and size-1 dimensions; C-order, permuted,
// stepped, negative, broadcast and overlapping strides; an offset into a larger buffer of
// random bytes) and the oracles that read a view element by element, independently of the
// library's own strided walk.
//
// ZT_PROPERTY_SEED (default 20) and ZT_PROPERTY_CASES override the seed and every suite's case count;
// case `c` of seed `s` is generated from (s, c) alone, so a failure prints both.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <numeric>
#include <random>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "zerotensor/any_tensor.hpp"

namespace zt_test {

using zt::index_t;

/// `name`'s value when set, else `fallback`; a value that is not a number stops the suite.
inline std::uint64_t env_number(const char* name, std::uint64_t fallback) {
  const std::string_view text = std::getenv(name) != nullptr ? std::getenv(name) : "";
  if (text.empty()) return fallback;
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size())
    throw std::invalid_argument(std::string(name) + "=" + std::string(text) + " is not a number");
  return value;
}

inline std::uint64_t property_seed() { return env_number("ZT_PROPERTY_SEED", 20); }
inline int property_cases(int fallback) { return int(env_number("ZT_PROPERTY_CASES", std::uint64_t(fallback))); }

/// The generator of case `c`: depends on the seed and `c` only.
inline std::mt19937_64 case_rng(std::uint64_t seed, int c) {
  std::seed_seq sequence{std::uint32_t(seed), std::uint32_t(seed >> 32), std::uint32_t(c)};
  return std::mt19937_64(sequence);
}

inline index_t uniform(std::mt19937_64& rng, index_t low, index_t high) {
  return std::uniform_int_distribution<index_t>(low, high)(rng);
}
inline bool chance(std::mt19937_64& rng, double p) { return std::bernoulli_distribution(p)(rng); }

/// One of PyTorch's dtypes (zt::dtypes::all), which every format and interchange carries.
inline zt::DType random_dtype(std::mt19937_64& rng) {
  constexpr auto& dtypes = zt::dtypes::all::members;
  return dtypes[std::size_t(uniform(rng, 0, index_t(dtypes.size()) - 1))];
}

/// A shape and strides (in elements) and how far they reach from the first element.
struct Layout {
  std::vector<index_t> shape;
  std::vector<index_t> strides;
  std::string kind;
  index_t below = 0;  ///< elements reached before the first one
  index_t above = 0;  ///< elements reached after it
};

/// C-order strides; an extent of 0 steps like 1, as PyTorch's. The oracle's own, not
/// zt::detail::contiguous_strides: the suites check the library with code it does not share.
inline std::vector<index_t> c_order_strides(std::span<const index_t> shape) {
  std::vector<index_t> strides(shape.size());
  index_t step = 1;
  for (std::size_t d = shape.size(); d-- > 0;) {
    strides[d] = step;
    step *= std::max<index_t>(shape[d], 1);
  }
  return strides;
}

/// Rank 0-5; about one shape in eight has an extent 0, and extents 1 are common.
inline std::vector<index_t> random_shape(std::mt19937_64& rng) {
  const auto rank = std::size_t(uniform(rng, 0, 5));
  const index_t largest = rank >= 4 ? 3 : 5;
  std::vector<index_t> shape(rank);
  for (index_t& extent : shape) {
    extent = chance(rng, 0.03) ? 0 : chance(rng, 0.25) ? 1 : uniform(rng, 2, largest);
  }
  return shape;
}

/// Strides for `shape`: C order; or the C-order strides of a reversed (Fortran order) or
/// shuffled dimension order with steps between elements, then signs flipped and dimensions
/// broadcast (stride 0); or any small strides at all (overlapping views).
inline Layout random_layout(std::mt19937_64& rng) {
  Layout layout{random_shape(rng), {}, "c_order"};
  const std::size_t rank = layout.shape.size();
  layout.strides = c_order_strides(layout.shape);
  const auto pick = uniform(rng, 0, 5);
  if (pick == 5) {
    layout.kind = "overlapping";
    for (index_t& stride : layout.strides) stride = uniform(rng, -3, 3);
  } else if (pick > 0 && rank > 0) {
    const bool permute = pick == 1 || chance(rng, 0.4), step = pick == 2 || chance(rng, 0.4);
    const bool negate = pick == 3 || chance(rng, 0.4), broadcast = pick == 4 || chance(rng, 0.3);
    std::vector<std::size_t> order(rank);
    std::iota(order.begin(), order.end(), std::size_t{0});
    const bool reverse = permute && chance(rng, 0.5);  // Fortran order when nothing else applies
    if (reverse) std::reverse(order.begin(), order.end());
    else if (permute) std::shuffle(order.begin(), order.end(), rng);
    index_t next = step ? uniform(rng, 1, 3) : 1;
    for (std::size_t i = rank; i-- > 0;) {
      const std::size_t d = order[i];
      layout.strides[d] = next;
      next *= std::max<index_t>(layout.shape[d], 1) * (step ? uniform(rng, 1, 2) : 1);
    }
    for (index_t& stride : layout.strides) {
      if (negate && chance(rng, 0.5)) stride = -stride;
      if (broadcast && chance(rng, 0.3)) stride = 0;
    }
    layout.kind = std::string(reverse ? "reversed" : permute ? "permuted" : "ordered") + (step ? " stepped" : "") +
                  (negate ? " negative" : "") + (broadcast ? " broadcast" : "");
  }
  for (std::size_t d = 0; d < rank; ++d) {
    const index_t reach = std::max<index_t>(layout.shape[d] - 1, 0) * layout.strides[d];
    (reach < 0 ? layout.below : layout.above) += reach < 0 ? -reach : reach;
  }
  return layout;
}

/// Random bytes, kept in 8-byte words so every dtype's alignment holds; Bool buffers hold
/// only the bytes 0 and 1.
inline std::shared_ptr<std::vector<std::uint64_t>> random_storage(std::mt19937_64& rng, std::size_t bytes,
                                                                  zt::DType dtype) {
  auto words = std::make_shared<std::vector<std::uint64_t>>((bytes + 7) / 8);
  for (std::uint64_t& word : *words) word = rng() & (dtype == zt::bool_ ? 0x0101010101010101u : ~std::uint64_t{0});
  return words;
}

/// The view of `layout` whose first element is `first`, kept alive by `owner`.
inline zt::AnyTensor make_tensor(zt::DType dtype, std::byte* first, const Layout& layout, zt::KeepAlive owner,
                                 bool writable) {
  return zt::dispatch(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return zt::AnyTensor(reinterpret_cast<T*>(first), layout.shape, layout.strides, std::move(owner), zt::cpu,
                         writable);
  });
}

/// A random view and where it lies: its first element is `offset` elements into `storage`.
struct Source {
  zt::AnyTensor tensor;
  Layout layout;
  std::shared_ptr<std::vector<std::uint64_t>> storage;
  index_t offset = 0;
  std::string description;
};

inline std::string describe(const zt::AnyTensor& t) {
  std::ostringstream out;
  out << t.dtype() << " shape (";
  for (index_t extent : t.shape()) out << extent << ',';
  out << ") strides (";
  for (index_t stride : t.strides()) out << stride << ',';
  out << ")" << (t.is_writable() ? "" : " read-only");
  return out.str();
}

/// A random view of `dtype` over random bytes: a few spare elements on each side of what it
/// reaches, so the offset and the buffer's end are both tested.
inline Source random_source(std::mt19937_64& rng, zt::DType dtype) {
  Layout layout = random_layout(rng);
  const auto size = index_t(zt::itemsize(dtype));
  const index_t offset = layout.below + uniform(rng, 0, 3);
  const index_t elements = offset + layout.above + 1 + uniform(rng, 0, 3);
  auto storage = random_storage(rng, std::size_t(elements * size), dtype);
  auto* first = reinterpret_cast<std::byte*>(storage->data()) + offset * size;
  zt::AnyTensor tensor = make_tensor(dtype, first, layout, storage, chance(rng, 0.75));
  std::string description = describe(tensor) + ", " + layout.kind + ", offset " + std::to_string(offset) + " of " +
                            std::to_string(elements) + " elements";
  return {std::move(tensor), std::move(layout), std::move(storage), offset, std::move(description)};
}

/// Calls `f(byte_offset)` for each element of `t` in C order, with its byte offset from data_ptr().
template <class F>
void for_each_element(const zt::AnyTensor& t, F&& f) {
  if (t.numel() == 0) return;
  const std::size_t rank = t.rank();
  const auto size = index_t(t.itemsize());
  std::vector<index_t> index(rank, 0);
  for (;;) {
    index_t offset = 0;
    for (std::size_t d = 0; d < rank; ++d) offset += index[d] * t.stride(d) * size;
    f(offset);
    std::size_t d = rank;
    while (d > 0 && ++index[d - 1] == t.size(d - 1)) index[--d] = 0;
    if (d == 0) return;
  }
}

/// The elements of `t` in C order, as bytes: what a bitwise comparison compares.
inline std::vector<std::byte> c_order_bytes(const zt::AnyTensor& t) {
  std::vector<std::byte> bytes;
  bytes.reserve(t.nbytes());
  const auto* base = static_cast<const std::byte*>(t.data_ptr());
  for_each_element(t, [&](index_t offset) { bytes.insert(bytes.end(), base + offset, base + offset + t.itemsize()); });
  return bytes;
}

/// The first element (in C order) whose bytes differ, or -1.
inline index_t first_difference(const std::vector<std::byte>& a, const std::vector<std::byte>& b,
                                std::size_t itemsize) {
  if (a.size() != b.size()) return 0;
  for (std::size_t i = 0; i < a.size(); i += itemsize) {
    if (std::memcmp(a.data() + i, b.data() + i, itemsize) != 0) return index_t(i / itemsize);
  }
  return -1;
}

}  // namespace zt_test
