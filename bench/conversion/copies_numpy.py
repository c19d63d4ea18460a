"""NumPy's side of bench_copies (its rows): each copy timed in NumPy, then the same
copy's zerotensor time from bench_copies (its paired rows against memcpy), one after the other
on the same machine. As bench_copies times each zerotensor copy in one loop with a memcpy of
its output bytes, each NumPy copy is timed just after a copy of as many bytes, so that both
find the caches alike (a copy repeated alone keeps its operands in cache).

Usage: python copies_numpy.py BUILD/bench/bench_copies
Needs numpy. Prints, per row, NumPy's median, zerotensor's median and zerotensor / NumPy.
"""
import os
import statistics
import sys
import tempfile
import time

import numpy as np

from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench/timing.py
from timing import benchmark_median, median_seconds

MILLION = 1_000_000
SIDE = 4096


def filled(n, dtype):
    """bench_copies' values: i % 1000 - 500.5."""
    return (np.arange(n) % 1000 - 500.5).astype(dtype)


def median_after_copy(body, nbytes, repeats=31):
    """The median time of `body`, each call just after a copy of `nbytes` bytes."""
    source, destination = np.ones(nbytes, np.uint8), np.zeros(nbytes, np.uint8)
    times = []
    for _ in range(repeats):
        np.copyto(destination, source)
        start = time.perf_counter()
        body()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def rows(directory):
    """(bench_copies row, what NumPy does, NumPy's copy, its output bytes) for every row NumPy
    has; None for the load, whose floor is open + pread, not a copy."""
    f32 = filled(MILLION, np.float32)
    f16 = filled(MILLION, np.float16)
    i32_out, f16_out, f32_out = np.empty(MILLION, np.int32), np.empty(MILLION, np.float16), np.empty(MILLION, np.float32)
    column_in = filled(2 * MILLION, np.float32).reshape(MILLION, 2)[:, :1]  # shape (1e6, 1), strides (2, 1)
    column_out = np.empty((MILLION, 1), np.float32)
    square = filled(SIDE * SIDE, np.float32).reshape(SIDE, SIDE)
    buffer = filled(SIDE * SIDE, np.float32).reshape(SIDE, SIDE)
    npy = os.path.join(directory, "small.npy")
    np.save(npy, filled(224, np.float32))  # 1 KB, as bench_copies writes
    return [
        ("f32_to_i32_1e6", "np.copyto(int32, float32, casting='unsafe')",
         lambda: np.copyto(i32_out, f32, casting="unsafe"), i32_out.nbytes),
        ("f32_to_f16_1e6", "np.copyto(float16, float32, casting='unsafe')",
         lambda: np.copyto(f16_out, f32, casting="unsafe"), f16_out.nbytes),
        ("f16_to_f32_1e6", "np.copyto(float32, float16)", lambda: np.copyto(f32_out, f16), f32_out.nbytes),
        ("column_n1_strides_2_1", "np.copyto of the (1e6, 1) column", lambda: np.copyto(column_out, column_in),
         column_out.nbytes),
        ("clone_transposed_4096", "np.ascontiguousarray(a.T)", lambda: np.ascontiguousarray(square.T), square.nbytes),
        ("copy_into_even_to_odd_columns_4096", "np.copyto(b[:, 1::2], b[:, ::2])",
         lambda: np.copyto(buffer[:, 1::2], buffer[:, ::2]), buffer.nbytes // 2),
        ("load_npy_copy_1k", "np.load (reads into memory)", lambda: np.load(npy), None),
    ]


def main():
    program = sys.argv[1]
    with tempfile.TemporaryDirectory() as directory:
        print(f"{'row':36} {'NumPy':>10} {'zerotensor':>11} {'ratio':>7}  NumPy call")
        for name, call, body, nbytes in rows(directory):
            body()  # first touch of fresh output memory
            numpy_seconds = median_seconds(body, repeats=31) if nbytes is None else median_after_copy(body, nbytes)
            floor = "open_pread" if name.startswith("load_npy") else "memcpy"
            zt_seconds, _ = benchmark_median(program, f"^BM_{name}_vs_{floor}", {})
            print(f"{name:36} {numpy_seconds * 1e3:8.3f}ms {zt_seconds * 1e3:9.3f}ms {zt_seconds / numpy_seconds:6.2f}x  {call}")


if __name__ == "__main__":
    main()
