"""zerotensor's Arrow import and export against pyarrow itself, through ctypes.

pyarrow exports arrays (Array._export_to_c, _export_to_c_device, RecordBatch._export_to_c)
that zerotensor imports (test/arrow/arrow_peer.cpp), and imports what zerotensor exports
(Array._import_from_c, RecordBatch._import_from_c). Checked: same buffer addresses, same
values, read-only views, each side's release called (pyarrow's memory pool returns to its
baseline only after the zerotensor view dies; zerotensor's owners die only when pyarrow lets
go), pyarrow's validate(full=True) on every export, and every refusal with a real array.

Usage: python pyarrow_check.py path/to/libzt_arrow_peer.so
"""
import ctypes
import gc
import sys
import unittest

import numpy as np
import pyarrow as pa

LIB = None


class ArrowSchema(ctypes.Structure):
    _fields_ = [("format", ctypes.c_char_p), ("name", ctypes.c_char_p), ("metadata", ctypes.c_void_p),
                ("flags", ctypes.c_int64), ("n_children", ctypes.c_int64), ("children", ctypes.c_void_p),
                ("dictionary", ctypes.c_void_p), ("release", ctypes.c_void_p), ("private_data", ctypes.c_void_p)]


class ArrowArray(ctypes.Structure):
    _fields_ = [("length", ctypes.c_int64), ("null_count", ctypes.c_int64), ("offset", ctypes.c_int64),
                ("n_buffers", ctypes.c_int64), ("n_children", ctypes.c_int64), ("buffers", ctypes.c_void_p),
                ("children", ctypes.c_void_p), ("dictionary", ctypes.c_void_p), ("release", ctypes.c_void_p),
                ("private_data", ctypes.c_void_p)]


class ArrowDeviceArray(ctypes.Structure):
    _fields_ = [("array", ArrowArray), ("device_id", ctypes.c_int64), ("device_type", ctypes.c_int32),
                ("sync_event", ctypes.c_void_p), ("reserved", ctypes.c_int64 * 3)]


assert ctypes.sizeof(ArrowSchema) == 72 and ctypes.sizeof(ArrowArray) == 80 and ctypes.sizeof(ArrowDeviceArray) == 128

DTYPES = {"int8": pa.int8(), "uint8": pa.uint8(), "int16": pa.int16(), "uint16": pa.uint16(), "int32": pa.int32(),
          "uint32": pa.uint32(), "int64": pa.int64(), "uint64": pa.uint64(), "float16": pa.float16(),
          "float32": pa.float32(), "float64": pa.float64()}


def load(path):
    lib = ctypes.CDLL(path)
    p, i, sz, d = ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t, ctypes.c_double
    lib.ztp_import.argtypes = [p, p, i, i, i, d, ctypes.c_char_p, sz]
    lib.ztp_import.restype = p
    lib.ztp_import_batch.argtypes = [p, p, ctypes.c_char_p, sz]
    lib.ztp_import_batch.restype = p
    lib.ztp_batch_size.argtypes = [p]
    lib.ztp_batch_column.argtypes = [p, i, ctypes.c_char_p, sz]
    lib.ztp_batch_column.restype = p
    lib.ztp_batch_stack.argtypes = [p]
    lib.ztp_batch_stack.restype = p
    lib.ztp_free_batch.argtypes = [p]
    lib.ztp_info.argtypes = [p, ctypes.c_char_p, sz, p, p, p, p, p]
    lib.ztp_values.argtypes = [p, p]
    lib.ztp_free.argtypes = [p]
    lib.ztp_export.argtypes = [ctypes.c_char_p, p, i, i, i, p, p, ctypes.c_char_p, sz]
    lib.ztp_export.restype = ctypes.c_size_t
    lib.ztp_export_batch.argtypes = [ctypes.c_int64, p, p]
    lib.ztp_owners_alive.restype = ctypes.c_int64
    return lib


class Tensor:
    """A zerotensor AnyTensor held through the peer library."""

    def __init__(self, handle):
        self.handle = handle
        dtype = ctypes.create_string_buffer(32)
        shape, strides = (ctypes.c_int64 * 40)(), (ctypes.c_int64 * 40)()
        data, writable, device = ctypes.c_size_t(), ctypes.c_int(), (ctypes.c_int * 2)()
        rank = LIB.ztp_info(handle, dtype, 32, shape, strides, ctypes.byref(data), ctypes.byref(writable), device)
        self.dtype = dtype.value.decode()
        self.shape = tuple(shape[:rank])
        self.strides = tuple(strides[:rank])
        self.data = data.value
        self.writable = bool(writable.value)
        self.device = (device[0], device[1])

    def values(self):
        out = np.zeros(self.shape, dtype=np.float64)
        if out.size:
            LIB.ztp_values(self.handle, out.ctypes.data)
        return out

    def free(self):
        LIB.ztp_free(self.handle)
        self.handle = None


class ImportError_(Exception):
    pass


def zt_import(array, schema, device=False, copy=None, fill=None):
    error = ctypes.create_string_buffer(1024)
    handle = LIB.ztp_import(ctypes.addressof(array), ctypes.addressof(schema), int(device),
                            -1 if copy is None else int(copy), fill is not None, fill or 0.0, error, 1024)
    if not handle:
        raise ImportError_(error.value.decode())
    return Tensor(handle)


def export(obj):
    array, schema = ArrowArray(), ArrowSchema()
    obj._export_to_c(ctypes.addressof(array), ctypes.addressof(schema))
    return array, schema


def pool_bytes():
    gc.collect()
    return pa.total_allocated_bytes()


class PyArrowToZerotensor(unittest.TestCase):
    def check_view(self, arr, tensor, leaf_values, leaf_offset):
        itemsize = leaf_values.type.byte_width
        self.assertEqual(tensor.data, leaf_values.buffers()[1].address + (leaf_values.offset + leaf_offset) * itemsize)
        self.assertFalse(tensor.writable)

    def test_every_primitive_type_sliced_same_memory_released_once(self):
        for name, arrow_type in DTYPES.items():
            with self.subTest(name):
                baseline = pool_bytes()
                arr = pa.array(list(range(20)), arrow_type).slice(3, 12)
                array, schema = export(arr)
                expected_address = arr.buffers()[1].address + 3 * arrow_type.byte_width
                expected = arr.to_numpy().astype(np.float64)
                del arr
                self.assertGreater(pool_bytes(), baseline)  # pyarrow's export holds the memory
                tensor = zt_import(array, schema)
                self.assertIsNone(array.release)  # moved into the view
                self.assertIsNone(schema.release)  # released by from_arrow
                self.assertEqual(tensor.dtype, name)
                self.assertEqual(tensor.shape, (12,))
                self.assertEqual(tensor.data, expected_address)
                self.assertFalse(tensor.writable)
                np.testing.assert_array_equal(tensor.values(), expected)
                self.assertGreater(pool_bytes(), baseline)
                tensor.free()
                self.assertEqual(pool_bytes(), baseline)  # pyarrow's release ran

    def test_fixed_size_lists_nested_and_sliced(self):
        values = pa.array(np.arange(48, dtype=np.int32))
        inner = pa.FixedSizeListArray.from_arrays(values, 4)
        outer = pa.FixedSizeListArray.from_arrays(inner, 3).slice(1, 2)
        array, schema = export(outer)
        tensor = zt_import(array, schema)
        self.assertEqual(tensor.shape, (2, 3, 4))
        self.assertEqual(tensor.strides, (12, 4, 1))
        self.assertEqual(tensor.data, values.buffers()[1].address + 12 * 4)
        np.testing.assert_array_equal(tensor.values(), np.arange(12, 36).reshape(2, 3, 4))
        tensor.free()

    def test_fixed_shape_tensor_c_order_and_permuted(self):
        for x in (np.arange(24, dtype=np.float32).reshape(2, 3, 4),
                  np.arange(24, dtype=np.float32).reshape(2, 3, 4).transpose(0, 2, 1)):
            arr = pa.FixedShapeTensorArray.from_numpy_ndarray(x)
            array, schema = export(arr)
            tensor = zt_import(array, schema)
            self.assertEqual(tensor.shape, x.shape)
            self.assertEqual(tensor.strides, tuple(s // 4 for s in x.strides))
            self.assertEqual(tensor.data, arr.storage.values.buffers()[1].address)
            np.testing.assert_array_equal(tensor.values(), x)
            np.testing.assert_array_equal(tensor.values(), arr.to_numpy_ndarray())
            tensor.free()

    def test_empty_array(self):
        array, schema = export(pa.array([], pa.float32()))
        tensor = zt_import(array, schema)
        self.assertEqual(tensor.shape, (0,))
        self.assertEqual(tensor.dtype, "float32")
        tensor.free()

    def test_device_export_of_host_memory(self):
        arr = pa.array([1.5, 2.5, 3.5], pa.float64())
        array, schema = ArrowDeviceArray(), ArrowSchema()
        arr._export_to_c_device(ctypes.addressof(array), ctypes.addressof(schema))
        self.assertEqual(array.device_type, 1)
        tensor = zt_import(array, schema, device=True)
        self.assertEqual(tensor.device, (0, 0))
        self.assertEqual(tensor.data, arr.buffers()[1].address)
        np.testing.assert_array_equal(tensor.values(), [1.5, 2.5, 3.5])
        tensor.free()

    def test_record_batch_columns_are_views(self):
        batch = pa.record_batch({"x": pa.array([1.0, 2.0, 3.0], pa.float32()),
                                 "y": pa.array([4.0, 5.0, 6.0], pa.float32())})
        array, schema = export(batch)
        error = ctypes.create_string_buffer(1024)
        handle = LIB.ztp_import_batch(ctypes.addressof(array), ctypes.addressof(schema), error, 1024)
        self.assertTrue(handle, error.value)
        name = ctypes.create_string_buffer(64)
        for i, column in enumerate(["x", "y"]):
            tensor = Tensor(LIB.ztp_batch_column(handle, i, name, 64))
            self.assertEqual(name.value.decode(), column)
            self.assertEqual(tensor.data, batch.column(i).buffers()[1].address)
            np.testing.assert_array_equal(tensor.values(), batch.column(i).to_numpy())
            tensor.free()
        stacked = Tensor(LIB.ztp_batch_stack(handle))
        np.testing.assert_array_equal(stacked.values(), np.column_stack([batch.column(0), batch.column(1)]))
        stacked.free()
        LIB.ztp_free_batch(handle)

    def test_readme_example(self):
        baseline = pool_bytes()
        points = pa.FixedSizeListArray.from_arrays(pa.array(np.random.rand(3000).astype(np.float32)), 3)
        expected = points.flatten().to_numpy().reshape(1000, 3).mean(axis=0)
        array, schema = ctypes.create_string_buffer(80), ctypes.create_string_buffer(72)  # ArrowArray, ArrowSchema
        points._export_to_c(ctypes.addressof(array), ctypes.addressof(schema))
        del points
        out = (ctypes.c_float * 3)()
        LIB.centroid(array, schema, out)
        np.testing.assert_allclose(list(out), expected, rtol=1e-5)
        self.assertEqual(pool_bytes(), baseline)  # released when the view died

    def test_nulls_refused_then_filled(self):
        baseline = pool_bytes()
        array, schema = export(pa.array([1, None, 3, None], pa.int64()))
        with self.assertRaisesRegex(ImportError_, r"ValueError: .*holds 2 nulls \(the first at slot 1"):
            zt_import(array, schema)
        self.assertIsNone(array.release)
        self.assertEqual(pool_bytes(), baseline)  # released at once on error
        array, schema = export(pa.array([1, None, 3, None], pa.int64()))
        tensor = zt_import(array, schema, fill=-1)
        np.testing.assert_array_equal(tensor.values(), [1, -1, 3, -1])
        self.assertTrue(tensor.writable)
        self.assertEqual(pool_bytes(), baseline)  # a copy: pyarrow's memory already released
        tensor.free()

    def test_bool_is_copied_and_refused_without_copy(self):
        array, schema = export(pa.array([True, False, True, True]))
        tensor = zt_import(array, schema)
        self.assertEqual(tensor.dtype, "bool")
        np.testing.assert_array_equal(tensor.values(), [1, 0, 1, 1])
        tensor.free()
        array, schema = export(pa.array([True, False]))
        with self.assertRaisesRegex(ImportError_, r"ValueError: .*copy = false, but Arrow's bit-packed bool"):
            zt_import(array, schema, copy=False)

    def test_unaligned_buffer_copied_or_refused(self):
        raw = pa.py_buffer(b"\0" + np.arange(4, dtype=np.float32).tobytes())
        arr = pa.Array.from_buffers(pa.float32(), 4, [None, raw.slice(1)])
        self.assertNotEqual(arr.buffers()[1].address % 4, 0)
        array, schema = export(arr)
        tensor = zt_import(array, schema)
        self.assertNotEqual(tensor.data, arr.buffers()[1].address)
        np.testing.assert_array_equal(tensor.values(), [0, 1, 2, 3])
        tensor.free()
        array, schema = export(arr)
        with self.assertRaisesRegex(ImportError_, r"ValueError: .*not aligned to 4 bytes \(the alignment of float32\)"):
            zt_import(array, schema, copy=False)

    def test_unsupported_types_refused_by_name(self):
        cases = [
            (pa.array(["a", "bc"]), r"TypeError: .*\"u\" .*a string is variable-size"),
            (pa.array([[1], [2, 3]]), r"TypeError: .*\"\+l\" .*variable-size list"),
            (pa.array(["a", "b", "a"]).dictionary_encode(), r"TypeError: .*dictionary-encoded"),
            (pa.array([{"a": 1}]), r"TypeError: .*\"\+s\" .*zt::from_arrow_record_batch"),
            (pa.array([1, 2], pa.timestamp("us")), r"TypeError: .*\"tsu:\" .*temporal"),
            (pa.array([1, 2], pa.decimal128(10, 2)), r"TypeError: .*decimals"),
            (pa.array([b"ab"], pa.binary(2)), r"TypeError: .*fixed-size binary"),
        ]
        for arr, message in cases:
            with self.subTest(str(arr.type)):
                baseline = pool_bytes()
                array, schema = export(arr)
                del arr
                with self.assertRaisesRegex(ImportError_, message):
                    zt_import(array, schema)
                self.assertIsNone(array.release)
                self.assertIsNone(schema.release)
                self.assertEqual(pool_bytes(), baseline)


def zt_export(dtype, shape, layout=0, transposed=False):
    array, schema = ArrowArray(), ArrowSchema()
    error = ctypes.create_string_buffer(1024)
    dims = (ctypes.c_int64 * len(shape))(*shape)
    address = LIB.ztp_export(dtype.encode(), dims, len(shape), layout, int(transposed), ctypes.addressof(array),
                             ctypes.addressof(schema), error, 1024)
    if not address:
        raise ImportError_(error.value.decode())
    return array, schema, address


class ZerotensorToPyArrow(unittest.TestCase):
    def tearDown(self):
        gc.collect()
        self.assertEqual(LIB.ztp_owners_alive(), 0)  # every export was released

    def test_every_primitive_type(self):
        for name, arrow_type in DTYPES.items():
            with self.subTest(name):
                array, schema, address = zt_export(name, [10])
                arr = pa.Array._import_from_c(ctypes.addressof(array), ctypes.addressof(schema))
                self.assertIsNone(array.release)
                self.assertIsNone(schema.release)
                arr.validate(full=True)
                self.assertEqual(arr.type, arrow_type)
                self.assertEqual(arr.null_count, 0)
                self.assertEqual(arr.buffers()[1].address, address)
                np.testing.assert_array_equal(arr.to_numpy().astype(np.float64), np.arange(10))
                self.assertEqual(LIB.ztp_owners_alive(), 1)
                del arr
                gc.collect()
                self.assertEqual(LIB.ztp_owners_alive(), 0)

    def test_n_dimensions_as_fixed_shape_tensor(self):
        array, schema, address = zt_export("float32", [2, 3, 4])
        arr = pa.Array._import_from_c(ctypes.addressof(array), ctypes.addressof(schema))
        arr.validate(full=True)
        self.assertIsInstance(arr.type, pa.FixedShapeTensorType)
        self.assertEqual(arr.type.shape, [3, 4])
        self.assertEqual(arr.type.value_type, pa.float32())
        self.assertEqual(arr.storage.values.buffers()[1].address, address)
        np.testing.assert_array_equal(arr.to_numpy_ndarray(), np.arange(24, dtype=np.float32).reshape(2, 3, 4))

    def test_n_dimensions_as_nested_fixed_size_lists(self):
        array, schema, address = zt_export("int16", [2, 3, 4], layout=1)
        arr = pa.Array._import_from_c(ctypes.addressof(array), ctypes.addressof(schema))
        arr.validate(full=True)
        self.assertEqual(arr.type.list_size, 3)
        self.assertEqual(arr.type.value_type.list_size, 4)
        self.assertEqual(arr.type.value_type.value_type, pa.int16())
        self.assertEqual(arr.values.values.buffers()[1].address, address)
        self.assertEqual(arr.to_pylist()[1][2], [20, 21, 22, 23])

    def test_non_contiguous_exported_as_a_copy(self):
        array, schema, address = zt_export("float64", [3, 2], transposed=True)
        arr = pa.Array._import_from_c(ctypes.addressof(array), ctypes.addressof(schema))
        arr.validate(full=True)
        self.assertNotEqual(arr.storage.values.buffers()[1].address, address)
        np.testing.assert_array_equal(arr.to_numpy_ndarray(), np.arange(6.0).reshape(3, 2).T)

    def test_record_batch(self):
        array, schema = ArrowArray(), ArrowSchema()
        LIB.ztp_export_batch(5, ctypes.addressof(array), ctypes.addressof(schema))
        batch = pa.RecordBatch._import_from_c(ctypes.addressof(array), ctypes.addressof(schema))
        batch.validate(full=True)
        self.assertEqual(batch.schema.names, ["x", "m"])
        self.assertEqual(batch.num_rows, 5)
        np.testing.assert_array_equal(batch.column(0).to_numpy(), np.arange(5, dtype=np.float32))
        self.assertIsInstance(batch.column(1).type, pa.FixedShapeTensorType)
        np.testing.assert_array_equal(batch.column(1).to_numpy_ndarray(), np.arange(10).reshape(5, 2))
        self.assertEqual(LIB.ztp_owners_alive(), 2)

    def test_exports_concatenate_with_arrays_pyarrow_built(self):
        # pyarrow's own arrays of the same types: concat demands identical types, field
        # nullability included.
        values = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
        array, schema, _ = zt_export("float32", [2, 3, 4])
        ours = pa.Array._import_from_c(ctypes.addressof(array), ctypes.addressof(schema))
        theirs = pa.FixedShapeTensorArray.from_numpy_ndarray(values)
        self.assertEqual(ours.type, theirs.type)
        joined = pa.concat_arrays([ours, theirs])
        joined.validate(full=True)
        np.testing.assert_array_equal(joined.to_numpy_ndarray(), np.concatenate([values, values]))

        array, schema, _ = zt_export("int16", [2, 3, 4], layout=1)
        ours = pa.Array._import_from_c(ctypes.addressof(array), ctypes.addressof(schema))
        theirs = pa.array(np.arange(24).reshape(2, 3, 4).tolist(), pa.list_(pa.list_(pa.int16(), 4), 3))
        self.assertEqual(ours.type, theirs.type)
        joined = pa.concat_arrays([ours, theirs])
        joined.validate(full=True)
        self.assertEqual(joined.to_pylist(), theirs.to_pylist() * 2)
        del ours, joined

    def test_record_batch_concatenates_with_a_table_pyarrow_built(self):
        array, schema = ArrowArray(), ArrowSchema()
        LIB.ztp_export_batch(5, ctypes.addressof(array), ctypes.addressof(schema))
        ours = pa.Table.from_batches([pa.RecordBatch._import_from_c(ctypes.addressof(array), ctypes.addressof(schema))])
        theirs = pa.table({"x": pa.array(np.arange(5, dtype=np.float32)),
                           "m": pa.FixedShapeTensorArray.from_numpy_ndarray(np.arange(10).reshape(5, 2))})
        self.assertEqual(ours.schema, theirs.schema)
        joined = pa.concat_tables([ours, theirs])
        joined.validate(full=True)
        self.assertEqual(joined.num_rows, 10)
        np.testing.assert_array_equal(joined.column("x").to_numpy(), np.tile(np.arange(5, dtype=np.float32), 2))
        del ours, joined

    def test_empty_tensors(self):
        for shape in ([0], [0, 3], [2, 0]):
            with self.subTest(shape):
                array, schema, _ = zt_export("float32", shape)
                arr = pa.Array._import_from_c(ctypes.addressof(array), ctypes.addressof(schema))
                arr.validate(full=True)
                self.assertEqual(len(arr), shape[0])
                if len(shape) == 2:
                    self.assertEqual(arr.type.shape, [shape[1]])
                del arr

    def test_bool_refused(self):
        with self.assertRaisesRegex(ImportError_, r"TypeError: .*bool has no Arrow type"):
            zt_export("bool", [4])


if __name__ == "__main__":
    LIB = load(sys.argv.pop(1))
    print("pyarrow", pa.__version__)
    unittest.main(verbosity=2)
