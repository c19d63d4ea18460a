"""NumPy's side of bench_copies (issue 26's rows): each copy timed in NumPy, then the same
copy's zerotensor time from bench_copies (its paired rows against memcpy), one after the other
on the same machine.

Usage: python copies_numpy.py BUILD/bench/bench_copies
Needs numpy. Prints, per row, NumPy's median, zerotensor's median and zerotensor / NumPy.
"""
import os
import sys
import tempfile

import numpy as np

from timing import benchmark_median, median_seconds

MILLION = 1_000_000
SIDE = 4096


def filled(n, dtype):
    """bench_copies' values: i % 1000 - 500.5."""
    return (np.arange(n) % 1000 - 500.5).astype(dtype)


def rows(directory):
    """(bench_copies row, what NumPy does, NumPy's copy) for every row NumPy has."""
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
         lambda: np.copyto(i32_out, f32, casting="unsafe")),
        ("f32_to_f16_1e6", "np.copyto(float16, float32, casting='unsafe')",
         lambda: np.copyto(f16_out, f32, casting="unsafe")),
        ("f16_to_f32_1e6", "np.copyto(float32, float16)", lambda: np.copyto(f32_out, f16)),
        ("column_n1_strides_2_1", "np.copyto of the (1e6, 1) column", lambda: np.copyto(column_out, column_in)),
        ("clone_transposed_4096", "np.ascontiguousarray(a.T)", lambda: np.ascontiguousarray(square.T)),
        ("copy_into_even_to_odd_columns_4096", "np.copyto(b[:, 1::2], b[:, ::2])",
         lambda: np.copyto(buffer[:, 1::2], buffer[:, ::2])),
        ("load_npy_copy_1k", "np.load (reads into memory)", lambda: np.load(npy)),
    ]


def main():
    program = sys.argv[1]
    with tempfile.TemporaryDirectory() as directory:
        print(f"{'row':36} {'NumPy':>10} {'zerotensor':>11} {'ratio':>7}  NumPy call")
        for name, call, body in rows(directory):
            body()  # first touch of fresh output memory
            numpy_seconds = median_seconds(body, repeats=31)
            floor = "open_pread" if name.startswith("load_npy") else "memcpy"
            zt_seconds, _ = benchmark_median(program, f"^BM_{name}_vs_{floor}", {})
            print(f"{name:36} {numpy_seconds * 1e3:8.3f}ms {zt_seconds * 1e3:9.3f}ms {zt_seconds / numpy_seconds:6.2f}x  {call}")


if __name__ == "__main__":
    main()
