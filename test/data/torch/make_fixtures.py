#!/usr/bin/env python3
"""Writes the torch.save fixtures that test_torch_load.cpp reads, and expected.json.

The valid files come from PyTorch's own torch.save (libtorch_1_13.pt from Debian's libtorch
1.13 through torch::pickle_save: libtorch_1_13.cpp), and expected.json from torch.load
(weights_only=True, mmap=True) of each, so the tests check zerotensor against the reference
writer and reader:

    python3.11 -m venv /tmp/torchvenv && /tmp/torchvenv/bin/pip install torch numpy
    /tmp/torchvenv/bin/python test/data/torch/make_fixtures.py

Files torch.save cannot produce here (big-endian storages, a storage saved from a GPU) are
rewritten from its output byte by byte and read back with torch.load. The files under
malicious/ are pickles written by hand into archives laid out as torch.save lays them out;
load_torch must refuse each (test_torch_load.cpp lists the message it gives).
"""
import collections
import json
import pathlib
import struct
import zipfile

import torch
import torch.jit._pickle

HERE = pathlib.Path(__file__).resolve().parent
ALIGNMENT = 64  # torch.save aligns every record's data to 64 bytes

# ---------------------------------------------------------------- files torch.save writes


def fill(module, scale=0.25):
    """Deterministic parameters and buffers: element i of each is i * scale (bools, ints: i)."""
    with torch.no_grad():
        for tensor in list(module.parameters()) + list(module.buffers()):
            values = torch.arange(tensor.numel()).reshape(tensor.shape)
            tensor.copy_(values * scale if tensor.is_floating_point() else values + 3)
    return module


def dtypes():
    out = {}
    for dtype in [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.uint16,
                  torch.uint32, torch.uint64, torch.float16, torch.bfloat16, torch.float32, torch.float64,
                  torch.complex64, torch.complex128]:
        values = torch.arange(6).reshape(2, 3)
        if dtype == torch.bool:
            values = values % 2 == 0
        elif dtype.is_complex:
            values = torch.complex(values.double(), -values.double())
        elif dtype.is_floating_point:
            values = values * 0.5 - 1
        out[str(dtype)[len("torch."):]] = values.to(dtype)
    return out


def views():
    base = torch.arange(24, dtype=torch.float32).reshape(4, 6)
    return {"base": base, "transposed": base.t(), "slice": base[1:3, 2:5], "row": base[2],
            "every_other": base[:, ::2], "element": base[3, 4]}


def tied():
    embedding = fill(torch.nn.Embedding(4, 3))
    return {"embed.weight": embedding.weight, "lm_head.weight": embedding.weight,
            "lm_head.bias": torch.zeros(4)}


def checkpoint():
    model = fill(torch.nn.Linear(3, 2))
    optimizer = torch.optim.Adam(model.parameters(), lr=0.001)
    model(torch.ones(1, 3)).sum().backward()
    optimizer.step()
    return {"epoch": 7, "model": model.state_dict(), "optimizer": optimizer.state_dict(), "lr": 0.001,
            "name": "run-1", "best": None, "flags": [True, False], "input_shape": torch.Size([1, 3]),
            "device": torch.device("cpu"), "gpu": torch.device("cuda", 1), "dtype": torch.float32,
            "history": [0.5, 0.25, -1e-05, 100000.0], "counters": {-3: 2**40, 2: -2**40, "big": 2**63 - 1}}


def conjugate():
    """Tensors saved with their conjugate or negative bit (torch.load negates them), values
    chosen for their signs: zeros of both signs, the most negative integers, NaN and infinity.
    Not zeros or NaN for the negated complex ("both"): torch's vectorized kernel computes
    0 - x there (+0.0 from either zero, NaN keeps its sign), its scalar one -x, so its bits
    depend on the element's place; load_torch flips the sign bit, as for every other float."""
    z = torch.complex(torch.tensor([0.0, -0.0, 1.5, -2.5]), torch.tensor([-0.0, 0.0, 2.0, -3.0])).reshape(2, 2)
    view = torch.complex(torch.arange(3.0), -torch.arange(3.0))
    both = torch.complex(torch.tensor([1.5, -0.5, float("inf"), 3.0], dtype=torch.float64),
                         torch.tensor([-2.0, 4.0, -1.0, float("-inf")], dtype=torch.float64))
    half = torch.tensor([1 + 2j, -0.5 + 0j], dtype=torch.complex64).to(torch.complex32)
    return {"plain": z, "conj": z.t().conj(), "conj_row": z.conj()[1], "neg": view.conj().imag,
            "both": torch._neg_view(both.conj()), "complex32": half.conj(),
            "int8": torch._neg_view(torch.tensor([0, 1, -128, 127], dtype=torch.int8)),
            "uint8": torch._neg_view(torch.tensor([0, 1, 255], dtype=torch.uint8)),
            "int64": torch._neg_view(torch.tensor([0, -1, -2**63], dtype=torch.int64)),
            "float16": torch._neg_view(torch.tensor([0.0, -1.0, 65504.0], dtype=torch.float16)),
            "bfloat16": torch._neg_view(torch.tensor([0.0, -0.0, 3.0], dtype=torch.bfloat16)),
            "float64": torch._neg_view(torch.tensor([float("nan"), -float("inf"), 0.0], dtype=torch.float64))}


def blob():
    """bytes: protocol 2 pickles them as _codecs.encode(str, 'latin1'), later ones as BINBYTES."""
    return {"blob": b"\x00\x01abc\xff", "w": torch.ones(2)}


def scalars():
    return {"scalar": torch.tensor(3.5), "count": torch.tensor(5), "empty": torch.empty(0, 3),
            "empty_slice": torch.arange(6.0)[4:4]}


SAVED = {
    "linear": lambda: fill(torch.nn.Linear(3, 2)).state_dict(),
    "conv2d": lambda: fill(torch.nn.Conv2d(2, 3, 2)).state_dict(),
    "lstm": lambda: fill(torch.nn.LSTM(2, 3)).state_dict(),
    "embedding": lambda: fill(torch.nn.Embedding(5, 2)).state_dict(),
    "batchnorm": lambda: fill(torch.nn.BatchNorm1d(3)).state_dict(),
    "dtypes": dtypes,
    "views": views,
    "tied": tied,
    "checkpoint": checkpoint,
    "scalars": scalars,
    "parameter": lambda: torch.nn.Parameter(torch.arange(4.0)),
    "checkpoint_protocol4": checkpoint,  # FRAME, SHORT_BINUNICODE, STACK_GLOBAL, MEMOIZE
    "checkpoint_protocol5": checkpoint,
    "conjugate": conjugate,
    "bytes": blob,
    "bytes_protocol4": blob,
}
PROTOCOLS = {"checkpoint_protocol4": 4, "checkpoint_protocol5": 5, "bytes_protocol4": 4}

# ---------------------------------------------------------------- expected values


def flatten(value, name, tensors, values):
    """load_torch's naming: dict keys and list indices joined with '.'; leaves as str()."""
    join = (lambda key: f"{name}.{key}") if name else str
    if isinstance(value, torch.Tensor):
        tensors[name] = value
    elif isinstance(value, dict):
        for key, item in value.items():
            flatten(item, join(key), tensors, values)
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            flatten(item, join(index), tensors, values)
    elif isinstance(value, float):
        values[name] = value
    elif isinstance(value, bytes):
        values[name] = {"bytes": value.hex()}
    else:
        values[name] = str(value)


def elements(tensor):
    """The values torch.load gives, None where one is not finite (JSON has no NaN)."""
    flat = tensor.detach().resolve_conj().resolve_neg().flatten()
    if flat.dtype == torch.complex32:
        flat = flat.to(torch.complex64)
    if flat.is_floating_point() or flat.is_complex():
        if not bool(torch.isfinite(flat).all()):
            return None
    if flat.dtype.is_complex:
        return [[z.real, z.imag] for z in flat.tolist()]
    if flat.dtype in (torch.uint16, torch.uint32, torch.uint64):
        flat = flat.to(torch.int64)
    return flat.tolist()


def element_bytes(tensor):
    """The bytes of the values torch.load gives, in C order, as hex."""
    values = tensor.detach().resolve_conj().resolve_neg().clone(memory_format=torch.contiguous_format)
    return bytes(values.untyped_storage()).hex()


def expected(path, mmap=True, weights_only=True):
    loaded = torch.load(path, weights_only=weights_only, mmap=mmap, map_location="cpu")
    tensors, values = {}, {}
    flatten(loaded, "", tensors, values)
    storages = {}
    out = {"tensors": {}, "values": values}
    for name, tensor in tensors.items():
        # load_torch makes one copy of a storage per negation: tensors share it only if their bits agree.
        storage = storages.setdefault((tensor.untyped_storage().data_ptr(), tensor.is_conj(), tensor.is_neg()),
                                      len(storages))
        out["tensors"][name] = {"dtype": str(tensor.dtype)[len("torch."):], "shape": list(tensor.shape),
                                "strides": list(tensor.stride()), "storage": storage,
                                "offset": tensor.storage_offset(),
                                "values": elements(tensor), "bytes": element_bytes(tensor)}
    return out


# ---------------------------------------------------------------- archives written by hand


def low_precision():
    """The 8-bit floats, complex32 and float4_e2m1fn_x2 as torch.save writes them (an
    UntypedStorage and the dtype): each 8-bit tensor of shape (16, 16) holds the bytes
    0, ..., 255; "c32" holds 1+2j and -0.5+0j; "f4" (shape (2, 3)) the bytes 0x10, 0x32, ..."""
    codes = torch.arange(256, dtype=torch.int64).to(torch.uint8).reshape(16, 16)
    out = {name: codes.clone().view(getattr(torch, name)) for name in
           ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu"]}
    out["c32"] = torch.tensor([1 + 2j, -0.5 + 0j], dtype=torch.complex64).to(torch.complex32)
    pairs = torch.tensor([0x10, 0x32, 0x54, 0x76, 0x98, 0xBA], dtype=torch.uint8).reshape(2, 3)
    out["f4"] = pairs.view(torch.float4_e2m1fn_x2)
    torch.save(out, HERE / "low_precision.pt")


def write_archive(path, records, overlap=None, deflate=()):
    """A zip64 archive as torch.save writes it: records stored, each one's data aligned to
    ALIGNMENT bytes by padding in its local header's extra field. `overlap` = (name, other)
    adds a directory entry `name` pointing at the local header of record `other`; records in
    `deflate` are written compressed."""
    body, directory, offsets = bytearray(), bytearray(), {}
    for name, data in records:
        encoded = name.encode()
        method = 8 if name in deflate else 0
        stored = zlib_deflate(data) if method else data
        start = len(body) + 30 + len(encoded) + 4
        extra = struct.pack("<HH", 0x4B46, (-start) % ALIGNMENT) + b"Z" * ((-start) % ALIGNMENT)
        crc = zipfile.crc32(data)
        offsets[name] = len(body)
        body += struct.pack("<IHHHHHIIIHH", 0x04034B50, 45, 0, method, 0, 0, crc, len(stored), len(data),
                            len(encoded), len(extra)) + encoded + extra + stored
        directory += central_entry(name, method, crc, len(stored), len(data), offsets[name])
    if overlap:
        name, other = overlap
        data = dict(records)[other]
        directory += central_entry(name, 0, zipfile.crc32(data), len(data), len(data), offsets[other])
    count = len(records) + (1 if overlap else 0)
    end64 = len(body) + len(directory)
    tail = struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, count, count, len(directory), len(body))
    tail += struct.pack("<IIQI", 0x07064B50, 0, end64, 1)
    tail += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    path.write_bytes(bytes(body + directory + tail))


def central_entry(name, method, crc, stored_size, size, offset):
    """A directory entry whose sizes and offset are in its zip64 extra field."""
    encoded = name.encode()
    extra = struct.pack("<HHQQQ", 0x0001, 24, size, stored_size, offset)
    return struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 45, 45, 0, method, 0, 0, crc, 0xFFFFFFFF, 0xFFFFFFFF,
                       len(encoded), len(extra), 0, 0, 0, 0, 0xFFFFFFFF) + encoded + extra


def zlib_deflate(data):
    import zlib
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    return compressor.compress(data) + compressor.flush()


def saved_records(path):
    """The records of a torch.save file, in order, with the archive directory renamed 'archive'."""
    with zipfile.ZipFile(path) as archive:
        return [("archive/" + info.filename.split("/", 1)[1], archive.read(info)) for info in archive.infolist()]


def big_endian(source, target):
    """`source` (float32 storages only) with byteorder 'big' and every storage byte-swapped."""
    records = []
    for name, data in saved_records(source):
        if name == "archive/byteorder":
            data = b"big"
        elif name.startswith("archive/data/"):
            data = b"".join(data[i:i + 4][::-1] for i in range(0, len(data), 4))
        records.append((name, data))
    write_archive(target, records)


def on_gpu(source, target):
    """`source` as if its storages had been saved from cuda:0."""
    records = [(name, data.replace(b"X\x03\x00\x00\x00cpu", b"X\x06\x00\x00\x00cuda:0") if name.endswith(
        "data.pkl") else data) for name, data in saved_records(source)]
    write_archive(target, records)


# ---------------------------------------------------------------- malicious pickles


def text(value):
    encoded = value.encode()
    return b"X" + struct.pack("<I", len(encoded)) + encoded


def storage_id(key, numel, storage_class=b"FloatStorage"):
    return b"(" + text("storage") + b"ctorch\n" + storage_class + b"\n" + text(key) + text("cpu") + \
        b"J" + struct.pack("<i", numel) + b"tQ"


def rebuild(storage, offset, size, stride, metadata=b""):
    ints = lambda values: b"(" + b"".join(b"J" + struct.pack("<i", v) for v in values) + b"t"
    return b"ctorch._utils\n_rebuild_tensor_v2\n(" + storage + b"J" + struct.pack("<i", offset) + ints(size) + \
        ints(stride) + b"\x89ccollections\nOrderedDict\n)R" + metadata + b"tR"


def pairs(items):
    """A dict of the pickled (key, value) pairs."""
    return b"}(" + b"".join(key + value for key, value in items) + b"u"


def weights(tensor):
    """{'w': tensor} as data.pkl."""
    return b"\x80\x02" + pairs([(text("w"), tensor)]) + b"."


def nested_under_one_key(depth, key_length):
    """`depth` dicts nested under one key of `key_length` bytes (memoized, then read back), None
    at the bottom: one name of depth x key_length bytes, and all of its prefixes."""
    return b"\x80\x02}" + text("k" * key_length) + b"q\x00}" + b"h\x00}" * (depth - 2) + b"h\x00N" + \
        b"s" * depth + b"."


def one_string_named(times, length):
    """A list naming one str of `length` bytes `times` times (BINGET of its memo entry)."""
    return b"\x80\x02](" + text("s" * length) + b"q\x00" + b"h\x00" * (times - 1) + b"e."


def sizes_of_one_tuple(times, length):
    """torch.Size reduced `times` times from one memoized tuple of `length` ints (6 bytes each)."""
    return b"\x80\x02ctorch\nSize\nq\x01(" + b"K\x00" * length + b"tq\x00" + b"h\x01h\x00\x85R" * times + b"."


def tensors_of_one_shape(times, rank):
    """A list of `times` tensors, each 5 bytes (REDUCE of the memoized _rebuild_tensor_v2 and
    argument tuple), whose size and stride have `rank` dimensions of 1."""
    ones = b"(" + b"K\x01" * rank + b"t"
    arguments = b"(" + storage_id("0", 6) + b"K\x00" + ones + ones + b"\x89}" + b"tq\x00"
    return b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\nq\x01" + arguments + b"](" + \
        b"h\x01h\x00R" * times + b"e."


FLOATS = struct.pack("<6f", *range(6))
MALICIOUS = {
    # name: (data.pkl, storages, extra archive options)
    "global_reduce": (b"\x80\x02cposix\nsystem\n" + text("echo pwned") + b"\x85R.", {}, {}),
    "stack_global": (b"\x80\x04\x8c\x05posix\x8c\x06system\x93" + text("echo pwned") + b"\x85R.", {}, {}),
    "builtins_getattr": (b"\x80\x02cbuiltins\ngetattr\n.", {}, {}),
    "builtins_eval": (b"\x80\x02cbuiltins\neval\n" + text("1") + b"\x85R.", {}, {}),
    "builtins_exec": (b"\x80\x02cbuiltins\nexec\n" + text("1") + b"\x85R.", {}, {}),
    "module_class": (b"\x80\x02ctorch.nn.modules.linear\nLinear\n)R.", {}, {}),
    "reduce_extra_arguments": (b"\x80\x02ccollections\nOrderedDict\n" + text("posix") + text("system") +
                               b"\x86\x85R.", {}, {}),
    "reduce_storage_class": (b"\x80\x02ctorch\nFloatStorage\n)R.", {}, {}),
    "newobj": (b"\x80\x02ccollections\nOrderedDict\n)\x81.", {}, {}),
    "inst": (b"\x80\x02(iposix\nsystem\n.", {}, {}),
    "build_tensor": (b"\x80\x02" + rebuild(storage_id("0", 6), 0, [6], [1]) + b"}b.", {"0": FLOATS}, {}),
    "missing_record": (b"\x80\x02}(" + text("w") + rebuild(storage_id("7", 6), 0, [6], [1]) + b"u.",
                       {"0": FLOATS}, {}),
    "storage_larger_than_record": (b"\x80\x02}(" + text("w") + rebuild(storage_id("0", 1000), 0, [6], [1]) +
                                   b"u.", {"0": FLOATS}, {}),
    "tensor_outside_storage": (b"\x80\x02}(" + text("w") + rebuild(storage_id("0", 6), 4, [2, 2], [2, 1]) +
                               b"u.", {"0": FLOATS}, {}),
    "overlapping_records": (b"\x80\x02}.", {"0": FLOATS}, {"overlap": ("archive/data/1", "archive/data/0")}),
    "compressed_record": (b"\x80\x02}.", {}, {"deflate": ("archive/data.pkl",)}),
    "deep_lists": (b"\x80\x02" + b"]" * 100_000 + b"a" * 99_999 + b".", {}, {}),
    "deep_marks": (b"\x80\x02" + b"(" * 100_000 + b".", {}, {}),
    "shared_containers": (b"\x80\x02]q\x00" + b"".join(bytes([0x5D, 0x28, 0x68, k - 1, 0x68, k - 1, 0x65, 0x71, k])
                                                        for k in range(1, 31)) + b".", {}, {}),
    "memo_out_of_range": (b"\x80\x02h\x05.", {}, {}),
    "long_memo_index": (b"\x80\x02]r\xff\xff\xff\xffj\xfe\xff\xff\xff.", {}, {}),
    "truncated_string": (b"\x80\x02X\xff\xff\xff\x7fabc", {}, {}),
    "no_stop": (b"\x80\x02}", {}, {}),
    "metadata_unknown_key": (weights(rebuild(storage_id("0", 6), 0, [6], [1], pairs([(text("foo"), b"\x88")]))),
                             {"0": FLOATS}, {}),
    "metadata_not_bool": (weights(rebuild(storage_id("0", 6), 0, [6], [1], pairs([(text("neg"), b"K\x01")]))),
                          {"0": FLOATS}, {}),
    "conj_of_float": (weights(rebuild(storage_id("0", 6), 0, [6], [1], pairs([(text("conj"), b"\x88")]))),
                      {"0": FLOATS}, {}),
    "neg_of_bool": (weights(rebuild(storage_id("0", 6, b"BoolStorage"), 0, [6], [1],
                                    pairs([(text("neg"), b"\x88")]))), {"0": bytes(6)}, {}),
    "bytes_not_latin1": (b"\x80\x02c_codecs\nencode\n" + text("abc") + text("utf8") + b"\x86R.", {}, {}),
    "bytes_beyond_latin1": (b"\x80\x02c_codecs\nencode\n" + text("ab\u0100") + text("latin1") + b"\x86R.", {}, {}),
    # A few hundred KB each, that would build or name gigabytes.
    "nested_under_one_key": (nested_under_one_key(990, 100_000), {}, {}),
    "one_string_named_many_times": (one_string_named(60_000, 65_536), {}, {}),
    "sizes_of_one_tuple": (sizes_of_one_tuple(10_000, 50_000), {}, {}),
    "tensors_of_one_shape": (tensors_of_one_shape(20_000, 20_000), {"0": FLOATS}, {}),
}


def malicious():
    out = HERE / "malicious"
    out.mkdir(exist_ok=True)
    for name, (pickle, storages, options) in MALICIOUS.items():
        records = [("archive/data.pkl", pickle), ("archive/byteorder", b"little")]
        records += [(f"archive/data/{key}", data) for key, data in storages.items()]
        records.append(("archive/version", b"3\n"))
        write_archive(out / f"{name}.pt", records, **options)


def main():
    results = {}
    for name, make in SAVED.items():
        torch.save(make(), HERE / f"{name}.pt", pickle_protocol=PROTOCOLS.get(name, 2))
        # torch.load's weights_only reader stops at protocol 4's FRAME opcode.
        results[name] = expected(HERE / f"{name}.pt", weights_only=name not in PROTOCOLS)
    # Debian's libtorch 1.13 wrote this one (libtorch_1_13.cpp); it tags its dict with
    # restore_type_tag, which torch.load's weights_only reader does not allow by default.
    with torch.serialization.safe_globals([torch.jit._pickle.restore_type_tag]):
        results["libtorch_1_13"] = expected(HERE / "libtorch_1_13.pt")
    big_endian(HERE / "linear.pt", HERE / "big_endian.pt")
    on_gpu(HERE / "linear.pt", HERE / "gpu_location.pt")
    for derived in ("big_endian", "gpu_location"):
        assert expected(HERE / f"{derived}.pt", mmap=False) == results["linear"], derived
    (HERE / "expected.json").write_text(json.dumps(results, indent=1) + "\n")

    torch.save(fill(torch.nn.Linear(3, 2)).state_dict(), HERE / "legacy.pt", _use_new_zipfile_serialization=False)
    torch.jit.save(torch.jit.script(torch.nn.Linear(2, 2)), HERE / "torchscript.pt")
    low_precision()
    malicious()


if __name__ == "__main__":
    main()
