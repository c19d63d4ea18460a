// A slice per rank (LoadOptions::slice, CheckpointOptions::slice): the rules, the launchers'
// environment, this rank's values as views and as copies in every format, the errors, and
// the bytes a rank reads from storage (/proc/self/io's read_bytes, with the file's pages
// dropped from the page cache first), also in four processes at once.
#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "support/file_test_support.hpp"
#include "zerotensor/checkpoint.hpp"
#include "zerotensor/npy.hpp"
#include "zerotensor/safetensors.hpp"
#include "zerotensor/slice_options.hpp"
#include "zerotensor/torch_load.hpp"

extern char** environ;

using zt_test::drop_from_page_cache;
using zt_test::TempDir;

namespace {

using Tensors = std::map<std::string, zt::AnyTensor, std::less<>>;

/// Every launcher variable launch_ranks reads.
constexpr const char* launcher_variables[] = {
    "RANK", "WORLD_SIZE", "LOCAL_RANK", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
    "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"};

/// Clears the launcher variables for a test and restores them after it.
class CleanLauncherEnvironment {
 public:
  CleanLauncherEnvironment() {
    for (const char* name : launcher_variables) {
      if (const char* value = std::getenv(name)) saved_[name] = value;
      ::unsetenv(name);
    }
  }
  ~CleanLauncherEnvironment() {
    for (const char* name : launcher_variables) ::unsetenv(name);
    for (const auto& [name, value] : saved_) ::setenv(name.c_str(), value.c_str(), 1);
  }

 private:
  std::map<std::string, std::string> saved_;
};

/// A float32 tensor of `shape` holding 0, 1, 2, ... in C order.
zt::AnyTensor counting(zt::DynamicExtents shape) {
  zt::AnyTensor t = zt::empty(shape, zt::float32);
  auto* values = static_cast<float*>(t.mutable_data_ptr());
  std::iota(values, values + t.numel(), 0.0f);
  return t;
}

/// Whether `t` (float32, rank 2) holds rows [row0, row0 + rows) and columns [column0, column0 +
/// columns) of counting({.., width}).
bool holds_block(const zt::AnyTensor& t, zt::index_t width, zt::index_t row0, zt::index_t column0) {
  const auto view = t.as<const float, 2>();
  for (zt::index_t r = 0; r < t.shape()[0]; ++r)
    for (zt::index_t c = 0; c < t.shape()[1]; ++c)
      if (view(r, c) != float((row0 + r) * width + column0 + c)) return false;
  return true;
}

/// The model the value tests load: a tensor split by rows, one by columns, one whole.
Tensors small_model() {
  return {{"layers.0.q_proj.weight", counting({8, 6})},
          {"layers.0.o_proj.weight", counting({4, 8})},
          {"norm.weight", counting({8})}};
}

zt::SliceOptions quarter(int rank) {
  return {.rank = rank, .world = 4, .rules = {{"*.q_proj.weight", 0}, {"*.o_proj.weight", -1}}};
}

/// Bytes this process has read from storage so far; nullopt where the kernel does not count them.
std::optional<std::uint64_t> bytes_read_from_storage() {
  std::ifstream io("/proc/self/io");
  std::string key;
  std::uint64_t value = 0;
  while (io >> key >> value)
    if (key == "read_bytes:") return value;
  return std::nullopt;
}

constexpr zt::index_t big_rows = 1024, big_columns = 4096, wide_rows = 256, wide_columns = 16384;

/// 32 MiB: a tensor split by rows and one split by columns in 16 KiB runs (bigger than a page,
/// so that a rank's reads stay near its share).
void write_big_model(const std::string& path) {
  zt::save_safetensors(path, {{"rows.weight", counting({big_rows, big_columns})},
                              {"columns.weight", counting({wide_rows, wide_columns})}});
}

constexpr std::uint64_t big_model_bytes = std::uint64_t{32} << 20;  // its tensors

/// Writes the big model at `path` and loads it whole from storage once: whether this kernel and
/// file system count a process's reads. The file's pages are dropped from the page cache after.
bool big_model_with_counted_reads(const std::string& path) {
  write_big_model(path);
  drop_from_page_cache(path);
  const std::optional<std::uint64_t> before = bytes_read_from_storage();
  static_cast<void>(zt::load_safetensors(path, {.copy = true}));
  const std::optional<std::uint64_t> after = bytes_read_from_storage();
  drop_from_page_cache(path);
  return before && after && *after - *before >= big_model_bytes;
}

zt::SliceOptions big_rules() { return {.rules = {{"rows.*", 0}, {"columns.*", 1}}}; }

/// Loads this rank's slice of the big model as a copy, checks its values, and returns the bytes
/// the load read from storage (nullopt where not counted).
std::optional<std::uint64_t> load_big_slice(const std::string& path, int rank, int world) {
  const std::optional<std::uint64_t> before = bytes_read_from_storage();
  zt::SafetensorsFile part = zt::load_safetensors(path, {.copy = true, .slice = big_rules()});
  const std::optional<std::uint64_t> after = bytes_read_from_storage();
  const zt::AnyTensor& rows = part.at("rows.weight");
  const zt::AnyTensor& columns = part.at("columns.weight");
  BOOST_TEST((rows.shape() == zt::DynamicExtents{big_rows / world, big_columns}));
  BOOST_TEST((columns.shape() == zt::DynamicExtents{wide_rows, wide_columns / world}));
  BOOST_TEST(holds_block(rows, big_columns, rank * big_rows / world, 0));
  BOOST_TEST(holds_block(columns, wide_columns, 0, rank * wide_columns / world));
  if (!before || !after) return std::nullopt;
  return *after - *before;
}

/// A rank's share of the big model, with room for the header's pages and the pages each
/// column run straddles.
bool about_a_share(std::uint64_t read, int world) {
  BOOST_TEST_MESSAGE("read " << read << " bytes; a share is " << big_model_bytes / world);
  return read <= big_model_bytes / world * 5 / 4 + (64 << 10);
}

}  // namespace

BOOST_AUTO_TEST_CASE(launch_ranks_reads_torchrun_then_open_mpi_then_slurm) {
  const CleanLauncherEnvironment clean;
  BOOST_TEST(!zt::launch_ranks().has_value());
  ::setenv("SLURM_PROCID", "5", 1);
  ::setenv("SLURM_NTASKS", "8", 1);
  ::setenv("SLURM_LOCALID", "1", 1);
  auto ranks = zt::launch_ranks();
  BOOST_TEST_REQUIRE(ranks.has_value());
  BOOST_TEST((ranks->rank == 5 && ranks->world == 8 && ranks->local_rank == 1));
  ::setenv("OMPI_COMM_WORLD_RANK", "2", 1);
  ::setenv("OMPI_COMM_WORLD_SIZE", "4", 1);
  ranks = zt::launch_ranks();
  BOOST_TEST((ranks->rank == 2 && ranks->world == 4 && ranks->local_rank == 0));
  ::setenv("RANK", "3", 1);
  ::setenv("WORLD_SIZE", "16", 1);
  ::setenv("LOCAL_RANK", "7", 1);
  ranks = zt::launch_ranks();
  BOOST_TEST((ranks->rank == 3 && ranks->world == 16 && ranks->local_rank == 7));
  ::setenv("RANK", "16", 1);
  BOOST_CHECK_EXCEPTION(static_cast<void>(zt::launch_ranks()), zt::ValueError,
                        with_message<zt::ValueError>("RANK='16' is not a whole number from 0 to 15"));
  ::setenv("RANK", "1x", 1);
  BOOST_CHECK_EXCEPTION(static_cast<void>(zt::launch_ranks()), zt::ValueError,
                        with_message<zt::ValueError>("RANK='1x' is not a whole number"));
  ::setenv("RANK", "0", 1);
  ::setenv("WORLD_SIZE", "0", 1);
  BOOST_CHECK_EXCEPTION(static_cast<void>(zt::launch_ranks()), zt::ValueError,
                        with_message<zt::ValueError>("WORLD_SIZE='0' is not a whole number from 1 to"));
}

BOOST_AUTO_TEST_CASE(a_rank_views_its_rows_and_columns_of_a_safetensors_file) {
  TempDir dir;
  const std::string path = (dir / "model.safetensors").string();
  zt::save_safetensors(path, small_model());
  for (int rank = 0; rank < 4; ++rank) {
    const zt::SafetensorsFile part = zt::load_safetensors(path, {.slice = quarter(rank)});
    const zt::AnyTensor& q = part.at("layers.0.q_proj.weight");
    const zt::AnyTensor& o = part.at("layers.0.o_proj.weight");
    BOOST_TEST((q.shape() == zt::DynamicExtents{2, 6}));
    BOOST_TEST(holds_block(q, 6, 2 * rank, 0));
    // A view of the file: the columns keep the whole row's stride.
    BOOST_TEST((o.shape() == zt::DynamicExtents{4, 2}));
    BOOST_TEST((o.strides() == zt::DynamicExtents{8, 1}));
    BOOST_TEST(!o.is_writable());
    BOOST_TEST(holds_block(o, 8, 0, 2 * rank));
    BOOST_TEST((part.at("norm.weight").shape() == zt::DynamicExtents{8}));
  }
}

BOOST_AUTO_TEST_CASE(a_rank_copies_only_its_part_of_each_sliced_tensor) {
  TempDir dir;
  const std::string path = (dir / "model.safetensors").string();
  zt::save_safetensors(path, small_model());
  const zt::SafetensorsFile part =
      zt::load_safetensors(path, {.access = zt::MapAccess::copy_on_write, .copy = true, .slice = quarter(3)});
  const zt::AnyTensor& o = part.at("layers.0.o_proj.weight");
  BOOST_TEST((o.shape() == zt::DynamicExtents{4, 2}));
  BOOST_TEST(o.is_contiguous());
  BOOST_TEST(o.is_writable());
  BOOST_TEST(holds_block(o, 8, 0, 6));
  BOOST_TEST(holds_block(part.at("layers.0.q_proj.weight"), 6, 6, 0));
  // From bytes in memory as from the file.
  const zt::Buffer bytes(zt_test::read_bytes(path));
  const zt::SafetensorsFile from_memory = zt::load_safetensors(bytes, {.copy = true, .slice = quarter(1)});
  BOOST_TEST(holds_block(from_memory.at("layers.0.o_proj.weight"), 8, 0, 2));
}

BOOST_AUTO_TEST_CASE(the_first_matching_rule_decides_and_unmatched_tensors_load_whole) {
  TempDir dir;
  const std::string path = (dir / "model.safetensors").string();
  zt::save_safetensors(path, small_model());
  const zt::SafetensorsFile part = zt::load_safetensors(
      path, {.slice = {.rank = 1, .world = 2, .rules = {{"layers.*", 1}, {"*.q_proj.weight", 0}}}});
  BOOST_TEST(holds_block(part.at("layers.0.q_proj.weight"), 6, 0, 3));
  BOOST_TEST(holds_block(part.at("layers.0.o_proj.weight"), 8, 0, 4));
  BOOST_TEST((part.at("norm.weight").shape() == zt::DynamicExtents{8}));
}

BOOST_AUTO_TEST_CASE(npy_arrays_in_either_order_and_byte_order_are_sliced_by_the_rule_star) {
  TempDir dir;
  const std::string path = (dir / "a.npy").string();
  // Fortran order: save_npy writes a transposed array's memory as it is.
  zt::save_npy(path, counting({6, 8}).transpose(0, 1));
  for (const std::optional<bool> copy : {std::optional<bool>{}, std::optional<bool>{true}}) {
    const zt::AnyTensor part =
        zt::load_npy(path, {.copy = copy, .slice = {.rank = 2, .world = 4, .rules = {{"*", 0}}}});
    BOOST_TEST_REQUIRE((part.shape() == zt::DynamicExtents{2, 6}));
    const auto view = part.as<const float, 2>();
    for (zt::index_t r = 0; r < 2; ++r)
      for (zt::index_t c = 0; c < 6; ++c) BOOST_TEST_REQUIRE(view(r, c) == float(c * 8 + 4 + r));
  }
  // Big-endian int32 values 0..23 in shape (4, 6): the copy of a column slice is byte-swapped.
  std::string header = "{'descr': '>i4', 'fortran_order': False, 'shape': (4, 6), }";
  header.append(128 - 10 - header.size() - 1, ' ');  // the data starts at byte 128
  header += '\n';
  std::vector<std::uint8_t> file = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, std::uint8_t(header.size()), 0};
  file.insert(file.end(), header.begin(), header.end());
  for (std::uint8_t value = 0; value < 24; ++value) file.insert(file.end(), {0, 0, 0, value});
  zt_test::write_bytes(dir / "big_endian.npy", file);
  const zt::AnyTensor columns = zt::load_npy((dir / "big_endian.npy").string(),
                                             {.slice = {.rank = 1, .world = 3, .rules = {{"*", 1}}}});
  BOOST_TEST_REQUIRE((columns.shape() == zt::DynamicExtents{4, 2}));
  const auto values = columns.as<const std::int32_t, 2>();
  for (zt::index_t r = 0; r < 4; ++r)
    for (zt::index_t c = 0; c < 2; ++c) BOOST_TEST_REQUIRE(values(r, c) == std::int32_t(r * 6 + 2 + c));
}

BOOST_AUTO_TEST_CASE(a_checkpoint_directory_and_a_torch_file_are_sliced_alike) {
  TempDir dir;
  zt::save_safetensors((dir / "model-1-of-2.safetensors").string(), {{"a.q_proj.weight", counting({8, 6})}});
  zt::save_safetensors((dir / "model-2-of-2.safetensors").string(), {{"b.o_proj.weight", counting({4, 8})}});
  zt_test::write_text(dir / "model.safetensors.index.json",
                      R"({"weight_map":{"a.q_proj.weight":"model-1-of-2.safetensors",)"
                      R"("b.o_proj.weight":"model-2-of-2.safetensors"}})");
  const zt::Checkpoint part = zt::load_checkpoint(dir.path().string(), {.copy = true, .slice = quarter(1)});
  BOOST_TEST(holds_block(part.at("a.q_proj.weight"), 6, 2, 0));
  BOOST_TEST(holds_block(part.at("b.o_proj.weight"), 8, 0, 2));
  // A torch.save file (weight: 2 x 3 of 0, 0.25, ..., 1.25): the tensor loaded whole, then narrowed.
  const zt::TorchFile torch = zt::load_torch(zt_test::data_file("torch/linear.pt").string(),
                                             {.slice = {.rank = 2, .world = 3, .rules = {{"weight", 1}}}});
  const zt::AnyTensor& weight = torch.at("weight");
  BOOST_TEST_REQUIRE((weight.shape() == zt::DynamicExtents{2, 1}));
  const auto values = weight.as<const float, 2>();
  BOOST_TEST(values(0, 0) == 0.5f);
  BOOST_TEST(values(1, 0) == 1.25f);
  BOOST_TEST((torch.at("bias").shape() == zt::DynamicExtents{2}));
}

BOOST_AUTO_TEST_CASE(only_this_ranks_bool_bytes_are_checked) {
  // A 4 x 4 bool tensor whose byte (2, 0) is 7: rank 0's columns hold it, rank 1's do not.
  const std::string header = R"({"flags":{"dtype":"BOOL","shape":[4,4],"data_offsets":[0,16]}})";
  std::vector<std::uint8_t> file = {std::uint8_t(header.size()), 0, 0, 0, 0, 0, 0, 0};
  file.insert(file.end(), header.begin(), header.end());
  for (int i = 0; i < 16; ++i) file.push_back(i == 8 ? 7 : i % 2);
  TempDir dir;
  zt_test::write_bytes(dir / "flags.safetensors", file);
  const std::string path = (dir / "flags.safetensors").string();
  const zt::SliceOptions rank_1{.rank = 1, .world = 2, .rules = {{"flags", 1}}};
  const zt::SafetensorsFile part = zt::load_safetensors(path, {.copy = true, .slice = rank_1});
  BOOST_TEST((part.at("flags").shape() == zt::DynamicExtents{4, 2}));
  for (const std::optional<bool> copy : {std::optional<bool>{}, std::optional<bool>{true}}) {
    BOOST_CHECK_EXCEPTION(
        static_cast<void>(zt::load_safetensors(path, {.copy = copy, .slice = {.rank = 0, .world = 2,
                                                                             .rules = {{"flags", 1}}}})),
        zt::ValueError,
        with_message<zt::ValueError>("tensor 'flags': in run 2 of 4 of this rank's slice: bool data must be bytes 0 "
                                     "or 1; element 0 is byte 7"));
  }
}

BOOST_AUTO_TEST_CASE(sizes_the_world_does_not_divide_and_missing_ranks_are_refused) {
  const CleanLauncherEnvironment clean;
  TempDir dir;
  const std::string path = (dir / "model.safetensors").string();
  zt::save_safetensors(path, small_model());
  BOOST_CHECK_EXCEPTION(
      static_cast<void>(zt::load_safetensors(path, {.slice = {.rank = 0, .world = 4, .rules = {{"*.q_proj.*", 1}}}})),
      zt::ValueError,
      with_message<zt::ValueError>("tensor 'layers.0.q_proj.weight': dimension 1 of size 6 cannot be split among 4 "
                                   "ranks: 6 is not a multiple of 4"));
  BOOST_CHECK_EXCEPTION(
      static_cast<void>(zt::load_safetensors(path, {.slice = {.rank = 0, .world = 2, .rules = {{"norm.*", -2}}}})),
      zt::ValueError,
      with_message<zt::ValueError>("tensor 'norm.weight': slice rule 'norm.*' splits dimension -2 of a "
                                   "1-dimensional tensor"));
  BOOST_CHECK_EXCEPTION(
      static_cast<void>(zt::load_safetensors(path, {.slice = {.rank = 4, .world = 4, .rules = {{"*", 0}}}})),
      zt::ValueError, with_message<zt::ValueError>("slice: rank 4 is outside [0, 4)"));
  BOOST_CHECK_EXCEPTION(static_cast<void>(zt::load_safetensors(path, {.slice = {.rules = {{"*", 0}}}})),
                        zt::ValueError,
                        with_message<zt::ValueError>("the rank and world size are not given and no launcher set "
                                                     "them (RANK and WORLD_SIZE"));
  // Without rules the environment is not read: every tensor loads whole.
  BOOST_TEST(zt::load_safetensors(path).tensors.size() == 3u);
}

BOOST_AUTO_TEST_CASE(a_rank_reads_from_storage_about_its_share) {
  const CleanLauncherEnvironment clean;
  TempDir dir;
  const std::string path = (dir / "big.safetensors").string();
  if (!big_model_with_counted_reads(path)) {
    BOOST_TEST_MESSAGE("skipped: this kernel or file system does not count a process's reads from storage");
    return;
  }
  ::setenv("RANK", "1", 1);
  ::setenv("WORLD_SIZE", "4", 1);
  const std::optional<std::uint64_t> read = load_big_slice(path, 1, 4);
  BOOST_TEST_REQUIRE(read.has_value());
  BOOST_TEST(about_a_share(*read, 4));
}

// Run by four_ranks_each_load_their_slice as each of its four processes (disabled otherwise).
BOOST_AUTO_TEST_CASE(one_rank_of_four, *boost::unit_test::disabled()) {
  const char* path = std::getenv("ZT_SLICE_TEST_FILE");
  BOOST_TEST_REQUIRE(path != nullptr);
  const std::optional<zt::LaunchRanks> ranks = zt::launch_ranks();
  BOOST_TEST_REQUIRE(ranks.has_value());
  const std::optional<std::uint64_t> read = load_big_slice(path, ranks->rank, ranks->world);
  if (read && std::getenv("ZT_SLICE_TEST_COUNTS_READS") != nullptr) BOOST_TEST(about_a_share(*read, ranks->world));
}

BOOST_AUTO_TEST_CASE(four_ranks_each_load_their_slice) {
  TempDir dir;
  const std::string path = (dir / "big.safetensors").string();
  const bool counts_reads = big_model_with_counted_reads(path);
  // As torchrun starts them: the same program with RANK and WORLD_SIZE set.
  std::vector<pid_t> ranks;
  for (int rank = 0; rank < 4; ++rank) {
    std::vector<std::string> variables;
    for (char** variable = environ; *variable != nullptr; ++variable) {
      const std::string_view text(*variable);
      if (!text.starts_with("RANK=") && !text.starts_with("WORLD_SIZE=")) variables.emplace_back(text);
    }
    variables.push_back("RANK=" + std::to_string(rank));
    variables.push_back("WORLD_SIZE=4");
    variables.push_back("ZT_SLICE_TEST_FILE=" + path);
    if (counts_reads) variables.push_back("ZT_SLICE_TEST_COUNTS_READS=1");
    std::vector<char*> environment;
    for (std::string& variable : variables) environment.push_back(variable.data());
    environment.push_back(nullptr);
    std::string program = std::filesystem::read_symlink("/proc/self/exe").string(), test = "--run_test=one_rank_of_four";
    char* arguments[] = {program.data(), test.data(), nullptr};
    pid_t pid = 0;
    BOOST_TEST_REQUIRE(::posix_spawn(&pid, program.c_str(), nullptr, nullptr, arguments, environment.data()) == 0);
    ranks.push_back(pid);
  }
  for (const pid_t pid : ranks) {
    int status = 0;
    BOOST_TEST_REQUIRE(::waitpid(pid, &status, 0) == pid);
    BOOST_TEST((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  }
}
