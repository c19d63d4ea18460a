#include "zerotensor/detail/element_checks.hpp"

#include <algorithm>

#include "vocabulary/concat.hpp"
#include "zerotensor/error.hpp"

namespace zt::detail {

void throw_misaligned(const char* operation, const void* address, index_t offset, DType dtype) {
  throw ValueError(concat(operation, ": the data at ", address, " (offset ", offset, " bytes) is not aligned to ",
                          alignment(dtype), " bytes, the alignment of ", dtype,
                          "; choose an aligned offset, or let asarray copy it"));
}

void check_bool_bytes(const std::byte* bytes, index_t count, std::string_view context) {
  const auto* end = bytes + count;
  const auto* bad = std::find_if(bytes, end, [](std::byte b) { return std::to_integer<unsigned>(b) > 1; });
  if (bad != end)
    throw ValueError(concat(context, context.empty() ? "" : ": ", "bool data must be bytes 0 or 1; element ",
                            bad - bytes, " is byte ", std::to_integer<unsigned>(*bad)));
}

}  // namespace zt::detail
