// Internal: load_safetensors keeping only some tensors (load_checkpoint's allowlist and
// filter), so that tensors left out are neither viewed nor copied.
#pragma once

#include <functional>
#include <string_view>

#include "zerotensor/safetensors.hpp"

namespace zt::detail {

/// load_safetensors(path, options), returning only the tensors `keep` accepts (unset: all).
/// Every entry of the header is validated, kept or not.
SafetensorsFile load_safetensors_selected(PathRef path, const LoadOptions& options,
                                          const std::function<bool(std::string_view)>& keep);

}  // namespace zt::detail
