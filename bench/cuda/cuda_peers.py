"""The peers of bench_cuda on the same machine: 1e8 float32 to a GPU and back through
PyTorch (pageable .to("cuda"), pin_memory().to("cuda", non_blocking=True), a pinned tensor's
.to, .cpu()), safetensors.torch.load_file(device="cuda") of a page-cache-hot file and of the 8
shards of a model directory holding the same floats (as bench_cuda's load_checkpoint row), each
against torch's own pinned copy into preallocated memory. Prints GB/s, median of the runs."""
import os
import tempfile

import torch
from safetensors.torch import load_file, save_file

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench/timing.py
from timing import median_seconds

COUNT = 100_000_000


def seconds(work):
    def synchronized():
        work()
        torch.cuda.synchronize()
    synchronized()
    return median_seconds(synchronized, repeats=7)


def write_shards(host, shards=8, tensors_per_shard=4):
    """bench_cuda's model: the floats as 8 shard files of 4 tensors each; returns their paths."""
    piece = host[: COUNT // (shards * tensors_per_shard)]
    paths = []
    for s in range(shards):
        paths.append(os.path.join(tempfile.gettempdir(), f"zt_cuda_peers_shard{s}.safetensors"))
        save_file({f"layers.{s * tensors_per_shard + t}.weight": piece.clone() for t in range(tensors_per_shard)}, paths[-1])
    return paths


def main():
    host = torch.ones(COUNT)
    pinned = host.pin_memory()
    device = torch.empty(COUNT, device="cuda")
    path = os.path.join(tempfile.gettempdir(), "zt_cuda_peers.safetensors")
    save_file({"x": host}, path)
    shards = write_shards(host)
    rows = {
        "pinned floor: device.copy_(pinned)": lambda: device.copy_(pinned, non_blocking=True),
        "pageable .to('cuda')": lambda: host.to("cuda"),
        "pin_memory().to('cuda', non_blocking=True)": lambda: host.pin_memory().to("cuda", non_blocking=True),
        "pinned .to('cuda', non_blocking=True)": lambda: pinned.to("cuda", non_blocking=True),
        "safetensors load_file(device='cuda')": lambda: load_file(path, device="cuda"),
        "8 shards, load_file(device='cuda') each": lambda: [load_file(s, device="cuda") for s in shards],
        "device .cpu()": lambda: device.cpu(),
    }
    floor = None
    for name, work in rows.items():
        t = seconds(work)
        rate = COUNT * 4 / t / 1e9
        floor = floor or rate
        print(f"{name:48s} {t * 1e3:8.1f} ms {rate:7.1f} GB/s {rate / floor:5.2f}x floor")
    for p in [path] + shards:
        os.remove(p)


if __name__ == "__main__":
    main()
