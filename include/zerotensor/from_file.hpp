// zt::from_file: torch.from_file — a 1-D tensor of `size` elements backed by a memory-mapped
// file (mapped by map_file, the one place files are mapped).
//
// Where zerotensor differs from PyTorch, on purpose:
// - shared = true on an existing shorter file grows it and keeps every existing byte
//   (PyTorch overwrites the first byte with 0).
// - A negative size, a size whose byte count overflows and a directory are refused with
//   clear errors instead of failing inside mmap or the dispatcher.
// - writable = false maps the file read-only and gives a read-only tensor (const elements
//   through as<const T>()), so a file you may not write can be mapped; PyTorch 1.13
//   crashes writing into such a mapping.
// - Bool: bytes that become `bool` must be 0 or 1 (any other byte is undefined behaviour in
//   C++). from_file checks every mapped byte of a Bool tensor when it maps the file and
//   throws ValueError naming the first bad one; PyTorch reads any nonzero byte as true
//   (FF22). Bytes that another process writes into a shared mapping later are that
//   writer's responsibility.
#pragma once

#include <optional>

#include "zerotensor/any_tensor.hpp"
#include "zerotensor/device.hpp"
#include "zerotensor/dtype.hpp"
#include "zerotensor/export.hpp"
#include "zerotensor/path_ref.hpp"

namespace zt {

struct FromFileOptions {
  /// true: MAP_SHARED read-write — the file is created (mode 0600) if missing and grown to
  /// size * itemsize, and writes reach the file and every other mapping of it.
  /// false: MAP_PRIVATE copy-on-write — writes never reach the file, and the file must hold
  /// at least size * itemsize bytes.
  bool shared = false;
  /// Elements to map. 0 (PyTorch's default) gives an empty tensor without opening,
  /// creating or checking the file.
  index_t size = 0;
  /// The element type; default_dtype() when unset.
  std::optional<DType> dtype{};
  /// cpu: a view of the mapping. A GPU (cuda(i)), or pinned or managed memory: the bytes
  /// streamed through the pinned staging buffers (staging.hpp) into memory of its own there
  /// (the file is mapped read-only while it is read, never created or grown; shared = true
  /// is a ValueError). DeviceError in a build without CUDA or where there is no GPU.
  Device device = cpu;
  /// false: map the file read-only (the file is then never created or grown, whatever
  /// `shared` says) and return a read-only tensor.
  bool writable = true;
};

/// A 1-D contiguous tensor over the first size * itemsize bytes of `path`; the mapping
/// lives as long as any view of it. IOError (path, mode, OS reason) for a file that cannot
/// be opened, created or mapped, or is a directory; ValueError for a negative size, a byte
/// count that overflows, a file shorter than the mapping ("file <f> size <S> is smaller
/// than the required mapping size <N>") and Bool bytes other than 0/1; DeviceError for a
/// device the build or machine cannot reach.
[[nodiscard]] ZT_API AnyTensor from_file(PathRef path, FromFileOptions options = {});

namespace detail {
ZT_API void check_typed_from_file(DType element_dtype, bool element_is_const, const FromFileOptions& options);
}  // namespace detail

/// The typed form. `const T` maps the file read-only; a non-const `T` with writable = false,
/// or a `dtype` option other than T's, throws TypeError before anything is opened.
template <Element T>
[[nodiscard]] Tensor<T, 1> from_file(PathRef path, FromFileOptions options = {}) {
  detail::check_typed_from_file(dtype_of<T>, std::is_const_v<T>, options);
  options.dtype = dtype_of<T>;
  options.writable = !std::is_const_v<T>;
  return from_file(path, options).template as<T, 1>();
}

}  // namespace zt
