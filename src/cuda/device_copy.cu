// AnyTensor::to(Device) in the CUDA build: one cudaMemcpy between any two devices
// (unified addressing tells the runtime the direction), with strided sources gathered on
// the host first.
#include "zerotensor/cuda.hpp"
#include "zerotensor/detail/device_copy.hpp"
#include "zerotensor/empty.hpp"
#include "zerotensor/storage.hpp"

namespace zt::detail {
namespace {

/// A contiguous host copy of a non-empty strided `source`. Memory the host cannot read
/// is first staged whole (the span it touches) with one cudaMemcpy, then gathered: one
/// transfer instead of one per row.
AnyTensor contiguous_on_host(const AnyTensor& source) {
  if (source.device().is_host_accessible()) return source.clone();
  const detail::ElementReach reach = detail::element_reach(source.shape(), source.strides());
  const std::size_t span_bytes = std::size_t(reach.below + reach.above + 1) * source.itemsize();
  std::shared_ptr<std::byte> staging = allocate_bytes(span_bytes);
  const auto* span_start = static_cast<const std::byte*>(source.data_ptr()) - reach.below * index_t(source.itemsize());
  check_cuda(concat("AnyTensor::to: staging ", span_bytes, " bytes of a strided tensor from ", source.device()),
             cudaMemcpy(staging.get(), span_start, span_bytes, cudaMemcpyDefault));
  std::byte* origin = staging.get() + reach.below * index_t(source.itemsize());
  const AnyTensor staged =
      detail::make_view(source.dtype(), origin, source.shape(), source.strides(), staging, cpu, true);
  return staged.clone();
}

}  // namespace

AnyTensor copy_to_device(const AnyTensor& source, Device target) {
  AnyTensor contiguous = source;
  if (!source.is_contiguous()) {
    contiguous = contiguous_on_host(source);
    if (target == cpu) return contiguous;
  }
  AnyTensor copy = empty(source.shape(), source.dtype(), target);
  if (copy.nbytes() != 0) {
    check_cuda(concat("AnyTensor::to: copying ", copy.nbytes(), " bytes from ", source.device(), " to ", target),
               cudaMemcpy(copy.mutable_data_ptr(), contiguous.data_ptr(), copy.nbytes(), cudaMemcpyDefault));
  }
  return copy;
}

}  // namespace zt::detail
