# CI scaffolding, not for users (ConanCenter has nlohmann_json): Debian's
# nlohmann-json3-dev as the Conan package nlohmann_json/3.11.2, with ConanCenter's CMake
# names, so `conan create .` works with no remote.
from conan import ConanFile


class DebianNlohmannJson(ConanFile):
    name = "nlohmann_json"
    version = "3.11.2"
    package_type = "header-library"

    def package_id(self):
        self.info.clear()

    def package_info(self):
        self.cpp_info.set_property("cmake_file_name", "nlohmann_json")
        self.cpp_info.set_property("cmake_target_name", "nlohmann_json::nlohmann_json")
        self.cpp_info.includedirs = ["/usr/include"]
        self.cpp_info.bindirs = []
        self.cpp_info.libdirs = []
