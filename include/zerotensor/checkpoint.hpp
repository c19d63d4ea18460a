// zt::load_checkpoint: a whole model — a Hugging Face model directory, its index file, one
// checkpoint file, or a GGUF model — in one call.
//
// A directory is searched for model.safetensors.index.json, model.safetensors,
// pytorch_model.bin.index.json and pytorch_model.bin; the safetensors files win over the
// .bin ones (as transformers prefers them), and a directory holding both an index and the
// single file of one format is refused, since either could be stale. A directory holding none
// of them is searched for one GGUF model: a *.gguf file, or the parts of a split model
// (<prefix>-00001-of-00003.gguf, ...); several models there are refused (name the file).
//
// A GGUF model's parts are read as shards are, each tensor a view of its own part, as load_gguf
// (gguf.hpp) gives them; `shard_of` names each tensor's part, and `metadata` holds the first
// part's metadata as text (zt::to_string of each GgufValue).
//
// The index (`{"metadata": {...}, "weight_map": {"tensor": "shard file", ...}}`) is read
// strictly: through the same JSON reader as safetensors headers (duplicate names, deep
// nesting and malformed JSON refused), every shard named by a plain file name in the
// index's directory (no '/', no "..": ValueError naming it), a shard file that is a
// symbolic link followed (the Hugging Face cache links snapshots into blobs/), a missing
// shard an IOError naming it. The weight_map is an allowlist: a tensor a shard holds but
// the index does not list for that shard is not returned, and files the index does not
// name are never read. Every selected tensor must exist in the shard the index names
// (ValueError naming both). "metadata" is returned as read (values that are not strings as
// their JSON text); total_size is not checked, since writers do not always get it exact.
//
// Each shard is loaded as load_safetensors loads a file: every tensor a view of its own
// shard's mapping (keeping only that shard mapped), or a copy as `access`, `copy` and
// `device` say (load_options.hpp). Shards are opened by up to `threads` threads at a time.
// To a device, the tensors of every .safetensors shard go through one staged copy, laid end
// to end: no drain between shards, and never more pinned memory than staging.hpp's buffers.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "zerotensor/export.hpp"
#include "zerotensor/load_options.hpp"
#include "zerotensor/loaded_tensors.hpp"
#include "zerotensor/path_ref.hpp"

namespace zt {

struct CheckpointOptions {
  /// LoadOptions' fields, with their meaning (load_options.hpp): how each tensor becomes a
  /// view or a copy, and where it goes. load_options() hands them to each shard's loader.
  MapAccess access = MapAccess::read_only;
  std::optional<bool> copy{};
  Device device = cpu;
  /// Only these tensors (each must exist: ValueError naming the first that does not);
  /// empty: every tensor that `filter` accepts. Shards holding none of the selected
  /// tensors are not opened, so a pipeline stage maps only the shards it needs.
  std::vector<std::string> names{};
  /// Only the tensors for which this returns true; unset: all.
  std::function<bool(std::string_view name)> filter{};
  /// Read every shard that is opened into the page cache before returning, with large
  /// sequential reads (one buffer of `prefetch_chunk` bytes per thread), rather than page
  /// by page on first touch.
  bool prefetch = false;
  std::size_t prefetch_chunk = std::size_t{8} << 20;
  /// Called as the shards are read: bytes done and bytes in all, from the loading threads
  /// one call at a time; `done` reaches `total` once. With prefetch after each chunk; else
  /// after each shard, and for tensors copied to a device as each staged chunk is read.
  std::function<void(std::uint64_t done, std::uint64_t total)> progress{};
  /// Threads that open (and prefetch) shards; each holds at most one shard file open at a
  /// time, which bounds the open file descriptors. 0: the hardware's threads, at most 16;
  /// one when `device` is not the CPU (the copy to it has threads of its own).
  unsigned threads = 0;
  /// LoadOptions' fields: only this rank's part of the tensors the rules name; reads past the
  /// page cache (with copy = true on the CPU each shard read whole, to a device in chunks).
  SliceOptions slice{};
  bool direct = false;
  /// Each tensor's device as a function of its name (transformers' device_map, pipeline
  /// stages across GPUs); unset: every tensor goes to `device`, which must then be left at
  /// cpu (ValueError otherwise). Tensors for the CPU are views or copies as above; a
  /// .safetensors checkpoint's tensors for each other device go there in one staged copy for
  /// all its shards, a .bin file's in one per file and device. Called once per selected tensor,
  /// from the shard threads: several calls at once where `threads` allows more than one.
  std::function<Device(std::string_view name)> device_map{};

  /// The fields LoadOptions shares, as the LoadOptions each file is loaded with.
  [[nodiscard]] LoadOptions load_options() const {
    return {.access = access, .copy = copy, .device = device, .slice = slice, .direct = direct};
  }
};

/// The selected tensors of a checkpoint, by name (`tensors`), the shard file each came from
/// (`shard_of`), and the index's "metadata" (a single .safetensors file: its "__metadata__";
/// a single .bin file: its other leaves in `values`, as load_torch gives them).
using Checkpoint = LoadedTensors;

/// Loads the checkpoint at `path` (a directory, a *.index.json, a *.safetensors, a *.bin or a
/// *.gguf file). IOError for a path or shard that cannot be opened and for a directory holding no
/// checkpoint; ValueError for a malformed index or shard, a shard name that is not a plain
/// file name, a listed tensor missing from its shard, a name in `names` the checkpoint does
/// not have, a directory holding both an index and the single file, or another file type.
/// .bin files (torch.save) are read with zt::load_torch's reader, which builds only the
/// selected tensors (the storages of the others are never read), and fail as it fails.
[[nodiscard]] ZT_API Checkpoint load_checkpoint(PathRef path, CheckpointOptions options = {});

}  // namespace zt
