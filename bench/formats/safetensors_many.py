"""Opens one 18,000-tensor .safetensors file (one shard of a mixture-of-experts model holds
thousands) with the safetensors package's own reader and with zerotensor, in the same run.

Usage: python safetensors_many.py BUILD/bench/bench_safetensors_many [COUNT]
Needs numpy and safetensors (pip). Prints the median of repeated opens for each reader.
"""
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


def main():
    program = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 18000
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "many.safetensors")
        save_file({f"model.layers.{i // 256}.mlp.experts.{i % 256}.down_proj.weight": np.full(4, i, np.float32)
                   for i in range(count)}, path)

        def keys():
            with safe_open(path, framework="numpy") as f:
                return list(f.keys())

        def every_tensor():
            with safe_open(path, framework="numpy") as f:
                return [f.get_tensor(k) for k in f.keys()]

        open_keys = median_seconds(keys)
        open_keys_cpu = median_seconds(keys, clock=time.process_time)
        open_all = median_seconds(every_tensor, repeats=5)
        zt_seconds, zt_cpu = benchmark_median(program, "given_file", {"ZT_SAFETENSORS_FILE": path})
        print(f"{count} tensors, median of 15 (real / CPU time): safe_open + keys() {open_keys * 1e3:.1f} / "
              f"{open_keys_cpu * 1e3:.1f} ms, + get_tensor of all {open_all * 1e3:.1f} ms (real); zerotensor "
              f"load_safetensors {zt_seconds * 1e3:.1f} / {zt_cpu * 1e3:.1f} ms; ratio zerotensor / safetensors "
              f"{zt_seconds / open_keys:.2f}x real, {zt_cpu / open_keys_cpu:.2f}x CPU")


if __name__ == "__main__":
    main()
