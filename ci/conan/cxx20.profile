# CI host profile: the detected default profile with C++20, which zerotensor's validate()
# requires (`conan profile detect` picks the compiler's default, gnu17 for GCC 12).
include(default)

[settings]
compiler.cppstd=20
