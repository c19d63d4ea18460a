// open_shared_tensor on a segment holding any bytes: another process may have written
// anything there. The input is the whole segment (header, extents, data); a tensor that
// opens must read in full, the same writable and read-only.
#include <fcntl.h>
#include <sys/mman.h>

#include "fuzz/fuzz_support.hpp"

using namespace zt;
using namespace zt::fuzz;

namespace {

/// The segment this process rewrites for each input, removed when the harness exits.
class Segment {
 public:
  Segment() : name_("zt_fuzz_" + std::to_string(::getpid())) {}
  Segment(const Segment&) = delete;
  Segment& operator=(const Segment&) = delete;
  ~Segment() { ::shm_unlink(("/" + name_).c_str()); }

  [[nodiscard]] const std::string& name() const noexcept { return name_; }

  /// Replaces the segment's contents with `bytes`.
  void write(std::span<const std::uint8_t> bytes) const {
    const int fd = ::shm_open(("/" + name_).c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
    require(fd >= 0, "cannot create the shared memory segment " + name_);
    const bool written = bytes.empty() || ::write(fd, bytes.data(), bytes.size()) == ssize_t(bytes.size());
    require(::close(fd) == 0 && written, "cannot write the shared memory segment " + name_);
  }

 private:
  std::string name_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const Segment segment;
  segment.write({data, size});
  const std::string& name = segment.name();
  const auto writable = unless_refused([&] { return open_shared_tensor(name); });
  const auto read_only = unless_refused([&] { return open_shared_tensor(name, {.writable = false}); });
  require(writable.has_value() == read_only.has_value(), "opening writable and read-only disagree");
  if (writable) {
    require(writable->is_writable() && !read_only->is_writable(), "open_shared_tensor ignored `writable`");
    inspect(*writable);
    require_same_elements(*writable, *read_only, "open_shared_tensor read-only");
  }
  return 0;
}
