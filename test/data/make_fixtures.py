#!/usr/bin/env python3
"""Writes the .npy and .safetensors fixtures that test_npy.cpp and test_safetensors.cpp read.

The .npy files come from NumPy itself and the .safetensors files from the `safetensors`
package, so the tests check zerotensor against the reference writers:

    /usr/bin/python3 test/data/make_fixtures.py npy            # Debian's python3-numpy
    python -m venv /tmp/venv && /tmp/venv/bin/pip install safetensors numpy
    /tmp/venv/bin/python test/data/make_fixtures.py safetensors

Files a reference writer cannot produce (a misaligned .npy header, misaligned or bfloat16
.safetensors data) are written byte by byte here and then read back with the reference
reader, which proves they are valid files.
"""
import json
import pathlib
import struct
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent

# Every NumPy dtype zerotensor maps, in the descr NumPy writes.
NPY_DTYPES = ["|b1", "|u1", "|i1", "<i2", "<i4", "<i8", "<u2", "<u4", "<u8", "<f2", "<f4", "<f8", "<c8", "<c16"]


def npy_fixtures():
    out = HERE / "npy"
    out.mkdir(exist_ok=True)
    for descr in NPY_DTYPES:
        dtype = np.dtype(descr)
        values = np.array([0, 1, 2, 3]) if dtype.kind != "b" else np.array([True, False, True, True])
        if dtype.kind == "c":
            values = np.array([1 + 2j, -3.5 + 0.25j, 0, 4])
        name = dtype.name  # bool, uint8, ..., complex128
        np.save(out / f"{name}.npy", values.astype(dtype))
    np.save(out / "float32_c_order.npy", np.arange(6, dtype="<f4").reshape(2, 3))
    np.save(out / "float64_fortran.npy", np.asfortranarray(np.arange(6, dtype="<f8").reshape(2, 3)))
    np.save(out / "int32_big_endian.npy", np.array([1, -2, 3, 70000], dtype=">i4"))
    np.save(out / "complex128_big_endian.npy", np.array([1 + 2j, -3.5 + 0.25j], dtype=">c16"))
    np.save(out / "float64_fortran_big_endian.npy",
            np.asfortranarray(np.arange(6, dtype=">f8").reshape(2, 3)))
    np.save(out / "float64_0d.npy", np.array(3.25, dtype="<f8"))
    np.save(out / "float32_empty.npy", np.zeros((0, 3), dtype="<f4"))
    for version in [(1, 0), (2, 0), (3, 0)]:
        with open(out / f"int16_version_{version[0]}.npy", "wb") as f:
            np.lib.format.write_array(f, np.array([[1, 2], [3, -4]], dtype="<i2"), version=version)
    write_misaligned_npy(out / "float64_misaligned.npy", np.array([1.5, -2.0, 8.0], dtype="<f8"))


def write_misaligned_npy(path, array):
    """A version 1.0 file whose data starts at byte 68, not 8-aligned (NumPy pads to 64)."""
    header = "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }"
    header += " " * (60 - 10 - len(header) - 1) + "\n"
    path.write_bytes(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + array.tobytes())
    assert (np.load(path) == array).all()


def write_raw_safetensors(path, entries, header_pad):
    """entries: name -> (dtype string, shape, raw bytes); the header padded by `header_pad` spaces."""
    header, data, offset = {}, b"", 0
    for name, (dtype, shape, raw) in entries.items():
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + len(raw)]}
        data += raw
        offset += len(raw)
    text = json.dumps(header).encode() + b" " * header_pad
    path.write_bytes(struct.pack("<Q", len(text)) + text + data)


def safetensors_fixtures():
    from safetensors.numpy import load_file, save_file

    out = HERE / "safetensors"
    out.mkdir(exist_ok=True)
    tensors = {
        "weight": np.arange(6, dtype=np.float32).reshape(2, 3),
        "bias": np.array([0.5, -1.0, 2.0], dtype=np.float64),
        "ids": np.array([1, -2, 3, 2**40], dtype=np.int64),
        "mask": np.array([True, False, True]),
        "half": np.array([0.5, -2.0], dtype=np.float16),
        "bytes": np.array([1, 2, 3, 254, 255], dtype=np.uint8),
        "small": np.array([-128, 127], dtype=np.int8),
        "i16": np.array([-300, 300], dtype=np.int16),
        "i32": np.array([-70000, 70000], dtype=np.int32),
        "u16": np.array([65535, 1], dtype=np.uint16),
        "u32": np.array([4294967295, 2], dtype=np.uint32),
        "u64": np.array([2**64 - 1, 3], dtype=np.uint64),
        "c64": np.array([1 + 2j, -3 - 4j], dtype=np.complex64),
        "empty": np.zeros((0, 4), dtype=np.float32),
        "scalar": np.array(7.0, dtype=np.float32),
    }
    save_file(tensors, out / "model.safetensors", metadata={"format": "np", "author": "zerotensor"})
    loaded = load_file(out / "model.safetensors")
    assert all((loaded[k] == v).all() and loaded[k].shape == v.shape for k, v in tensors.items())

    # A header of 8k + 3 bytes puts the data area, and so every tensor, off alignment.
    misaligned = out / "misaligned.safetensors"
    floats = np.array([1.0, -2.0, 3.5], dtype="<f4")
    entries = {"a": ("F32", [3], floats.tobytes()), "b": ("U8", [3], bytes([7, 8, 9]))}
    for pad in range(64):
        write_raw_safetensors(misaligned, entries, pad)
        if (8 + misaligned.read_bytes()[:8][0]) % 4 == 3:
            break
    back = load_file(misaligned)
    assert (back["a"] == floats).all() and list(back["b"]) == [7, 8, 9]

    # NumPy has no bfloat16: the upper halves of float32 values are bfloat16 values.
    bf16 = out / "bfloat16.safetensors"
    upper = (np.array([1.0, -2.5, 3.0], dtype="<f4").view("<u4") >> 16).astype("<u2")
    write_raw_safetensors(bf16, {"x": ("BF16", [3], upper.tobytes())}, 0)
    with open(bf16, "rb") as f:
        length = struct.unpack("<Q", f.read(8))[0]
        assert json.loads(f.read(length))["x"]["dtype"] == "BF16"


def low_precision_fixture():
    """The 8-bit and packed sub-byte floats as torch + safetensors write them (torch >= 2.8):

        /tmp/torchvenv/bin/pip install safetensors
        /tmp/torchvenv/bin/python test/data/make_fixtures.py low_precision

    Every 8-bit tensor holds the bytes 0, 1, ..., 255 (shape (16, 16)); "f4" is a
    float4_e2m1fn_x2 tensor of shape (2, 3) over the bytes 0x10, 0x32, ..., which the file
    stores as F4 values of shape (2, 6).
    """
    import torch
    from safetensors.torch import save_file
    codes = torch.arange(256, dtype=torch.int64).to(torch.uint8).reshape(16, 16)
    tensors = {name: codes.clone().view(getattr(torch, name)) for name in
               ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu"]}
    pairs = torch.tensor([0x10, 0x32, 0x54, 0x76, 0x98, 0xBA], dtype=torch.uint8).reshape(2, 3)
    tensors["f4"] = pairs.view(torch.float4_e2m1fn_x2)
    save_file(tensors, HERE / "safetensors" / "low_precision.safetensors")


if __name__ == "__main__":
    what = sys.argv[1:] or ["npy", "safetensors"]
    if "npy" in what:
        npy_fixtures()
    if "safetensors" in what:
        safetensors_fixtures()
    if "low_precision" in what:
        low_precision_fixture()
