#include "zerotensor/from_file.hpp"

#include "zerotensor/frombuffer.hpp"
#include "zerotensor/mapped_file.hpp"
#include "zerotensor/storage.hpp"

#include "vocabulary/concat.hpp"
#include "formats/file_tensor.hpp"

namespace zt {

namespace detail {

void check_typed_from_file(DType element_dtype, bool element_is_const, const FromFileOptions& options) {
  if (options.dtype && *options.dtype != element_dtype)
    throw TypeError(concat("from_file<", element_dtype, ">: the dtype option says ", *options.dtype));
  if (!element_is_const && !options.writable)
    throw TypeError(concat("from_file<", element_dtype, ">: writable = false maps the file read-only; ask for from_file<const ",
                           element_dtype, "> instead"));
}

}  // namespace detail

namespace {

/// PyTorch returns before touching the file: on the CPU the tensor has no memory and no
/// owner; on another device it has memory of its own there, as every tensor on it.
AnyTensor empty_result(DType dtype, const FromFileOptions& options) {
  constexpr index_t shape[] = {0};
  constexpr index_t strides[] = {1};
  std::shared_ptr<std::byte> memory = options.device == cpu ? nullptr : allocate_bytes(0, options.device);
  std::byte* data = memory.get();
  return detail::make_view(dtype, data, shape, strides, std::move(memory), options.device, options.writable);
}

MapAccess access_for(const FromFileOptions& options) {
  if (!options.writable) return MapAccess::read_only;
  return options.shared ? MapAccess::shared : MapAccess::copy_on_write;
}

/// The first options.size elements, streamed from a read-only mapping into memory of
/// their own on options.device (file_tensor's upload, as the loaders' `.device`).
AnyTensor load_to_device(PathRef path, DType dtype, const FromFileOptions& options) {
  const Buffer mapping = map_file(path, {.access = MapAccess::read_only,
                                         .length = std::size_t(options.size) * itemsize(dtype)});
  const detail::StoredTensor stored{0, dtype, DynamicExtents{options.size}, DynamicExtents{1}, false};
  const LoadOptions load{.access = options.writable ? MapAccess::copy_on_write : MapAccess::read_only,
                         .device = options.device};
  const auto describe = [&path] { return detail::concat("from_file: <", path.c_str(), ">"); };
  return detail::load_stored_tensor(mapping, stored, load, describe, "file");
}

}  // namespace

AnyTensor from_file(PathRef path, FromFileOptions options) {
  if (options.device != cpu && options.shared)
    throw ValueError(detail::concat("from_file: shared = true cannot be combined with device ", options.device,
                                    ": writes to a copy there never reach the file"));
  const DType dtype = options.dtype.value_or(default_dtype());
  if (options.size < 0)
    throw ValueError(detail::concat("from_file: size must be non-negative; got ", options.size, " for file <",
                                    path.c_str(), ">"));
  index_t length = 0;
  if (detail::mul_overflows(options.size, static_cast<index_t>(itemsize(dtype)), length))
    throw ValueError(detail::concat("from_file: size ", options.size, " of ", dtype, " (", itemsize(dtype),
                                    " bytes each) overflows a 64-bit byte count"));
  if (length == 0) return empty_result(dtype, options);
  if (options.device != cpu) return load_to_device(path, dtype, options);

  const MapAccess access = access_for(options);
  Buffer mapping = map_file(path, {.access = access,
                                   .length = std::size_t(length),
                                   .create = access == MapAccess::shared});
  // frombuffer validates the view once more (alignment, and 0/1 bytes for Bool).
  return frombuffer(std::move(mapping), dtype, {.count = options.size});
}

}  // namespace zt
