// zt::dequantize / zt::dequantize_into: the row walk over a strided tensor of GGUF blocks and
// its output; the blocks of a row are decoded by detail::dequantize_blocks, whole contiguous
// runs at a time, and float16 and bfloat16 come from the float32 values by the copies'
// converters (round to nearest even, subnormals kept).
#include "zerotensor/dequantize.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "conversion/convert_kernels.hpp"
#include "conversion/host_threads.hpp"
#include "formats/gguf/dequantize_blocks.hpp"
#include "formats/gguf/ggml_types.hpp"
#include "views/strided_walk.hpp"
#include "vocabulary/concat.hpp"
#include "zerotensor/empty.hpp"
#include "zerotensor/shares_memory.hpp"

namespace zt {
namespace {

/// Values are decoded and converted this many at a time where they cannot go straight into
/// the output (strided blocks or output, float16 or bfloat16).
constexpr index_t chunk_values = 4096;

// A chunk's blocks fit in 2 bytes per value: no block type takes more (Q8_1: 36 bytes for 32).
constexpr std::size_t chunk_block_bytes = 2 * chunk_values;
static_assert(std::ranges::all_of(detail::ggml_types, [](const detail::GgmlType& type) {
  return type.block_values == 1 || (type.block_bytes() <= 2 * type.block_values && type.block_values <= chunk_values);
}));

/// The ggml type whose blocks are `blocks`' elements, after the checks both functions make
/// of the blocks (see dequantize.hpp).
const detail::GgmlType& checked_block_type(const char* operation, const AnyTensor& blocks) {
  const DType dtype = blocks.dtype();
  const auto found = std::ranges::find(detail::ggml_types, dtype, &detail::GgmlType::dtype);
  if (!is_gguf_block(dtype) || found == detail::ggml_types.end())
    throw TypeError(detail::concat(operation, ": ", dtype, " is not a GGUF block dtype (gguf_q4_0 ... gguf_q2_0)"));
  if (blocks.rank() == 0)
    throw ValueError(detail::concat(operation, ": a 0-dimensional tensor of ", dtype, " has no innermost dimension for its ",
                                    found->block_values, " values; unsqueeze(0) it first"));
  if (!blocks.device().is_host_accessible()) detail::throw_not_host_accessible(operation, blocks.device());
  return *found;
}

void check_output_dtype(const char* operation, DType dtype) {
  if (dtype != float32 && dtype != float16 && dtype != bfloat16)
    throw TypeError(detail::concat(operation, ": GGUF blocks dequantize to float32, float16 or bfloat16, not ", dtype));
}

/// The shape of the values of `blocks`: the last extent times the values per block.
DynamicExtents values_shape(const char* operation, const AnyTensor& blocks, const detail::GgmlType& type) {
  DynamicExtents shape = blocks.shape();
  const index_t count = shape[shape.size() - 1];
  if (detail::mul_overflows(count, index_t(type.block_values), shape[shape.size() - 1]))
    throw ValueError(detail::concat(operation, ": ", count, " blocks of ", type.block_values,
                                    " values are more values than an index can count"));
  return shape;
}

/// One dequantize_into after its checks: the block type, and the output's element.
struct Decode {
  std::uint32_t type;
  index_t block_bytes, block_values;
  index_t out_size;                      // bytes of an output element
  detail::ContiguousConverter convert;   // float32 to the output's dtype; nullptr for float32
};

/// `count` values from `from` to `to`, `step` elements apart, elements of type T.
template <class T>
void scatter(const void* from, std::byte* to, index_t step, index_t count) {
  const auto* in = static_cast<const T*>(from);
  auto* out = reinterpret_cast<T*>(to);
  for (index_t i = 0; i < count; ++i) out[i * step] = in[i];
}

/// Decodes `count` blocks, `in_step` blocks apart from `in`, into their values, `out_step`
/// output elements apart from `out`.
void decode_row(const Decode& job, const std::byte* in, index_t in_step, std::byte* out, index_t out_step,
                index_t count) {
  const auto blocks_of = [&](const std::byte* first, index_t n) { return std::span(first, std::size_t(n * job.block_bytes)); };
  if (in_step == 1 && out_step == 1 && job.convert == nullptr) {
    detail::dequantize_blocks(job.type, blocks_of(in, count),
                              std::span(reinterpret_cast<float*>(out), std::size_t(count * job.block_values)));
    return;
  }
  alignas(64) float values[chunk_values];
  alignas(64) std::byte bytes[chunk_block_bytes];  // gathered blocks, or converted values
  const index_t chunk_blocks = chunk_values / job.block_values;
  for (index_t first = 0; first < count; first += chunk_blocks) {
    const index_t n = std::min(chunk_blocks, count - first), n_values = n * job.block_values;
    const std::byte* blocks = in + first * in_step * job.block_bytes;
    if (in_step != 1) {
      for (index_t b = 0; b < n; ++b)
        std::memcpy(bytes + b * job.block_bytes, blocks + b * in_step * job.block_bytes, std::size_t(job.block_bytes));
      blocks = bytes;
    }
    std::byte* to = out + first * job.block_values * out_step * job.out_size;
    const bool straight = out_step == 1 && job.convert == nullptr;
    float* decoded = straight ? reinterpret_cast<float*>(to) : values;
    detail::dequantize_blocks(job.type, blocks_of(blocks, n), std::span(decoded, std::size_t(n_values)));
    if (straight) continue;
    if (out_step == 1) {
      job.convert(values, to, n_values);
      continue;
    }
    if (job.convert == nullptr) {
      scatter<float>(values, to, out_step, n_values);
      continue;
    }
    job.convert(values, bytes, n_values);  // 2 bytes a value: fits where the blocks were
    scatter<std::uint16_t>(bytes, to, out_step, n_values);
  }
}

/// decode_row of `count` blocks, split into parts on up to `threads` threads.
void decode_row_in_parts(const Decode& job, const std::byte* in, index_t in_step, std::byte* out, index_t out_step,
                         index_t count, unsigned threads) {
  detail::run_in_parts(count, threads, [&](index_t first, index_t n) {
    decode_row(job, in + first * in_step * job.block_bytes, in_step,
               out + first * job.block_values * out_step * job.out_size, out_step, n);
  });
}

/// Decodes `blocks` into `out` (checked: same values shape, no overlap) on up to `threads`
/// threads: the rows of blocks are walked over their other dimensions coalesced in the
/// output's memory order, the outermost split into parts; a tensor of one row, or contiguous
/// blocks into a contiguous output (one row however shaped), splits the row.
void decode_rows(const Decode& job, const AnyTensor& blocks, const AnyTensor& out, unsigned threads) {
  const std::size_t outer_rank = blocks.rank() - 1;
  const auto* in = static_cast<const std::byte*>(blocks.data_ptr());
  auto* to = static_cast<std::byte*>(out.mutable_data_ptr());
  if (blocks.is_contiguous() && out.is_contiguous()) return decode_row_in_parts(job, in, 1, to, 1, blocks.numel(), threads);
  const index_t row_blocks = blocks.shape()[outer_rank];
  const index_t in_step = blocks.strides()[outer_rank], out_step = out.strides()[outer_rank];
  const detail::CoalescedLayout<2> layout = detail::coalesce<2>(
      blocks.shape().span().first(outer_rank),
      {out.strides().span().first(outer_rank), blocks.strides().span().first(outer_rank)});
  const std::size_t rank = layout.shape.size();
  if (rank == 0) return decode_row_in_parts(job, in, in_step, to, out_step, row_blocks, threads);
  const index_t in_row_step = layout.strides[1][rank - 1], out_row_step = layout.strides[0][rank - 1];
  detail::run_in_parts(layout.shape[0], threads, [&](index_t first, index_t count) {
    DynamicExtents part = layout.shape;
    part[0] = count;
    const std::byte* part_in = in + first * layout.strides[1][0] * job.block_bytes;
    std::byte* part_out = to + first * layout.strides[0][0] * job.out_size;
    detail::for_each_row<2>(part.span(), {layout.strides[0].span(), layout.strides[1].span()},
                            [&](const std::array<index_t, 2>& offsets, index_t rows, std::span<const index_t>) {
                              for (index_t r = 0; r < rows; ++r)
                                decode_row(job, part_in + (offsets[1] + r * in_row_step) * job.block_bytes, in_step,
                                           part_out + (offsets[0] + r * out_row_step) * job.out_size, out_step,
                                           row_blocks);
                            });
  });
}

/// dequantize_into once every check is made.
void decode_checked(const detail::GgmlType& type, const AnyTensor& blocks, const AnyTensor& out, ToOptions options) {
  if (out.numel() == 0) return;
  const Decode job{type.number, index_t(type.block_bytes()), index_t(type.block_values), index_t(out.itemsize()),
                   out.dtype() == float32 ? nullptr : detail::contiguous_converter(float32, out.dtype())};
  // Threads write disjoint parts only where the output's elements are distinct.
  unsigned threads = detail::host_copy_threads(out.nbytes(), options.threads);
  if (threads > 1 && !detail::provably_distinct_elements(out)) threads = 1;
  decode_rows(job, blocks, out, threads);
}

}  // namespace

AnyTensor dequantize(const AnyTensor& blocks, DType dtype, ToOptions options) {
  const detail::GgmlType& type = checked_block_type("dequantize", blocks);
  check_output_dtype("dequantize", dtype);
  const AnyTensor out = empty(values_shape("dequantize", blocks, type), dtype);
  decode_checked(type, blocks, out, options);
  return out;
}

void dequantize_into(const AnyTensor& blocks, const AnyTensor& out, ToOptions options) {
  constexpr const char* operation = "dequantize_into";
  const detail::GgmlType& type = checked_block_type(operation, blocks);
  check_output_dtype(operation, out.dtype());
  const DynamicExtents shape = values_shape(operation, blocks, type);
  if (out.shape() != shape)
    throw ValueError(detail::concat(operation, ": ", blocks.dtype(), " blocks of shape ", detail::shape_string(blocks.shape()),
                                    " hold values of shape ", detail::shape_string(shape), "; the output has shape ",
                                    detail::shape_string(out.shape())));
  if (!out.is_writable()) detail::throw_read_only(operation);
  if (!out.device().is_host_accessible()) detail::throw_not_host_accessible(operation, out.device());
  if (out.numel() == 0) return;
  detail::refuse_internal_overlap(operation, out);
  if (shares_memory(blocks, out))
    throw ValueError(detail::concat(operation, ": the output shares memory with the blocks; dequantize into other memory"));
  decode_checked(type, blocks, out, options);
}

}  // namespace zt
