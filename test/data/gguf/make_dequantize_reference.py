#!/usr/bin/env python3
"""Writes dequantize/<type>.blocks and dequantize/<type>.f32, which test_gguf_dequantize.cpp
reads: for each block type zerotensor dequantizes, 16 blocks (of 256 values) or 32 blocks of random bytes and the
float32 values the `gguf` package's gguf.quants.dequantize (written to match ggml's
dequantize_row_* in ggml-quants.c bit for bit) makes of them, little-endian:

    python -m venv /tmp/venv && /tmp/venv/bin/pip install gguf==0.19.0 numpy
    /tmp/venv/bin/python test/data/gguf/make_dequantize_reference.py

Made with gguf 0.19.0 and numpy 2.

The blocks are random bytes but for their scales: every float16 scale is finite (random
bits with the all-ones exponent replaced), and the first blocks' scales are +0, -0, the
smallest and largest subnormals, negative ones and the largest finite value, so subnormal
scales are decoded too. MXFP4's first blocks have the exponents 0, 1 (subnormal scales),
2, 254 and 255 (2^127: large values overflow to infinity); Q8_K's float32 scale is finite,
subnormal in some blocks (subnormal values).

Q8_K, Q1_0 and Q2_0 the package does not dequantize; their values are computed here with
numpy from ggml-quants.c's dequantize_row_q8_K / _q1_0 / _q2_0 (each value one product or a
sign: d * q, q ? d : -d, (q - 1) * d). Q8_1, whose block the package counts as 40 bytes and ggml
has no dequantize_row for (it is the dot products' operand), is ggml's 36-byte block_q8_1 (d,
s = d times the sum of the values, 32 int8) decoded as ggml's dot products read it: d * q.

The i-quants' values are the package's too (IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S, IQ1_S,
IQ1_M), their blocks made after the others' so that those stay as they were.

The 19 files of the other types were also checked against ggml's own dequantize_row_*
(ggml-quants.c compiled with gcc -O2 -march=native, called on the .blocks files): equal bit for bit.
"""
import pathlib

import numpy as np
from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType as T
from gguf.quants import dequantize

HERE = pathlib.Path(__file__).resolve().parent / "dequantize"

# The byte offsets of each type's float16 scales within a block (ggml-common.h's structs).
HALF_SCALES = {
    T.Q4_0: [0], T.Q4_1: [0, 2], T.Q5_0: [0], T.Q5_1: [0, 2], T.Q8_0: [0],
    T.Q2_K: [80, 82], T.Q3_K: [108], T.Q4_K: [0, 2], T.Q5_K: [0, 2], T.Q6_K: [208],
    T.TQ1_0: [52], T.TQ2_0: [64], T.IQ4_NL: [0], T.IQ4_XS: [0], T.MXFP4: [], T.NVFP4: [],
}
# The i-quants', made after the others so that the others' random bytes stay as they were.
# IQ1_M's float16 scale is spread over the top nibbles of its bytes 49, 51, 53 and 55.
IQ_HALF_SCALES = {T.IQ2_XXS: [0], T.IQ2_XS: [0], T.IQ2_S: [0], T.IQ3_XXS: [0], T.IQ3_S: [0], T.IQ1_S: [0], T.IQ1_M: []}
IQ1_M_SCALE_NIBBLES = [49, 51, 53, 55]
# ggml's sizes of the types the package has no dequantizer for (Q1_0 and Q2_0 maybe not in
# its type enum): (number, name, values, bytes).
OWN = [(15, "q8_K", 256, 292), (41, "q1_0", 128, 18), (42, "q2_0", 64, 18), (9, "q8_1", 32, 36)]
SPECIAL_HALVES = [0x0000, 0x8000, 0x0001, 0x03FF, 0x8001, 0x83FF, 0x0400, 0x7BFF, 0xFBFF, 0x3C00]


def random_halves(rng, n):
    bits = rng.integers(0, 1 << 16, size=n, dtype=np.uint16)
    infinite = (bits & 0x7C00) == 0x7C00
    bits[infinite] &= 0xBFFF  # exponent 31 -> 15
    bits[: len(SPECIAL_HALVES)] = SPECIAL_HALVES[:n]
    return bits


def block_count(values_per_block):
    return 16 if values_per_block == 256 else 32


def random_blocks(rng, n, nbytes, half_offsets):
    blocks = rng.integers(0, 256, size=(n, nbytes), dtype=np.uint8)
    for k, offset in enumerate(half_offsets):
        halves = np.roll(random_halves(rng, n), k)  # d and dmin differ in the special blocks
        blocks[:, offset:offset + 2] = halves.astype("<u2").view(np.uint8).reshape(n, 2)
    return blocks


def write(name, blocks, values):
    assert values.dtype == np.float32
    (HERE / f"{name}.blocks").write_bytes(blocks.tobytes())
    (HERE / f"{name}.f32").write_bytes(values.astype("<f4").tobytes())
    print(f"{name}: {blocks.shape[0]} blocks, {values.size} values")


def package_types(rng, half_scales):
    for qtype, offsets in half_scales.items():
        values_per_block, nbytes = GGML_QUANT_SIZES[qtype]
        n = block_count(values_per_block)
        blocks = random_blocks(rng, n, nbytes, offsets)
        if qtype == T.MXFP4:
            blocks[:5, 0] = [0, 1, 2, 254, 255]
        if qtype == T.IQ1_M:
            halves = random_halves(rng, n)
            for k, offset in enumerate(IQ1_M_SCALE_NIBBLES):
                blocks[:, offset] = (blocks[:, offset] & 0x0F) | (((halves >> (4 * k)) & 0x0F) << 4).astype(np.uint8)
        values = dequantize(blocks.reshape(-1), qtype)
        assert values.shape == (n * values_per_block,)
        write(qtype.name.lower().replace("_k", "_K"), blocks, values)


def own_types(rng):
    for number, name, values_per_block, nbytes in OWN:
        n = block_count(values_per_block)
        blocks = random_blocks(rng, n, nbytes, {"q8_K": [], "q8_1": [0, 2]}.get(name, [0]))
        if name == "q8_1":
            d = blocks[:, :2].copy().view("<f2").astype(np.float32)
            values = d * blocks[:, 4:].copy().view(np.int8).astype(np.float32)
        elif name == "q8_K":
            d = rng.integers(0, 1 << 32, size=n, dtype=np.uint32)
            d[(d & 0x7F800000) == 0x7F800000] &= 0xBFFFFFFF  # finite
            d[:4] = [0x00000001, 0x807FFFFF, 0x00012345, 0x00800000]  # subnormal, smallest normal
            blocks[:, :4] = d.astype("<u4").view(np.uint8).reshape(n, 4)
            d = blocks[:, :4].copy().view("<f4").astype(np.float32)
            q = blocks[:, 4:260].copy().view(np.int8).astype(np.float32)
            values = d * q
        else:
            d = blocks[:, :2].copy().view("<f2").astype(np.float32)
            qs = blocks[:, 2:]
            if name == "q1_0":
                bits = (qs.reshape(n, 16, 1) >> np.arange(8, dtype=np.uint8).reshape(1, 1, 8)) & 1
                values = np.where(bits.reshape(n, 128) != 0, d, -d)
            else:
                q = (qs.reshape(n, 16, 1) >> np.array([0, 2, 4, 6], dtype=np.uint8).reshape(1, 1, 4)) & 3
                values = (q.reshape(n, 64).astype(np.int32) - 1).astype(np.float32) * d
        write(name, blocks, values.astype(np.float32).reshape(-1))


def main():
    HERE.mkdir(exist_ok=True)
    rng = np.random.default_rng(20250802)
    with np.errstate(over="ignore", invalid="ignore"):
        package_types(rng, HALF_SCALES)
        own_types(rng)
        package_types(rng, IQ_HALF_SCALES)


if __name__ == "__main__":
    main()
