// Internal: a GGUF model's part files (llama.cpp's split models, <prefix>-00001-of-00003.gguf),
// each loaded keeping only some tensors and leaving copies to devices to the caller, as
// load_gguf and load_checkpoint load them.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string_view>
#include <vector>

#include "zerotensor/gguf.hpp"
#include "formats/file_tensor.hpp"

namespace zt::detail {

/// The files of the model whose first file is `first`: the parts its name numbers when it ends
/// in -00001-of-NNNNN.gguf, else `first` alone.
std::vector<std::filesystem::path> gguf_part_paths(const std::filesystem::path& first);

/// Part `number` of the `count` parts of a model (0 of 1 for a model of one file) at `path`: the
/// tensors `keep` accepts (unset: all), viewed or copied as `options` say, with `part_of` naming
/// `path`, and its metadata. Those whose device (`device_of(name)`, unset: options.device) is not
/// the CPU are queued on `uploads`. ValueError when the file's split.no and split.count say it is
/// another part.
GgufFile load_gguf_part(const std::filesystem::path& path, const LoadOptions& options,
                        const std::function<bool(std::string_view)>& keep, DeviceUploads& uploads,
                        const DeviceOf& device_of, std::uint64_t number, std::uint64_t count);

/// Adds the tensors of `part` to `model`; ValueError, after `description`, for a tensor in both.
void merge_gguf_part(GgufFile& model, GgufFile&& part, std::string_view description);

/// ValueError, after `description`, when the split.tensors.count of `model`'s metadata (its
/// first part's) is not the number of its tensors, every one loaded.
void check_gguf_tensor_count(const GgufFile& model, std::string_view description);

}  // namespace zt::detail
