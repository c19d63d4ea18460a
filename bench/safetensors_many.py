"""Opens one 18,000-tensor .safetensors file (one shard of a mixture-of-experts model holds
thousands) with the safetensors package's own reader and with zerotensor, in the same run.

Usage: python safetensors_many.py BUILD/bench/bench_safetensors_many [COUNT]
Needs numpy and safetensors (pip). Prints the median of repeated opens for each reader.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
from safetensors import safe_open
from safetensors.numpy import save_file


def median_seconds(body, repeats=15):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        body()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


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
        open_all = median_seconds(every_tensor, repeats=5)
        report = os.path.join(directory, "zerotensor.json")
        subprocess.run([program, "--benchmark_filter=given_file", "--benchmark_repetitions=15",
                        "--benchmark_report_aggregates_only=true", f"--benchmark_out={report}",
                        "--benchmark_out_format=json"],
                       env=dict(os.environ, ZT_SAFETENSORS_FILE=path), check=True, capture_output=True)
        with open(report) as f:
            runs = json.load(f)["benchmarks"]
        zt = next(r for r in runs if r.get("aggregate_name") == "median")
        zt_seconds = zt["real_time"] / {"ms": 1e3, "us": 1e6, "ns": 1e9, "s": 1}[zt["time_unit"]]
        print(f"{count} tensors: safe_open + keys() {open_keys * 1e3:.1f} ms, + get_tensor of all "
              f"{open_all * 1e3:.1f} ms; zerotensor load_safetensors {zt_seconds * 1e3:.1f} ms "
              f"({zt_seconds / open_keys:.2f}x safe_open + keys())")


if __name__ == "__main__":
    main()
