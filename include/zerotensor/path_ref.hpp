// zt::PathRef: how the file functions take a path — a C string, a std::string or a
// std::filesystem::path — without making every program that includes them compile
// <filesystem>. A parameter type: it refers to the caller's string for the call.
#pragma once

#include <concepts>

namespace zt {

class PathRef {
 public:
  PathRef(const char* path) noexcept : path_(path) {}  // NOLINT(google-explicit-constructor)

  /// std::string, std::filesystem::path (POSIX: its native string) and any other type
  /// that holds a NUL-terminated path.
  template <class Path>
    requires requires(const Path& path) {
      { path.c_str() } -> std::same_as<const char*>;
    }
  PathRef(const Path& path) noexcept : path_(path.c_str()) {}  // NOLINT(google-explicit-constructor)

  [[nodiscard]] const char* c_str() const noexcept { return path_; }

 private:
  const char* path_;
};

}  // namespace zt
