// The C ABI that test/arrow/pyarrow_check.py drives through ctypes: zerotensor's Arrow import
// and export, with handles Python can hold, and a count of live exported owners.
#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "zerotensor/empty.hpp"
#include "zerotensor/from_arrow.hpp"
#include "zerotensor/shape.hpp"
#include "zerotensor/to_arrow.hpp"

namespace {

std::atomic<std::int64_t> owners_alive{0};

void copy_message(const std::exception& e, char* error, std::size_t size) {
  const char* kind = dynamic_cast<const zt::TypeError*>(&e)     ? "TypeError"
                     : dynamic_cast<const zt::ValueError*>(&e)  ? "ValueError"
                     : dynamic_cast<const zt::DeviceError*>(&e) ? "DeviceError"
                                                                : "Error";
  const std::string text = std::string(kind) + ": " + e.what();
  std::strncpy(error, text.c_str(), size - 1);
  error[size - 1] = '\0';
}

zt::FromArrowOptions options(int copy, int has_fill, double fill) {
  zt::FromArrowOptions o;
  if (copy >= 0) o.copy = copy != 0;
  if (has_fill != 0) o.fill_nulls = fill;
  return o;
}

/// A float tensor 0, 1, 2, ... converted to `dtype`, whose memory is counted in owners_alive.
zt::AnyTensor counted_tensor(const char* dtype_name, const std::int64_t* shape, int rank) {
  const std::vector<zt::index_t> extents(shape, shape + rank);
  zt::AnyTensor values = zt::empty(extents, zt::float64);
  auto* v = static_cast<double*>(values.mutable_data_ptr());
  for (zt::index_t i = 0; i < values.numel(); ++i) v[i] = double(i % 100);
  zt::DType dtype = zt::float64;
  for (zt::DType d : zt::all_dtypes)
    if (zt::name(d) == dtype_name) dtype = d;
  zt::AnyTensor converted = values.to(dtype);
  ++owners_alive;
  auto counted = std::shared_ptr<const void>(new zt::AnyTensor(converted), [](const zt::AnyTensor* t) {
    --owners_alive;
    delete t;
  });
  return zt::detail::make_view(dtype, const_cast<void*>(converted.data_ptr()), converted.shape(),
                               converted.strides(), std::move(counted), zt::cpu, true);
}

}  // namespace

extern "C" {

/// from_arrow; `device` != 0 reads an ArrowDeviceArray. Returns a handle, or NULL with `error` set.
void* ztp_import(void* array, void* schema, int device, int copy, int has_fill, double fill, char* error,
                 std::size_t size) {
  try {
    const auto o = options(copy, has_fill, fill);
    auto* s = static_cast<zt::arrow::Schema*>(schema);
    return new zt::AnyTensor(device != 0 ? zt::from_arrow(static_cast<zt::arrow::DeviceArray*>(array), s, o)
                                         : zt::from_arrow(static_cast<zt::arrow::Array*>(array), s, o));
  } catch (const std::exception& e) {
    copy_message(e, error, size);
    return nullptr;
  }
}

/// from_arrow_record_batch: a handle to the columns, or NULL with `error` set.
void* ztp_import_batch(void* array, void* schema, char* error, std::size_t size) {
  try {
    return new zt::RecordBatchTensors(zt::from_arrow_record_batch(static_cast<zt::arrow::Array*>(array),
                                                                  static_cast<zt::arrow::Schema*>(schema)));
  } catch (const std::exception& e) {
    copy_message(e, error, size);
    return nullptr;
  }
}

int ztp_batch_size(void* batch) { return int(static_cast<zt::RecordBatchTensors*>(batch)->size()); }

/// Column `i` as a tensor handle; its name into `name`.
void* ztp_batch_column(void* batch, int i, char* name, std::size_t size) {
  auto* b = static_cast<zt::RecordBatchTensors*>(batch);
  std::strncpy(name, b->names()[std::size_t(i)].c_str(), size - 1);
  name[size - 1] = '\0';
  return new zt::AnyTensor(b->columns()[std::size_t(i)]);
}

void* ztp_batch_stack(void* batch) { return new zt::AnyTensor(static_cast<zt::RecordBatchTensors*>(batch)->stack()); }

void ztp_free_batch(void* batch) { delete static_cast<zt::RecordBatchTensors*>(batch); }

/// dtype name, rank, shape, strides (elements), data address, writability, device kind and index.
int ztp_info(void* tensor, char* dtype, std::size_t size, std::int64_t* shape, std::int64_t* strides,
             std::uintptr_t* data, int* writable, int* device) {
  const auto* t = static_cast<zt::AnyTensor*>(tensor);
  std::strncpy(dtype, std::string(zt::name(t->dtype())).c_str(), size - 1);
  for (std::size_t d = 0; d < t->rank(); ++d) {
    shape[d] = t->size(d);
    strides[d] = t->stride(d);
  }
  *data = reinterpret_cast<std::uintptr_t>(t->data_ptr());
  *writable = t->is_writable() ? 1 : 0;
  device[0] = int(t->device().kind);
  device[1] = t->device().index;
  return int(t->rank());
}

/// Every element in C order, as double (host tensors).
void ztp_values(void* tensor, double* out) {
  const zt::AnyTensor converted = static_cast<zt::AnyTensor*>(tensor)->to(zt::float64);
  const zt::AnyTensor flat = converted.is_contiguous() ? converted : converted.clone();
  std::memcpy(out, flat.data_ptr(), flat.nbytes());
}

void ztp_free(void* tensor) { delete static_cast<zt::AnyTensor*>(tensor); }

/// to_arrow of a new counted tensor (values i % 100); `layout` 1 asks for nested lists,
/// `transposed` exports its 2-D transpose with copy = true. Returns the tensor's data
/// address (the copy's source when transposed), or 0 with `error` set.
std::uintptr_t ztp_export(const char* dtype, const std::int64_t* shape, int rank, int layout, int transposed,
                          void* array, void* schema, char* error, std::size_t size) {
  try {
    zt::AnyTensor t = counted_tensor(dtype, shape, rank);
    zt::ToArrowOptions o{.tensor_type = layout == 1 ? zt::ArrowTensorType::fixed_size_list
                                                     : zt::ArrowTensorType::fixed_shape_tensor};
    if (transposed != 0) {
      const std::array<zt::index_t, 2> tshape = {t.size(1), t.size(0)}, tstrides = {t.stride(1), t.stride(0)};
      t = zt::detail::make_view(t.dtype(), const_cast<void*>(t.data_ptr()), tshape, tstrides, zt::KeepAlive(t.owner()),
                                zt::cpu, true);
      o.copy = true;
    }
    zt::to_arrow(t, static_cast<zt::arrow::Array*>(array), static_cast<zt::arrow::Schema*>(schema), o);
    return reinterpret_cast<std::uintptr_t>(t.data_ptr());
  } catch (const std::exception& e) {
    copy_message(e, error, size);
    return 0;
  }
}

/// to_arrow_record_batch of columns "x" (float32, rows) and "m" (int64, rows x 2).
void ztp_export_batch(std::int64_t rows, void* array, void* schema) {
  const std::int64_t shape[2] = {rows, 2};
  zt::RecordBatchTensors batch{{"x", "m"}, {counted_tensor("float32", shape, 1), counted_tensor("int64", shape, 2)}};
  zt::to_arrow_record_batch(batch, static_cast<zt::arrow::Array*>(array), static_cast<zt::arrow::Schema*>(schema));
}

std::int64_t ztp_owners_alive() { return owners_alive.load(); }

/// The README's pyarrow → C++ → Eigen example, as printed there.
void centroid(zt::arrow::Array* array, zt::arrow::Schema* schema, float* out) {
  zt::AnyTensor points = zt::from_arrow(array, schema);   // (1000, 3) float32 over pyarrow's buffer, read-only
  Eigen::RowVector3f c = points.as<const float, 2>().row_major_matrix().colwise().mean();
  std::copy_n(c.data(), 3, out);
}  // the last view dies: pyarrow's release runs, exactly once

}  // extern "C"
