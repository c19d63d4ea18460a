// Internal: where load_checkpoint reads torch.save files (pytorch_model.bin and its shards).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "zerotensor/any_tensor.hpp"
#include "zerotensor/load_options.hpp"
#include "zerotensor/path_ref.hpp"

namespace zt::detail {

/// The tensors of the torch.save file `path` that `keep` accepts (unset: all), loaded as
/// `options` say, through zt::load_torch.
std::map<std::string, AnyTensor, std::less<>> load_torch_file(PathRef path, const LoadOptions& options,
                                                              const std::function<bool(std::string_view)>& keep);

}  // namespace zt::detail
