// zt::load_npy / zt::save_npy: NumPy's .npy files (format versions 1.0, 2.0 and 3.0).
//
// load_npy maps the file (map_file) and views its data in place: dtype, shape and order
// come from the header, and Fortran order gives column-major strides; load_npy(zt::Buffer)
// reads a .npy file already in memory the same way, its view pointing into the buffer.
// Data in the other byte order or misaligned for its element type is copied (byte-swapped)
// unless LoadOptions::copy forbids it (see load_options.hpp, which also states the Bool
// rule: every byte of a Bool array must be 0 or 1, and the access rules for a Buffer).
//
// Dtypes: |b1 |u1 |i1 and <i2 <i4 <i8 <u2 <u4 <u8 <f2 <f4 <f8 <c8 <c16, each also with
// '>' (big-endian, copied), '=' (native) or '|'. NumPy has no bfloat16.
#pragma once


#include "zerotensor/any_tensor.hpp"
#include "zerotensor/export.hpp"
#include "zerotensor/load_options.hpp"
#include "zerotensor/path_ref.hpp"

namespace zt {

/// The array stored in `path`. IOError when the file cannot be opened or mapped;
/// ValueError naming what is wrong for a malformed file (bad magic, unknown version,
/// truncated preamble or header, a header that is not the expected dict, an unknown or
/// structured dtype, a bad shape, less data than the shape needs) and for data that needs
/// a copy which `options` forbid. Bytes after the array are ignored, as NumPy does.
[[nodiscard]] ZT_API AnyTensor load_npy(PathRef path, LoadOptions options = {});

namespace detail {
[[nodiscard]] ZT_API AnyTensor load_npy_bytes(const Buffer& bytes, LoadOptions options);
}

/// The array of the .npy file whose bytes are `bytes`, with the checks and messages of
/// load_npy(path) ("<memory>" for the path). A view points into the buffer and shares its
/// owner, which it keeps alive; access and device as load_options.hpp says for a Buffer. Only
/// a zt::Buffer selects this overload: a string still names a file.
template <detail::BufferArgument Bytes>
[[nodiscard]] AnyTensor load_npy(Bytes&& bytes, LoadOptions options = {}) {
  return detail::load_npy_bytes(bytes, options);
}

/// Writes `tensor` to `path` in format 1.0 (2.0 when the header needs more than 65535
/// bytes), native byte order; a Fortran-ordered tensor is written with fortran_order True,
/// any other non-contiguous tensor as a C-order copy. GPU memory streams into the file through
/// the pinned staging buffers (staging.hpp), with no whole copy on the host; a non-contiguous
/// one is first copied on its GPU. TypeError for bfloat16 (NumPy has none); DeviceError for
/// GPU memory in a build without CUDA or from a CUDA call; IOError when writing fails.
/// Atomic: the file is written beside `path` and renamed over it, so views and mappings of
/// the old file (this tensor's own included) keep the old contents, and a failed save
/// leaves the old file as it was. The new file keeps the replaced file's permissions.
ZT_API void save_npy(PathRef path, const AnyTensor& tensor);

}  // namespace zt
