// The library version; CMakeLists.txt and conanfile.py read it from here.
#pragma once

#define ZT_VERSION_MAJOR 0
#define ZT_VERSION_MINOR 1
#define ZT_VERSION_PATCH 0

namespace zt {
inline constexpr int version_major = ZT_VERSION_MAJOR;
inline constexpr int version_minor = ZT_VERSION_MINOR;
inline constexpr int version_patch = ZT_VERSION_PATCH;
}  // namespace zt
