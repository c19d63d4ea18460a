"""Writes state dicts of 1,000 and 8,000 small tensors and one of 1,000 tensors of 1 MB (1 GB)
with torch.save, times torch.load(mmap=True, weights_only=True) on each, and runs
bench_torch_load (load_torch, paired with load_safetensors and torch::pickle_load) on the
same files.

Usage: python torch_load.py BUILD/bench/bench_torch_load [FOLDER]
Needs torch (pip). FOLDER (default: a temporary one) keeps the files; the 1 GB file needs the space.
"""
import os
import subprocess
import sys
import tempfile

import torch

from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench/timing.py
from timing import median_seconds


def state_dict(count, numel):
    return {f"model.layers.{i // 16}.mlp.experts.{i % 16}.down_proj.weight": torch.full((numel,), float(i))
            for i in range(count)}


def run(program, directory):
    files = {"many_1000": (1000, 256), "many_8000": (8000, 256), "large_1000": (1000, 262144)}
    for name, (count, numel) in files.items():
        path = os.path.join(directory, name + ".pt")
        if not os.path.exists(path):
            torch.save(state_dict(count, numel), path)
        seconds = median_seconds(lambda: torch.load(path, mmap=True, weights_only=True), repeats=7)
        print(f"{name}: torch.load(mmap=True, weights_only=True) {seconds * 1e3:.2f} ms")
    subprocess.run(["taskset", "-c", "1", program, "--benchmark_repetitions=5",
                    "--benchmark_report_aggregates_only=true"],
                   env=dict(os.environ, ZT_TORCH_BENCH_DIR=directory), check=True)


def main():
    program = sys.argv[1]
    if len(sys.argv) > 2:
        run(program, sys.argv[2])
    else:
        with tempfile.TemporaryDirectory() as directory:
            run(program, directory)


if __name__ == "__main__":
    main()
