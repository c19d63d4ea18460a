# CI host profile: the detected default profile with C++20, which zerotensor's validate()
# requires (`conan profile detect` picks the compiler's default, gnu17 for GCC 12), and a unity
# build (the library's files compiled in batches; CI's README build checks each file alone).
include(default)

[settings]
compiler.cppstd=20

[conf]
tools.cmake.cmaketoolchain:extra_variables={"CMAKE_UNITY_BUILD": "ON"}
