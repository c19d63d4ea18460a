#!/usr/bin/env bash
# Downloads, on a machine with network, the wheels that bench/cuda/cuda_peers.py's dedicated
# loaders need on a GPU machine that has Python 3.12 with torch, numpy and safetensors but no
# network: instanttensor 0.2.2, fastsafetensors 0.5.0, runai-model-streamer 0.16.1 and those of
# their runtime dependencies that such a machine lacks (runai-model-streamer: humanize;
# fastsafetensors declares typer, which its modules never import, and typer brings rich,
# pydantic, shellingham and theirs). torch and numpy are left out on purpose; typing-extensions is
# kept because pydantic wants a newer one than torch may bring. Run from the project root; the
# wheels land in .gpu/wheels/ (cp312, manylinux x86_64), about 15 MB.
#
# On the GPU machine, from the project root, install into a folder put on PYTHONPATH (works where
# site-packages is not writable; --no-deps because the rest is there already):
#   python3 -m pip install -q --no-index --no-deps --no-compile --upgrade --target /tmp/peers .gpu/wheels/*.whl && export PYTHONPATH=/tmp/peers
# Where typer and humanize are installed already (the nvidia-h200 image has both), the loaders'
# three wheels are enough and shadow nothing:
#   python3 -m pip install -q --no-index --no-deps --no-compile --upgrade --target /tmp/peers .gpu/wheels/{instanttensor,fastsafetensors,runai_model_streamer}-*.whl && export PYTHONPATH=/tmp/peers
# Without pip, each wheel is a zip to unpack (none has a .data folder):
#   for w in .gpu/wheels/*.whl; do python3 -m zipfile -e "$w" /tmp/peers; done && export PYTHONPATH=/tmp/peers
# fastsafetensors dlopens "libcudart.so" by that name, which PyTorch's wheels do not provide (they
# have libcudart.so.13); where the dynamic loader cannot find one, link PyTorch's under that name:
#   python3 -c 'import ctypes; ctypes.CDLL("libcudart.so")' 2>/dev/null || { mkdir -p /tmp/cudart && ln -sf "$(python3 -c 'import glob, nvidia; print(glob.glob(nvidia.__path__[0] + "/*/lib/libcudart.so.*")[0])')" /tmp/cudart/libcudart.so && export LD_LIBRARY_PATH=/tmp/cudart:$LD_LIBRARY_PATH; }
set -euo pipefail

wheels=.gpu/wheels
mkdir -p "$wheels"

# The target's tags, whatever Python runs pip here.
target=(--only-binary=:all: --python-version 3.12 --implementation cp --abi cp312
        --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64
        --platform manylinux2014_x86_64 --dest "$wheels")

# The loaders alone: their declared dependencies include torch and numpy, which the machine has.
python3 -m pip download "${target[@]}" --no-deps \
  instanttensor==0.2.2 fastsafetensors==0.5.0 runai-model-streamer==0.16.1

# Their small dependencies, with theirs.
python3 -m pip download "${target[@]}" typer humanize

ls -l "$wheels"
du -sh "$wheels"
