// zt::SliceOptions: each rank of a tensor-parallel job loads only its part of the tensors, as
// vLLM and Megatron split weights (LoadOptions::slice, CheckpointOptions::slice).
//
// A rule names a tensor-name pattern (fnmatch(3) glob: `*` matches any text, dots included) and
// the dimension to split (negative counts from the last); a tensor takes the first rule its
// name matches, and loads whole where none does. Rank r of a world of w gets
// narrow(dim, r * size / w, size / w); a size that w does not divide is a ValueError naming the
// tensor, its size and w. An .npy file's one array has the empty name (the rule "*" matches it).
//
// On the CPU without a copy the slice is that view of the file. Copied (copy = true, or a
// device other than the CPU), a .npy or .safetensors tensor's slice is read alone: a slice
// along the outermost dimension is one range of the file, along another one range per outer
// index; the file is read ahead only over those ranges, so a rank reads from storage about
// its share of the sliced tensors. A torch.save tensor is loaded as the options say (its
// storage whole), then narrowed.
//
// Rank and world size left unset are read from the environment a launcher sets: torchrun
// (RANK, WORLD_SIZE), Open MPI (OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE) or Slurm
// (SLURM_PROCID, SLURM_NTASKS), in that order; with none of them, a ValueError. zerotensor
// launches nothing: these launchers start the processes, one per GPU and across machines.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "zerotensor/export.hpp"

namespace zt {

/// Tensors whose names match `pattern` are split along `dim` (negative: from the last).
struct SliceRule {
  std::string pattern;
  int dim = 0;
};

struct SliceOptions {
  /// This process's rank, from 0; unset: from the launcher's environment.
  std::optional<int> rank{};
  /// How many ranks share each sliced tensor; unset: from the launcher's environment.
  std::optional<int> world{};
  /// The first rule a name matches decides; empty: every tensor loads whole.
  std::vector<SliceRule> rules{};
};

/// This process's place among the processes a launcher started.
struct LaunchRanks {
  int rank = 0;        ///< among all processes
  int world = 1;       ///< how many processes in all
  int local_rank = 0;  ///< among the processes on this machine: the GPU to use
};

/// The ranks torchrun (RANK, WORLD_SIZE, LOCAL_RANK), Open MPI (OMPI_COMM_WORLD_RANK,
/// OMPI_COMM_WORLD_SIZE, OMPI_COMM_WORLD_LOCAL_RANK) or Slurm (SLURM_PROCID, SLURM_NTASKS,
/// SLURM_LOCALID) set, the first launcher whose rank and size are both set; nullopt where none
/// is. ValueError naming the variable for a value that is not a number in range (a rank from 0
/// to the size less one, a size from 1); a missing local rank is 0.
[[nodiscard]] ZT_API std::optional<LaunchRanks> launch_ranks();

}  // namespace zt
