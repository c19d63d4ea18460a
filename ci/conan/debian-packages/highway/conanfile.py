# CI scaffolding, not for users (ConanCenter has highway): Debian's libhwy-dev as the Conan
# package highway/1.0.3, with ConanCenter's CMake names, so `conan create .` works with no
# remote. The library is Debian's shared one, found where Debian installs it.
from conan import ConanFile


class DebianHighway(ConanFile):
    name = "highway"
    version = "1.0.3"
    package_type = "shared-library"
    settings = "os", "arch"

    def package_id(self):
        self.info.clear()

    def package_info(self):
        self.cpp_info.set_property("cmake_file_name", "hwy")
        self.cpp_info.set_property("cmake_target_name", "hwy::hwy")
        self.cpp_info.includedirs = ["/usr/include"]
        self.cpp_info.libdirs = ["/usr/lib/x86_64-linux-gnu"]
        self.cpp_info.libs = ["hwy"]
        self.cpp_info.bindirs = []
        # What Highway's own CMake config gives users of its shared library.
        self.cpp_info.defines = ["HWY_SHARED_DEFINE"]
