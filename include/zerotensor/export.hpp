// ZT_API marks what the compiled library exports. The library is compiled with hidden
// visibility (CMake's CXX_VISIBILITY_PRESET), so a shared build exports exactly the classes
// and functions declared ZT_API; exception classes carry it so that their type information
// is one across the library boundary (a catch in user code sees the library's throw).
// GCC and Clang (the POSIX systems zerotensor supports) need no import/export distinction.
#pragma once

#define ZT_API __attribute__((visibility("default")))
