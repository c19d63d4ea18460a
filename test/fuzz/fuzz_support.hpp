// What every libFuzzer harness in test/fuzz/ shares: reading structured values from the
// fuzz input, the input as bytes for the loaders, a scratch file for the functions that take
// a path, and the checks run on each tensor a harness gets back — its elements read (so
// ASan catches a view that reaches outside its memory and UBSan a bool byte other than 0 or
// 1; see read_every_element for the bound on huge views) and a copy compared with it.
//
// A harness accepts zt::Error (the library's documented refusals) and nothing else: any
// other exception escapes and libFuzzer reports it as a crash.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <zerotensor/zerotensor.hpp>

namespace zt::fuzz {

/// Stops the run with a message: libFuzzer saves the input that got here.
[[noreturn]] inline void fail(const std::string& what) {
  std::fprintf(stderr, "zerotensor fuzz check failed: %s\n", what.c_str());
  std::abort();
}

inline void require(bool condition, const std::string& what) {
  if (!condition) fail(what);
}

/// Reads fixed-size little-endian values from the front of the input; past its end every
/// value reads as zero, so any input is a complete test case.
class InputReader {
 public:
  InputReader(const std::uint8_t* data, std::size_t size) : bytes_(data, size) {}

  template <class T>
    requires std::is_trivially_copyable_v<T>
  T take() {
    T value{};
    const std::size_t n = std::min(sizeof(T), bytes_.size());
    std::memcpy(&value, bytes_.data(), n);
    bytes_ = bytes_.subspan(n);
    return value;
  }

  /// Whatever has not been read yet.
  [[nodiscard]] std::span<const std::uint8_t> rest() const noexcept { return bytes_; }

 private:
  std::span<const std::uint8_t> bytes_;
};

/// `f()`, or nothing when the library refuses (throws zt::Error); any other exception
/// escapes to libFuzzer.
template <class F>
auto unless_refused(F&& f) -> std::optional<decltype(f())> {
  try {
    return f();
  } catch (const Error&) {
    return std::nullopt;
  }
}

/// The loaders' options a harness tries after the default: every tensor copied into
/// writable memory, and shared writable views that refuse any copy.
inline constexpr LoadOptions copy_every_tensor{.access = MapAccess::copy_on_write, .copy = true};
inline constexpr LoadOptions never_copy{.access = MapAccess::shared, .copy = false};

/// The input as writable bytes of their own, for the loaders that take a Buffer: libFuzzer's are
/// read-only, and the harnesses also load with copy_on_write and shared access. The memory is
/// exactly the input's size, so AddressSanitizer catches a read past its end.
inline Buffer input_bytes(const std::uint8_t* data, std::size_t size) {
  return Buffer(std::vector<std::uint8_t>(data, data + size));
}

/// Replaces the contents of the file at `path` with `bytes` (creating it).
inline void write_bytes(const std::filesystem::path& path, std::span<const std::uint8_t> bytes) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  require(file != nullptr, "cannot create " + path.string());
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  require(std::fclose(file) == 0 && written, "cannot write " + path.string());
}

/// A file of this process's own, rewritten for each input (save_npy and save_safetensors write
/// paths). Removed when the harness exits.
class ScratchFile {
 public:
  explicit ScratchFile(const std::string& suffix)
      : path_(std::filesystem::temp_directory_path() /
              ("zt_fuzz_" + std::to_string(::getpid()) + "_" + std::to_string(next_id()) + suffix)) {}
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;
  ~ScratchFile() {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
  }

  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }

  /// Replaces the file's contents with `bytes`.
  void write(std::span<const std::uint8_t> bytes) const { write_bytes(path_, bytes); }

 private:
  static int next_id() {
    static int id = 0;
    return ++id;
  }
  std::filesystem::path path_;
};

namespace detail {

/// Calls `f(offset)` with the element offset of each distinct element of a non-empty view,
/// in C order, the first `limit` only: a dimension of stride 0 (a broadcast) is visited at
/// index 0 only, so a view of 2^60 broadcast elements costs one read while every address
/// it can reach is still read. The offset is stepped, not recomputed, so each element
/// costs the same whatever the rank.
template <class F>
void for_each_distinct_offset(std::span<const index_t> shape, std::span<const index_t> strides, index_t limit,
                              F&& f) {
  const std::size_t rank = shape.size();
  std::vector<index_t> index(rank, 0);
  index_t offset = 0;
  for (index_t visited = 0; visited < limit; ++visited) {
    f(offset);
    std::size_t d = rank;
    for (; d > 0; --d) {
      const index_t steps = strides[d - 1] == 0 ? 1 : shape[d - 1];
      if (++index[d - 1] < steps) {
        offset += strides[d - 1];
        break;
      }
      offset -= (steps - 1) * strides[d - 1];
      index[d - 1] = 0;
    }
    if (d == 0) return;  // every index wrapped: the last element was visited
  }
}

/// The offsets of a non-empty view's lowest and highest elements; every element lies
/// between them.
inline std::pair<index_t, index_t> extreme_offsets(std::span<const index_t> shape, std::span<const index_t> strides) {
  index_t lowest = 0, highest = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    const index_t step = (shape[d] - 1) * strides[d];
    (step < 0 ? lowest : highest) += step;
  }
  return {lowest, highest};
}

/// Reads one element so the compiler cannot drop the load (a bool load is where UBSan
/// checks the byte).
template <class T>
void read_element(const T* element) {
  volatile std::remove_const_t<T> value = *element;
  (void)value;
}

template <class T, class U>
bool same_bits(const T& a, const U& b) {
  static_assert(sizeof(T) == sizeof(U));
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

}  // namespace detail

/// The largest tensor a harness copies to compare: copies of huge broadcast views would
/// only measure the allocator.
inline constexpr index_t max_compared_elements = index_t{1} << 16;

/// The most elements a harness reads of one view: overlapping strides can make billions of
/// elements out of a few bytes.
inline constexpr index_t max_read_elements = index_t{1} << 22;

/// Reads every distinct element of `tensor`, or for a view of more than max_read_elements,
/// its lowest and highest elements (which bound every address it reaches) and its first
/// max_read_elements. A tensor the host cannot touch is left alone.
inline void read_every_element(const AnyTensor& tensor) {
  if (!tensor.device().is_host_accessible() || tensor.numel() == 0) return;
  dispatch(tensor.dtype(), [&](auto tag) {  // every dtype, the packed ones too (visit skips them)
    const auto typed = tensor.as<const typename decltype(tag)::type>();
    const auto* data = typed.data();
    const auto [lowest, highest] = detail::extreme_offsets(typed.shape(), typed.strides());
    detail::read_element(data + lowest);
    detail::read_element(data + highest);
    detail::for_each_distinct_offset(typed.shape(), typed.strides(), max_read_elements,
                                     [&](index_t offset) { detail::read_element(data + offset); });
  });
}

/// `a` and `b` hold the same dtype, shape and element bits at every index.
inline void require_same_elements(const AnyTensor& a, const AnyTensor& b, const std::string& what) {
  require(a.dtype() == b.dtype(), what + ": dtype " + std::string(name(a.dtype())) + " became " +
                                      std::string(name(b.dtype())));
  require(std::ranges::equal(a.shape(), b.shape()), what + ": the shape changed");
  if (!a.device().is_host_accessible() || !b.device().is_host_accessible()) return;
  dispatch(a.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto typed_a = a.as<const T>();
    const auto typed_b = b.as<const T>();
    const std::size_t rank = a.rank();
    std::vector<index_t> index(rank, 0);
    for (index_t n = 0; n < a.numel(); ++n) {
      index_t offset_a = 0, offset_b = 0;
      for (std::size_t d = 0; d < rank; ++d) {
        offset_a += index[d] * typed_a.stride(d);
        offset_b += index[d] * typed_b.stride(d);
      }
      const T value_a = typed_a.data()[offset_a];
      const T value_b = typed_b.data()[offset_b];
      if (!detail::same_bits(value_a, value_b)) fail(what + ": element " + std::to_string(n) + " differs");
      for (std::size_t d = rank; d-- > 0;) {
        if (++index[d] < a.size(d)) break;
        index[d] = 0;
      }
    }
  });
}

/// `a` and `b` name the same tensors, each with the same elements (maps of a loaded file).
template <class TensorMap>
void require_same_tensors(const TensorMap& a, const TensorMap& b, const std::string& what) {
  require(a.size() == b.size(), what + ": the number of tensors changed");
  for (const auto& [name, tensor] : a) {
    const auto found = b.find(name);
    require(found != b.end(), what + ": tensor '" + name + "' is missing");
    require_same_elements(tensor, found->second, what + ", tensor '" + name + "'");
  }
}

/// What every harness does with a tensor it gets back: reads every element, and copies a
/// tensor of moderate size to check that the copy holds the same values.
inline void inspect(const AnyTensor& tensor) {
  read_every_element(tensor);
  if (tensor.device().is_host_accessible() && tensor.numel() <= max_compared_elements)
    require_same_elements(tensor, tensor.clone(), "clone()");
}

}  // namespace zt::fuzz
