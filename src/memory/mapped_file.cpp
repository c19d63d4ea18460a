#include "zerotensor/mapped_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <memory>

#include <boost/interprocess/exceptions.hpp>
#include <boost/interprocess/file_mapping.hpp>
#include <boost/interprocess/mapped_region.hpp>

#include "vocabulary/concat.hpp"
#include "memory/file_io.hpp"
#include "zerotensor/error.hpp"

namespace zt {
namespace {

namespace bip = boost::interprocess;

const char* mode_name(MapAccess access) { return access == MapAccess::shared ? "read-write" : "read-only"; }

std::string open_context(const std::filesystem::path& path, MapAccess access) {
  return detail::concat("unable to open file <", path.native(), "> in ", mode_name(access), " mode");
}

/// O_CREAT with PyTorch's mode 0600; Boost's file_mapping only opens existing files.
void create_if_missing(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) detail::throw_io_error(open_context(path, MapAccess::shared), errno);
  ::close(fd);
}

bip::file_mapping open_file(const std::filesystem::path& path, MapAccess access) {
  try {
    return bip::file_mapping(path.c_str(), access == MapAccess::shared ? bip::read_write : bip::read_only);
  } catch (const bip::interprocess_exception& e) {
    detail::throw_io_error(open_context(path, access), e.get_native_error(), e.what());
  }
}

/// The size of the open file; refuses directories and other files that are not regular.
std::size_t regular_file_size(const bip::file_mapping& file, const std::filesystem::path& path,
                              MapAccess access) {
  struct ::stat status {};
  if (::fstat(file.get_mapping_handle().handle, &status) != 0) detail::throw_io_error(open_context(path, access), errno);
  if (S_ISDIR(status.st_mode)) detail::throw_io_error(open_context(path, access), EISDIR);
  if (!S_ISREG(status.st_mode))
    throw IOError(detail::concat(open_context(path, access), ": not a regular file"));
  return std::size_t(status.st_size);
}

/// Grows the open file, whose size was checked on the same handle: by path, another
/// program could have replaced the file in between.
void grow(const bip::file_mapping& file, const std::filesystem::path& path, std::size_t length) {
  if (::ftruncate(file.get_mapping_handle().handle, off_t(length)) != 0)
    detail::throw_io_error(detail::concat("unable to grow file <", path.native(), "> to ", length, " bytes"), errno);
}

bip::mode_t region_mode(MapAccess access) {
  switch (access) {
    case MapAccess::read_only: return bip::read_only;
    case MapAccess::copy_on_write: return bip::copy_on_write;
    case MapAccess::shared: break;
  }
  return bip::read_write;
}

/// The bytes at `address`, read-only exactly when the access is.
Buffer mapped_bytes(void* address, std::size_t length, KeepAlive owner, MapAccess access) {
  if (access == MapAccess::read_only) return Buffer(static_cast<const void*>(address), length, std::move(owner));
  return Buffer(address, length, std::move(owner));
}

}  // namespace

Buffer map_file(PathRef path_ref, MapFileOptions options) {
  const std::filesystem::path path(path_ref.c_str());
  const MapAccess access = options.access;
  if (options.create && access != MapAccess::shared)
    throw ValueError(detail::concat("map_file <", path.native(), ">: create needs shared access"));
  if (options.create) create_if_missing(path);

  const bip::file_mapping file = open_file(path, access);
  const std::size_t file_size = regular_file_size(file, path, access);
  const std::size_t length = options.length.value_or(file_size);
  if (file_size < length) {
    if (!options.create)
      throw ValueError(detail::concat("file <", path.native(), "> size <", file_size,
                                      "> is smaller than the required mapping size <", length, ">"));
    grow(file, path, length);
  }
  if (length == 0) return mapped_bytes(nullptr, 0, {}, access);

  std::shared_ptr<bip::mapped_region> region;
  try {
    region = std::make_shared<bip::mapped_region>(file, region_mode(access), 0, length);
  } catch (const bip::interprocess_exception& e) {
    detail::throw_io_error(detail::concat("unable to mmap ", length, " bytes from file <", path.native(), ">"),
                           e.get_native_error(), e.what());
  }
  void* address = region->get_address();
  return mapped_bytes(address, length, std::move(region), access);
}

}  // namespace zt
