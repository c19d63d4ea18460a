"""The peers of bench_cuda and bench_cuda_models on the same machine, each row against a pinned
floor measured in the same run. Prints one line a row: name, ms, GB/s, throughput / floor's.

--workload file, directory (bench_cuda_models' models, page cache hot: written once into a
temporary directory, removed at exit; every load timed after one warm-up, median of 5):
- file: one 2 GiB .safetensors file of 32 bfloat16 tensors of 64 MiB;
- directory: a 16-shard model directory of 2 GiB, 16 shards of 8 bfloat16 tensors of 16 MiB,
  with the model.safetensors.index.json (weight_map) that transformers writes; the loaders read
  the shards that the index names.
The floor: torch.empty of the model's bytes on cuda:0, .copy_ from one pinned host tensor of the
same bytes, synchronize. torch's caching allocator hands back the memory freed by the previous
run, so this floor is cheaper than the cudaMalloc + cudaMemcpy + cudaFree that bench_cuda_models
times. The rows: PyTorch's recipe (safetensors.torch.load_file to the CPU, then each tensor's
.pin_memory().to("cuda", non_blocking=True)), load_file(device="cuda"), and the dedicated loaders
through their documented Python APIs: fastsafetensors (SafeTensorsFileLoader), instanttensor
(safe_open), runai-model-streamer (SafetensorsStreamer). fastsafetensors and instanttensor read
with O_DIRECT by default, which bypasses the page cache: each is timed both buffered (what their
docs advise for repeated loads) and as it comes. A loader that cannot be imported or fails prints
"<loader>: did not run: <why>" and the rest go on. Each loader's first load is checked against
the bytes written: names, dtypes, shapes on cuda:0 and every byte (torch.equal on the GPU); a
difference prints MISMATCH.

--workload legacy (bench_cuda's rows): 1e8 float32 to a GPU and back through PyTorch (pageable
.to("cuda"), pin_memory().to("cuda", non_blocking=True), a pinned tensor's .to, .cpu()),
load_file(device="cuda") of a page-cache-hot file and of the 8 shards of a model directory
holding the same floats, each against torch's own pinned copy into preallocated memory; median
of 7.

The dedicated loaders come from bench/cuda/fetch_peer_wheels.sh's wheels (see its header).
"""
import argparse
import contextlib
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench/timing.py
from timing import median_seconds

COUNT = 100_000_000
MIB = 1 << 20
DEVICE = "cuda:0"
COLUMNS = 60


def synchronized(work):
    def run():
        work()
        torch.cuda.synchronize()
    return run


def seconds(work, repeats=7):
    """The median of `repeats` runs of `work`, each synchronized, after one warm-up."""
    synchronized(work)()
    return median_seconds(synchronized(work), repeats=repeats)


def print_row(name, t, nbytes, floor_rate):
    rate = nbytes / t / 1e9
    print(f"{name:{COLUMNS}s} {t * 1e3:8.1f} ms {rate:7.2f} GB/s {rate / floor_rate:5.2f}x floor", flush=True)


# The models.

def model_tensors(first, count, nbytes):
    """`count` bfloat16 tensors of `nbytes` each, [nbytes / 8192, 4096], named
    "layers.<first + i>.weight": one pseudo-random block plus i + 1 in every byte, so that each
    tensor differs from the others and within itself."""
    block = torch.randint(0, 256, (nbytes,), dtype=torch.uint8, generator=torch.Generator().manual_seed(first))
    return {f"layers.{first + i}.weight": (block + (first + i + 1)).view(torch.bfloat16).view(nbytes // 8192, 4096)
            for i in range(count)}


def write_file_model(directory):
    """The 2 GiB single file; returns its path and its tensors."""
    tensors = model_tensors(0, 32, 64 * MIB)
    path = os.path.join(directory, "model.safetensors")
    save_file(tensors, path, metadata={"format": "pt"})
    return [path], tensors


def write_directory_model(directory):
    """The 16-shard model directory with its index; returns the shards the index names, in order,
    and the tensors."""
    sharded = os.path.join(directory, "sharded")
    os.makedirs(sharded)
    tensors, weight_map = {}, {}
    for s in range(16):
        shard = f"model-{s + 1:05d}-of-00016.safetensors"
        part = model_tensors(s * 8, 8, 16 * MIB)
        save_file(part, os.path.join(sharded, shard), metadata={"format": "pt"})
        weight_map.update(dict.fromkeys(part, shard))
        tensors.update(part)
    index = {"metadata": {"total_size": sum(t.nbytes for t in tensors.values())}, "weight_map": weight_map}
    with open(os.path.join(sharded, "model.safetensors.index.json"), "w") as f:
        f.write(json.dumps(index, indent=2, sort_keys=True) + "\n")
    return indexed_shards(sharded), tensors


def indexed_shards(directory):
    with open(os.path.join(directory, "model.safetensors.index.json")) as f:
        weight_map = json.load(f)["weight_map"]
    return [os.path.join(directory, shard) for shard in sorted(set(weight_map.values()))]


def pinned_source(tensors):
    """All the tensors' bytes, one after the other, in one pinned host tensor; and where each
    tensor's bytes start in it."""
    nbytes = sum(t.nbytes for t in tensors.values())
    source = torch.empty(nbytes, dtype=torch.uint8, pin_memory=True)
    offsets, offset = {}, 0
    for name, t in tensors.items():
        source[offset:offset + t.nbytes].copy_(t.reshape(-1).view(torch.uint8))
        offsets[name] = offset
        offset += t.nbytes
    return source, offsets


def check(loader, loaded, tensors, offsets, source_on_device):
    """Prints MISMATCH unless `loaded` holds exactly `tensors`' names, each on cuda:0 with its
    dtype, shape and bytes."""
    problems = [f"names differ: {sorted(set(loaded) ^ set(tensors))[:4]}"] if set(loaded) != set(tensors) else []
    for name in sorted(set(loaded) & set(tensors)):
        got, want = loaded[name], tensors[name]
        if got.device != torch.device(DEVICE) or got.dtype != want.dtype or got.shape != want.shape:
            problems.append(f"{name}: {got.device} {got.dtype} {tuple(got.shape)}")
        elif not torch.equal(got.contiguous().reshape(-1).view(torch.uint8),
                             source_on_device[offsets[name]:offsets[name] + want.nbytes]):
            problems.append(f"{name}: bytes differ")
    if problems:
        print(f"*** MISMATCH *** {loader}: {len(problems)} problems, first {problems[:3]}", flush=True)


# The loaders: each loads every tensor of `paths` to `device` and returns them by name.

def torch_pinned_recipe(paths, device=DEVICE):
    return {name: t.pin_memory().to(device, non_blocking=True)
            for path in paths for name, t in load_file(path, device="cpu").items()}


def safetensors_to_device(paths, device=DEVICE):
    return {name: t for path in paths for name, t in load_file(path, device=device).items()}


@contextlib.contextmanager
def environment(**values):
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k)
            else:
                os.environ[k] = v


def fastsafetensors_load(paths, device=DEVICE):
    """Its single-device example: SafeTensorsFileLoader over SingleGroup without GDS; the tensors
    it returns own their device memory, so the buffer and loader are closed before returning."""
    from fastsafetensors import SafeTensorsFileLoader, SingleGroup
    loader = SafeTensorsFileLoader(SingleGroup(), device, nogds=True)
    try:
        loader.add_filenames({0: list(paths)})
        buffer = loader.copy_files_to_device()
        try:
            return {name: buffer.get_tensor(name) for name in loader.get_keys()}
        finally:
            buffer.close()
    finally:
        loader.close()


def fastsafetensors_buffered(paths, device=DEVICE):
    with environment(FASTSAFETENSORS_ODIRECT="0"):  # its switch from O_DIRECT to buffered reads
        return fastsafetensors_load(paths, device)


def instanttensor_load(paths, device=DEVICE, buffered=False):
    """Its quickstart: all files in one safe_open, which yields tensors that own their memory
    (copy=True) and synchronizes at exit; BackendPolicy.BUFFERED is its advice for repeated loads."""
    from instanttensor import BackendPolicy, safe_open
    backend = BackendPolicy.BUFFERED if buffered else None
    with safe_open(list(paths), framework="pt", device=device, backend=backend) as f:
        return dict(f.tensors())


def runai_load(paths, device=DEVICE):
    """Its usage: stream_files to its CPU buffers, each yielded tensor .to the device (the buffers
    are reused and freed at exit, so every tensor is copied inside the block)."""
    from runai_model_streamer import SafetensorsStreamer
    with SafetensorsStreamer() as streamer:
        streamer.stream_files(list(paths))
        return {name: t.to(device) for name, t in streamer.get_tensors()}


LOADERS = {
    "PyTorch: load_file(cpu), pin_memory().to(cuda)": torch_pinned_recipe,
    "safetensors load_file(device='cuda')": safetensors_to_device,
    "fastsafetensors, buffered (FASTSAFETENSORS_ODIRECT=0)": fastsafetensors_buffered,
    "fastsafetensors as it comes (O_DIRECT)": fastsafetensors_load,
    "instanttensor, buffered (BackendPolicy.BUFFERED)": lambda paths: instanttensor_load(paths, buffered=True),
    "instanttensor as it comes (direct I/O)": instanttensor_load,
    "runai-model-streamer SafetensorsStreamer, .to(cuda)": runai_load,
}


def filesystem(path):
    """The type of the file system holding `path`, from /proc/mounts."""
    best, kind = "", "unknown"
    with contextlib.suppress(OSError), open("/proc/mounts") as f:
        for line in f:
            _, mount, fstype = line.split()[:3]
            inside = mount == "/" or (os.path.realpath(path) + "/").startswith(mount + "/")
            if inside and len(mount) > len(best):
                best, kind = mount, fstype
    return kind


def run_model(title, paths, tensors):
    source, offsets = pinned_source(tensors)
    nbytes = source.numel()
    print(f"{title}: {len(paths)} file(s), {len(tensors)} tensors, {nbytes / 2**30:.2f} GiB, "
          f"on {filesystem(paths[0])}; median of 5 after one warm-up", flush=True)
    floor_time = seconds(lambda: torch.empty(nbytes, dtype=torch.uint8, device=DEVICE).copy_(source, non_blocking=True), 5)
    floor_rate = nbytes / floor_time / 1e9
    print_row("pinned floor: torch.empty(cuda).copy_(pinned)", floor_time, nbytes, floor_rate)
    source_on_device = source.to(DEVICE)
    for name, load in LOADERS.items():
        try:
            check(name, load(paths), tensors, offsets, source_on_device)  # the warm-up
            print_row(name, median_seconds(synchronized(lambda: load(paths)), repeats=5), nbytes, floor_rate)
        except Exception as e:  # ImportError included: a missing loader is a row that did not run
            print(f"{name}: did not run: {type(e).__name__}: {e}", flush=True)
    del source_on_device
    torch.cuda.empty_cache()


def write_shards(host, shards=8, tensors_per_shard=4):
    """bench_cuda's model: the floats as 8 shard files of 4 tensors each; returns their paths."""
    piece = host[: COUNT // (shards * tensors_per_shard)]
    paths = []
    for s in range(shards):
        paths.append(os.path.join(tempfile.gettempdir(), f"zt_cuda_peers_shard{s}.safetensors"))
        save_file({f"layers.{s * tensors_per_shard + t}.weight": piece.clone() for t in range(tensors_per_shard)}, paths[-1])
    return paths


def legacy():
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


MODELS = {"file": ("one 2 GiB file", write_file_model), "directory": ("16-shard directory", write_directory_model)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workload", choices=["all", "file", "directory", "legacy"], default="all")
    parser.add_argument("--write-only", metavar="DIR", help=argparse.SUPPRESS)  # writes both models into DIR, then exits
    args = parser.parse_args()
    if args.write_only:
        for _, write in MODELS.values():
            write(args.write_only)
        return
    for workload, (title, write) in MODELS.items():
        if args.workload in ("all", workload):
            directory = tempfile.mkdtemp(prefix="zt_cuda_peers-")
            try:
                run_model(title, *write(directory))
            finally:
                shutil.rmtree(directory)
    if args.workload in ("all", "legacy"):
        legacy()


if __name__ == "__main__":
    main()
