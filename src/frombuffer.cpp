#include "zerotensor/frombuffer.hpp"

#include <algorithm>
#include <cstddef>
#include <string_view>

#include "concat.hpp"

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

void throw_misaligned(const char* operation, const void* address, index_t offset, DType dtype) {
  throw ValueError(concat(operation, ": the data at ", address, " (offset ", offset, " bytes) is not aligned to ",
                          alignment(dtype), " bytes, the alignment of ", dtype,
                          "; choose an aligned offset, or let asarray copy it"));
}

void throw_read_only_buffer(const char* operation, DType dtype) {
  throw TypeError(concat(operation, ": the buffer is read-only; ask for a const element type (const ", dtype,
                         " elements), e.g. frombuffer<const T>"));
}

void check_bool_bytes(const std::byte* bytes, index_t count, std::string_view context) {
  const auto* end = bytes + count;
  const auto* bad = std::find_if(bytes, end, [](std::byte b) { return std::to_integer<unsigned>(b) > 1; });
  if (bad != end)
    throw ValueError(concat(context, context.empty() ? "" : ": ", "bool data must be bytes 0 or 1; element ",
                            bad - bytes, " is byte ", std::to_integer<unsigned>(*bad)));
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
