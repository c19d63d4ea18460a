# CI scaffolding, not for users (ConanCenter has simdjson): Debian's libsimdjson-dev as the
# Conan package simdjson/3.0.1, with ConanCenter's CMake names, so `conan create .` works with
# no remote. The library is Debian's shared one, found where Debian installs it.
from conan import ConanFile


class DebianSimdjson(ConanFile):
    name = "simdjson"
    version = "3.0.1"
    package_type = "shared-library"
    settings = "os", "arch"

    def package_id(self):
        self.info.clear()

    def package_info(self):
        self.cpp_info.set_property("cmake_file_name", "simdjson")
        self.cpp_info.set_property("cmake_target_name", "simdjson::simdjson")
        self.cpp_info.includedirs = ["/usr/include"]
        self.cpp_info.libdirs = ["/usr/lib/x86_64-linux-gnu"]
        self.cpp_info.libs = ["simdjson"]
        self.cpp_info.bindirs = []
