#!/usr/bin/env python3
"""Writes the PyTorch reference data that test_float8.cpp checks zerotensor's 8-bit floats
and complex32 against. PyTorch is the reference; run with a current PyTorch (CPU is enough):

    python -m venv /tmp/torchvenv && /tmp/torchvenv/bin/pip install torch numpy
    /tmp/torchvenv/bin/python test/data/float8/make_reference.py

Every file is raw little-endian records, no header. For each 8-bit type T
(float8_e4m3fn, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz, float8_e8m0fnu):

  T.decode.bin      256 records, one per bit pattern b (in order), 13 bytes each: the value
                    of b as float32 (u32 bits), bfloat16 (u16), float16 (u16), int32 (i32) and
                    bool (u8), as PyTorch's `.to()` gives them from T.
  T.encode_f32.bin  records of 5 bytes: a float32 input (u32 bits), then PyTorch's byte for
                    `torch.tensor(x, dtype=float32).to(T)`. The inputs cover every rounding
                    boundary (each pair of adjacent representable values: the midpoint and the
                    float32 values one ulp below and above it, the values themselves and their
                    neighbours), every subnormal, the largest finite value and above it,
                    +-0, +-inf, NaNs, tiny values, float32 subnormals and random values.
  T.encode_f64.bin  records of 9 bytes: a float64 input (u64 bits) near the same boundaries
                    (where double -> float -> T and a direct double -> T would differ), then
                    PyTorch's byte for `torch.tensor(x, dtype=float64).to(T)`.

complex32.bin: records of 20 bytes: a complex64 input (real, imag as u32 bits), PyTorch's
complex32 for it (real, imag as float16 u16 bits), and that complex32 back in complex64
(u32, u32), with PyTorch's `.to()` each way.
"""
import pathlib
import struct
import warnings

import numpy as np
import torch

HERE = pathlib.Path(__file__).resolve().parent
TYPES = ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu"]
RNG = np.random.default_rng(22)


def f32_bits(values):
    return np.asarray(values, dtype=np.float32).view(np.uint32)


def from_f32_bits(bits):
    return torch.from_numpy(np.asarray(bits, dtype=np.uint32).view(np.float32).copy())


def next_f32(x, direction):
    return np.nextafter(np.float32(x), np.float32(direction), dtype=np.float32)


def decode_records(dtype):
    codes = torch.tensor(range(256), dtype=torch.uint8).view(dtype)
    f32 = codes.to(torch.float32).numpy().view(np.uint32)
    bf16 = codes.to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16)
    f16 = codes.to(torch.float16).numpy().view(np.uint16)
    i32 = codes.to(torch.int32).numpy()
    b = codes.to(torch.bool).numpy().astype(np.uint8)
    out = bytearray()
    for i in range(256):
        out += struct.pack("<IHHiB", int(f32[i]), int(bf16[i]), int(f16[i]), int(i32[i]), int(b[i]))
    return bytes(out), codes.to(torch.float32).numpy()


def float32_inputs(values):
    """The float32 sweep for a type whose decoded values are `values`."""
    finite = np.unique(np.abs(values[np.isfinite(values)]).astype(np.float32))  # sorted, 0 first
    step_above = finite[-1] - finite[-2]
    grid = np.append(finite, np.float32(finite[-1] + max(step_above, finite[-1] - finite[-2])))
    if finite[-2] * 2 == finite[-1]:  # e8m0: powers of two
        grid[-1] = finite[-1] * 2 if np.isfinite(finite[-1] * 2) else np.float32(3.4e38)
    inputs = []
    for x in grid:
        inputs += [x, next_f32(x, -np.inf), next_f32(x, np.inf)]
    for lo, hi in zip(grid[:-1], grid[1:]):
        mid = np.float32((np.float64(lo) + np.float64(hi)) / 2)
        inputs += [mid, next_f32(mid, -np.inf), next_f32(mid, np.inf)]
    smallest = finite[1]
    tiny = [smallest / 2, smallest / 4, smallest / 3, smallest * 0.75, smallest * 1.25]
    inputs += tiny + [next_f32(t, -np.inf) for t in tiny] + [next_f32(t, np.inf) for t in tiny]
    top = finite[-1]
    inputs += [top * 1.5, top * 2, top * 4, 65504.0, 1e10, 3.4028235e38]
    inputs = np.array(inputs, dtype=np.float32)
    inputs = inputs[np.isfinite(inputs)]
    special = f32_bits([0.0, np.inf, 1e-45, 1.17549435e-38]).tolist()
    special += [0x7FC00000, 0x7F800001, 0x7FBFFFFF, 0x7FFFFFFF, 0x00000001, 0x007FFFFF, 0x00400000, 0x00400001,
                0x003FFFFF, 0x00000002, 0x00200000, 0x7F7FFFFF]
    bits = np.concatenate([f32_bits(inputs), np.array(special, dtype=np.uint32),
                           RNG.integers(0, 2**31, 1000, dtype=np.uint32).astype(np.uint32)])
    # Random values within the type's range, on a logarithmic scale.
    low, high = np.log2(float(smallest)) - 2, np.log2(float(top)) + 1
    bits = np.concatenate([bits, f32_bits(np.exp2(RNG.uniform(low, high, 2000)))])
    bits = np.concatenate([bits, bits | np.uint32(0x80000000)])  # both signs
    return np.unique(bits)


def float64_inputs(values):
    """Float64 values at and around each midpoint: one float64 ulp off, and half or a
    quarter of a float32 ulp off, where rounding to float32 first decides the result."""
    finite = np.unique(np.abs(values[np.isfinite(values)]).astype(np.float64))
    inputs = []
    for lo, hi in zip(finite[:-1], finite[1:]):
        mid = (lo + hi) / 2
        ulp32 = float(np.spacing(np.float32(mid)))
        inputs += [mid, np.nextafter(mid, -np.inf), np.nextafter(mid, np.inf)]
        inputs += [mid + ulp32 / 2, mid - ulp32 / 2, mid + ulp32 / 4, mid - ulp32 / 4, mid + ulp32 * 0.75]
    top = finite[-1]
    inputs += [top, np.nextafter(top, np.inf), top * 1.0625, top * 1.5, 1e300, 1e-300, 5e-324, np.inf, np.nan]
    inputs = np.array(inputs, dtype=np.float64)
    inputs = np.concatenate([inputs, -inputs])
    return np.unique(inputs.view(np.uint64))


def write_type(name):
    dtype = getattr(torch, name)
    decode, values = decode_records(dtype)
    (HERE / f"{name}.decode.bin").write_bytes(decode)

    bits32 = float32_inputs(values)
    out32 = from_f32_bits(bits32).to(dtype).view(torch.uint8).numpy()
    (HERE / f"{name}.encode_f32.bin").write_bytes(
        b"".join(struct.pack("<IB", int(x), int(y)) for x, y in zip(bits32, out32)))

    bits64 = float64_inputs(values)
    out64 = torch.from_numpy(bits64.view(np.float64).copy()).to(dtype).view(torch.uint8).numpy()
    (HERE / f"{name}.encode_f64.bin").write_bytes(
        b"".join(struct.pack("<QB", int(x), int(y)) for x, y in zip(bits64, out64)))
    print(f"{name}: 256 codes, {len(bits32)} float32 inputs, {len(bits64)} float64 inputs")
    compare_with_ml_dtypes(name, values, bits32, out32)


def compare_with_ml_dtypes(name, values, bits32, out32):
    """Where ml_dtypes is installed, counts where it differs from PyTorch (the test asserts
    PyTorch's values): decoding agrees; encoding differs for e4m3fn overflow and +-inf
    (PyTorch saturates to +-448, ml_dtypes gives NaN) and for e8m0fnu's negative inputs and
    +-0 (PyTorch ignores the sign and maps +-0 to 0x00, ml_dtypes gives NaN)."""
    try:
        import ml_dtypes
    except ImportError:
        return
    ml_type = getattr(ml_dtypes, name)
    ml_values = np.arange(256, dtype=np.uint8).view(ml_type).astype(np.float32)
    decode_differs = int(np.sum(~((ml_values == values) | (np.isnan(ml_values) & np.isnan(values)))))
    ml_out = bits32.view(np.float32).astype(ml_type).view(np.uint8)
    differs = ml_out != out32
    print(f"  ml_dtypes {ml_dtypes.__version__}: decoding differs for {decode_differs} codes, "
          f"encoding for {int(differs.sum())} inputs, e.g. {bits32.view(np.float32)[differs][:4]}")


def write_complex32():
    parts = [0.0, -0.0, 1.0, -2.5, 1 / 3, 65504.0, 65520.0, 70000.0, 6e-8, 2.98e-8, 1e-9, 6.1e-5, np.inf, -np.inf,
             np.nan, 1.0009765625, 1.00048828125, 1.000732421875]
    pairs = [(a, b) for a in parts for b in parts[::3]]
    pairs += list(zip(RNG.normal(0, 100, 200), RNG.normal(0, 1e-3, 200)))
    z = np.array([complex(a, b) for a, b in pairs], dtype=np.complex64)
    half = torch.from_numpy(z).to(torch.complex32)
    back = half.to(torch.complex64).numpy()
    half_bits = torch.view_as_real(half).view(torch.int16).numpy().view(np.uint16)
    in_bits = z.view(np.float32).view(np.uint32).reshape(-1, 2)
    back_bits = back.view(np.float32).view(np.uint32).reshape(-1, 2)
    out = bytearray()
    for i in range(len(z)):
        out += struct.pack("<IIHHII", *in_bits[i], *half_bits[i], *back_bits[i])
    (HERE / "complex32.bin").write_bytes(bytes(out))
    print(f"complex32: {len(z)} values")


if __name__ == "__main__":
    print("torch", torch.__version__)
    np.seterr(over="ignore")
    warnings.filterwarnings("ignore", "ComplexHalf support is experimental")
    for type_name in TYPES:
        write_type(type_name)
    write_complex32()
