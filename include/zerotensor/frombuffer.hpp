// zt::frombuffer: a 1-D tensor over the bytes of a Buffer, sharing memory, with
// torch.frombuffer's rules and error messages, checked arithmetic, an alignment rule and
// const elements for read-only memory.
//
// Bool: bytes that become `bool` must be 0 or 1 (any other byte is undefined behaviour in
// C++); frombuffer checks every byte of a Bool view and throws ValueError naming the first
// bad one. PyTorch accepts any byte (FB23).
#pragma once

#include <cstdint>

#include "zerotensor/any_tensor.hpp"
#include "zerotensor/buffer.hpp"
#include "zerotensor/detail/element_checks.hpp"
#include "zerotensor/export.hpp"

namespace zt {

struct FromBufferOptions {
  index_t count = -1;  ///< elements to view; any negative value means "all remaining"
  index_t offset = 0;  ///< bytes to skip at the start of the buffer
};

namespace detail {

[[noreturn]] ZT_API void throw_frombuffer_empty(std::size_t length, index_t count);
[[noreturn]] ZT_API void throw_frombuffer_offset(index_t offset, std::size_t length);
[[noreturn]] ZT_API void throw_frombuffer_not_multiple(index_t remaining, index_t offset, std::size_t itemsize);
[[noreturn]] ZT_API void throw_frombuffer_too_long(index_t count, std::size_t itemsize, index_t offset,
                                                   std::size_t length);
[[noreturn]] ZT_API void throw_read_only_buffer(const char* operation, DType dtype);

/// torch.frombuffer's checks, in its order, on `length` bytes; returns the element count.
inline index_t frombuffer_count(std::size_t length, std::size_t itemsize, FromBufferOptions options) {
  const auto total = static_cast<index_t>(length);
  const auto size = static_cast<index_t>(itemsize);
  if (total == 0 || options.count == 0) throw_frombuffer_empty(length, options.count);
  if (options.offset < 0 || options.offset >= total) throw_frombuffer_offset(options.offset, length);
  const index_t remaining = total - options.offset;
  if (options.count < 0) {
    if (remaining % size != 0) throw_frombuffer_not_multiple(remaining, options.offset, itemsize);
    return remaining / size;
  }
  index_t requested = 0;
  if (detail::mul_overflows(options.count, size, requested) || requested > remaining)
    throw_frombuffer_too_long(options.count, itemsize, options.offset, length);
  return options.count;
}

/// Where a frombuffer view of `dtype` starts and how many elements it has, after every
/// check. `writes`: the view may write (a non-const element type), which a read-only
/// buffer refuses.
struct ElementRange {
  std::byte* start;
  index_t count;
};

inline ElementRange frombuffer_range(const Buffer& buffer, DType dtype, bool writes, FromBufferOptions options) {
  if (writes && !buffer.is_writable()) throw_read_only_buffer("frombuffer", dtype);
  if (!buffer.device().is_host_accessible()) throw_not_host_accessible("frombuffer", buffer.device());
  const index_t count = frombuffer_count(buffer.nbytes(), itemsize(dtype), options);
  // Written through only when `writes`, which the check above allows only for a writable buffer.
  std::byte* start = view_address(buffer) + options.offset;
  check_alignment("frombuffer", start, options.offset, dtype);
  if (dtype == bool_) check_bool_bytes(start, count);
  return {start, count};
}

}  // namespace detail

/// A 1-D view of `count` elements of `T` starting `offset` bytes into `buffer`, sharing its
/// memory and keeping its owner alive. `T` must be const when the buffer is read-only
/// (TypeError otherwise). ValueError for PyTorch's range errors and a start address not
/// aligned to alignof(T); DeviceError for a buffer whose device the host cannot touch (the
/// device is the Buffer's label: no driver is asked, see buffer.hpp).
template <Element T>
[[nodiscard]] Tensor<T, 1> frombuffer(Buffer buffer, FromBufferOptions options = {}) {
  const auto [start, count] = detail::frombuffer_range(buffer, dtype_of<T>, !std::is_const_v<T>, options);
  return Tensor<T, 1>(reinterpret_cast<T*>(start), {count}, {1}, buffer.release_owner(), buffer.device());
}

/// The run-time dtype form: read-only buffers give a read-only AnyTensor.
[[nodiscard]] ZT_API AnyTensor frombuffer(Buffer buffer, DType dtype, FromBufferOptions options = {});

}  // namespace zt
