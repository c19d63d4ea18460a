"""Opens a 100-shard, 20,000-tensor model directory (an index and its shards, as transformers
writes a mixture-of-experts model) with the safetensors package's own reader and with
zerotensor's load_checkpoint, in the same run.

Usage: python checkpoint_many.py BUILD/bench/bench_checkpoint [COUNT]
Needs numpy and safetensors (pip). Python reads the index (json.load) and runs
safe_open + keys() over every shard; zerotensor runs load_checkpoint on the directory
(which also validates every entry and makes every view). Prints the median of repeated opens, in real and in CPU time (on a shared machine the CPU
time is the steadier figure).
"""
import json
import os
import sys
import tempfile
import time

import numpy as np
from safetensors import safe_open
from safetensors.numpy import save_file

from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench/timing.py
from timing import benchmark_median, median_seconds

SHARDS = 100


def write_model(directory, count):
    shards = [{} for _ in range(SHARDS)]
    weight_map = {}
    for i in range(count):
        name = f"model.layers.{i // 256}.mlp.experts.{i % 256}.down_proj.weight"
        shards[i % SHARDS][name] = np.full(4, i, np.float32)
        weight_map[name] = f"model-{i % SHARDS + 1:05d}-of-{SHARDS:05d}.safetensors"
    for s, tensors in enumerate(shards):
        save_file(tensors, os.path.join(directory, f"model-{s + 1:05d}-of-{SHARDS:05d}.safetensors"))
    # As transformers and huggingface_hub write it: indented, keys sorted.
    with open(os.path.join(directory, "model.safetensors.index.json"), "w") as f:
        f.write(json.dumps({"metadata": {}, "weight_map": weight_map}, indent=2, sort_keys=True) + "\n")


def main():
    program = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
    with tempfile.TemporaryDirectory() as directory:
        write_model(directory, count)

        def keys():
            with open(os.path.join(directory, "model.safetensors.index.json")) as f:
                shards = sorted(set(json.load(f)["weight_map"].values()))
            names = []
            for shard in shards:
                with safe_open(os.path.join(directory, shard), framework="numpy") as f:
                    names.extend(f.keys())
            return names

        assert len(keys()) == count
        open_keys = median_seconds(keys)
        open_keys_cpu = median_seconds(keys, clock=time.process_time)
        zt_seconds, zt_cpu = benchmark_median(program, "given_directory", {"ZT_CHECKPOINT_DIR": directory})
        print(f"{SHARDS} shards, {count} tensors, median of 15 (real / CPU time):")
        print(f"  index + safe_open + keys(): {open_keys * 1e3:.1f} / {open_keys_cpu * 1e3:.1f} ms, "
              f"{open_keys_cpu / count * 1e6:.2f} us CPU per tensor")
        print(f"  zerotensor load_checkpoint: {zt_seconds * 1e3:.1f} / {zt_cpu * 1e3:.1f} ms, "
              f"{zt_cpu / count * 1e6:.2f} us CPU per tensor")
        print(f"  ratio zerotensor / safetensors: {zt_seconds / open_keys:.2f}x real, {zt_cpu / open_keys_cpu:.2f}x CPU")

if __name__ == "__main__":
    main()
