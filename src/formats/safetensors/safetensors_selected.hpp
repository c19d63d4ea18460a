// Internal: load_safetensors keeping only some tensors (load_checkpoint's allowlist and
// filter), so that tensors left out are neither viewed nor copied, and leaving the copies to
// devices to the caller, so that a checkpoint's shards share one staged copy.
#pragma once

#include <functional>
#include <string_view>

#include "zerotensor/safetensors.hpp"
#include "formats/file_tensor.hpp"

namespace zt::detail {

/// load_safetensors(path, options), returning only the tensors `keep` accepts (unset: all).
/// Every entry of the header is validated, kept or not. A kept tensor whose device
/// (`device_of(name)`, unset: options.device) is not the CPU is queued on `uploads` rather
/// than returned.
SafetensorsFile load_safetensors_selected(PathRef path, const LoadOptions& options,
                                          const std::function<bool(std::string_view)>& keep, DeviceUploads& uploads,
                                          const DeviceOf& device_of = {});

}  // namespace zt::detail
