// zt::to_arrow: a tensor exported through the Arrow C (Device) Data Interface for pyarrow
// (pa.Array._import_from_c), Arrow C++ (ImportArray), Polars, DuckDB or nanoarrow to share
// without a copy.
//
// Ownership: the caller passes structs to fill (pyarrow's and Arrow C++'s convention) and
// becomes their owner: it must call `release` on each, once. The array shares the tensor's
// keep-alive owner (a reference-count bump), so the memory outlives the tensor until the
// array and every child a consumer moved out of it are released. The schema owns its
// strings alone. A tensor that borrows its memory (empty owner) exports a borrow: the memory
// must outlive the consumer's use, as it must outlive the tensor.
//
// What is written (the inverse of from_arrow's table):
//   1-D contiguous, int8…uint64, float16/32/64  → primitive array ("c" … "g"), length shape[0]
//   N-D contiguous                              → arrow.fixed_shape_tensor, shape shape[1:], of
//                                                 length shape[0] (storage FixedSizeList<T, Π shape[1:]>),
//                                                 or nested FixedSizeLists when asked
// No validity bitmap (null_count 0), offset 0, buffers pointing at the tensor's elements.
//
// Read-only: Arrow has no read-only flag because Arrow memory is immutable by contract —
// consumers never write it — so read-only tensors export as they are. Writing to a tensor
// while a consumer holds its export breaks that contract, as it would in Arrow itself.
//
// Refused: a 0-dim tensor (an array needs a length: ValueError); bool (Arrow packs bits),
// bfloat16 and complex (no Arrow type): TypeError; a non-contiguous tensor: ValueError
// unless `copy` exports a contiguous copy; CUDA device memory through the plain ArrowArray,
// which is host memory by contract (DeviceError: use the ArrowDeviceArray form).
#pragma once

#include <cstdint>

#include "zerotensor/any_tensor.hpp"
#include "zerotensor/arrow.hpp"
#include "zerotensor/export.hpp"
#include "zerotensor/from_arrow.hpp"

namespace zt {

/// How a tensor of rank ≥ 2 is typed in Arrow.
enum class ArrowTensorType : std::uint8_t {
  fixed_shape_tensor,  ///< the canonical extension over FixedSizeList<T, Π shape[1:]>
  fixed_size_list,     ///< FixedSizeList<FixedSizeList<T, shape[2]>, shape[1]>, one level per dimension
};

struct ToArrowOptions {
  ArrowTensorType tensor_type = ArrowTensorType::fixed_shape_tensor;
  /// false: a non-contiguous tensor is a ValueError; true: it is exported as a contiguous copy.
  bool copy = false;
};

/// Fills `out_array` and `out_schema` (their previous contents are overwritten, not released).
/// Throws before writing anything.
ZT_API void to_arrow(const AnyTensor& tensor, arrow::Array* out_array, arrow::Schema* out_schema,
                     ToArrowOptions options = {});

/// The device form: any device zerotensor knows (CPU, CUDA, CUDA host, CUDA managed); the
/// tensor's memory is ready, so sync_event is NULL.
ZT_API void to_arrow(const AnyTensor& tensor, arrow::DeviceArray* out_array, arrow::Schema* out_schema,
                     ToArrowOptions options = {});

/// A record batch (pa.RecordBatch._import_from_c): a struct array with one column per tensor,
/// named by `batch.names()`; every column needs the same shape[0] (ValueError otherwise).
ZT_API void to_arrow_record_batch(const RecordBatchTensors& batch, arrow::Array* out_array, arrow::Schema* out_schema,
                                  ToArrowOptions options = {});

}  // namespace zt
