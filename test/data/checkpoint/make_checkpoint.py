#!/usr/bin/env python3
"""Writes test/data/checkpoint/tiny: a sharded model directory as transformers saves one,
with the shards written by the `safetensors` package, for test_checkpoint.cpp.

    python3.11 -m venv /tmp/venv && /tmp/venv/bin/pip install safetensors numpy
    /tmp/venv/bin/python test/data/checkpoint/make_checkpoint.py

Three shards hold one (2, 3) tensor of every dtype NumPy can give the package (bfloat16 it
cannot), values 0..5 (bool: alternating, signed integers: 0, -1, ..., -5), named
layers.<shard>.<dtype>, and a float32 lm_head.weight; the index lists every tensor and the
sum of their sizes as metadata.total_size.
"""
import json
import pathlib

import numpy as np
from safetensors.numpy import save_file

OUT = pathlib.Path(__file__).resolve().parent / "tiny"
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


if __name__ == "__main__":
    main()
