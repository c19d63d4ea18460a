#include "checkpoint_torch.hpp"

#include "zerotensor/torch_load.hpp"

namespace zt::detail {

std::map<std::string, AnyTensor, std::less<>> load_torch_file(PathRef path, const LoadOptions& options,
                                                              const std::function<bool(std::string_view)>& keep) {
  std::map<std::string, AnyTensor, std::less<>> tensors = load_torch(path, options).tensors;
  if (keep) std::erase_if(tensors, [&](const auto& entry) { return !keep(entry.first); });
  return tensors;
}

}  // namespace zt::detail
