// Named shared tensors: create, open zero-copy (in this process and in a second one that
// writes), read-only opening, removal, and the refusal of wrong names and foreign segments.
#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "support/file_test_support.hpp"
#include "zerotensor/shared_memory.hpp"
#include "zerotensor/shares_memory.hpp"

extern char** environ;


namespace {

/// A name no other test run uses, removed at the end of the test.
class UniqueName {
 public:
  explicit UniqueName(const std::string& what) : name_("zt_test_" + std::to_string(::getpid()) + "_" + what) {}
  UniqueName(const UniqueName&) = delete;
  UniqueName& operator=(const UniqueName&) = delete;
  ~UniqueName() { zt::remove_shared_tensor(name_); }
  [[nodiscard]] const std::string& str() const { return name_; }

 private:
  std::string name_;
};

/// Runs `program name` as a separate process and returns its exit status (-1: it did not exit).
int run_peer(const char* program, const std::string& name) {
  std::string program_arg(program), name_arg(name);
  char* argv[] = {program_arg.data(), name_arg.data(), nullptr};
  pid_t pid = 0;
  if (::posix_spawn(&pid, program, nullptr, nullptr, argv, environ) != 0) return -1;
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

/// A POSIX shared memory segment of `size` zero bytes that zerotensor did not create.
void make_foreign_segment(const std::string& name, off_t size) {
  const int fd = ::shm_open(("/" + name).c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  BOOST_REQUIRE(fd >= 0);
  BOOST_REQUIRE(::ftruncate(fd, size) == 0);
  ::close(fd);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(shared_memory)

BOOST_AUTO_TEST_CASE(a_second_process_writes_and_this_one_sees_the_values) {
  UniqueName name("peer");
  zt::AnyTensor created = zt::create_shared_tensor(name.str(), std::array<zt::index_t, 2>{3, 4}, zt::float64);
  auto t = created.as<double, 2>();
  t(0, 0) = -1.0;  // the peer checks it sees this
  BOOST_REQUIRE(run_peer(ZT_SHARED_MEMORY_PEER, name.str()) == 0);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) BOOST_TEST(t(i, j) == 100.0 * i + j + 0.5);
}

BOOST_AUTO_TEST_CASE(create_gives_a_zero_filled_contiguous_tensor_with_the_header_validated_on_open) {
  UniqueName name("create");
  zt::AnyTensor created = zt::create_shared_tensor(name.str(), std::array<zt::index_t, 3>{2, 3, 5}, zt::int16);
  BOOST_TEST(created.dtype() == zt::int16);
  BOOST_TEST(created.shape() == zt::DynamicExtents({2, 3, 5}));
  BOOST_TEST(created.strides() == zt::DynamicExtents({15, 5, 1}));
  BOOST_TEST(created.is_writable());
  BOOST_TEST(reinterpret_cast<std::uintptr_t>(created.data_ptr()) % 64 == 0u);
  BOOST_TEST((created.as<const std::int16_t>().array() == 0).all());

  zt::AnyTensor opened = zt::open_shared_tensor(name.str());
  BOOST_TEST(opened.dtype() == zt::int16);
  BOOST_TEST(opened.shape() == created.shape());
  BOOST_TEST(opened.data_ptr() != created.data_ptr());  // a second mapping of the same memory
  created.as<std::int16_t, 3>()(1, 2, 4) = 1234;
  BOOST_TEST((opened.as<const std::int16_t, 3>()(1, 2, 4) == 1234));
}

BOOST_AUTO_TEST_CASE(zero_d_and_empty_tensors) {
  UniqueName scalar("scalar"), empty("empty");
  zt::AnyTensor s = zt::create_shared_tensor(scalar.str(), {}, zt::complex64);
  *static_cast<std::complex<float>*>(s.mutable_data_ptr()) = {1, -2};
  zt::AnyTensor s2 = zt::open_shared_tensor(scalar.str());
  BOOST_TEST(s2.rank() == 0u);
  BOOST_TEST((*static_cast<const std::complex<float>*>(s2.data_ptr()) == std::complex<float>(1, -2)));
  (void)zt::create_shared_tensor(empty.str(), std::array<zt::index_t, 2>{0, 7}, zt::bool_);
  zt::AnyTensor e = zt::open_shared_tensor(empty.str());
  BOOST_TEST(e.dtype() == zt::bool_);
  BOOST_TEST(e.shape() == zt::DynamicExtents({0, 7}));
}

BOOST_AUTO_TEST_CASE(read_only_open_gives_a_read_only_tensor) {
  UniqueName name("read_only");
  auto created = zt::create_shared_tensor(name.str(), std::array<zt::index_t, 1>{4}, zt::uint32).as<std::uint32_t, 1>();
  created(3) = 7;
  zt::AnyTensor opened = zt::open_shared_tensor(name.str(), {.writable = false});
  BOOST_TEST(!opened.is_writable());
  BOOST_CHECK_THROW((void)opened.as<std::uint32_t>(), zt::TypeError);
  BOOST_TEST((opened.as<const std::uint32_t, 1>()(3) == 7u));
}

BOOST_AUTO_TEST_CASE(remove_deletes_the_name_but_mappings_stay_valid) {
  UniqueName name("remove");
  auto t = zt::create_shared_tensor(name.str(), std::array<zt::index_t, 1>{2}, zt::int64).as<std::int64_t, 1>();
  t(1) = 99;
  std::weak_ptr<const void> mapping = t.owner();
  BOOST_TEST(zt::remove_shared_tensor(name.str()));
  BOOST_TEST(!zt::remove_shared_tensor(name.str()));
  BOOST_TEST(t(1) == 99);
  BOOST_CHECK_EXCEPTION((void)zt::open_shared_tensor(name.str()), zt::IOError,
                        with_message<zt::IOError>("unable to open shared tensor '" + name.str() +
                                                  "' in read-write mode: No such file or directory (2)"));
  t = zt::Tensor<std::int64_t, 1>(nullptr, {0}, {1});
  BOOST_TEST(mapping.expired());
}

BOOST_AUTO_TEST_CASE(creating_an_existing_name_is_an_io_error) {
  UniqueName name("twice");
  (void)zt::create_shared_tensor(name.str(), std::array<zt::index_t, 1>{1}, zt::uint8);
  BOOST_CHECK_EXCEPTION((void)zt::create_shared_tensor(name.str(), std::array<zt::index_t, 1>{1}, zt::uint8),
                        zt::IOError,
                        with_message<zt::IOError>("unable to create shared tensor '" + name.str() + "': File exists (17)"));
}

BOOST_AUTO_TEST_CASE(bad_names_and_shapes_are_value_errors) {
  BOOST_CHECK_EXCEPTION((void)zt::create_shared_tensor("", std::array<zt::index_t, 1>{1}, zt::uint8), zt::ValueError,
                        with_message<zt::ValueError>("shared tensor name '' must be non-empty and contain no '/'"));
  BOOST_CHECK_EXCEPTION((void)zt::open_shared_tensor("a/b"), zt::ValueError,
                        with_message<zt::ValueError>("shared tensor name 'a/b' must be non-empty"));
  UniqueName name("negative");
  BOOST_CHECK_EXCEPTION((void)zt::create_shared_tensor(name.str(), std::array<zt::index_t, 2>{2, -1}, zt::uint8),
                        zt::ValueError, with_message<zt::ValueError>("negative extent -1 in dimension 1 of shape (2, -1)"));
  BOOST_CHECK_THROW((void)zt::open_shared_tensor(name.str()), zt::IOError);  // nothing was left behind
}

BOOST_AUTO_TEST_CASE(foreign_segments_are_refused) {
  UniqueName tiny("tiny"), zeros("zeros");
  make_foreign_segment(tiny.str(), 16);
  BOOST_CHECK_EXCEPTION((void)zt::open_shared_tensor(tiny.str()), zt::ValueError,
                        with_message<zt::ValueError>("shared memory '" + tiny.str() +
                                                     "' is not a zerotensor tensor: 16 bytes is smaller than the 40-byte header"));
  make_foreign_segment(zeros.str(), 4096);
  BOOST_CHECK_EXCEPTION((void)zt::open_shared_tensor(zeros.str()), zt::ValueError,
                        with_message<zt::ValueError>("is not a zerotensor tensor: bad magic"));
}

BOOST_AUTO_TEST_CASE(a_header_inconsistent_with_the_segment_is_refused) {
  UniqueName name("corrupt");
  auto created = zt::create_shared_tensor(name.str(), std::array<zt::index_t, 1>{4}, zt::float32);
  // Grow the recorded extent behind zerotensor's back: the header then claims 4000 floats.
  const int fd = ::shm_open(("/" + name.str()).c_str(), O_RDWR, 0);
  BOOST_REQUIRE(fd >= 0);
  void* base = ::mmap(nullptr, 64, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  BOOST_REQUIRE(base != MAP_FAILED);
  static_cast<std::int64_t*>(base)[5] = 4000;  // the first extent follows the 40-byte header
  BOOST_CHECK_EXCEPTION((void)zt::open_shared_tensor(name.str()), zt::ValueError,
                        with_message<zt::ValueError>("shape (4000,) of float32 needs 16000 bytes, the header says 16"));
  static_cast<std::uint32_t*>(base)[3] = 99;  // the dtype code
  BOOST_CHECK_EXCEPTION((void)zt::open_shared_tensor(name.str()), zt::ValueError,
                        with_message<zt::ValueError>("is not a zerotensor tensor: dtype code 99"));
  ::munmap(base, 64);
}

BOOST_AUTO_TEST_SUITE_END()
