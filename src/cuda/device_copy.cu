// AnyTensor::to(Device), and clone() of GPU memory, in the CUDA build. Large tensors move
// between ordinary (pageable) host memory and a GPU through the pinned staging buffers
// (staged_transfer.hpp); every other pair — pinned, managed, device to device, and small
// tensors — is one cudaMemcpyAsync (unified addressing tells the runtime the direction).
// Strided sources are gathered on the host first.
#include <cstring>

#include "zerotensor/cuda.hpp"
#include "zerotensor/detail/device_copy.hpp"
#include "zerotensor/staging.hpp"
#include "zerotensor/storage.hpp"

#include "vocabulary/concat.hpp"
#include "cuda/current_device.hpp"
#include "cuda/pinned_transfer.hpp"

namespace zt::detail {
namespace {

/// A contiguous host copy of a non-empty strided `source`. Memory the host cannot read is
/// first copied whole (the span it touches) as one contiguous copy, then gathered: one
/// transfer instead of one per row.
AnyTensor contiguous_on_host(const AnyTensor& source, const ToOptions& options, std::string_view operation) {
  if (source.device().is_host_accessible()) return source.clone();
  const ElementReach reach = element_reach(source.shape(), source.strides());
  const index_t itemsize = index_t(source.itemsize());
  const index_t span_bytes = (reach.below + reach.above + 1) * itemsize;
  constexpr index_t unit_stride = 1;
  const auto* span_start = static_cast<const std::byte*>(source.data_ptr()) - reach.below * itemsize;
  const AnyTensor span = make_view(uint8, const_cast<std::byte*>(span_start), {&span_bytes, 1}, {&unit_stride, 1},
                                   source.owner(), source.device(), false);
  AnyTensor on_host = copy_to_device(span, cpu, options, operation);
  auto* origin = static_cast<std::byte*>(on_host.mutable_data_ptr()) + reach.below * itemsize;
  return make_view(source.dtype(), origin, source.shape(), source.strides(), on_host.owner(), cpu, true)
      .clone();
}

/// The GPU whose context runs the copy: the device side of it.
int gpu_of(Device source, Device target) {
  return target.kind == DeviceKind::CUDA || source.kind != DeviceKind::CUDA ? target.index : source.index;
}

/// Whether the copy goes through the staging buffers: pageable memory and a GPU, and more
/// bytes than one buffer holds (a smaller copy is one call; the runtime stages it itself).
bool is_staged(std::size_t bytes, Device source, Device target) {
  const bool pageable_and_gpu = (source == cpu && target.kind == DeviceKind::CUDA) ||
                                (source.kind == DeviceKind::CUDA && target == cpu);
  return pageable_and_gpu && bytes > staging_options().buffer_bytes;
}

/// Copies the bytes of contiguous `from` into `to`, which has the same size.
void copy_bytes(const AnyTensor& from, AnyTensor& to, const ToOptions& options, std::string_view caller) {
  const std::size_t bytes = to.nbytes();
  const std::string operation = concat(caller, ": copying ", bytes, " bytes from ", from.device(), " to ", to.device());
  auto* destination = static_cast<std::byte*>(to.mutable_data_ptr());
  const auto* source = static_cast<const std::byte*>(from.data_ptr());
  if (is_staged(bytes, from.device(), to.device())) {
    if (from.device() == cpu) {
      const UploadPart whole{bytes, [source](std::size_t offset, std::span<std::byte> staging) {
                               std::memcpy(staging.data(), source + offset, staging.size());
                             }};
      upload_staged_into({&destination, 1}, {&whole, 1}, to.device().index, options.stream, operation);
    } else {
      download_staged(destination, source, from.device().index, bytes, options.stream, operation);
    }
    return;
  }
  const CurrentDevice current(operation, gpu_of(from.device(), to.device()));
  check_cuda(operation, cudaMemcpyAsync(destination, source, bytes, cudaMemcpyDefault, options.stream));
  if (!options.non_blocking || to.device() == cpu)
    check_cuda(operation + ": cudaStreamSynchronize", cudaStreamSynchronize(options.stream));
}

}  // namespace

AnyTensor copy_to_device(const AnyTensor& source, Device target, const ToOptions& options,
                         std::string_view operation) {
  AnyTensor contiguous = source;
  if (!source.is_contiguous()) {
    contiguous = contiguous_on_host(source, options, operation);
    if (target == cpu) return contiguous;
  }
  AnyTensor copy = allocate_tensor(source.shape(), source.dtype(), target);
  if (copy.nbytes() != 0) copy_bytes(contiguous, copy, options, operation);
  return copy;
}

}  // namespace zt::detail
