// zt::load_safetensors / zt::save_safetensors: Hugging Face's .safetensors files.
//
// load_safetensors maps the file once (map_file) and makes every tensor a view into that
// one mapping, so opening reads only the header and takes time independent of the file's
// size; load_safetensors(zt::Buffer) reads a .safetensors file already in memory the same
// way, its tensors views into the buffer. Every entry is validated: a known dtype, a shape
// whose byte count fits, data offsets inside the data area whose length equals shape x
// itemsize, and no two tensors overlapping. Misaligned data (safetensors does not align
// tensors) is copied or refused as LoadOptions say (load_options.hpp, which also states the
// Bool 0/1 rule and the access rules for a Buffer).
//
// Dtypes: BOOL U8 I8 I16 I32 I64 U16 U32 U64 F16 BF16 F32 F64 C64, the 8-bit floats F8_E4M3
// F8_E5M2 F8_E4M3FNUZ F8_E5M2FNUZ F8_E8M0, and the packed floats F4 F6_E2M3 F6_E3M2, whose
// shapes count values: a packed element holds 2 (F4) or 4 (F6) of them, so the last extent is
// divided on load (ValueError when it is not a multiple) and multiplied on save. Any other
// name is a ValueError; complex32 and complex128 have no safetensors name, so save refuses
// them (TypeError).
#pragma once

#include <map>
#include <string>

#include "zerotensor/any_tensor.hpp"
#include "zerotensor/export.hpp"
#include "zerotensor/load_options.hpp"
#include "zerotensor/loaded_tensors.hpp"
#include "zerotensor/path_ref.hpp"

namespace zt {

/// Every tensor of a .safetensors file, by name (`tensors`), and the header's "__metadata__"
/// (`metadata`).
using SafetensorsFile = LoadedTensors;

/// Loads `path`. IOError when it cannot be opened or mapped; ValueError naming what is
/// wrong for a malformed file (too short, a header length beyond the file, JSON that does
/// not parse or is not an object, a bad entry, an unsupported dtype, offsets outside the
/// data area or overlapping, a length that is not shape x itemsize, metadata values that
/// are not strings) and for data that needs a copy which `options` forbid.
[[nodiscard]] ZT_API SafetensorsFile load_safetensors(PathRef path, LoadOptions options = {});

namespace detail {
[[nodiscard]] ZT_API SafetensorsFile load_safetensors_bytes(const Buffer& bytes, LoadOptions options);
}

/// The tensors and metadata of the .safetensors file whose bytes are `bytes`, with the checks
/// and messages of load_safetensors(path) ("<memory>" for the path). The views point into the
/// buffer and share its owner, which they keep alive; access and device as load_options.hpp
/// says for a Buffer. Only a zt::Buffer selects this overload: a string still names a file.
template <detail::BufferArgument Bytes>
[[nodiscard]] SafetensorsFile load_safetensors(Bytes&& bytes, LoadOptions options = {}) {
  return detail::load_safetensors_bytes(bytes, options);
}

/// Writes `tensors` (and `metadata` as "__metadata__") to `path`: an 8-byte little-endian
/// header length, the JSON header padded with spaces to a multiple of 8 bytes, then the
/// tensors in C order without gaps, largest alignment first, so each starts aligned for
/// its type. GPU memory streams into the file as save_npy's does. ValueError for the name
/// "__metadata__"; TypeError for complex32 and complex128; DeviceError as save_npy; IOError
/// when writing fails. Atomic, as
/// save_npy: views of the file being replaced stay valid, and a failed save changes nothing.
ZT_API void save_safetensors(PathRef path, const std::map<std::string, AnyTensor, std::less<>>& tensors,
                             const std::map<std::string, std::string, std::less<>>& metadata = {});

}  // namespace zt
