// from_dlpack on any descriptor: ndim, shape, strides, byte_offset, dtype code/bits/lanes,
// flags, version and device as the input says, both exchange structs. The deleter runs
// exactly once on every path (never while a view lives); an imported view is exactly the
// descriptor's and survives to_dlpack and from_dlpack unchanged.
//
// Input: uint8 mode (bit 0: DLPack 1.x versioned struct, else legacy; bit 1: shape NULL;
// bit 2: strides NULL; bit 3: data NULL), uint32 major, uint32 minor, uint64 flags, int32
// device type, int32 device id, int32 ndim, uint8 code, uint8 bits, uint16 lanes, uint64
// byte_offset, uint8 misalignment, then ndim extents, ndim strides (int64) and the bytes
// of the elements.
//
// Memory: where the view's span (computed here) fits in max_view_bytes, the harness
// allocates exactly that span, so every element the view may reach is real memory and
// ASan sees any read outside it. A larger span cannot be backed; such a descriptor is
// given as CUDA memory, which neither the library nor the harness may touch.
#include "fuzz/fuzz_support.hpp"

using namespace zt;
using namespace zt::fuzz;

namespace {

constexpr std::int32_t max_ndim = 256;
constexpr index_t max_view_bytes = index_t{1} << 20;

int deleter_calls = 0;

template <class M>
void count_deleter_call(M*) {
  ++deleter_calls;
}

/// Bytes below and above the first element that the view reaches, computed as DLPack's
/// consumers must: each product and sum overflow-checked (with the compiler's builtins,
/// not the library's helper: the oracle shares no code with what it checks).
struct Span {
  index_t below = 0;
  index_t above = 0;  // up to the end of the highest element
  bool overflows = false;
};

Span span_of(std::span<const index_t> shape, std::span<const index_t> strides, index_t itemsize) {
  Span span;
  index_t low = 0, high = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    index_t reach = 0;
    span.overflows |= __builtin_mul_overflow(shape[d] - 1, strides[d], &reach);
    span.overflows |= reach < 0 ? __builtin_add_overflow(low, reach, &low) : __builtin_add_overflow(high, reach, &high);
  }
  span.overflows |= __builtin_mul_overflow(low, -itemsize, &span.below) ||
                    __builtin_add_overflow(high, 1, &high) || __builtin_mul_overflow(high, itemsize, &span.above);
  return span;
}

/// C order with PyTorch's rule for extents 0 and 1, as DLPack's NULL strides mean; only
/// for shapes with elements, whose strides cannot overflow.
std::vector<index_t> c_order_strides(std::span<const index_t> shape) {
  std::vector<index_t> strides(shape.size());
  index_t step = 1;
  for (std::size_t d = shape.size(); d-- > 0;) {
    strides[d] = step;
    step *= std::max<index_t>(shape[d], 1);
  }
  return strides;
}

/// Everything a successful import must give: the descriptor's shape, strides and first
/// element, and READ_ONLY respected.
void check_import(const AnyTensor& view, const dlpack::Tensor& descriptor, std::span<const index_t> strides,
                  bool read_only, index_t count) {
  require(descriptor.dtype.lanes == 1 && itemsize(view.dtype()) * 8 == descriptor.dtype.bits,
          "from_dlpack accepted a dtype of another width or lanes");
  require(std::ranges::equal(view.shape(), std::span(descriptor.shape, view.rank())) &&
              view.rank() == std::size_t(descriptor.ndim),
          "from_dlpack's view has another shape");
  if (count > 0) {
    require(std::ranges::equal(view.strides(), strides), "from_dlpack's view has other strides");
    require(reinterpret_cast<std::uintptr_t>(view.data_ptr()) ==
                reinterpret_cast<std::uintptr_t>(descriptor.data) + descriptor.byte_offset,
            "from_dlpack's view does not start at data + byte_offset");
  }
  require(view.is_writable() == !read_only, "from_dlpack ignored READ_ONLY or made a view read-only");
  require(deleter_calls == 0, "the deleter ran while a view is alive");
}

/// What the harness knows of a descriptor before importing it.
struct Expected {
  std::span<const index_t> strides;  // C order where the descriptor's are NULL
  index_t count = 0;
  bool read_only = false;
  bool must_refuse = false;  // a bad ndim or shape, NULL data or a span beyond 2^63 bytes
  bool backed = false;       // every element it may reach is real host memory
};

/// Imports `managed`, checks and reads the view, and exports and imports it again.
template <class M>
void import(M& managed, const Expected& expected) {
  const auto view = unless_refused([&] { return from_dlpack(&managed); });
  if (!view) return;
  require(!expected.must_refuse, "from_dlpack accepted a descriptor it must refuse");
  const bool backed = expected.backed;
  check_import(*view, managed.dl_tensor, expected.strides, expected.read_only, expected.count);
  // An empty view reads nothing, but must still copy.
  if (backed || view->numel() == 0) inspect(*view);
  const AnyTensor again = from_dlpack(to_dlpack(*view));
  // An empty view is exported with NULL data, as DLPack allows.
  require((view->numel() == 0 || again.data_ptr() == view->data_ptr()) &&
              std::ranges::equal(again.shape(), view->shape()) &&
              std::ranges::equal(again.strides(), view->strides()) && again.dtype() == view->dtype() &&
              again.is_writable() == view->is_writable() && again.device() == view->device(),
          "to_dlpack then from_dlpack changed the view");
  if (backed && view->numel() <= max_compared_elements)
    require_same_elements(*view, again, "to_dlpack then from_dlpack");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  InputReader input(data, size);
  const auto mode = input.take<std::uint8_t>();
  const bool versioned = (mode & 1) != 0, shape_null = (mode & 2) != 0, strides_null = (mode & 4) != 0,
             data_null = (mode & 8) != 0;
  dlpack::ManagedTensorVersioned managed{};
  managed.version = {input.take<std::uint32_t>(), input.take<std::uint32_t>()};
  managed.flags = input.take<std::uint64_t>();
  dlpack::Tensor& descriptor = managed.dl_tensor;
  descriptor.device = {dlpack::DeviceType(input.take<std::int32_t>()), input.take<std::int32_t>()};
  descriptor.ndim = input.take<std::int32_t>();
  descriptor.dtype = input.take<dlpack::DataType>();
  descriptor.byte_offset = input.take<std::uint64_t>();
  const std::size_t misalignment = input.take<std::uint8_t>() & 7;

  // Any negative ndim goes in as it is (nothing may be read); a large one is folded so
  // that the shape and strides arrays exist.
  if (descriptor.ndim > max_ndim) descriptor.ndim %= max_ndim + 1;
  const std::size_t rank = descriptor.ndim > 0 ? std::size_t(descriptor.ndim) : 0;
  std::vector<index_t> shape(rank), given_strides(rank);
  for (index_t& extent : shape) extent = input.take<index_t>();
  for (index_t& stride : given_strides) stride = input.take<index_t>();
  descriptor.shape = shape_null ? nullptr : shape.data();
  descriptor.strides = strides_null ? nullptr : given_strides.data();

  // What a consumer may assume about the descriptor decides the memory behind it.
  index_t count = 1;
  bool bad_shape = false;
  for (index_t extent : shape) bad_shape |= extent < 0 || __builtin_mul_overflow(count, extent, &count);
  const bool has_elements = !bad_shape && count > 0 && !shape_null;
  const std::vector<index_t> strides = strides_null && has_elements ? c_order_strides(shape) : given_strides;
  const index_t itemsize = std::max(descriptor.dtype.bits / 8, 1);
  const Span span = has_elements ? span_of(shape, strides, itemsize) : Span{};
  const bool backed = has_elements && !span.overflows && span.below <= max_view_bytes &&
                      span.above <= max_view_bytes - span.below;
  const bool host = descriptor.device.device_type == dlpack::DeviceType::CPU ||
                    descriptor.device.device_type == dlpack::DeviceType::CUDAHost ||
                    descriptor.device.device_type == dlpack::DeviceType::CUDAManaged;

  std::vector<std::byte> memory(backed ? misalignment + std::size_t(span.below + span.above) : 0);
  std::uintptr_t first = reinterpret_cast<std::uintptr_t>(&managed);  // a non-NULL address for empty views
  if (backed) {
    first = reinterpret_cast<std::uintptr_t>(memory.data() + misalignment + span.below);
    const auto bytes = input.rest().subspan(0, std::min(input.rest().size(), memory.size()));
    if (!bytes.empty()) std::memcpy(memory.data(), bytes.data(), bytes.size());
  } else if (has_elements && host) {
    descriptor.device.device_type = dlpack::DeviceType::CUDA;
  }
  descriptor.data = data_null ? nullptr : reinterpret_cast<void*>(first - descriptor.byte_offset);

  index_t bytes = 0;
  const Expected expected{
      .strides = strides,
      .count = has_elements ? count : 0,
      .read_only = versioned && (managed.flags & dlpack::flag_read_only) != 0,
      .must_refuse = descriptor.ndim < 0 || (shape_null && rank > 0) || bad_shape ||
                     __builtin_mul_overflow(count, itemsize, &bytes) ||
                     (has_elements && (span.overflows || data_null)),
      .backed = backed};
  deleter_calls = 0;
  if (versioned) {
    managed.deleter = count_deleter_call<dlpack::ManagedTensorVersioned>;
    import(managed, expected);
  } else {
    dlpack::ManagedTensor legacy{descriptor, nullptr, count_deleter_call<dlpack::ManagedTensor>};
    import(legacy, expected);
  }
  require(deleter_calls == 1, "the deleter ran " + std::to_string(deleter_calls) + " times");
  return 0;
}
