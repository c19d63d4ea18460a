#!/usr/bin/env bash
# Cross-builds zerotensor for 64-bit Arm Linux with Debian's g++-aarch64-linux-gnu
# (cmake/toolchains/aarch64-linux-gnu.cmake; `scripts/deps.sh aarch64` installs what it needs)
# and runs the tour and the format, view, dtype and conversion suites under qemu-user.
# Highway picks the conversion kernels for the CPU at run time, so the conversion suite runs
# again on CPUs like Grace (SVE2, 128-bit vectors), Graviton3 (SVE, 256-bit) and Graviton2
# (NEON only), besides qemu's default CPU (SVE2, 512-bit).
# CMAKE_CXX_COMPILER_LAUNCHER from the environment (ccache) is honoured by CMake itself. A unity
# build (the library's files compiled in batches): the README's build checks each file alone.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh aarch64

build="build-aarch64"
suites=(test_npy test_safetensors test_torch_load test_checkpoint test_from_file
        test_views test_tensor test_any_tensor test_dtype test_float8 test_copies)
# The libtorch peer is an amd64 library here, so it is not looked for.
cmake -S . -B "$build" --toolchain cmake/toolchains/aarch64-linux-gnu.cmake -DCMAKE_BUILD_TYPE=Release \
  -DZT_BUILD_TESTS=ON -DZT_BUILD_EXAMPLES=ON -DZT_BUILD_BENCH=OFF -DZT_CUDA=OFF \
  -DCMAKE_DISABLE_FIND_PACKAGE_Torch=ON -DCMAKE_UNITY_BUILD=ON
cmake --build "$build" -j "$(nproc)" --target tour "${suites[@]}"

QEMU_LD_PREFIX=/usr/aarch64-linux-gnu qemu-aarch64 "$build/examples/tour" > "$build/tour.log"
tail -n 3 "$build/tour.log"

names=$(IFS='|'; echo "${suites[*]}")
ctest --test-dir "$build" -R "^($names)\$" --no-tests=error --output-on-failure -j "$(nproc)"
for cpu in max,sve-default-vector-length=16 max,sve-default-vector-length=32 neoverse-n1; do
  echo "--- test_copies on QEMU_CPU=$cpu"
  QEMU_CPU=$cpu ctest --test-dir "$build" -R '^test_copies$' --no-tests=error --output-on-failure
done
