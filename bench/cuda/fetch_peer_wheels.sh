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
# bench/cuda/gpu_figures.sh installs them on the GPU machine and runs the peers.
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
