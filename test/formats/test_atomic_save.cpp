// Saving is atomic: save_npy and save_safetensors over a file whose views are alive (in
// this process or another) leave those views intact, a failed save leaves the old file
// as it was and no temporary file behind, the replaced file's permissions and owner are
// kept, and no other user can read the new contents before they replace the file.
#include <boost/test/unit_test.hpp>

#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include "support/file_test_support.hpp"
#include "zerotensor/frombuffer.hpp"
#include "zerotensor/npy.hpp"
#include "zerotensor/safetensors.hpp"

using zt_test::read_bytes;
using zt_test::TempDir;

namespace {

constexpr zt::index_t mib_of_floats = (1 << 20) / 4;

/// 0, 1, 2, ... plus `base`, `count` floats, owned by the returned tensor.
zt::AnyTensor ramp(zt::index_t count, float base) {
  std::vector<float> values(static_cast<std::size_t>(count));
  std::iota(values.begin(), values.end(), base);
  return zt::frombuffer(std::move(values), zt::float32);
}

bool is_ramp(const zt::AnyTensor& tensor, float base) {
  auto flat = tensor.as<const float>().array();
  for (Eigen::Index i = 0; i < flat.size(); ++i) {
    if (flat(i) != base + float(i)) return false;
  }
  return true;
}

std::vector<std::filesystem::path> files_in(const std::filesystem::path& directory) {
  std::vector<std::filesystem::path> names;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

/// Lowers the file-size limit so the next write past `bytes` fails with EFBIG (SIGXFSZ
/// ignored), for the life of the object.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    ::getrlimit(RLIMIT_FSIZE, &saved_);
    previous_handler_ = ::signal(SIGXFSZ, SIG_IGN);
    const rlimit lowered{bytes, saved_.rlim_max};
    ::setrlimit(RLIMIT_FSIZE, &lowered);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &saved_);
    ::signal(SIGXFSZ, previous_handler_);
  }

 private:
  rlimit saved_{};
  void (*previous_handler_)(int) = nullptr;
};

bool write_text(const char* path, const std::string& text) {
  std::ofstream out(path);
  return static_cast<bool>(out << text << std::flush);
}

/// Enters a private mount namespace (inside a user namespace where the process is not
/// privileged) whose /proc is an empty tmpfs: the process can no longer reach /proc/self/fd.
/// False where the system allows no such namespace. For a child process only.
bool hide_proc() {
  if (::unshare(CLONE_NEWNS) != 0) {
    const std::string uid = std::to_string(::geteuid()), gid = std::to_string(::getegid());
    if (::unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0 || !write_text("/proc/self/setgroups", "deny") ||
        !write_text("/proc/self/uid_map", uid + " " + uid + " 1") ||
        !write_text("/proc/self/gid_map", gid + " " + gid + " 1"))
      return false;
  }
  return ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0 &&
         ::mount("none", "/proc", "tmpfs", 0, nullptr) == 0 && !std::filesystem::exists("/proc/self");
}

/// The exit status of a child process that runs `body` (whose result is the status).
template <class Body>
int in_child(Body body) {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(body());
  int status = 0;
  if (child < 0 || ::waitpid(child, &status, 0) != child || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

boost::test_tools::assertion_result proc_can_be_hidden(boost::unit_test::test_unit_id) {
  boost::test_tools::assertion_result result = in_child([] { return hide_proc() ? 0 : 1; }) == 0;
  result.message() << "this system allows no mount namespace in which to hide /proc";
  return result;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(atomic_save)

BOOST_AUTO_TEST_CASE(saving_a_loaded_npy_array_over_its_own_file_keeps_the_view_and_writes_the_file) {
  TempDir dir;
  const auto path = dir / "a.npy";
  zt::save_npy(path, ramp(mib_of_floats, 1.0f));
  const zt::AnyTensor loaded = zt::load_npy(path);
  zt::save_npy(path, loaded);
  BOOST_TEST(is_ramp(loaded, 1.0f));
  BOOST_TEST(is_ramp(zt::load_npy(path), 1.0f));

  zt::save_npy(path, ramp(mib_of_floats, 7.0f));  // different contents over a live mapping
  BOOST_TEST(is_ramp(loaded, 1.0f));
  BOOST_TEST(is_ramp(zt::load_npy(path), 7.0f));
  BOOST_TEST(files_in(dir.path()) == std::vector<std::filesystem::path>{"a.npy"});
}

BOOST_AUTO_TEST_CASE(saving_over_a_loaded_safetensors_model_keeps_its_views) {
  TempDir dir;
  const auto path = dir / "model.safetensors";
  zt::save_safetensors(path, {{"w", ramp(mib_of_floats, 1.0f)}, {"b", ramp(3, 100.0f)}});
  const zt::SafetensorsFile model = zt::load_safetensors(path);
  zt::save_safetensors(path, {{"w", model.at("w")}, {"b", ramp(5, 200.0f)}});
  BOOST_TEST(is_ramp(model.at("w"), 1.0f));
  BOOST_TEST(is_ramp(model.at("b"), 100.0f));
  const zt::SafetensorsFile saved = zt::load_safetensors(path);
  BOOST_TEST(is_ramp(saved.at("w"), 1.0f));
  BOOST_TEST(is_ramp(saved.at("b"), 200.0f));
  BOOST_TEST(saved.at("b").numel() == 5);
}

BOOST_AUTO_TEST_CASE(another_process_viewing_the_file_keeps_its_values) {
  TempDir dir;
  const auto path = dir / "shared.npy";
  zt::save_npy(path, ramp(mib_of_floats, 1.0f));
  int loaded_pipe[2], saved_pipe[2];
  BOOST_REQUIRE(::pipe(loaded_pipe) == 0 && ::pipe(saved_pipe) == 0);
  const pid_t child = ::fork();
  BOOST_REQUIRE(child >= 0);
  if (child == 0) {  // the second process: views the file, waits for the save, reads again
    const zt::AnyTensor view = zt::load_npy(path, {.copy = false});
    char signal = 'l';
    if (::write(loaded_pipe[1], &signal, 1) != 1 || ::read(saved_pipe[0], &signal, 1) != 1) ::_exit(2);
    ::_exit(is_ramp(view, 1.0f) ? 0 : 1);
  }
  char signal = 0;
  BOOST_REQUIRE(::read(loaded_pipe[0], &signal, 1) == 1);
  zt::save_npy(path, ramp(mib_of_floats, 9.0f));
  BOOST_REQUIRE(::write(saved_pipe[1], &signal, 1) == 1);
  int status = 0;
  BOOST_REQUIRE(::waitpid(child, &status, 0) == child);
  BOOST_TEST(WIFEXITED(status));  // not killed by SIGBUS
  BOOST_TEST(WEXITSTATUS(status) == 0);
  for (int fd : {loaded_pipe[0], loaded_pipe[1], saved_pipe[0], saved_pipe[1]}) ::close(fd);
  BOOST_TEST(is_ramp(zt::load_npy(path), 9.0f));
}

BOOST_AUTO_TEST_CASE(a_failed_save_leaves_the_old_file_and_no_temporary_file) {
  TempDir dir;
  const auto npy_path = dir / "a.npy";
  const auto model_path = dir / "m.safetensors";
  zt::save_npy(npy_path, ramp(4, 1.0f));
  zt::save_safetensors(model_path, {{"t", ramp(4, 1.0f)}});
  const auto npy_before = read_bytes(npy_path);
  const auto model_before = read_bytes(model_path);
  {
    const FileSizeLimit limit(64 * 1024);
    BOOST_CHECK_EXCEPTION(zt::save_npy(npy_path, ramp(mib_of_floats, 5.0f)), zt::IOError,
                          with_message<zt::IOError>("unable to write to file <" + npy_path.string() + ">"));
    BOOST_CHECK_EXCEPTION(zt::save_safetensors(model_path, {{"t", ramp(mib_of_floats, 5.0f)}}), zt::IOError,
                          with_message<zt::IOError>("File too large (27)"));
  }
  BOOST_TEST(read_bytes(npy_path) == npy_before);
  BOOST_TEST(read_bytes(model_path) == model_before);
  BOOST_TEST((files_in(dir.path()) == std::vector<std::filesystem::path>{"a.npy", "m.safetensors"}));
}

BOOST_AUTO_TEST_CASE(a_refused_tensor_writes_nothing) {
  TempDir dir;
  const auto path = dir / "a.npy";
  zt::save_npy(path, ramp(4, 1.0f));
  const auto before = read_bytes(path);
  BOOST_CHECK_THROW(zt::save_npy(path, ramp(4, 1.0f).to(zt::bfloat16)), zt::TypeError);
  BOOST_TEST(read_bytes(path) == before);
  BOOST_TEST(files_in(dir.path()) == std::vector<std::filesystem::path>{"a.npy"});
}

BOOST_AUTO_TEST_CASE(the_replaced_file_keeps_its_permissions_and_a_new_file_follows_the_umask) {
  TempDir dir;
  const auto path = dir / "a.npy";
  zt::save_npy(path, ramp(4, 1.0f));
  std::filesystem::permissions(path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write |
                                         std::filesystem::perms::group_read);
  zt::save_npy(path, ramp(4, 2.0f));
  BOOST_TEST((std::filesystem::status(path).permissions() ==
              (std::filesystem::perms::owner_read | std::filesystem::perms::owner_write |
               std::filesystem::perms::group_read)));

  const mode_t mask = ::umask(022);
  zt::save_npy(dir / "new.npy", ramp(4, 1.0f));
  ::umask(mask);
  BOOST_TEST(int(std::filesystem::status(dir / "new.npy").permissions()) == 0644);
}

BOOST_AUTO_TEST_CASE(saving_through_a_symbolic_link_replaces_its_target_and_keeps_the_link) {
  TempDir dir;
  const auto target = dir / "data.npy";
  const auto link = dir / "link.npy";
  zt::save_npy(target, ramp(4, 1.0f));
  std::filesystem::create_symlink(target, link);
  zt::save_npy(link, ramp(4, 3.0f));
  BOOST_TEST(std::filesystem::is_symlink(link));
  BOOST_TEST(is_ramp(zt::load_npy(target), 3.0f));
}

BOOST_AUTO_TEST_CASE(a_save_killed_midway_leaves_no_file_that_others_can_read) {
  TempDir dir;
  const auto path = dir / "secret.npy";
  zt::save_npy(path, ramp(4, 1.0f));
  std::filesystem::permissions(path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  const auto before = read_bytes(path);
  const pid_t child = ::fork();
  BOOST_REQUIRE(child >= 0);
  if (child == 0) {  // killed by SIGXFSZ's default action at its first write past 64 KiB
    ::umask(022);
    const rlimit no_core{0, 0}, file_size{64 * 1024, 64 * 1024};
    ::setrlimit(RLIMIT_CORE, &no_core);
    ::setrlimit(RLIMIT_FSIZE, &file_size);
    ::signal(SIGXFSZ, SIG_DFL);
    zt::save_npy(path, ramp(mib_of_floats, 5.0f));
    ::_exit(0);
  }
  int status = 0;
  BOOST_REQUIRE(::waitpid(child, &status, 0) == child);
  BOOST_TEST(WIFSIGNALED(status));
  BOOST_TEST(WTERMSIG(status) == SIGXFSZ);
  BOOST_TEST(read_bytes(path) == before);
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    struct ::stat status {};
    BOOST_REQUIRE(::stat(entry.path().c_str(), &status) == 0);
    BOOST_TEST((status.st_mode & 077) == 0u, entry.path() << " has mode " << std::oct << (status.st_mode & 0777));
  }
}

BOOST_AUTO_TEST_CASE(the_replaced_file_keeps_its_owner) {
  TempDir dir;
  const auto path = dir / "a.npy";
  zt::save_npy(path, ramp(4, 1.0f));
  if (::geteuid() == 0) BOOST_REQUIRE(::chown(path.c_str(), 4321, 4322) == 0);  // only root may give it away
  struct ::stat before {}, after {};
  BOOST_REQUIRE(::stat(path.c_str(), &before) == 0);
  zt::save_npy(path, ramp(4, 2.0f));
  BOOST_REQUIRE(::stat(path.c_str(), &after) == 0);
  BOOST_TEST(after.st_uid == before.st_uid);
  BOOST_TEST(after.st_gid == before.st_gid);
  BOOST_TEST(is_ramp(zt::load_npy(path), 2.0f));
}

BOOST_AUTO_TEST_CASE(saving_through_a_symbolic_link_loop_is_an_io_error) {
  TempDir dir;
  const auto link = dir / "loop.npy";
  std::filesystem::create_symlink("loop.npy", link);
  BOOST_CHECK_EXCEPTION(zt::save_npy(link, ramp(4, 1.0f)), zt::IOError,
                        with_message<zt::IOError>("unable to resolve the symbolic link <" + link.string() +
                                                  "> to save through it: Too many levels of symbolic links (40)"));
  BOOST_TEST(files_in(dir.path()) == std::vector<std::filesystem::path>{"loop.npy"});
}

BOOST_AUTO_TEST_CASE(a_file_name_of_240_bytes_saves_and_a_name_too_long_names_the_temporary_file) {
  TempDir dir;
  const std::string name = std::string(236, 'n') + ".npy";
  zt::save_npy(dir / name, ramp(4, 1.0f));
  zt::save_npy(dir / name, ramp(4, 2.0f));
  BOOST_TEST(is_ramp(zt::load_npy(dir / name), 2.0f));
  BOOST_TEST(files_in(dir.path()) == std::vector<std::filesystem::path>{name});

  const auto too_long = dir / (std::string(252, 'n') + ".npy");  // 256 bytes: over NAME_MAX
  BOOST_CHECK_EXCEPTION(zt::save_npy(too_long, ramp(4, 1.0f)), zt::IOError, [&](const zt::IOError& e) {
    return message_has(e, "unable to rename the temporary file over <" + too_long.string() + "> (saving through <" +
                              (dir / std::string(200, 'n')).string()) &&
           message_has(e, ".tmp>): File name too long (36)");
  });
  BOOST_TEST(files_in(dir.path()) == std::vector<std::filesystem::path>{name});
}

BOOST_AUTO_TEST_CASE(without_proc_a_save_uses_a_named_temporary_file, *boost::unit_test::precondition(proc_can_be_hidden)) {
  // An unnamed file (O_TMPFILE) is named through /proc/self/fd: without /proc the save falls
  // back to a named temporary file, and is still whole, in place and alone in the directory.
  TempDir dir;
  const auto path = dir / "a.npy";
  const int status = in_child([&] {
    try {
      if (!hide_proc()) return 10;
      zt::save_npy(path, ramp(4, 1.0f));  // a new file
      zt::save_npy(path, ramp(4, 2.0f));  // replacing it
      return is_ramp(zt::load_npy(path), 2.0f) ? 0 : 11;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "save without /proc: %s\n", e.what());
      return 12;
    }
  });
  BOOST_TEST(status == 0);
  BOOST_TEST(is_ramp(zt::load_npy(path), 2.0f));
  BOOST_TEST(files_in(dir.path()) == std::vector<std::filesystem::path>{"a.npy"});
}

BOOST_AUTO_TEST_SUITE_END()
