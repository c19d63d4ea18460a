// zt::LoadedTensors: what the file loaders return — load_safetensors, load_torch and
// load_checkpoint — under one type: the tensors by name, `at`, the file's metadata, and the
// parts only some formats have. SafetensorsFile, TorchFile and Checkpoint name this type.
//
// Designated initializers of the three names keep compiling ({.tensors = ..., .metadata = ...}):
// the members keep each name's order. Name the members: positional initialization would
// put a map where another format's map is.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "zerotensor/any_tensor.hpp"
#include "zerotensor/export.hpp"

namespace zt {

struct ZT_API LoadedTensors {
  /// Every tensor loaded, by name (a torch.save file's by its flattened name, "layer.0.weight").
  std::map<std::string, AnyTensor, std::less<>> tensors;
  /// load_checkpoint: the shard file each tensor came from (a single file: that file).
  std::map<std::string, std::string, std::less<>> shard_of;
  /// The text a file keeps beside its tensors: a .safetensors header's "__metadata__", a
  /// checkpoint index's "metadata" (values that are not strings as their JSON text).
  std::map<std::string, std::string, std::less<>> metadata;
  /// load_torch: the saved object's other leaves (numbers, strings, None, ...) by flattened
  /// name, as text.
  std::map<std::string, std::string, std::less<>> values;

  /// The tensor called `name`; ValueError naming it and the count when there is none.
  [[nodiscard]] const AnyTensor& at(std::string_view name) const;
};

}  // namespace zt
