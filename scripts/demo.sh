#!/usr/bin/env bash
# Builds and runs the tour: each zerotensor function on real data, printed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh core
cmake -S . -B build-demo -DCMAKE_BUILD_TYPE=Release -DZT_BUILD_TESTS=OFF -DZT_BUILD_EXAMPLES=ON -DZT_CUDA=OFF
cmake --build build-demo -j "$(nproc)" --target tour
./build-demo/examples/tour
