// Arrow export: the structs a consumer owns, built in two blocks (one for the arrays, one for
// the schema), each freed when the last struct that points into it is released.
#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "vocabulary/concat.hpp"
#include "interop/dtype_formats.hpp"
#include "zerotensor/detail/checked_arithmetic.hpp"
#include "zerotensor/to_arrow.hpp"

namespace zt {
namespace {

/// Arrow's format for `dtype` (the dtype table's arrow column); empty where Arrow has none.
std::string_view arrow_format(DType dtype) { return detail::dtype_formats[std::size_t(dtype)].arrow; }

/// The memory behind exported structs. `live` counts the structs not yet released: the base
/// struct and every child (a consumer may move a child out and release it later).
template <class Struct, class Derived>
struct Block {
  std::atomic<std::int64_t> live{0};
  std::deque<Struct> nodes;  // every struct but the base; a deque keeps their addresses
  std::deque<std::vector<Struct*>> children;

  Struct& add_node() {
    ++live;
    return nodes.emplace_back();
  }

  /// The release callback of every struct of the export.
  static void release(Struct* self) noexcept {
    auto* block = static_cast<Derived*>(self->private_data);
    for (std::int64_t i = 0; i < self->n_children; ++i) {
      Struct* child = self->children[i];
      if (child->release != nullptr) child->release(child);
    }
    self->release = nullptr;
    if (--block->live == 0) delete block;
  }
};

struct ArrayBlock : Block<arrow::Array, ArrayBlock> {
  std::vector<KeepAlive> owners;  // one per exported tensor
  std::deque<std::array<const void*, 2>> buffers;
};

struct SchemaBlock : Block<arrow::Schema, SchemaBlock> {
  std::deque<std::string> strings;  // formats, names, metadata
};

/// Builds the two trees in their blocks; nothing reaches the caller's structs until the end.
class Exporter {
 public:
  Exporter() : arrays_(std::make_unique<ArrayBlock>()), schemas_(std::make_unique<SchemaBlock>()) {}

  /// Node `a`/`s` with `n_children` child slots; leaf nodes have a data buffer. Nullable
  /// by default, as pyarrow builds every type and field.
  void node(arrow::Array& a, arrow::Schema& s, std::int64_t length, const void* data, bool leaf,
            std::int64_t n_children, std::string format, std::string_view name, std::string metadata = {},
            std::int64_t flags = arrow::flag_nullable) {
    auto& buffers = arrays_->buffers.emplace_back(std::array<const void*, 2>{nullptr, data});
    auto* array_children = n_children > 0 ? arrays_->children.emplace_back(std::size_t(n_children)).data() : nullptr;
    auto* schema_children = n_children > 0 ? schemas_->children.emplace_back(std::size_t(n_children)).data() : nullptr;
    a = arrow::Array{length,       0,       0, leaf ? 2 : 1, n_children, buffers.data(), array_children, nullptr,
                     &ArrayBlock::release, static_cast<void*>(arrays_.get())};
    s = arrow::Schema{string(std::move(format)),
                      string(std::string(name)),
                      metadata.empty() ? nullptr : string(std::move(metadata)),
                      flags,
                      n_children,
                      schema_children,
                      nullptr,
                      &SchemaBlock::release,
                      static_cast<void*>(schemas_.get())};
  }

  /// Child `i` of `a`/`s`, a new node of each block.
  std::pair<arrow::Array&, arrow::Schema&> child(arrow::Array& a, arrow::Schema& s, std::int64_t i) {
    arrow::Array& array = arrays_->add_node();
    arrow::Schema& schema = schemas_->add_node();
    a.children[i] = &array;
    s.children[i] = &schema;
    return {array, schema};
  }

  /// One tensor as a column: its tree under `a`/`s`.
  void column(const AnyTensor& tensor, std::string_view name, ArrowTensorType type, arrow::Array& a,
              arrow::Schema& s) {
    arrays_->owners.push_back(tensor.owner());
    const std::string format(arrow_format(tensor.dtype()));
    const void* data = tensor.data_ptr();
    const auto shape = std::span<const index_t>(tensor.shape());
    std::int64_t length = shape[0];
    if (shape.size() == 1) return node(a, s, length, data, true, 0, format, name);
    arrow::Array* array = &a;
    arrow::Schema* schema = &s;
    std::string_view level_name = name;
    const auto descend = [&](std::int64_t size, std::string metadata) {
      node(*array, *schema, length, nullptr, false, 1, "+w:" + std::to_string(size), level_name, std::move(metadata));
      auto [child_array, child_schema] = child(*array, *schema, 0);
      array = &child_array;
      schema = &child_schema;
      level_name = "item";  // the name pyarrow and Arrow C++ give list elements
      length *= size;
    };
    if (type == ArrowTensorType::fixed_shape_tensor) {
      std::int64_t size = 1;
      std::string json = "{\"shape\":[";
      for (std::size_t d = 1; d < shape.size(); ++d) {
        if (detail::mul_overflows(size, shape[d], size))
          throw ValueError(detail::concat("to_arrow: the list size of shape ", detail::shape_string(shape),
                                          " overflows int64"));
        json += (d > 1 ? "," : "") + std::to_string(shape[d]);
      }
      descend(size, extension_metadata(json + "]}"));
    } else {
      for (std::size_t d = 1; d < shape.size(); ++d) descend(shape[d], {});
    }
    node(*array, *schema, length, data, true, 0, format, level_name);
  }

  /// Hands the trees to the caller: the base structs are written last, so a throw before
  /// this point leaves the caller's structs untouched and the blocks freed.
  void finish(const arrow::Array& a, const arrow::Schema& s, arrow::Array* out_array, arrow::Schema* out_schema) {
    ++arrays_->live;
    ++schemas_->live;
    *out_array = a;
    *out_schema = s;
    static_cast<void>(arrays_.release());
    static_cast<void>(schemas_.release());
  }

 private:
  const char* string(std::string text) { return schemas_->strings.emplace_back(std::move(text)).c_str(); }

  /// The binary key/value list of an arrow.fixed_shape_tensor field.
  static std::string extension_metadata(const std::string& json) {
    std::string out;
    const auto put_int32 = [&out](std::size_t n) {
      const auto value = std::int32_t(n);
      out.append(reinterpret_cast<const char*>(&value), sizeof value);
    };
    const auto put = [&](std::string_view text) {
      put_int32(text.size());
      out += text;
    };
    put_int32(2);
    put("ARROW:extension:name");
    put("arrow.fixed_shape_tensor");
    put("ARROW:extension:metadata");
    put(json);
    return out;
  }

  std::unique_ptr<ArrayBlock> arrays_;
  std::unique_ptr<SchemaBlock> schemas_;
};

/// The tensor as it will be exported: checked, and a contiguous copy when asked.
AnyTensor exportable(const AnyTensor& tensor, const ToArrowOptions& options, bool device_form, const char* what) {
  const auto found = [&] {
    return detail::describe(tensor.dtype(), tensor.shape(), tensor.strides(), tensor.device(), tensor.is_writable());
  };
  if (tensor.rank() == 0)
    throw ValueError(detail::concat(what, ": a 0-dim tensor (", found(), ") has no length; an Arrow array needs one"));
  if (arrow_format(tensor.dtype()).empty())
    throw TypeError(detail::concat(what, ": ", tensor.dtype(),
                                   " has no Arrow type that shares memory (Arrow's bool packs bits; Arrow has no "
                                   "bfloat16, complex, 8-bit or sub-byte floats); convert with .to(dtype) first (",
                                   found(), ")"));
  if (!device_form && !tensor.device().is_host_accessible())
    throw DeviceError(detail::concat(what, ": the tensor is on ", tensor.device(),
                                     "; an ArrowArray is host memory: export an ArrowDeviceArray"));
  if (tensor.is_contiguous()) return tensor;
  if (!options.copy)
    throw ValueError(detail::concat(what, ": the tensor (", found(),
                                    ") is not contiguous; Arrow buffers are; pass .copy = true to export a copy"));
  return tensor.clone();
}

arrow::DeviceType arrow_device(Device device) {
  switch (device.kind) {
    case DeviceKind::CUDA: return arrow::device_cuda;
    case DeviceKind::CUDAHost: return arrow::device_cuda_host;
    case DeviceKind::CUDAManaged: return arrow::device_cuda_managed;
    case DeviceKind::CPU: break;
  }
  return arrow::device_cpu;
}

void export_tensor(const AnyTensor& tensor, arrow::Array* out_array, arrow::Schema* out_schema,
                   const ToArrowOptions& options, bool device_form) {
  const AnyTensor exported = exportable(tensor, options, device_form, "to_arrow");
  Exporter exporter;
  arrow::Array a{};
  arrow::Schema s{};
  exporter.column(exported, "", options.tensor_type, a, s);
  exporter.finish(a, s, out_array, out_schema);
}

}  // namespace

void to_arrow(const AnyTensor& tensor, arrow::Array* out_array, arrow::Schema* out_schema, ToArrowOptions options) {
  export_tensor(tensor, out_array, out_schema, options, false);
}

void to_arrow(const AnyTensor& tensor, arrow::DeviceArray* out_array, arrow::Schema* out_schema,
              ToArrowOptions options) {
  export_tensor(tensor, &out_array->array, out_schema, options, true);
  out_array->device_id = tensor.device().index;
  out_array->device_type = arrow_device(tensor.device());
  out_array->sync_event = nullptr;
  std::memset(out_array->reserved, 0, sizeof out_array->reserved);
}

void to_arrow_record_batch(const RecordBatchTensors& batch, arrow::Array* out_array, arrow::Schema* out_schema,
                           ToArrowOptions options) {
  std::vector<AnyTensor> columns;
  for (const AnyTensor& column : batch.columns()) {
    columns.push_back(exportable(column, options, false, "to_arrow_record_batch"));
    if (column.size(0) != batch.columns().front().size(0))
      throw ValueError(detail::concat("to_arrow_record_batch: column \"", batch.names()[columns.size() - 1],
                                      "\" has ", column.size(0), " rows, column \"", batch.names()[0], "\" has ",
                                      batch.columns().front().size(0)));
  }
  const auto rows = columns.empty() ? std::int64_t{0} : columns.front().size(0);
  Exporter exporter;
  arrow::Array a{};
  arrow::Schema s{};
  // The record batch's own schema is not nullable, as pyarrow's RecordBatch._export_to_c writes it.
  constexpr std::int64_t not_nullable = 0;
  exporter.node(a, s, rows, nullptr, false, std::int64_t(columns.size()), "+s", "", {}, not_nullable);
  for (std::size_t c = 0; c < columns.size(); ++c) {
    auto [array, schema] = exporter.child(a, s, std::int64_t(c));
    exporter.column(columns[c], batch.names()[c], options.tensor_type, array, schema);
  }
  exporter.finish(a, s, out_array, out_schema);
}

}  // namespace zt
