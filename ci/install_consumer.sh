#!/usr/bin/env bash
# Builds test_package/ against a plain `cmake --install` tree of zerotensor (no Conan):
# configure, build and install the library into a prefix, then find_package(zerotensor)
# from the consumer and run it. Extra arguments go to the library's CMake configure,
# e.g. -DZT_CUDA=ON to check the installed config of a CUDA build.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh core

build="$PWD/${ZT_INSTALL_BUILD_DIR:-build-conan/install}"
cmake -S . -B "$build/zerotensor" -DCMAKE_BUILD_TYPE=Release -DZT_BUILD_TESTS=OFF -DZT_BUILD_EXAMPLES=OFF \
  -DZT_BUILD_BENCH=OFF -DZT_CUDA=OFF "$@"
cmake --build "$build/zerotensor" -j "$(nproc)"
cmake --install "$build/zerotensor" --prefix "$build/prefix"
cmake -S test_package -B "$build/consumer" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$build/prefix"
cmake --build "$build/consumer" -j "$(nproc)"
"$build/consumer/test_package"
