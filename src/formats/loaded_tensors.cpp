#include "zerotensor/loaded_tensors.hpp"

#include "vocabulary/concat.hpp"
#include "zerotensor/error.hpp"

namespace zt {

const AnyTensor& LoadedTensors::at(std::string_view name) const {
  const auto found = tensors.find(name);
  if (found == tensors.end())
    throw ValueError(detail::concat("LoadedTensors::at: no tensor named '", name, "' among ", tensors.size(),
                                    " tensors"));
  return found->second;
}

}  // namespace zt
