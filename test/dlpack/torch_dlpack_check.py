"""DLPack round trips of every dtype PyTorch 2.x exports, through zerotensor and back.

    python torch_dlpack_check.py path/to/libzt_dlpack_peer.so

For each dtype: a strided torch view goes out with __dlpack__ (DLPack 1.x), zerotensor imports
it and exports its own view (dlpack_peer.cpp), and torch.from_dlpack takes that: the dtype,
shape, strides, address and bytes must come back as they left.
"""
import ctypes
import gc
import sys

import torch

capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
capsule_pointer.restype, capsule_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
capsule_rename = ctypes.pythonapi.PyCapsule_SetName
capsule_rename.restype, capsule_rename.argtypes = ctypes.c_int, [ctypes.py_object, ctypes.c_char_p]
capsule_new = ctypes.pythonapi.PyCapsule_New
capsule_new.restype, capsule_new.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]

peer = ctypes.CDLL(sys.argv[1])
peer.zt_dlpack_round_trip.restype = ctypes.c_void_p
peer.zt_dlpack_round_trip.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]

DTYPES = [torch.float8_e4m3fn, torch.float8_e5m2, torch.float8_e4m3fnuz, torch.float8_e5m2fnuz,
          torch.float8_e8m0fnu, torch.float4_e2m1fn_x2, torch.complex32, torch.bfloat16, torch.float16,
          torch.uint16, torch.uint32, torch.uint64, torch.bool, torch.complex128]


def round_trip(x):
    capsule = x.__dlpack__(max_version=(1, 1))
    managed = capsule_pointer(capsule, b"dltensor_versioned")
    capsule_rename(capsule, b"used_dltensor_versioned")  # consumed: torch no longer frees it
    text = ctypes.create_string_buffer(256)
    exported = peer.zt_dlpack_round_trip(managed, text, 256)
    if not exported:
        raise AssertionError(f"{x.dtype}: zerotensor refused it: {text.value.decode()}")
    return text.value.decode(), torch.from_dlpack(capsule_new(exported, b"dltensor_versioned", None))


failures = 0
for dtype in DTYPES:
    raw = torch.arange(4 * 48, dtype=torch.int64).remainder(2 if dtype == torch.bool else 256).to(torch.uint8)
    base = raw.view(dtype).reshape(4, -1)
    x = base[1:, 1:]  # offset and strided
    name, y = round_trip(x)
    checks = {
        "name": name == str(dtype)[len("torch."):],
        "dtype": y.dtype == dtype,
        "shape": y.shape == x.shape,
        "strides": y.stride() == x.stride(),
        "address": y.data_ptr() == x.data_ptr(),
        "bytes": torch.equal(y.view(torch.uint8), x.view(torch.uint8)),
    }
    failed = [what for what, ok in checks.items() if not ok]
    print(f"{str(dtype):26} {'ok' if not failed else 'FAILED: ' + ', '.join(failed)}")
    failures += bool(failed)
    del y
    gc.collect()
print(f"{len(DTYPES) - failures} of {len(DTYPES)} dtypes round-trip")
sys.exit(1 if failures else 0)
