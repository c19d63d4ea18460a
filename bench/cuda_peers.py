"""The peers of bench_cuda on the same machine: 1e8 float32 to a GPU and back through
PyTorch (pageable .to("cuda"), pin_memory().to("cuda", non_blocking=True), a pinned tensor's
.to, .cpu()) and safetensors.torch.load_file(device="cuda") of a page-cache-hot file, each
against torch's own pinned copy into preallocated memory. Prints GB/s, median of the runs."""
import os
import tempfile

import torch
from safetensors.torch import load_file, save_file

from timing import median_seconds

COUNT = 100_000_000


def seconds(work):
    def synchronized():
        work()
        torch.cuda.synchronize()
    synchronized()
    return median_seconds(synchronized, repeats=7)


def main():
    host = torch.ones(COUNT)
    pinned = host.pin_memory()
    device = torch.empty(COUNT, device="cuda")
    path = os.path.join(tempfile.gettempdir(), "zt_cuda_peers.safetensors")
    save_file({"x": host}, path)
    rows = {
        "pinned floor: device.copy_(pinned)": lambda: device.copy_(pinned, non_blocking=True),
        "pageable .to('cuda')": lambda: host.to("cuda"),
        "pin_memory().to('cuda', non_blocking=True)": lambda: host.pin_memory().to("cuda", non_blocking=True),
        "pinned .to('cuda', non_blocking=True)": lambda: pinned.to("cuda", non_blocking=True),
        "safetensors load_file(device='cuda')": lambda: load_file(path, device="cuda"),
        "device .cpu()": lambda: device.cpu(),
    }
    floor = None
    for name, work in rows.items():
        t = seconds(work)
        rate = COUNT * 4 / t / 1e9
        floor = floor or rate
        print(f"{name:48s} {t * 1e3:8.1f} ms {rate:7.1f} GB/s {rate / floor:5.2f}x floor")
    os.remove(path)


if __name__ == "__main__":
    main()
