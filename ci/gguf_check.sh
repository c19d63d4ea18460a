#!/usr/bin/env bash
# The GGUF peer check: a virtual environment with the gguf package (llama.cpp's Python library)
# and NumPy from PyPI, the gguf_peer program in a Release build of zerotensor with its tests
# (build/, the README's, unless ZT_BUILD_DIR names another), and test/gguf/gguf_check.py run by
# CTest (which fails when the check does not run).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh test
venv=build-venv
[ -x "$venv/bin/python" ] || /usr/bin/python3 -m venv "$venv"
"$venv/bin/python" -c "import gguf, numpy" 2>/dev/null || "$venv/bin/pip" install --quiet gguf numpy
build="${ZT_BUILD_DIR:-build}"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DZT_BUILD_TESTS=ON -DZT_GGUF_PYTHON="$PWD/$venv/bin/python"
cmake --build "$build" -j "$(nproc)" --target zt_gguf_peer
ctest --test-dir "$build" -R '^gguf_check$' --no-tests=error --output-on-failure
