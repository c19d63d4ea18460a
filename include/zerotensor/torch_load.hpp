// zt::load_torch: the files torch.save writes (pytorch_model.bin, .pt, .pth), read without
// Python, without running anything, and without copying the tensors.
//
// A torch.save file is a zip archive of uncompressed records: <archive>/data.pkl (a pickle of
// the saved object), <archive>/data/<key> (the bytes of each storage), <archive>/byteorder.
// load_torch maps the file once (map_file), reads the zip's central directory (zip64
// included) and runs data.pkl through a pickle reader of its own that builds values and
// never calls anything; load_torch(zt::Buffer) reads a torch.save file already in memory the
// same way, its tensors views into the buffer (LoadOptions as load_options.hpp says for a
// Buffer). It accepts exactly what torch.save writes for weights:
// - opcodes of protocols 2 to 5 for dicts, lists, tuples, None, bool, int (64-bit), float,
//   str and bytes, the memo, GLOBAL / STACK_GLOBAL, REDUCE, BUILD (of a dict: the state of a
//   state_dict's OrderedDict, dropped) and BINPERSID;
// - the globals collections.OrderedDict, torch._utils._rebuild_tensor_v2, _rebuild_tensor_v3,
//   _rebuild_parameter, torch.Size, torch.device, torch.jit._pickle.restore_type_tag (with
//   which libtorch's torch::pickle_save tags a value: the value), _codecs.encode(str,
//   'latin1') (how protocol 2 writes bytes: the bytes of the str's code points, each below
//   256), the typed storage classes (torch.FloatStorage ...), torch.storage.UntypedStorage
//   and the dtypes (torch.float32 ...);
// - the metadata dict of _rebuild_tensor_v2 / _v3 holding only 'conj' and 'neg', each True or
//   False (see "Conjugate and negative bits" below);
// - persistent ids ('storage', storage class, key, location, numel), numel agreeing with the
//   size of the record data/<key>;
// - tensors of every dtype PyTorch and zerotensor share: bool, the eight signed and unsigned
//   integers up to 64 bits, float16, bfloat16, float32, float64, complex32, complex64,
//   complex128, the five float8 types and float4_e2m1fn_x2 (typed storages such as
//   torch.FloatStorage, or torch.UntypedStorage with the dtype).
// Anything else (a pickled nn.Module or custom class, another global, INST / OBJ / NEWOBJ /
// EXT*, REDUCE of a storage class or dtype) is a ValueError naming the opcode, its byte in
// data.pkl and the global. So are: a file in PyTorch's legacy (pre-1.6) format, a TorchScript
// archive (torch.jit.save), compressed records, a storage whose numel disagrees with its
// record, tensors reaching outside their storage, more than 10,000,000 objects, a stack of
// more than 1,000,000 entries, MARKs nested deeper than 1,000, values nested deeper than
// 1,000 levels or reached more often than the file references them (containers shared
// through the memo), and the quantized dtypes (qint8, quint8, qint32, quint4x2, quint2x4),
// which zerotensor does not have. Two more limits stop a small file from costing gigabytes
// through values shared by the memo (one tuple reduced to torch.Size again and again, one
// long str named under many keys); each is a multiple of
// data.pkl's size, which what torch.save writes stays far below (about 1.5x, in state dicts
// of tens of thousands of tensors):
// - what data.pkl builds: the entries of its lists, tuples and dicts (4 bytes each), the
//   shapes and strides of its tensors (8 bytes a dimension) and its text, at most 16 MiB
//   and 32 bytes per byte of data.pkl;
// - what it flattens into: the names, the values' text and the tensors' shapes and strides
//   (16 bytes a dimension) of the result, at most 64 MiB and 64 bytes per byte of data.pkl.
//
// What it returns. The saved object is flattened into names: a dict's keys joined with "."
// (a training checkpoint's "model.layer.weight"), list and tuple items by index ("0", "1"),
// int, bool and None keys as Python prints them; a bare saved tensor is named "".
// - Each tensor is an AnyTensor view of its storage's record, with the storage offset, shape
//   and strides as saved (transposed and sliced tensors are views too); tensors of one
//   storage share memory (tied weights), also when copied. Records saved from a GPU load to
//   the host, or to options.device as load_safetensors does.
// - Every other leaf goes to `values` as Python's str() of it ("10", "True", "None",
//   "torch.float32", "cuda:0", a str's own text, a bytes' own bytes), except that a float is
//   written in its shortest round-trip form (std::to_chars: 1e-05, 100000 as 1e+05). A
//   storage that is not inside a tensor is skipped. Empty dicts, lists and tuples give no names.
// Two values flattened to one name are a ValueError.
//
// Byte order: a file whose byteorder record says "big" is loaded as byte-swapped copies (a
// ValueError when options.copy is false), as load_safetensors treats foreign byte order.
//
// Conjugate and negative bits: torch.save writes tensor.conj() and views such as
// x.conj().imag as their storage's bytes, unchanged, and a bit in the metadata ({'conj': True},
// {'neg': True}) that torch.load applies. load_torch applies it to a copy of the storage, as
// it swaps a foreign byte order (a ValueError when options.copy is false or the access is
// shared; on options.device the copy is made there): conj negates the imaginary parts, neg
// every value, both the real parts; floats by their sign bit (-0.0 becomes 0.0, NaN changes
// sign), integers wrapping (int8 -128 stays -128), as torch does for conj and for the real
// dtypes but bfloat16. (torch's vectorized kernels negate complex values as 0 - x, making
// +0.0 of either zero and keeping NaN's sign, and give bfloat16 NaN as 0x7FC0, where its
// scalar ones flip the sign: their bits depend on the element's place.) The views of one storage
// with the same bits share their copy. Like torch, the conjugate bit of a tensor that is not
// complex is refused, and so is the negative bit of a dtype torch cannot negate (bool,
// uint16 to uint64, the 8-bit and packed floats).
// A sharded checkpoint (pytorch_model.bin.index.json) is read by loading each shard with
// load_torch.
#pragma once

#include "zerotensor/export.hpp"
#include "zerotensor/load_options.hpp"
#include "zerotensor/loaded_tensors.hpp"
#include "zerotensor/path_ref.hpp"

namespace zt {

/// Every tensor of a torch.save file by its flattened name (`tensors`), and its other leaves
/// as text (`values`).
using TorchFile = LoadedTensors;

/// Loads `path`, a file torch.save wrote. IOError when it cannot be opened or mapped;
/// ValueError naming what is wrong for anything the header above does not accept, and for
/// data that needs a copy which `options` forbid.
[[nodiscard]] ZT_API TorchFile load_torch(PathRef path, LoadOptions options = {});

namespace detail {
[[nodiscard]] ZT_API TorchFile load_torch_bytes(const Buffer& bytes, LoadOptions options);
}

/// The tensors and values of the torch.save file whose bytes are `bytes`, with the checks and
/// messages of load_torch(path) ("<memory>" for the path). The views point into the buffer's
/// records and share its owner, which they keep alive; access and device as load_options.hpp
/// says for a Buffer. Only a zt::Buffer selects this overload: a string still names a file.
template <detail::BufferArgument Bytes>
[[nodiscard]] TorchFile load_torch(Bytes&& bytes, LoadOptions options = {}) {
  return detail::load_torch_bytes(bytes, options);
}

}  // namespace zt
