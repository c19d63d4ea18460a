#!/usr/bin/env bash
# Builds zerotensor with its tests and runs every test (installs missing packages first).
# Extra arguments go to CMake, e.g. -DCMAKE_CXX_FLAGS=-fsanitize=address; ZT_CTEST_ARGS to CTest,
# e.g. ZT_CTEST_ARGS="-LE compile" to leave out the entries that compile code instead of running it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh test
# nanobind, for the binding casters' tests, from PyPI into the virtual environment build-venv/;
# the test modules are built for Debian's python3 (with its NumPy and PyTorch). A caller turns
# them off with -DZT_BINDINGS_PYTHON= (later arguments win).
bash scripts/venv.sh nanobind
venv=build-venv
build="${ZT_BUILD_DIR:-build}"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE="${ZT_BUILD_TYPE:-Release}" -DZT_BUILD_TESTS=ON \
  -DZT_BINDINGS_PYTHON=/usr/bin/python3 -Dnanobind_DIR="$("$venv/bin/python" -m nanobind --cmake_dir)" "$@"
cmake --build "$build" -j "$(nproc)"
# shellcheck disable=SC2086 # ZT_CTEST_ARGS is a list of arguments
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" ${ZT_CTEST_ARGS:-}
