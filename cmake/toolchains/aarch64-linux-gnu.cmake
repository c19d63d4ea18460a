# Cross-compiles for 64-bit Arm Linux (Grace Hopper, Graviton) with Debian's
# g++-aarch64-linux-gnu, and runs the programs CTest starts under qemu-user.
# The arm64 libraries are looked for in ZT_AARCH64_SYSROOT (default: build-aarch64-sysroot/
# of this source tree, which `scripts/deps.sh aarch64` fills), and only there: no amd64
# library or header of the host can be picked up by mistake.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

if(NOT ZT_AARCH64_SYSROOT)
  get_filename_component(ZT_AARCH64_SYSROOT "${CMAKE_CURRENT_LIST_DIR}/../../build-aarch64-sysroot" ABSOLUTE)
endif()
set(ZT_AARCH64_SYSROOT "${ZT_AARCH64_SYSROOT}" CACHE PATH "Folder holding the arm64 libraries (usr/include, usr/lib/aarch64-linux-gnu)")

# The cross compiler's own C and C++ libraries live in /usr/aarch64-linux-gnu.
set(CMAKE_FIND_ROOT_PATH "${ZT_AARCH64_SYSROOT}" /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# add_test(COMMAND <target>) runs the arm64 program through qemu-user; -L gives its dynamic
# loader the arm64 C and C++ libraries (the others it finds through the programs' RPATH, in
# ZT_AARCH64_SYSROOT).
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L /usr/aarch64-linux-gnu)
