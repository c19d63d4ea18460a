"""Timing shared by the Python peer benchmarks (safetensors_many.py, checkpoint_many.py,
torch_load.py): the median of repeated calls, and the median of a zerotensor benchmark
program run on the same files.
"""
import json
import os
import statistics
import subprocess
import tempfile
import time


def median_seconds(body, repeats=15, clock=time.perf_counter):
    times = []
    for _ in range(repeats):
        start = clock()
        body()
        times.append(clock() - start)
    return statistics.median(times)


def benchmark_median(program, benchmark_filter, env):
    """Runs the Google Benchmark `program`'s benchmarks matching `benchmark_filter` 15 times
    with `env` added to the environment; returns the median's (real, CPU) seconds."""
    with tempfile.TemporaryDirectory() as directory:
        report = os.path.join(directory, "zerotensor.json")
        subprocess.run([program, f"--benchmark_filter={benchmark_filter}", "--benchmark_repetitions=15",
                        "--benchmark_report_aggregates_only=true", f"--benchmark_out={report}",
                        "--benchmark_out_format=json"],
                       env=dict(os.environ, **env), check=True, capture_output=True)
        with open(report) as f:
            runs = json.load(f)["benchmarks"]
    median = next(r for r in runs if r.get("aggregate_name") == "median")
    unit = {"ms": 1e3, "us": 1e6, "ns": 1e9, "s": 1}[median["time_unit"]]
    return median["real_time"] / unit, median["cpu_time"] / unit
