#!/usr/bin/env python3
"""Writes test/data/checkpoint/tiny: a sharded model directory as transformers saves one,
with the shards written by the `safetensors` package, for test_checkpoint.cpp.

    python3.11 -m venv /tmp/venv && /tmp/venv/bin/pip install safetensors numpy
    /tmp/venv/bin/python test/data/checkpoint/make_checkpoint.py

Three shards hold one (2, 3) tensor of every dtype NumPy can give the package (bfloat16 it
cannot), values 0..5 (bool: alternating, signed integers: 0, -1, ..., -5), named
layers.<shard>.<dtype>, and a float32 lm_head.weight; the index lists every tensor and the
sum of their sizes as metadata.total_size.

Also writes test/data/checkpoint/unlisted_broken.bin: a torch.save archive, laid out by hand
as torch.save lays it out, whose dict holds "listed" (float32 0..5, storage "0") and
"unlisted" (6 float32 of storage "7", a record the archive lacks, so building that tensor
fails). A .bin shard's index lists only "listed".
"""
import json
import pathlib
import struct
import zipfile

import numpy as np
from safetensors.numpy import save_file

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE / "tiny"
DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64"]
SHARDS = 3


def values(dtype):
    if dtype == "bool":
        return np.array([True, False] * 3).reshape(2, 3)
    if np.dtype(dtype).kind == "i":
        return (-np.arange(6)).astype(dtype).reshape(2, 3)
    return np.arange(6).astype(dtype).reshape(2, 3)


def main():
    OUT.mkdir(exist_ok=True)
    shards = [{} for _ in range(SHARDS)]
    for k, dtype in enumerate(DTYPES):
        shards[k % SHARDS][f"layers.{k % SHARDS}.{dtype}"] = values(dtype)
    shards[SHARDS - 1]["lm_head.weight"] = np.arange(4, dtype=np.float32)
    weight_map, total = {}, 0
    for s, tensors in enumerate(shards):
        name = f"model-{s + 1:05d}-of-{SHARDS:05d}.safetensors"
        save_file(tensors, OUT / name, metadata={"format": "np"})
        for key, array in tensors.items():
            weight_map[key] = name
            total += array.nbytes
    index = {"metadata": {"total_size": total}, "weight_map": dict(sorted(weight_map.items()))}
    (OUT / "model.safetensors.index.json").write_text(json.dumps(index, indent=2) + "\n")
    unlisted_broken()


def text(value):
    encoded = value.encode()
    return b"X" + struct.pack("<I", len(encoded)) + encoded


def float_tensor(key, numel):
    """A pickled torch._utils._rebuild_tensor_v2 of all `numel` float32 elements of storage `key`."""
    storage = b"(" + text("storage") + b"ctorch\nFloatStorage\n" + text(key) + text("cpu") + \
        b"J" + struct.pack("<i", numel) + b"tQ"
    return b"ctorch._utils\n_rebuild_tensor_v2\n(" + storage + b"J\x00\x00\x00\x00(J" + \
        struct.pack("<i", numel) + b"t(J\x01\x00\x00\x00t\x89ccollections\nOrderedDict\n)RtR"


def unlisted_broken():
    pickle = b"\x80\x02}(" + text("listed") + float_tensor("0", 6) + text("unlisted") + float_tensor("7", 6) + b"u."
    with zipfile.ZipFile(HERE / "unlisted_broken.bin", "w", zipfile.ZIP_STORED) as archive:
        for name, data in [("data.pkl", pickle), ("byteorder", b"little"),
                           ("data/0", struct.pack("<6f", *range(6))), ("version", b"3\n")]:
            archive.writestr(zipfile.ZipInfo("archive/" + name, date_time=(2024, 1, 1, 0, 0, 0)), data)


if __name__ == "__main__":
    main()
