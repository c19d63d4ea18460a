# CI scaffolding, not for users (they take boost from ConanCenter): the headers of Debian's
# libboost-dev as the Conan package boost/1.74.0, with ConanCenter's CMake names (file
# Boost, component target Boost::headers), so `conan create .` works with no remote.
from conan import ConanFile


class DebianBoostHeaders(ConanFile):
    name = "boost"
    version = "1.74.0"
    # No package_type: Conan would warn that it overrides the header_only option, which
    # exists because consumers (zerotensor's recipe) set it as they do for ConanCenter's boost.
    options = {"header_only": [True]}
    default_options = {"header_only": True}

    def package_id(self):
        self.info.clear()

    def package_info(self):
        self.cpp_info.set_property("cmake_file_name", "Boost")
        self.cpp_info.set_property("cmake_target_name", "Boost::boost")
        headers = self.cpp_info.components["headers"]
        headers.set_property("cmake_target_name", "Boost::headers")
        headers.includedirs = ["/usr/include"]
        headers.bindirs = []
        headers.libdirs = []
