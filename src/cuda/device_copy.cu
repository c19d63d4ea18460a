// AnyTensor::to(Device) in the CUDA build: one cudaMemcpy between any two devices
// (unified addressing tells the runtime the direction), with strided sources gathered on
// the host first.
#include "zerotensor/cuda.hpp"
#include "zerotensor/device_copy.hpp"
#include "zerotensor/storage.hpp"

namespace zt::detail {
namespace {

/// The elements a strided view touches, relative to its data pointer: `count` elements
/// starting at `first` (negative strides reach below the data pointer).
struct ElementSpan {
  index_t first = 0;
  index_t count = 0;
};

ElementSpan touched_span(std::span<const index_t> shape, std::span<const index_t> strides) {
  ElementSpan span{0, 1};
  for (std::size_t d = 0; d < shape.size(); ++d) {
    const index_t reach = (shape[d] - 1) * strides[d];  // the view was validated: no overflow
    if (reach < 0) span.first += reach;
    span.count += reach < 0 ? -reach : reach;
  }
  return span;
}

/// A contiguous host copy of a non-empty strided `source`. Memory the host cannot read
/// is first staged whole (the span it touches) with one cudaMemcpy, then gathered: one
/// transfer instead of one per row.
AnyTensor contiguous_on_host(const AnyTensor& source) {
  if (source.device().is_host_accessible()) return source.clone();
  const ElementSpan span = touched_span(source.shape(), source.strides());
  const std::size_t span_bytes = std::size_t(span.count) * source.itemsize();
  std::shared_ptr<std::byte> staging = allocate_bytes(span_bytes);
  const auto* span_start = static_cast<const std::byte*>(source.data_ptr()) + span.first * index_t(source.itemsize());
  check_cuda(concat("AnyTensor::to: staging ", span_bytes, " bytes of a strided tensor from ", source.device()),
             cudaMemcpy(staging.get(), span_start, span_bytes, cudaMemcpyDefault));
  const AnyTensor staged = dispatch(source.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* origin = reinterpret_cast<T*>(staging.get()) - span.first;
    return AnyTensor(Tensor<T>(origin, source.shape(), source.strides(), staging));
  });
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
