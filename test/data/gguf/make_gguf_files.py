#!/usr/bin/env python3
"""Writes small.gguf and small_big_endian.gguf, which test_gguf_header.cpp reads, with the
`gguf` package's GGUFWriter (the writer of llama.cpp's conversion scripts), so the test checks
zerotensor's reader against the reference writer:

    python -m venv /tmp/venv && /tmp/venv/bin/pip install gguf numpy
    /tmp/venv/bin/python test/data/gguf/make_gguf_files.py

small.gguf (version 3, little-endian, the default alignment of 32) holds:
- metadata: general.architecture = "llama" (the writer adds it), general.name = "small",
  llama.context_length = uint32 4096, llama.rope.freq_base = float32 10000.0,
  general.file_type = int32 -1, general.size = uint64 2^40 + 3, general.offset = int64 -7,
  general.scale = float64 0.125, general.ok = bool true, general.tags = array of strings
  ["a", "bc"], general.ids = array of int32 [1, -2, 3], general.pairs = array of arrays of
  int32 [[1, 2], [3]];
- tensors, in this order, each named after its ggml type, with numpy shape (2, block values)
  (GGUF dimensions [block values, 2], innermost first) and zero bytes: every type the package
  knows but Q8_1, whose block the package counts as 40 bytes where ggml's holds 36 (a type
  ggml computes with and never stores). Its bytes: 2 blocks of the type.
small_big_endian.gguf holds the same metadata, big-endian, and of the tensors F32, Q4_0 and
Q4_K only.
The script prints each tensor's type number, dimensions and bytes, and reads the files back
with the package's GGUFReader to check them.
"""
import pathlib

import numpy as np
from gguf import GGUFEndian, GGUFReader, GGUFValueType, GGUFWriter
from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType

HERE = pathlib.Path(__file__).resolve().parent

PLAIN = {
    GGMLQuantizationType.F32: np.float32,
    GGMLQuantizationType.F16: np.float16,
    GGMLQuantizationType.F64: np.float64,
    GGMLQuantizationType.I8: np.int8,
    GGMLQuantizationType.I16: np.int16,
    GGMLQuantizationType.I32: np.int32,
    GGMLQuantizationType.I64: np.int64,
}


def write(name, endianess, types):
    path = HERE / name
    writer = GGUFWriter(str(path), "llama", endianess=endianess)
    writer.add_name("small")
    writer.add_uint32("llama.context_length", 4096)
    writer.add_float32("llama.rope.freq_base", 10000.0)
    writer.add_int32("general.file_type", -1)
    writer.add_uint64("general.size", 2**40 + 3)
    writer.add_int64("general.offset", -7)
    writer.add_float64("general.scale", 0.125)
    writer.add_bool("general.ok", True)
    writer.add_array("general.tags", ["a", "bc"])
    writer.add_key_value("general.ids", [1, -2, 3], GGUFValueType.ARRAY, sub_type=GGUFValueType.INT32)
    writer.add_key_value("general.pairs", [[1, 2], [3]], GGUFValueType.ARRAY, sub_type=GGUFValueType.ARRAY)

    expected = []
    for ggml_type in types:
        block_values, block_bytes = GGML_QUANT_SIZES[ggml_type]
        if ggml_type in PLAIN:
            writer.add_tensor(ggml_type.name, np.zeros((2, block_values), PLAIN[ggml_type]))
        else:
            writer.add_tensor(ggml_type.name, np.zeros((2, block_bytes), np.uint8), raw_dtype=ggml_type)
        expected.append((ggml_type.name, int(ggml_type), block_values, 2 * block_bytes))

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()

    reader = GGUFReader(str(path))
    for tensor, (name, number, block_values, nbytes) in zip(reader.tensors, expected, strict=True):
        assert tensor.name == name and int(tensor.tensor_type) == number, tensor.name
        assert list(tensor.shape) == [block_values, 2] and tensor.n_bytes == nbytes, tensor.name
        print(f"{name}: type {number}, dims [{block_values}, 2], {nbytes} bytes")
    print(f"{path.name}: {path.stat().st_size} bytes, data section at byte {reader.data_offset}")


def main():
    write("small.gguf", GGUFEndian.LITTLE, [t for t in GGMLQuantizationType if t != GGMLQuantizationType.Q8_1])
    write("small_big_endian.gguf", GGUFEndian.BIG,
          [GGMLQuantizationType.F32, GGMLQuantizationType.Q4_0, GGMLQuantizationType.Q4_K])


if __name__ == "__main__":
    main()
