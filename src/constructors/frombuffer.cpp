#include "zerotensor/frombuffer.hpp"

#include <cstddef>

#include "vocabulary/concat.hpp"

namespace zt {

namespace detail {

void throw_frombuffer_empty(std::size_t length, index_t count) {
  throw ValueError(concat("both buffer length (", length, ") and count (", count, ") must not be 0"));
}

void throw_frombuffer_offset(index_t offset, std::size_t length) {
  throw ValueError(concat("offset (", offset, " bytes) must be non-negative and no greater than buffer length (",
                          length, " bytes) minus 1"));
}

void throw_frombuffer_not_multiple(index_t remaining, index_t offset, std::size_t itemsize) {
  throw ValueError(concat("buffer length (", remaining, " bytes) after offset (", offset,
                          " bytes) must be a multiple of element size (", itemsize, ")"));
}

void throw_frombuffer_too_long(index_t count, std::size_t itemsize, index_t offset, std::size_t length) {
  throw ValueError(concat("requested buffer length (", count, " * ", itemsize, " bytes) after offset (", offset,
                          " bytes) must not be greater than actual buffer length (", length, " bytes)"));
}

void throw_read_only_buffer(const char* operation, DType dtype) {
  throw TypeError(concat(operation, ": the buffer is read-only; ask for a const element type (const ", dtype,
                         " elements), e.g. frombuffer<const T>"));
}

}  // namespace detail

AnyTensor frombuffer(Buffer buffer, DType dtype, FromBufferOptions options) {
  const auto [start, count] = detail::frombuffer_range(buffer, dtype, false, options);
  const index_t shape[] = {count};
  const index_t strides[] = {1};
  const bool writable = buffer.is_writable();
  return detail::make_view(dtype, start, shape, strides, buffer.release_owner(), buffer.device(), writable);
}

}  // namespace zt
