# CI scaffolding, not for users (they take eigen/3.4.0 from ConanCenter): Debian's
# libeigen3-dev as the Conan package eigen/3.4.0, declared the way ConanCenter's recipe
# declares it, so `conan create .` works with no remote.
from conan import ConanFile


class DebianEigen(ConanFile):
    name = "eigen"
    version = "3.4.0"
    package_type = "header-library"

    def package_id(self):
        self.info.clear()

    def package_info(self):
        self.cpp_info.set_property("cmake_file_name", "Eigen3")
        self.cpp_info.set_property("cmake_target_name", "Eigen3::Eigen")
        self.cpp_info.includedirs = ["/usr/include/eigen3"]
        self.cpp_info.bindirs = []
        self.cpp_info.libdirs = []
