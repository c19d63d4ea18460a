// frombuffer (both forms) and asarray(Buffer) with any count, offset and dtype byte — the
// 15 dtypes and values that name none — over buffers of any length and alignment.
//
// Input: int64 count, int64 offset, uint8 dtype, uint8 flags (bit 0: the buffer is
// read-only; bits 1-3: how many bytes past an 8-byte boundary it starts), then the
// buffer's bytes.
#include "fuzz/fuzz_support.hpp"

using namespace zt;
using namespace zt::fuzz;

namespace {

/// A view frombuffer returned is exactly the one asked for.
void check_view(const AnyTensor& view, const std::byte* buffer, std::size_t length, DType dtype,
                FromBufferOptions options, bool read_only) {
  require(view.dtype() == dtype, "frombuffer returned dtype " + std::string(name(view.dtype())) +
                                     " for dtype byte " + std::to_string(unsigned(dtype)));
  require(view.rank() == 1 && view.stride(0) == 1, "frombuffer returned a view that is not 1-D and contiguous");
  require(view.data_ptr() == buffer + options.offset, "frombuffer's view does not start at the offset");
  const auto remaining = index_t(length) - options.offset;
  const index_t expected = options.count < 0 ? remaining / index_t(itemsize(dtype)) : options.count;
  require(view.numel() == expected, "frombuffer's view has " + std::to_string(view.numel()) + " elements, not " +
                                        std::to_string(expected));
  require(view.is_writable() == !read_only, "frombuffer's view has the wrong writability");
  inspect(view);
}

bool is_valid(DType dtype) { return std::size_t(dtype) < dtype_count; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  InputReader input(data, size);
  const FromBufferOptions options{.count = input.take<index_t>(), .offset = input.take<index_t>()};
  const auto dtype = DType(input.take<std::uint8_t>());
  const auto flags = input.take<std::uint8_t>();
  const bool read_only = (flags & 1) != 0;
  const std::size_t misalignment = (flags >> 1) & 7;

  // An allocation of exactly the buffer's end, so ASan sees a read past it.
  const std::span<const std::uint8_t> bytes = input.rest();
  std::vector<std::byte> memory(misalignment + bytes.size());
  std::byte* buffer = memory.data() + misalignment;
  if (!bytes.empty()) std::memcpy(buffer, bytes.data(), bytes.size());
  const auto make_buffer = [&] {
    return read_only ? Buffer(static_cast<const void*>(buffer), bytes.size()) : Buffer(buffer, bytes.size());
  };

  const auto view = unless_refused([&] { return frombuffer(make_buffer(), dtype, options); });
  if (view) check_view(*view, buffer, bytes.size(), dtype, options, read_only);
  // asarray views what frombuffer views with no count or offset, and copies a misaligned start.
  const auto whole = unless_refused([&] { return frombuffer(make_buffer(), dtype); });
  const auto array = unless_refused([&] { return asarray(make_buffer(), {.dtype = dtype}); });
  if (!is_valid(dtype)) {
    require(!view && !whole && !array, "frombuffer or asarray accepted dtype byte " + std::to_string(unsigned(dtype)));
    return 0;
  }
  if (array) inspect(*array);
  if (whole) {
    require(array.has_value(), "asarray(Buffer) refused what frombuffer views");
    require_same_elements(*whole, *array, "asarray(Buffer) against frombuffer");
  }

  // The typed form takes the same decisions as the run-time one.
  dispatch(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto typed = unless_refused([&]() -> AnyTensor {
      if (read_only) return frombuffer<const T>(make_buffer(), options);
      return frombuffer<T>(make_buffer(), options);
    });
    require(typed.has_value() == view.has_value(), "frombuffer<T> and frombuffer(dtype) disagree on refusing");
    if (typed) check_view(*typed, buffer, bytes.size(), dtype, options, read_only);
  });

  return 0;
}
