// Internal: load_torch keeping only some tensors (load_checkpoint's allowlist and filter
// for .bin shards), so that tensors left out are never built and their storages never read.
#pragma once

#include <functional>
#include <string_view>

#include "zerotensor/torch_load.hpp"

namespace zt::detail {

/// load_torch(path, options), building only the tensors `keep` accepts (unset: all). The
/// whole archive and data.pkl are validated; a storage is checked against its record only
/// when a kept tensor uses it.
TorchFile load_torch_selected(PathRef path, const LoadOptions& options,
                              const std::function<bool(std::string_view)>& keep);

}  // namespace zt::detail
