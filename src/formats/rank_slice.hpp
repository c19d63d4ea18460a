// Internal: which part of a named tensor this rank loads (slice_options.hpp).
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "formats/file_tensor.hpp"
#include "zerotensor/slice_options.hpp"

namespace zt::detail {

/// A load's slice options with the rank and world size settled.
struct RankSlice {
  int rank;
  int world;
  std::span<const SliceRule> rules;
};

/// The options' rank and world, from the launcher's environment where unset; nullopt without
/// rules. ValueError, after `description`, for a rank outside [0, world) or a world below 1, and
/// where the environment names no rank.
std::optional<RankSlice> settle_slice(const SliceOptions& options, std::string_view description);

/// This rank's part of the tensor `name` of `shape`: nullopt where no rule matches (or there is no
/// slice). ValueError, after describe(), for a rule's dimension the tensor does not have and a
/// size the world does not divide.
std::optional<Narrowing> narrowing_of(const std::optional<RankSlice>& slice, std::string_view name,
                                      std::span<const index_t> shape, const DescribeTensor& describe);

/// `stored`, the tensor `name`, narrowed to this rank's part where a rule names it.
inline void narrow_stored_for_rank(const std::optional<RankSlice>& slice, std::string_view name, StoredTensor& stored,
                                   const DescribeTensor& describe) {
  if (const auto part = narrowing_of(slice, name, stored.shape, describe)) narrow_stored(stored, *part);
}

}  // namespace zt::detail
