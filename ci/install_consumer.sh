#!/usr/bin/env bash
# Builds two consumers against a plain `cmake --install` tree of zerotensor (no Conan):
# configure, build and install the library (by default the static CPU library) into a
# prefix, then find_package(zerotensor) from test_package/ and run it, and from
# ci/pic_consumer/, a shared object that Python's ctypes loads and calls (it links only
# where the static library is position-independent). Extra arguments go to the library's
# CMake configure, e.g. -DZT_CUDA=ON to check the installed config of a CUDA build.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh core

# The library's build folder sits directly in the project, as build/ does: ccache then finds
# the README build's objects (it spells paths relative to the build folder).
build="$PWD/${ZT_INSTALL_BUILD_DIR:-build-install}"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DZT_BUILD_TESTS=OFF -DZT_BUILD_EXAMPLES=OFF \
  -DZT_BUILD_BENCH=OFF "$@"
cmake --build "$build" -j "$(nproc)"
cmake --install "$build" --prefix "$build/prefix"
cmake -S test_package -B "$build/consumer" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$build/prefix"
cmake --build "$build/consumer" -j "$(nproc)"
"$build/consumer/test_package"

cmake -S ci/pic_consumer -B "$build/pic_consumer" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$build/prefix"
cmake --build "$build/pic_consumer" -j "$(nproc)"
python3 - "$build/pic_consumer/libzt_pic_consumer.so" <<'PYTHON'
import ctypes, sys
failed = ctypes.CDLL(sys.argv[1]).zt_pic_consumer_check()
print(f"pic_consumer: {'all checks passed' if failed == 0 else f'check {failed} failed'}")
sys.exit(failed)
PYTHON
