"""The zerotensor casters from Python: test_casters.py <module directory> <module name>.

The module (caster_functions.hpp, built with nanobind or pybind11) takes and returns zerotensor
tensors; these checks hand it NumPy arrays, PyTorch tensors and buffers, and hand what it returns
to NumPy and PyTorch, asserting values, dtypes, shapes, shared addresses, read-only flags,
lifetimes and refusals. NumPy is required (exit 77, skipped, without it); the PyTorch checks skip
with the reason where torch is missing, and the C exchange API checks where torch lacks it.
"""
import ctypes
import gc
import importlib
import sys
import unittest
import weakref

try:
    import numpy as np
except ImportError:
    print("skipped: NumPy is not installed in", sys.executable)
    sys.exit(77)
try:
    import torch
except ImportError:
    torch = None

sys.path.insert(0, sys.argv[1])
ext = importlib.import_module(sys.argv[2])

NUMPY_MAJOR = int(np.__version__.split(".")[0])
TORCH_MAJOR = int(torch.__version__.split(".")[0]) if torch is not None else 0
HAS_EXCHANGE_API = torch is not None and hasattr(torch.Tensor, "__dlpack_c_exchange_api__")
NUMPY_DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
                "float16", "float32", "float64", "complex64", "complex128"]
ZT_NAMES = {"bool": "bool", "float16": "float16", "complex64": "complex64"}


def address(array):
    return array.__array_interface__["data"][0]


# DLPack's structs, for tests that play a producer or a C consumer.
class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", DELETER)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32), ("manager_ctx", ctypes.c_void_p),
                ("deleter", DELETER), ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


class ExchangeAPIStruct(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32), ("prev_api", ctypes.c_void_p),
                ("managed_tensor_allocator", ctypes.c_void_p),
                ("managed_tensor_from_py_object_no_sync", ctypes.c_void_p),
                ("managed_tensor_to_py_object_no_sync", ctypes.c_void_p),
                ("dltensor_from_py_object_no_sync", ctypes.c_void_p),
                ("current_work_stream", ctypes.c_void_p)]


# Python's capsule functions, taking the capsule's address (a destructor is given no object to hold).
CAPSULE_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
capsule_new = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, CAPSULE_DESTRUCTOR)(
    ("PyCapsule_New", ctypes.pythonapi))
capsule_is_valid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_IsValid", ctypes.pythonapi))
capsule_get_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi))


def capsule_pointer(capsule, name):
    return capsule_get_pointer(id(capsule), name)  # id() is the object's address in CPython


def sample(dtype, n=6):
    return (np.arange(n) % 2 == 1) if dtype == "bool" else np.arange(n).astype(dtype)


class NumPyArguments(unittest.TestCase):
    def test_writes_reach_the_callers_array(self):
        a = np.arange(6, dtype=np.float32).reshape(2, 3)
        ext.scale(a, 2.0)
        np.testing.assert_array_equal(a, np.arange(6, dtype=np.float32).reshape(2, 3) * 2)

    def test_the_view_is_the_arrays_memory(self):
        a = np.arange(12, dtype=np.float64).reshape(3, 4)
        dtype, shape, strides, writable, first = ext.describe(a)
        self.assertEqual((dtype, shape, strides, writable, first), ("float64", [3, 4], [4, 1], True, address(a)))

    def test_every_shared_dtype_binds_typed_and_keeps_its_values(self):
        for dtype in NUMPY_DTYPES:
            with self.subTest(dtype=dtype):
                a = sample(dtype)
                out = np.asarray(getattr(ext, "echo_" + dtype)(a))
                self.assertEqual(out.dtype, a.dtype)
                self.assertEqual(address(out), address(a))
                self.assertFalse(out.flags.writeable)  # a Tensor<const T> comes back read-only
                np.testing.assert_array_equal(out, a)
                before = a.view(np.uint8).copy()
                getattr(ext, "bump_" + dtype)(a)
                self.assertEqual(int(a.view(np.uint8)[0]), (int(before[0]) + 1) % 256)

    def test_read_only_arrays_bind_only_to_const(self):
        a = np.arange(6, dtype=np.float32).reshape(2, 3)
        a.flags.writeable = False
        self.assertEqual(ext.total(a), 15.0)
        self.assertFalse(ext.describe(a)[3])
        with self.assertRaises(TypeError) as refused:
            ext.scale(a, 2.0)
        self.assertIn("zerotensor.Tensor[float32, ndim=2, writable]", str(refused.exception))
        np.testing.assert_array_equal(a, np.arange(6, dtype=np.float32).reshape(2, 3))

    def test_strided_views_keep_their_strides(self):
        a = np.arange(24, dtype=np.float32).reshape(4, 6)
        view = a[::2, 1::3]
        self.assertEqual(ext.describe(view)[1:4], ([2, 2], [12, 3], True))
        self.assertEqual(ext.describe(view)[4], address(view))
        self.assertEqual(ext.total(view), float(view.sum()))
        ext.scale(view, 10.0)
        self.assertEqual(a[2, 4], 160.0)
        self.assertEqual(a[0, 0], 0.0)
        self.assertEqual(ext.describe(a.T)[2], [1, 6])

    def test_the_readme_binding(self):
        a = np.array([[3.0, 0.0], [0.0, 4.0]], dtype=np.float32)
        self.assertAlmostEqual(ext.norm(a), 5.0, places=6)
        self.assertAlmostEqual(ext.norm(a.T[:, ::-1]), 5.0, places=6)  # strided: copied to contiguous
        ext.scale(a, 2.0)
        self.assertEqual(a[1, 1], 8.0)

    def test_contiguous_arguments_refuse_strided_memory(self):
        a = np.arange(8, dtype=np.float32)
        self.assertEqual(ext.contiguous_total(a), 28.0)
        with self.assertRaises(TypeError) as refused:
            ext.contiguous_total(a[::2])
        self.assertIn("contiguous", str(refused.exception))

    def test_zero_size_arrays(self):
        self.assertEqual(ext.describe(np.zeros((0, 3), dtype=np.float32))[1], [0, 3])
        self.assertEqual(ext.total(np.zeros((0,), dtype=np.float32)), 0.0)
        self.assertEqual(np.asarray(ext.echo_float32(np.zeros((2, 0), dtype=np.float32))).shape, (2, 0))

    def test_dtype_and_rank_mismatches_fall_through_to_the_next_overload(self):
        self.assertEqual(ext.pick(np.zeros(3, dtype=np.int64)), "int64")
        self.assertEqual(ext.pick(np.zeros(3, dtype=np.float32)), "float32")
        with self.assertRaises(TypeError) as refused:
            ext.pick(np.zeros(3, dtype=np.int32))
        self.assertIn("zerotensor.Tensor[float32]", str(refused.exception))
        with self.assertRaises(TypeError):
            ext.scale(np.zeros(3, dtype=np.float32), 1.0)  # rank 1 for a rank-2 argument
        with self.assertRaises(TypeError):
            ext.total([1.0, 2.0])  # a list offers no memory

    def test_the_view_keeps_the_array_alive(self):
        a = np.arange(4, dtype=np.float32)
        gone = weakref.finalize(a, lambda: None)
        ext.keep(a)
        del a
        gc.collect()
        self.assertTrue(gone.alive)
        self.assertEqual(ext.kept_total(), 6.0)
        ext.release_kept()
        gc.collect()
        self.assertFalse(gone.alive)


class BufferArguments(unittest.TestCase):
    def test_bytearray_and_bytes(self):
        self.assertEqual(ext.describe(bytearray(b"abc"))[:4], ("uint8", [3], [1], True))
        self.assertFalse(ext.describe(b"ab")[3])
        data = bytearray(4)
        ext.bump_uint8(data)
        self.assertEqual(data[0], 1)

    def test_memoryview_formats(self):
        m = memoryview(np.arange(6, dtype=np.int16).reshape(2, 3)[:, ::2])
        self.assertEqual(ext.describe(m)[:3], ("int16", [2, 2], [3, 2]))

    def test_a_type_whose_dlpack_is_none_binds_through_its_buffer(self):
        class Opaque(bytearray):
            __dlpack__ = None

        data = Opaque(b"\x07\x00")
        self.assertEqual(ext.describe(data)[:4], ("uint8", [2], [1], True))
        ext.bump_uint8(data)
        self.assertEqual(data[0], 8)


class Returns(unittest.TestCase):
    def test_numpy_takes_results_without_a_copy(self):
        t = ext.ones(5)
        a = np.asarray(t)
        self.assertTrue(a.flags.writeable)
        np.testing.assert_array_equal(a, np.ones(5, dtype=np.float32))
        self.assertEqual(ext.describe(t)[4], address(a))
        b = np.from_dlpack(t)
        self.assertEqual(address(b), address(a))

    def test_const_results_are_read_only(self):
        t = ext.const_ones(3)
        self.assertFalse(t.writable)
        a = np.asarray(t)
        self.assertFalse(a.flags.writeable)
        self.assertTrue(memoryview(t).readonly)
        if NUMPY_MAJOR >= 2:
            self.assertFalse(np.from_dlpack(t).flags.writeable)
        with self.assertRaisesRegex(BufferError, r"read-only.*max_version=\(1, 0\)"):
            t.__dlpack__()  # a legacy capsule cannot say read-only

    def test_the_tensor_object(self):
        t = ext.ones(4)
        self.assertEqual((t.shape, t.dtype, t.writable), ((4,), "float32", True))
        self.assertEqual(t.__dlpack_device__(), (1, 0))
        self.assertEqual(type(t).__module__, "zerotensor")
        same = ext.identity(t)
        self.assertEqual(ext.describe(same)[4], ext.describe(t)[4])
        with self.assertRaises(BufferError):
            t.__dlpack__(copy=True)

    def test_the_owner_is_released_once_when_the_last_consumer_dies(self):
        before = ext.released_owners()
        t = ext.counted(4)
        a = np.asarray(t)
        b = np.from_dlpack(t)
        del t
        gc.collect()
        self.assertEqual(ext.released_owners(), before)
        self.assertEqual(a.sum(), 4.0)
        del a, b
        gc.collect()
        self.assertEqual(ext.released_owners(), before + 1)

    def test_the_exchange_api_is_on_the_type(self):
        capsule = type(ext.ones(1)).__dlpack_c_exchange_api__
        self.assertEqual(capsule_pointer(capsule, b"dlpack_exchange_api"), ext.exchange_api_address())


class ZerotensorExchangeAPI(unittest.TestCase):
    """zerotensor.Tensor's DLPack 1.3 C exchange API, called as a C consumer would."""

    def api(self):
        return ExchangeAPIStruct.from_address(ext.exchange_api_address())

    def test_version_and_functions(self):
        api = self.api()
        self.assertEqual((api.major, api.minor, api.prev_api), (1, 3, None))
        self.assertTrue(api.managed_tensor_allocator and api.managed_tensor_from_py_object_no_sync
                        and api.managed_tensor_to_py_object_no_sync and api.current_work_stream)

    def test_object_to_managed_tensor_and_back(self):
        api = self.api()
        from_object = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.POINTER(ctypes.c_void_p))(
            api.managed_tensor_from_py_object_no_sync)
        to_object = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.py_object))(
            api.managed_tensor_to_py_object_no_sync)
        t = ext.ones(3)
        managed = ctypes.c_void_p()
        self.assertEqual(from_object(t, ctypes.byref(managed)), 0)
        back = ctypes.py_object()
        self.assertEqual(to_object(managed, ctypes.byref(back)), 0)
        self.assertEqual(ext.describe(back.value)[4], ext.describe(t)[4])
        self.assertEqual(type(back.value), type(t))

    def test_allocator_makes_a_tensor_of_the_prototype(self):
        api = self.api()
        shape = (ctypes.c_int64 * 2)(2, 5)
        prototype = DLTensor(None, DLDevice(1, 0), 2, DLDataType(2, 32, 1), shape, None, 0)  # CPU float32 2 x 5
        set_error = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p)(lambda *a: None)
        allocate = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p,
                                    type(set_error))(api.managed_tensor_allocator)
        managed = ctypes.c_void_p()
        self.assertEqual(allocate(ctypes.addressof(prototype), ctypes.byref(managed), None, set_error), 0)
        to_object = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.py_object))(
            api.managed_tensor_to_py_object_no_sync)
        made = ctypes.py_object()
        self.assertEqual(to_object(managed, ctypes.byref(made)), 0)
        self.assertEqual(ext.describe(made.value)[:4], ("float32", [2, 5], [5, 1], True))
        errors = []
        complain = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p)(
            lambda ctx, kind, message: errors.append((kind, message)))
        prototype.dtype.code = 3  # an opaque handle: no dtype
        self.assertEqual(allocate(ctypes.addressof(prototype), ctypes.byref(managed), None, complain), -1)
        self.assertEqual(errors[0][0], b"TypeError")


FAKE_GPU_ADDRESS = 0x7F0000000000  # never read: a CPU build refuses the tensor, a CUDA build only describes it


class FakeCUDATensor:
    """A 2 x 3 float32 CUDA tensor as a producer hands it out, for machines without a GPU: each
    `__dlpack__` call is recorded and makes a new export, whose deleter counts itself; an export's
    capsule returns it to the producer when no consumer took it (DLPack's capsule contract)."""
    versioned = True

    def __init__(self):
        self.calls = []
        self.deleted = 0
        self.live = {}  # address -> (managed struct, shape, strides), until its deleter runs
        self.deleter = DELETER(self.delete)
        self.release_unused = CAPSULE_DESTRUCTOR(self.release)

    def __dlpack_device__(self):
        return (2, 0)

    def delete(self, address):
        del self.live[address]
        self.deleted += 1

    @property
    def capsule_name(self):
        return b"dltensor_versioned" if self.versioned else b"dltensor"

    def release(self, capsule):
        if capsule_is_valid(capsule, self.capsule_name):  # not renamed or taken by a consumer
            self.delete(capsule_get_pointer(capsule, self.capsule_name))

    def dl_tensor(self):
        """The tensor's DLTensor, and the shape and strides arrays it points to."""
        shape, strides = (ctypes.c_int64 * 2)(2, 3), (ctypes.c_int64 * 2)(3, 1)
        return DLTensor(FAKE_GPU_ADDRESS, DLDevice(2, 0), 2, DLDataType(2, 32, 1), shape, strides, 0), shape, strides

    def new_managed(self):
        """The address of a new export, kept until its deleter runs."""
        tensor, shape, strides = self.dl_tensor()
        if self.versioned:
            managed = DLManagedTensorVersioned(1, 3, None, self.deleter, 0, tensor)
        else:
            managed = DLManagedTensor(tensor, None, self.deleter)
        self.live[ctypes.addressof(managed)] = (managed, shape, strides)
        return ctypes.addressof(managed)

    def export(self):
        return capsule_new(self.new_managed(), self.capsule_name, self.release_unused)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        self.calls.append({key: value for key, value in (("stream", stream), ("max_version", max_version))
                           if value is not None})
        return self.export()


class FakeLegacyCUDATensor(FakeCUDATensor):
    """The same from a producer that predates max_version (PyTorch 1.x, older CuPy): legacy capsules."""
    versioned = False

    def __dlpack__(self, stream=None):
        self.calls.append({} if stream is None else {"stream": stream})
        return self.export()


EXCHANGE_MANAGED = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.POINTER(ctypes.c_void_p))
EXCHANGE_DESCRIPTION = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.POINTER(DLTensor))


@EXCHANGE_MANAGED
def exchange_managed(tensor, out):
    tensor.exchanged.append("managed")
    out[0] = tensor.new_managed()
    return 0


@EXCHANGE_DESCRIPTION
def exchange_description(tensor, out):
    tensor.exchanged.append("description")
    out[0], *tensor.described = tensor.dl_tensor()  # borrowed: valid until the producer runs again
    return 0


# The two functions of a C exchange API that an import calls (the others are left NULL).
FAKE_EXCHANGE_API = ExchangeAPIStruct(1, 3, None, None, ctypes.cast(exchange_managed, ctypes.c_void_p), None,
                                      ctypes.cast(exchange_description, ctypes.c_void_p), None)


class FakeCUDATensorWithExchangeAPI(FakeCUDATensor):
    """The same from a producer with DLPack 1.3's C exchange API on its type (PyTorch >= 2.11)."""
    __dlpack_c_exchange_api__ = capsule_new(ctypes.addressof(FAKE_EXCHANGE_API), b"dlpack_exchange_api",
                                            CAPSULE_DESTRUCTOR())

    def __init__(self):
        super().__init__()
        self.exchanged = []


class CUDAProducers(unittest.TestCase):
    """A CUDA tensor is asked for again with stream=1, so that its producer makes CUDA's legacy
    default stream wait for its queued work (the C exchange API does not synchronise, so a CUDA
    tensor it gives is asked for so at once); a CUDA build binds it, a CPU build refuses it. Each
    export, the unused ones too, is returned to the producer once."""

    def check(self, tensor, calls, exports, bind=ext.describe, writable=True):
        if ext.cuda_build():
            self.assertEqual(bind(tensor), ("float32", [2, 3], [3, 1], writable, FAKE_GPU_ADDRESS))
        else:
            with self.assertRaises(TypeError):
                bind(tensor)
        gc.collect()
        self.assertEqual(tensor.calls, calls)
        self.assertEqual((tensor.deleted, tensor.live), (exports, {}))

    def test_a_dlpack_1_producer_is_asked_with_max_version_then_the_stream(self):
        self.check(FakeCUDATensor(), [{"max_version": (1, 3)}, {"max_version": (1, 3), "stream": 1}], 2)

    def test_a_legacy_producer_is_asked_without_max_version(self):
        self.check(FakeLegacyCUDATensor(), [{}, {"stream": 1}], 2)

    def test_an_exchange_api_producer_is_asked_through_dlpack_with_the_stream_at_once(self):
        calls = [{"max_version": (1, 3), "stream": 1}]
        writable = FakeCUDATensorWithExchangeAPI()
        self.check(writable, calls, 2)
        self.assertEqual(writable.exchanged, ["managed"])
        read_only = FakeCUDATensorWithExchangeAPI()  # a const argument: the borrowed description
        self.check(read_only, calls, 1, lambda t: ext.describe(ext.echo_float32(t)), writable=False)
        self.assertEqual(read_only.exchanged, ["description"])

    def test_an_exchange_api_producer_without_dlpack_does_not_bind(self):
        class ExchangeOnly(FakeCUDATensorWithExchangeAPI):
            __dlpack__ = None
        tensor = ExchangeOnly()
        with self.assertRaises(TypeError):
            ext.describe(tensor)
        gc.collect()
        self.assertEqual((tensor.exchanged, tensor.calls, tensor.deleted, tensor.live), (["managed"], [], 1, {}))


@unittest.skipIf(torch is None, "PyTorch is not installed in this Python")
class TorchArguments(unittest.TestCase):
    def test_writes_reach_the_callers_tensor(self):
        t = torch.arange(6, dtype=torch.float32).reshape(2, 3)
        ext.scale(t, 3.0)
        self.assertEqual(t.tolist(), [[0.0, 3.0, 6.0], [9.0, 12.0, 15.0]])
        self.assertEqual(ext.describe(t)[4], t.data_ptr())

    def test_torch_dtypes(self):
        dtypes = {"bool": torch.bool, "int8": torch.int8, "uint8": torch.uint8, "int16": torch.int16,
                  "int32": torch.int32, "int64": torch.int64, "float16": torch.float16,
                  "bfloat16": torch.bfloat16, "float32": torch.float32, "float64": torch.float64,
                  "complex64": torch.complex64, "complex128": torch.complex128}
        if TORCH_MAJOR < 2:
            del dtypes["bool"]  # PyTorch 1.x's __dlpack__ refuses bool, and torch has no buffer protocol
        for name, dtype in dtypes.items():
            with self.subTest(dtype=name):
                t = torch.ones(4, dtype=dtype)
                self.assertEqual(ext.describe(t)[:4], (name, [4], [1], True))
                getattr(ext, "bump_" + name)(t)
                self.assertEqual(t.view(torch.uint8)[0].item(), (torch.ones(1, dtype=dtype).view(torch.uint8)[0].item() + 1) % 256)

    def test_non_contiguous_and_zero_size(self):
        t = torch.arange(12, dtype=torch.float32).reshape(3, 4).t()
        self.assertEqual(ext.describe(t)[1:3], ([4, 3], [1, 4]))
        self.assertEqual(ext.total(t), 66.0)
        self.assertEqual(ext.describe(torch.zeros(0, 2))[1], [0, 2])

    def test_results_go_back_to_torch_without_a_copy(self):
        t = torch.arange(5, dtype=torch.float32)
        back = torch.from_dlpack(ext.identity(t))
        self.assertEqual(back.data_ptr(), t.data_ptr())
        made = ext.ones(3)
        self.assertEqual(torch.from_dlpack(made).data_ptr(), ext.describe(made)[4])
        if TORCH_MAJOR >= 2:
            self.assertEqual(torch.as_tensor(made).data_ptr(), ext.describe(made)[4])
            self.assertEqual(torch.from_dlpack(ext.echo_bfloat16(torch.ones(2, dtype=torch.bfloat16))).dtype,
                             torch.bfloat16)

    def test_the_tensor_outlives_nothing_it_must_not(self):
        t = torch.arange(4, dtype=torch.float32)
        ext.keep(t)
        del t
        gc.collect()
        self.assertEqual(ext.kept_total(), 6.0)
        ext.release_kept()


@unittest.skipIf(not HAS_EXCHANGE_API, "this PyTorch has no DLPack C exchange API (__dlpack_c_exchange_api__, 2.11+)")
class TorchExchangeAPI(unittest.TestCase):
    def test_tensors_bind_without_calling_dlpack(self):
        class NoDLPack(torch.Tensor):
            def __dlpack__(self, *args, **kwargs):
                raise AssertionError("__dlpack__ was called")

        t = torch.arange(6, dtype=torch.float32).reshape(2, 3).as_subclass(NoDLPack)
        ext.scale(t, 2.0)
        self.assertEqual(t.sum().item(), 30.0)
        self.assertEqual(ext.describe(t)[4], t.data_ptr())

    def test_torch_consumes_zerotensor_tensors(self):
        made = ext.ones(4)
        self.assertEqual(torch.from_dlpack(made).data_ptr(), ext.describe(made)[4])
        read_only = ext.const_ones(2)
        self.assertEqual(torch.from_dlpack(read_only).tolist(), [1.0, 1.0])


@unittest.skipIf(torch is None or not torch.cuda.is_available(), "no PyTorch with a CUDA GPU")
class TorchCUDA(unittest.TestCase):
    def test_cuda_tensors_bind_in_the_cuda_build_only(self):
        t = torch.arange(6, dtype=torch.float32, device="cuda").reshape(2, 3)
        if not ext.cuda_build():
            with self.assertRaises(TypeError):
                ext.describe(t)
            return
        self.assertEqual(ext.device_of(t), "cuda:0")
        self.assertEqual(ext.describe(t)[:5], ("float32", [2, 3], [3, 1], True, t.data_ptr()))
        back = torch.from_dlpack(ext.identity(t))
        self.assertEqual((back.device.type, back.data_ptr()), ("cuda", t.data_ptr()))


if __name__ == "__main__":
    print(f"{sys.argv[2]}: Python {sys.version.split()[0]}, NumPy {np.__version__}, "
          f"PyTorch {torch.__version__ if torch is not None else 'not installed'}")
    unittest.main(argv=sys.argv[:1], verbosity=1)
