// zt::LoadOptions: how load_npy, load_safetensors and load_torch turn the tensors of a file,
// or of a file's bytes already in memory (a zt::Buffer), into views.
//
// Zero-copy is the rule: each tensor is a view into the one mapping of the file (or into the
// Buffer), which lives as long as any of them. Data that cannot be viewed as C++ elements —
// stored in the other byte order, or at an address not aligned for its element type (a typed
// view of a misaligned pointer is undefined behaviour) — is copied into memory of its own
// unless `copy` forbids it.
//
// Bool: bytes that become `bool` must be 0 or 1; the loaders check every byte of each Bool
// tensor (a read proportional to that tensor's size) and throw ValueError naming the
// first bad one.
//
// A device other than the CPU loads straight to it: each tensor is streamed from the
// mapping through the pinned staging buffers (staging.hpp) into memory of its own on the
// device, so the host never holds more of it than those buffers.
//
// Bytes in memory (the loaders' zt::Buffer overloads): the views point into the buffer, carry
// its device (host memory: cpu, pinned or managed; other memory is a DeviceError) and share its
// owner, so they keep it alive; a buffer without an owner is borrowed and must outlive them.
// Writable tensors come only from a writable buffer and an access other than read_only; a
// read-only buffer with any other access is a ValueError. The access means:
// - read_only: read-only tensors, as from a file;
// - copy_on_write: writable tensors whose writes never reach the buffer, so every tensor is
//   copied (as with copy = true; copy = false is a ValueError);
// - shared: writable views whose writes reach the buffer; data that needs a copy is refused.
// The messages are the file loaders', with "<memory>" for the path and "the buffer" for
// "the file".
#pragma once

#include <concepts>
#include <optional>
#include <type_traits>

#include "zerotensor/device.hpp"
#include "zerotensor/mapped_file.hpp"
#include "zerotensor/slice_options.hpp"

namespace zt {

struct LoadOptions {
  /// read_only (default): read-only tensors, and the file may be one you cannot write.
  /// copy_on_write: writable tensors whose writes never reach the file.
  /// shared: writable tensors whose writes reach the file; data that needs a copy is then
  /// refused (ValueError), since writes to a copy would silently miss the file.
  MapAccess access = MapAccess::read_only;
  /// unset: copy only the tensors that cannot be viewed (other byte order, misaligned).
  /// true: copy every tensor; the file is not kept mapped.
  /// false: never copy; such a tensor throws ValueError naming the reason.
  /// Copies have the writability the view would have had, so a tensor's type does not
  /// depend on how the file happens to be laid out.
  std::optional<bool> copy{};
  /// Where the tensors go. cpu (default): views or copies as above. A GPU (cuda(i)), or
  /// pinned or managed memory: copies owned by the tensors (the file is not kept mapped),
  /// byte-swapped where needed, writable unless `access` is read_only; copy = false and
  /// shared access are then ValueErrors. DeviceError in a build without CUDA, where there is
  /// no GPU, or naming both sizes when the device has too little free memory.
  Device device = cpu;
  /// Only this rank's part of the tensors the rules name (slice_options.hpp); by default
  /// every tensor whole.
  SliceOptions slice{};
  /// Reads past the page cache, which the reads neither fill nor use, with O_DIRECT: faster
  /// from cold storage (a disk serves large direct reads at its full rate), slower where the
  /// file is already cached. With copy = true on the CPU, .npy and .safetensors files of 2 MiB
  /// or more are read whole; to a device, their tensors are read in the staged copy's chunks
  /// (except those sliced, byte-swapped or negated, which come from the mapping). A file system
  /// without O_DIRECT is read as without it; other loads (views, torch.save files, a slice
  /// copied on the CPU) ignore it.
  bool direct = false;
};

namespace detail {
/// Exactly zt::Buffer: the loaders take bytes in memory only as a Buffer, since a Buffer can be
/// made from any contiguous range, string literals and std::string included, which must keep
/// naming files.
template <class Bytes>
concept BufferArgument = std::same_as<std::remove_cvref_t<Bytes>, Buffer>;
}  // namespace detail

}  // namespace zt
