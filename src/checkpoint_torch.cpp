#include "checkpoint_torch.hpp"

#include "zerotensor/error.hpp"

namespace zt::detail {

std::map<std::string, AnyTensor, std::less<>> load_torch_file(PathRef path, const LoadOptions&,
                                                              const std::function<bool(std::string_view)>&) {
  throw ValueError(concat("load_checkpoint: <", path.c_str(),
                          ">: a torch.save (.bin) checkpoint needs zt::load_torch, which this version of "
                          "zerotensor does not have yet; convert the model to .safetensors"));
}

}  // namespace zt::detail
