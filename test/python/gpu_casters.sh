#!/usr/bin/env bash
# The binding casters on a GPU: run on a machine with an NVIDIA GPU and a CUDA PyTorch in its
# python3, after the CUDA configuration was built in ZT_GPU_BUILD (default /tmp/zt-gpu-build, as
# .gpu/cuda-build.sh builds it). Adds the nanobind test module to that build (nanobind from
# build-venv/, which the caller carries there: such a machine reaches no package index) and runs
# test_casters.py in that python3, whose TorchCUDA and CUDAProducers checks bind CUDA tensors.
#   bash test/python/gpu_casters.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${ZT_GPU_BUILD:-/tmp/zt-gpu-build}
python=$(command -v python3)
nanobind_dir=$(echo build-venv/lib/python3*/site-packages/nanobind/cmake)
[ -d "$nanobind_dir" ] || { echo "gpu_casters: no nanobind in build-venv/ (carry it)" >&2; exit 1; }
"$python" -c 'import torch; print("PyTorch", torch.__version__, "CUDA", torch.cuda.is_available())'
cmake -S . -B "$build" -DZT_BINDINGS_PYTHON="$python" -Dnanobind_DIR="$PWD/$nanobind_dir" > /dev/null
cmake --build "$build" --target zt_nanobind_test
"$python" test/python/test_casters.py "$build/test/python" zt_nanobind_test
