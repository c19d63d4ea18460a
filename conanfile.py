import os
import re

from conan import ConanFile
from conan.errors import ConanInvalidConfiguration
from conan.tools.build import check_min_cppstd
from conan.tools.cmake import CMake, CMakeDeps, CMakeToolchain, cmake_layout
from conan.tools.files import copy, load, save

required_conan_version = ">=2.0"


class ZerotensorConan(ConanFile):
    name = "zerotensor"
    description = ("C++ PyTorch's zero-copy tensor constructors (frombuffer, asarray, from_dlpack, from_file) "
                   "on Eigen: typed views of memory that already exists")
    topics = ("tensor", "eigen", "zero-copy", "dlpack", "mmap", "cuda")
    license = "Apache-2.0"
    package_type = "library"
    settings = "os", "arch", "compiler", "build_type"
    options = {"shared": [True, False], "fPIC": [True, False], "with_cuda": [True, False]}
    default_options = {"shared": False, "fPIC": True, "with_cuda": False, "boost/*:header_only": True}
    exports_sources = "CMakeLists.txt", "LICENSE", "cmake/*", "include/*", "src/*"

    def set_version(self):
        # include/zerotensor/version.hpp is the one place the version is written.
        header = load(self, os.path.join(self.recipe_folder, "include", "zerotensor", "version.hpp"))
        parts = [re.search(rf"#define ZT_VERSION_{part} (\d+)", header).group(1) for part in ("MAJOR", "MINOR", "PATCH")]
        self.version = ".".join(parts)

    def configure(self):
        if self.options.shared:
            self.options.rm_safe("fPIC")

    def layout(self):
        cmake_layout(self)

    def requirements(self):
        # Eigen appears in zerotensor's public headers; Boost (file mapping, shared memory,
        # endianness), nlohmann_json (JSON values), simdjson (the JSON parser) and Highway
        # (the conversion kernels' SIMD) only inside the library, so consumers never see their
        # headers. simdjson and Highway are compiled libraries: they stay visible so that a
        # static zerotensor's users link them.
        self.requires("eigen/3.4.0", transitive_headers=True)
        self.requires("boost/[>=1.74.0 <2]", visible=False)
        self.requires("nlohmann_json/[>=3.11.2 <4]", visible=False)
        self.requires("simdjson/[>=3.0.1 <4]")
        self.requires("highway/[>=1.0.3 <2]")

    def validate(self):
        check_min_cppstd(self, 20)
        if self.settings.os == "Windows":
            # File mapping, atomic saves and shared memory use POSIX calls directly.
            raise ConanInvalidConfiguration("zerotensor supports POSIX systems (Linux, macOS) only, not Windows")

    def generate(self):
        toolchain = CMakeToolchain(self)
        toolchain.cache_variables["ZT_BUILD_TESTS"] = False
        toolchain.cache_variables["ZT_BUILD_BENCH"] = False
        toolchain.cache_variables["ZT_BUILD_EXAMPLES"] = False
        toolchain.cache_variables["ZT_CUDA"] = bool(self.options.with_cuda)
        if self.options.with_cuda:
            # The toolchain's CMAKE_CXX_STANDARD also sets the dialect of CUDA sources, and
            # CMake 3.25 (Debian 12's) knows no nvcc flag for C++20. Name it in the cppstd
            # block, the part of the toolchain that CUDA's try_compile checks read too.
            cppstd = toolchain.blocks["cppstd"]
            cppstd.template = cppstd.template + (
                '\nset(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")'
                '\nset(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")\n')
        toolchain.generate()
        CMakeDeps(self).generate()

    def build(self):
        cmake = CMake(self)
        cmake.configure()
        cmake.build()

    def package(self):
        CMake(self).install()
        copy(self, "LICENSE", self.source_folder, os.path.join(self.package_folder, "licenses"))
        if self.options.with_cuda:
            # CMakeDeps writes its own config, so the CUDA usage requirements that the
            # installed zerotensorConfig.cmake carries come in through a build module.
            module_folder = os.path.join(self.package_folder, self._cuda_module_folder)
            copy(self, "zerotensorCudaUsage.cmake", os.path.join(self.source_folder, "cmake"), module_folder)
            save(self, os.path.join(module_folder, "zerotensor-conan-cuda.cmake"),
                 "include(${CMAKE_CURRENT_LIST_DIR}/zerotensorCudaUsage.cmake)\n"
                 "zt_cuda_usage(zerotensor::zerotensor INTERFACE)\n")

    _cuda_module_folder = os.path.join("lib", "cmake", "zerotensor-conan")

    def package_info(self):
        self.cpp_info.set_property("cmake_file_name", "zerotensor")
        self.cpp_info.set_property("cmake_target_name", "zerotensor::zerotensor")
        self.cpp_info.libs = ["zerotensor"]
        if self.options.with_cuda:
            # The CUDA runtime comes from the system's CUDA toolkit, found by CMake.
            self.cpp_info.defines = ["ZT_CUDA=1"]
            self.cpp_info.set_property("cmake_build_modules",
                                       [os.path.join(self._cuda_module_folder, "zerotensor-conan-cuda.cmake")])
