// zt::pin_memory in the CUDA build: cudaHostRegister over the span a tensor touches, undone
// by the owner of the views it returns.
#include "zerotensor/cuda.hpp"  // first: it must see Eigen before any other header does
#include "zerotensor/pin_memory.hpp"
#include "vocabulary/concat.hpp"

namespace zt {
namespace {

/// Keeps a registration and the memory under it: unregisters first, then releases the
/// tensor's own owner (the memory must outlive its registration).
class Registration {
 public:
  explicit Registration(KeepAlive memory) : memory_(std::move(memory)) {}
  ~Registration() {
    if (address_ != nullptr) (void)cudaHostUnregister(address_);
  }
  Registration(const Registration&) = delete;
  Registration& operator=(const Registration&) = delete;

  void register_span(void* address, std::size_t bytes, bool writable) {
    const unsigned flags = cudaHostRegisterPortable | (writable ? 0U : unsigned(cudaHostRegisterReadOnly));
    const cudaError_t error = cudaHostRegister(address, bytes, flags);
    if (error == cudaErrorHostMemoryAlreadyRegistered) {
      (void)cudaGetLastError();
      throw DeviceError(detail::concat("pin_memory: the ", bytes, " bytes at ", address,
                                       " overlap memory that is already registered (pinned); pin it once and "
                                       "share that view"));
    }
    detail::check_cuda(detail::concat("pin_memory: cudaHostRegister of ", bytes, " bytes at ", address), error);
    address_ = address;
  }

 private:
  KeepAlive memory_;
  void* address_ = nullptr;
};

}  // namespace

AnyTensor pin_memory(const AnyTensor& tensor) {
  constexpr Device pinned{DeviceKind::CUDAHost, 0};
  if (tensor.device().kind == DeviceKind::CUDAHost) return tensor;
  if (tensor.device() != cpu)
    throw DeviceError(detail::concat("pin_memory: only ordinary host memory can be pinned; the tensor is on ",
                                     tensor.device()));
  auto registration = std::make_shared<Registration>(tensor.owner());
  if (tensor.numel() != 0) {
    const detail::ElementReach reach = detail::element_reach(tensor.shape(), tensor.strides());
    const auto itemsize = index_t(tensor.itemsize());
    auto* start = static_cast<std::byte*>(const_cast<void*>(tensor.data_ptr())) - reach.below * itemsize;
    registration->register_span(start, std::size_t((reach.below + reach.above + 1) * itemsize), tensor.is_writable());
  }
  return detail::make_view(tensor.dtype(), const_cast<void*>(tensor.data_ptr()), tensor.shape(), tensor.strides(),
                           KeepAlive(std::move(registration)), pinned, tensor.is_writable());
}

}  // namespace zt
