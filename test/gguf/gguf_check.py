#!/usr/bin/env python3
"""The GGUF peer check: the `gguf` package (llama.cpp's Python library) against zerotensor.

    python gguf_check.py <gguf_peer executable> <work dir>

1. GGUFWriter writes a llama-like model (typical llama and tokenizer metadata, several layers)
   holding a tensor of every ggml type: quantized from real values where the package
   quantizes, random blocks with finite scales (make_dequantize_reference.py's) or, for the IQ
   types, random bytes; and the same model at alignments 1, 8 and 64. All but Q8_1, whose block the
   package counts as 40 bytes where ggml's (and zerotensor's) holds 36.
2. zerotensor loads each file (gguf_peer dump): every tensor's name, dtype, shape and bytes and
   every metadata value must be what GGUFReader reads.
3. Each block tensor zerotensor dequantizes must hold gguf.quants.dequantize's float32 values bit
   for bit, where the package dequantizes the type.
4. zerotensor rewrites each model with save_gguf, a tensor dropped and general.name changed;
   GGUFReader must read the same names, types, shapes and bytes back.
Prints the counts; exits 1 on any difference.
"""
import json
import pathlib
import shutil
import subprocess
import sys

import numpy as np
from gguf import GGUFReader, GGUFValueType, GGUFWriter
from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType as T
from gguf.quants import dequantize, quantize

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "data" / "gguf"))
from make_dequantize_reference import HALF_SCALES, random_blocks  # noqa: E402

PLAIN = {T.F32: "float32", T.F16: "float16", T.BF16: "bfloat16", T.F64: "float64", T.I8: "int8", T.I16: "int16",
         T.I32: "int32", T.I64: "int64"}
NUMPY = {T.F64: np.float64, T.I8: np.int8, T.I16: np.int16, T.I32: np.int32, T.I64: np.int64}
QUANTIZED = {T.Q4_0, T.Q4_1, T.Q5_0, T.Q5_1, T.Q8_0, T.TQ1_0, T.TQ2_0, T.MXFP4, T.BF16, T.F16}
failures = []


def fail(message):
    failures.append(message)
    print("MISMATCH:", message)


def dtype_name(qtype):
    return PLAIN.get(qtype, "gguf_" + qtype.name.lower())


def block_type_tensor(rng, qtype, rows):
    """A (rows, 2 blocks' values) tensor of `qtype` as GGUFWriter takes it: quantized values or raw blocks."""
    values_per_block, nbytes = GGML_QUANT_SIZES[qtype]
    if qtype in QUANTIZED:
        return quantize(rng.standard_normal((rows, 2 * values_per_block)).astype(np.float32), qtype)
    if qtype in HALF_SCALES:
        blocks = random_blocks(rng, rows * 2, nbytes, HALF_SCALES[qtype])
    else:  # the IQ types: any bytes (NaN and infinite scales included)
        blocks = rng.integers(0, 256, size=(rows * 2, nbytes), dtype=np.uint8)
    return blocks.reshape(rows, 2 * nbytes)


def write_model(path, alignment, rng):
    writer = GGUFWriter(str(path), "llama")
    if alignment is not None:
        writer.add_custom_alignment(alignment)
    writer.add_name("checked")
    writer.add_context_length(4096)
    writer.add_embedding_length(64)
    writer.add_block_count(len(T))
    writer.add_head_count(8)
    writer.add_rope_freq_base(500000.0)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_file_type(15)
    writer.add_tokenizer_model("llama")
    tokens = [f"tok{i}" for i in range(300)] + ["\u00e9t\u00e9", "\u2581the", "<0x0A>"]
    writer.add_token_list(tokens)
    writer.add_token_scores([float(-i) / 3 for i in range(len(tokens))])
    writer.add_token_types([1 + i % 3 for i in range(len(tokens))])
    writer.add_bos_token_id(1)
    writer.add_array("general.tags", [[1, 2], [3]])
    writer.add_tensor("token_embd.weight", rng.standard_normal((16, 64)).astype(np.float16))
    writer.add_tensor("output_norm.weight", rng.standard_normal(64).astype(np.float32))
    for layer, qtype in enumerate(t for t in T if t != T.Q8_1):
        name = f"blk.{layer}.attn_q.weight"
        if qtype in NUMPY:
            writer.add_tensor(name, (rng.standard_normal((3, 64)) * 100).astype(NUMPY[qtype]))
        elif qtype == T.F32:
            writer.add_tensor(name, rng.standard_normal((3, 64)).astype(np.float32))
        else:
            writer.add_tensor(name, block_type_tensor(rng, qtype, 3), raw_dtype=qtype)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def flattened(value):
    """A nested array's elements in order, as the package's contents() gives them."""
    return [e for v in value for e in flattened(v)] if isinstance(value, list) else [value]


def normalized(value, element_type):
    """A metadata value as Python compares it: float32s as float32, arrays element by element."""
    if isinstance(value, list):
        return [normalized(v, element_type) for v in value]
    if element_type == GGUFValueType.FLOAT32:
        return float(np.float32(value))
    return value


def check_metadata(reader, dump_dir, name):
    ours = {}
    for line in (dump_dir / "metadata.tsv").read_text(encoding="utf-8").splitlines():
        key, type_name, text = line.split("\t", 2)
        ours[key] = (type_name, text)
    theirs = {k: f for k, f in reader.fields.items() if not k.startswith("GGUF.")}
    if set(ours) != set(theirs):
        fail(f"{name}: metadata keys differ: {sorted(set(ours) ^ set(theirs))}")
    checked = 0
    for key, field in theirs.items():
        if key not in ours:
            continue
        type_name, text = ours[key]
        main = field.types[0]
        if type_name != main.name.lower():  # uint8 ... float64, bool, string, array
            fail(f"{name}: {key} is {type_name} in zerotensor, {main.name} in the package")
            continue
        value = field.contents()
        if main == GGUFValueType.STRING:
            same = text == value
        elif main == GGUFValueType.BOOL:
            same = text == ("true" if value else "false")
        else:
            parsed = json.loads(text)
            if field.types[1:2] == [GGUFValueType.ARRAY]:  # the package reads nested arrays flattened
                parsed = flattened(parsed)
            same = normalized(parsed, field.types[-1]) == normalized(value, field.types[-1])
        if not same:
            fail(f"{name}: {key}: zerotensor reads {text[:80]!r}, the package {str(value)[:80]!r}")
        checked += 1
    return checked


def check_model(peer, path, work):
    dump_dir = work / (path.stem + ".dump")
    shutil.rmtree(dump_dir, ignore_errors=True)  # nothing of an earlier run may be compared
    dump_dir.mkdir()
    subprocess.run([peer, "dump", str(path), str(dump_dir)], check=True)
    reader = GGUFReader(str(path))
    theirs = {t.name: t for t in reader.tensors}
    counts = {"tensors": 0, "metadata": check_metadata(reader, dump_dir, path.name), "values": 0, "mismatches": 0}
    rows = [line.split("\t") for line in (dump_dir / "tensors.tsv").read_text().splitlines()]
    if sorted(r[1] for r in rows) != sorted(theirs):
        fail(f"{path.name}: tensor names differ")
    for index, name, dtype, shape in rows:
        tensor = theirs[name]
        values_per_block, _ = GGML_QUANT_SIZES[tensor.tensor_type]
        expected_shape = [int(d) for d in reversed(tensor.shape.tolist())]
        expected_shape[-1] //= values_per_block
        if dtype != dtype_name(tensor.tensor_type) or [int(d) for d in shape.split(",")] != expected_shape:
            fail(f"{path.name}: {name} is {dtype} {shape} in zerotensor, {tensor.tensor_type.name} {expected_shape}")
        if (dump_dir / f"{index}.bytes").read_bytes() != tensor.data.tobytes():
            fail(f"{path.name}: {name}: the bytes differ")
        counts["tensors"] += 1
        values_file = dump_dir / f"{index}.f32"
        if values_file.exists() and tensor.tensor_type not in PLAIN:
            try:
                expected = dequantize(tensor.data, tensor.tensor_type).astype(np.float32).reshape(-1)
            except NotImplementedError:
                continue
            found = np.frombuffer(values_file.read_bytes(), dtype="<f4")
            if found.size != expected.size:
                fail(f"{path.name}: {name}: {found.size} values, the package {expected.size}")
                continue
            mismatches = int(np.count_nonzero(found.view(np.uint32) != expected.view(np.uint32)))
            counts["values"] += found.size
            counts["mismatches"] += mismatches
            if mismatches:
                fail(f"{path.name}: {name}: {mismatches} of {found.size} dequantized values differ")
    return counts


def check_resave(peer, path, work):
    out = work / (path.stem + ".resaved.gguf")
    dropped = "output_norm.weight"
    subprocess.run([peer, "resave", str(path), str(out), dropped, "resaved"], check=True)
    before = {t.name: t for t in GGUFReader(str(path)).tensors}
    after_reader = GGUFReader(str(out))
    after = {t.name: t for t in after_reader.tensors}
    if set(after) != set(before) - {dropped}:
        fail(f"{out.name}: tensor names {sorted(set(after) ^ (set(before) - {dropped}))} differ")
    for name, tensor in after.items():
        old = before[name]
        if (tensor.tensor_type, tensor.shape.tolist()) != (old.tensor_type, old.shape.tolist()) or \
                tensor.data.tobytes() != old.data.tobytes():
            fail(f"{out.name}: {name} reads back otherwise")
    if after_reader.fields["general.name"].contents() != "resaved":
        fail(f"{out.name}: general.name is not the new one")
    return len(after)


def main():
    peer, work = sys.argv[1], pathlib.Path(sys.argv[2])
    work.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(20261128)
    totals = {"files": 0, "tensors": 0, "metadata": 0, "values": 0, "mismatches": 0, "resaved": 0}
    with np.errstate(over="ignore", invalid="ignore"):
        for alignment in (None, 1, 8, 64):
            path = work / f"llama_alignment_{alignment or 32}.gguf"
            write_model(path, alignment, rng)
            counts = check_model(peer, path, work)
            for key, value in counts.items():
                totals[key] += value
            totals["resaved"] += check_resave(peer, path, work)
            totals["files"] += 1
    print("gguf_check: {files} files, {tensors} tensors and {metadata} metadata values compared, {values} "
          "dequantized values checked ({mismatches} mismatches), {resaved} tensors read back from save_gguf; "
          "{failures} differences".format(failures=len(failures), **totals))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
