"""PyTorch's peer of bench_float8: every 8-bit float format -> float32 and -> bfloat16 and
float32 -> float8_e4m3fn over 1e6 and 1e7 elements on one thread (torch.set_num_threads(1)), as
.to() into fresh memory and copy_ into a tensor written before, in GB/s of output bytes,
each against the memcpy of its output bytes (a same-dtype clone / copy_ of uint8) timed in
the same loop, in turn, as ratio.hpp pairs them.

Usage: taskset -c 1 python bench/float8.py
Needs torch (pip). The inputs are made as bench_float8's are: every code in random order for
float8, normal values (sd 100, some beyond 448) for float32.
"""
import statistics
import time

import torch


def paired_median(subject, floor, repeats=31):
    """Median times of `subject` and `floor`, timed in turn in one loop, and the median of
    the per-iteration ratios."""
    subject_times, floor_times = [], []
    for i in range(repeats):
        order = [(subject, subject_times), (floor, floor_times)]
        for body, times in order if i % 2 == 0 else reversed(order):
            start = time.perf_counter()
            body()
            times.append(time.perf_counter() - start)
    ratio = statistics.median(s / f for s, f in zip(subject_times, floor_times))
    return statistics.median(subject_times), statistics.median(floor_times), ratio


def source(dtype, n):
    generator = torch.Generator().manual_seed(22)
    if dtype == torch.float32:
        return torch.randn(n, generator=generator) * 100
    return torch.randint(0, 256, (n,), dtype=torch.uint8, generator=generator).view(dtype)


def main():
    torch.set_num_threads(1)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} thread")
    formats = [("e4m3fn", torch.float8_e4m3fn), ("e5m2", torch.float8_e5m2), ("e4m3fnuz", torch.float8_e4m3fnuz),
               ("e5m2fnuz", torch.float8_e5m2fnuz), ("e8m0fnu", torch.float8_e8m0fnu)]
    jobs = [(f"{name}_to_{short}", dtype, target) for name, dtype in formats
            for short, target in (("f32", torch.float32), ("bf16", torch.bfloat16))]
    jobs.append(("f32_to_e4m3fn", torch.float32, torch.float8_e4m3fn))
    print(f"{'subject':<38} {'ms':>9} {'GB/s':>7} {'memcpy ms':>10} {'memcpy GB/s':>12} {'ratio':>7}")
    for fresh in (False, True):
        for n in (1_000_000, 10_000_000):
            for name, src_type, dst_type in jobs:
                x = source(src_type, n)
                out = torch.empty(n, dtype=dst_type)
                nbytes = out.numel() * out.element_size()
                raw_in = torch.ones(nbytes, dtype=torch.uint8)
                raw_out = torch.empty(nbytes, dtype=torch.uint8)
                if fresh:
                    subject, floor = (lambda: x.to(dst_type)), raw_in.clone
                else:
                    subject, floor = (lambda: out.copy_(x)), (lambda: raw_out.copy_(raw_in))
                subject(), floor()  # warm up
                s, f, ratio = paired_median(subject, floor)
                label = f"torch_{name}_{'to' if fresh else 'copy_'}/{n}"
                print(f"{label:<38} {s * 1e3:9.3f} {nbytes / s / 1e9:7.2f} {f * 1e3:10.3f} {nbytes / f / 1e9:12.2f} "
                      f"{ratio:6.2f}x")
    print("ratio = median over iterations of subject time / memcpy time (same loop)")


if __name__ == "__main__":
    main()
