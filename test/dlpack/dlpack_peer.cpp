// A shared library for torch_dlpack_check.py: Python hands it a DLPack 1.x tensor that
// PyTorch exported; zerotensor imports it (from_dlpack) and exports the view again (to_dlpack)
// for PyTorch to import. Nothing is copied either way.
#include <cstddef>
#include <cstring>
#include <string_view>

#include "zerotensor/from_dlpack.hpp"
#include "zerotensor/to_dlpack.hpp"

/// Imports `managed`, writes the dtype's name (or the error) to `text`, and exports the view;
/// NULL when zerotensor refuses it (the producer's deleter has then run).
extern "C" __attribute__((visibility("default"))) zt::dlpack::ManagedTensorVersioned*
zt_dlpack_round_trip(zt::dlpack::ManagedTensorVersioned* managed, char* text, std::size_t capacity) {
  const auto write = [&](std::string_view what) {
    const std::size_t length = std::min(what.size(), capacity - 1);
    std::memcpy(text, what.data(), length);
    text[length] = '\0';
  };
  try {
    const zt::AnyTensor view = zt::from_dlpack(managed);
    write(zt::name(view.dtype()));
    return zt::to_dlpack(view);
  } catch (const std::exception& e) {
    write(e.what());
    return nullptr;
  }
}
