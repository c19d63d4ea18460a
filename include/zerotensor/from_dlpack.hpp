// zt::from_dlpack: another library's DLPack tensor as an AnyTensor, sharing its memory.
//
// Ownership: from_dlpack takes the managed tensor. Its deleter runs exactly once — when the
// last view sharing the memory dies (copies of the AnyTensor and typed views taken from it
// included, on whichever thread that is), or, when from_dlpack throws, before the exception
// reaches the caller. A NULL deleter is allowed (the producer keeps the memory alive).
//
// What is accepted: DLPack 1.x ManagedTensorVersioned (a major version other than 1 is
// refused without reading past the header, as the spec demands) and the legacy
// ManagedTensor, or any struct laid out like either (::DLManagedTensor from dlpack.h or
// libtorch goes in as it is; the layout is checked at compile time). Every dtype (bool is
// code 6 with 8 bits; the 8-bit floats codes 10-14; float4_e2m1fn_x2 code 17 with 4 bits in
// 2 lanes, as PyTorch exports it; sub-byte values padded to a byte are refused); strides in elements (NULL means C order), zero and negative strides
// kept; byte_offset honoured (added to data, unlike PyTorch ≤ 2.9); devices CPU, CUDA,
// CUDAHost and CUDAManaged (CUDA memory gives a view the host cannot touch). The READ_ONLY
// flag gives a read-only AnyTensor; IS_COPIED changes nothing (the view owns it either way).
//
// What is refused, naming what was found: lanes ≠ 1 (but for the packed 4- and 6-bit floats),
// opaque handles and other codes or widths (TypeError); other device types or a negative device id (DeviceError);
// ndim < 0, a NULL shape, a negative extent, NULL data with elements, sizes or strides whose
// byte span overflows or wraps the address space, and a first element not aligned for its
// dtype (ValueError: a misaligned T* is undefined behaviour in C++).
//
// Bool: in C++ a bool whose byte is not 0 or 1 is undefined behaviour. Every DLPack bool
// element the host can read (CPU, CUDAHost, CUDAManaged) is checked on import, as frombuffer
// does, and a byte other than 0 or 1 throws ValueError naming its index and value. Bool data
// on a CUDA device cannot be read from the host: there zerotensor relies on the DLPack rule
// that kDLBool stores each element as one byte holding 0 or 1.
#pragma once

#include <cstdint>
#include <memory>
#include <type_traits>

#include "zerotensor/any_tensor.hpp"
#include "zerotensor/dlpack.hpp"
#include "zerotensor/export.hpp"

namespace zt {

namespace detail {

/// Builds the view after every check; `owner` runs the producer's deleter.
[[nodiscard]] ZT_API AnyTensor view_from_dlpack(const dlpack::Tensor& descriptor, std::uint64_t flags, KeepAlive owner);
[[noreturn]] ZT_API void throw_dlpack_null();
[[noreturn]] ZT_API void throw_dlpack_major_version(std::uint32_t major, std::uint32_t minor);

/// The producer's DLTensor (ours, dlpack.h's or any struct laid out like it) as ours,
/// member by member, so a foreign struct is never read through our types.
template <class D>
dlpack::Tensor descriptor_of(const D& t) noexcept {
  return {t.data,
          {dlpack::DeviceType(t.device.device_type), t.device.device_id},
          t.ndim,
          {t.dtype.code, t.dtype.bits, t.dtype.lanes},
          t.shape,
          t.strides,
          t.byte_offset};
}

template <class>
inline constexpr bool is_unique_managed_tensor = false;
template <class M>
inline constexpr bool is_unique_managed_tensor<dlpack::UniqueManagedTensor<M>> = true;

/// What a to_dlpack() member may return: a managed tensor pointer or its RAII owner.
template <class R>
concept ManagedTensorHandle =
    (std::is_pointer_v<R> && dlpack::ManagedTensorLayout<std::remove_pointer_t<R>>) ||
    is_unique_managed_tensor<R>;

}  // namespace detail

/// An object that exports itself as a DLPack managed tensor: C++'s `__dlpack__`.
template <class X>
concept DLPackExporter = requires(const X& x) {
  { x.to_dlpack() } -> detail::ManagedTensorHandle;
};

/// Takes `managed` (see the top of this header) and returns a view of its memory.
template <dlpack::ManagedTensorLayout M>
[[nodiscard]] AnyTensor from_dlpack(M* managed) {
  if (managed == nullptr) detail::throw_dlpack_null();
  // From here on every exit, normal or not, releases the producer's memory exactly once.
  KeepAlive owner(managed, dlpack::CallDeleter{});
  std::uint64_t flags = 0;  // a legacy tensor has none
  if constexpr (dlpack::VersionedManagedTensorLayout<M>) {
    if (managed->version.major != dlpack::major_version)
      detail::throw_dlpack_major_version(managed->version.major, managed->version.minor);
    flags = managed->flags;
  }
  return detail::view_from_dlpack(detail::descriptor_of(managed->dl_tensor), flags, std::move(owner));
}

/// Takes the managed tensor out of its RAII owner.
template <dlpack::ManagedTensorLayout M>
[[nodiscard]] AnyTensor from_dlpack(dlpack::UniqueManagedTensor<M> managed) {
  return from_dlpack(managed.release());
}

/// Imports whatever `obj.to_dlpack()` exports.
template <DLPackExporter X>
[[nodiscard]] AnyTensor from_dlpack(const X& obj) {
  return from_dlpack(obj.to_dlpack());
}

}  // namespace zt
