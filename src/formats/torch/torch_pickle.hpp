// Internal: the pickle reader of load_torch. It reads the data.pkl of a torch.save archive
// into a graph of plain values and never calls anything: the only globals it accepts are
// the handful a weights file names (torch_load.hpp lists them), each turned into a value
// zerotensor defines. Everything from the file is bounded: opcode arguments by the bytes
// that remain, memo indices by the memo, the stack, MARK nesting and the object count by
// fixed limits, what the objects hold by max_pickle_build, shapes and strides by
// overflow-checked arithmetic against their storage.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "zerotensor/dtype.hpp"
#include "zerotensor/extents.hpp"

namespace zt::detail {

using ObjectId = std::uint32_t;

/// What a pickled value is. `global` is one of the accepted globals that is not called
/// (a storage class, a dtype); `device` is torch.device, its text "cuda:0".
enum class PickleKind : std::uint8_t {
  none, boolean, integer, floating, string, bytes, list, tuple, dict, global, device, storage, tensor
};

struct PickleObject {
  PickleKind kind = PickleKind::none;
  std::int64_t integer = 0;  ///< boolean, integer; storage and tensor: index into PickleGraph
  double floating = 0;
  std::string text{};            ///< string, bytes; global: "module.name"; device: "cuda:0"
  std::vector<ObjectId> items{};  ///< list, tuple; dict: key, value, key, value...
};

/// A storage named by a persistent id ('storage', class, key, location, numel).
struct PickleStorage {
  std::string key;              ///< the record is <archive>/data/<key>
  std::optional<DType> dtype;   ///< nullopt: torch.UntypedStorage, numel counts bytes
  std::int64_t numel;
};

/// A tensor rebuilt by _rebuild_tensor_v2 / _v3, checked to lie inside its storage.
struct PickleTensor {
  std::size_t storage;  ///< index into PickleGraph::storages
  DType dtype;
  std::int64_t offset;  ///< in elements of dtype
  DynamicExtents shape;
  DynamicExtents strides;
  /// The bits of the metadata dict ({'conj': True}, {'neg': True}), with which torch.save
  /// records tensor.conj() and views such as tensor.conj().imag over unchanged bytes:
  /// torch.load's values are the stored ones with the imaginary parts (conj) or every value
  /// (neg) negated. Set only for the dtypes torch resolves them for.
  bool conj = false;
  bool neg = false;
};

struct PickleGraph {
  std::vector<PickleObject> objects;
  std::vector<PickleStorage> storages;
  std::vector<PickleTensor> tensors;
  ObjectId root = 0;
};

/// Limits on what one data.pkl may build.
inline constexpr std::size_t max_pickle_objects = 10'000'000;
inline constexpr std::size_t max_pickle_stack = 1'000'000;
inline constexpr std::size_t max_pickle_marks = 1'000;
/// The most bytes the objects of a data.pkl of `pickle_bytes` bytes may hold: the entries of
/// lists, tuples and dicts (4 bytes each), the shapes and strides of tensors (8 bytes a
/// dimension) and text. A file torch.save wrote holds fewer than 8 per byte of its data.pkl;
/// values shared through the memo (torch.Size of one tuple, reduced again and again) can make
/// a few bytes build without bound.
constexpr std::uint64_t max_pickle_build(std::uint64_t pickle_bytes) { return (16u << 20) + 32 * pickle_bytes; }

/// Reads `pickle`. ValueError, after `description`, naming the opcode, its byte offset and
/// the global where one is involved, for anything but what a weights file holds.
PickleGraph read_torch_pickle(std::span<const std::byte> pickle, std::string_view description);

}  // namespace zt::detail
