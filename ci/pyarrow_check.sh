#!/usr/bin/env bash
# The Arrow peer check: a virtual environment with pyarrow and NumPy from PyPI, the ctypes
# peer library in a Release build of zerotensor with its tests (build/, the README's, unless
# ZT_BUILD_DIR names another), and test/arrow/pyarrow_check.py run by CTest (which fails
# when the check does not run).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh test
venv=build-venv
[ -x "$venv/bin/python" ] || /usr/bin/python3 -m venv "$venv"
"$venv/bin/python" -c "import pyarrow, numpy" 2>/dev/null || "$venv/bin/pip" install --quiet pyarrow numpy
build="${ZT_BUILD_DIR:-build}"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DZT_BUILD_TESTS=ON -DZT_PYARROW_PYTHON="$PWD/$venv/bin/python"
cmake --build "$build" -j "$(nproc)" --target zt_arrow_peer
ctest --test-dir "$build" -R '^pyarrow_check$' --no-tests=error --output-on-failure
