// zt::to_dlpack / zt::to_dlpack_legacy: an AnyTensor exported as a DLPack managed tensor for
// another library (libtorch's at::fromDLPack, NumPy, CuPy, JAX) to share without a copy.
//
// Ownership: the export shares the tensor's keep-alive owner (a reference-count bump; the
// caller's tensor is left as it was) and lives in one allocation with its shape and strides,
// which stay valid until the consumer calls the deleter — exactly once — which frees that
// allocation and drops the shared owner. A tensor that borrows its memory (empty owner)
// exports a borrow too: the memory must outlive the consumer's use, as it must outlive the
// tensor's.
//
// Layout: data points at the first element and byte_offset is 0 (what every consumer reads
// correctly, PyTorch ≤ 2.9 included); strides are always given, in elements, exactly as the
// view has them (zero and negative strides included); an empty tensor exports a NULL data
// pointer, as the spec asks. Devices map to CPU (id 0), CUDA, CUDAHost and CUDAManaged;
// bool is code 6 with 8 bits.
#pragma once

#include "zerotensor/any_tensor.hpp"
#include "zerotensor/dlpack.hpp"
#include "zerotensor/export.hpp"

namespace zt {

/// DLPack 1.x export (version 1.3). Read-only tensors set flag_read_only; IS_COPIED is never set (nothing
/// is copied). Throws only std::bad_alloc.
[[nodiscard]] ZT_API dlpack::ManagedTensorVersioned* to_dlpack(const AnyTensor& tensor);

/// The legacy DLManagedTensor export, for consumers that predate DLPack 1.0 (libtorch 1.13).
/// It has no way to say "read-only", and a consumer would write through it, so a read-only
/// tensor is refused with TypeError (use to_dlpack, or export a clone()).
[[nodiscard]] ZT_API dlpack::ManagedTensor* to_dlpack_legacy(const AnyTensor& tensor);

/// The DLPack device of `device`: CPU (id 0), CUDA, CUDAHost or CUDAManaged with its index.
[[nodiscard]] ZT_API dlpack::Device to_dlpack_device(Device device) noexcept;

/// A new C-contiguous tensor of `prototype`'s dtype, ndim, shape and device (its data, strides and
/// byte_offset are not read), exported as to_dlpack does: what a DLPack exchange API's
/// managed_tensor_allocator returns. The errors of from_dlpack for the dtype, device and shape,
/// and those of empty().
[[nodiscard]] ZT_API dlpack::ManagedTensorVersioned* allocate_dlpack(const dlpack::Tensor& prototype);

}  // namespace zt
