#include "formats/rank_slice.hpp"

#include <fnmatch.h>

#include <charconv>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>

#include "vocabulary/concat.hpp"
#include "zerotensor/error.hpp"

namespace zt {
namespace {

/// The launchers' variables: rank, size, local rank.
struct LauncherVariables {
  const char* rank;
  const char* world;
  const char* local_rank;
};
constexpr LauncherVariables launchers[] = {
    {"RANK", "WORLD_SIZE", "LOCAL_RANK"},
    {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"},
    {"SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"},
};

/// The variable's value as an int from `lowest` to `highest`; nullopt where it is unset.
std::optional<int> int_variable(const char* name, int lowest, int highest) {
  const char* text = std::getenv(name);
  if (text == nullptr) return std::nullopt;
  const std::string_view value(text);
  int number = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
  if (error != std::errc() || end != value.data() + value.size() || number < lowest || number > highest)
    throw ValueError(detail::concat("launch_ranks: ", name, "='", value, "' is not a whole number from ", lowest,
                                    " to ", highest));
  return number;
}

}  // namespace

std::optional<LaunchRanks> launch_ranks() {
  constexpr int most = std::numeric_limits<int>::max();
  for (const LauncherVariables& launcher : launchers) {
    if (std::getenv(launcher.rank) == nullptr || std::getenv(launcher.world) == nullptr) continue;
    const int world = *int_variable(launcher.world, 1, most);
    return LaunchRanks{.rank = *int_variable(launcher.rank, 0, world - 1),
                       .world = world,
                       .local_rank = int_variable(launcher.local_rank, 0, most).value_or(0)};
  }
  return std::nullopt;
}

namespace detail {

std::optional<RankSlice> settle_slice(const SliceOptions& options, std::string_view description) {
  if (options.rules.empty()) return std::nullopt;
  std::optional<LaunchRanks> launched;
  if (!options.rank || !options.world) {
    launched = launch_ranks();
    if (!launched)
      throw ValueError(concat(description, ": slice: the rank and world size are not given and no launcher set "
                                           "them (RANK and WORLD_SIZE, OMPI_COMM_WORLD_RANK and OMPI_COMM_WORLD_SIZE, "
                                           "or SLURM_PROCID and SLURM_NTASKS)"));
  }
  const int world = options.world.value_or(launched ? launched->world : 1);
  const int rank = options.rank.value_or(launched ? launched->rank : 0);
  if (world < 1) throw ValueError(concat(description, ": slice: world size ", world, " must be at least 1"));
  if (rank < 0 || rank >= world)
    throw ValueError(concat(description, ": slice: rank ", rank, " is outside [0, ", world, ")"));
  return RankSlice{rank, world, options.rules};
}

std::optional<Narrowing> narrowing_of(const std::optional<RankSlice>& slice, std::string_view name,
                                      std::span<const index_t> shape, const DescribeTensor& describe) {
  if (!slice) return std::nullopt;
  const std::string text(name);  // fnmatch reads a terminated string
  for (const SliceRule& rule : slice->rules) {
    if (::fnmatch(rule.pattern.c_str(), text.c_str(), 0) != 0) continue;
    const auto rank = index_t(shape.size());
    const index_t dim = rule.dim < 0 ? rule.dim + rank : rule.dim;
    if (dim < 0 || dim >= rank)
      throw ValueError(concat(describe(), ": slice rule '", rule.pattern, "' splits dimension ", rule.dim, " of a ",
                              rank, "-dimensional tensor"));
    const index_t size = shape[std::size_t(dim)], world = slice->world;
    if (size % world != 0)
      throw ValueError(concat(describe(), ": dimension ", dim, " of size ", size, " cannot be split among ", world,
                              " ranks: ", size, " is not a multiple of ", world));
    const index_t part = size / world;
    return Narrowing{std::size_t(dim), slice->rank * part, part};
  }
  return std::nullopt;
}

}  // namespace detail
}  // namespace zt
