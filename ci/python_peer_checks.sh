#!/usr/bin/env bash
# The Python peer checks: a virtual environment with pyarrow, the gguf package (llama.cpp's
# Python library) and NumPy from PyPI; the ctypes Arrow peer and the gguf_peer program in a
# Release build of zerotensor with its tests (build/, the README's, unless ZT_BUILD_DIR names
# another); test/arrow/pyarrow_check.py and test/gguf/gguf_check.py run by CTest (which fails
# when a check does not run).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh test
bash scripts/venv.sh pyarrow gguf numpy
venv=build-venv
build="${ZT_BUILD_DIR:-build}"
python="$PWD/$venv/bin/python"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DZT_BUILD_TESTS=ON -DZT_PYARROW_PYTHON="$python" \
  -DZT_GGUF_PYTHON="$python"
cmake --build "$build" -j "$(nproc)" --target zt_arrow_peer zt_gguf_peer
ctest --test-dir "$build" -R '^(pyarrow|gguf)_check$' --no-tests=error --output-on-failure
