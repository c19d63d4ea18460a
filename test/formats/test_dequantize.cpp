// zt::dequantize and zt::dequantize_into against the values the `gguf` package makes of random
// blocks (test/data/gguf/dequantize): float32 bit for bit, float16 and bfloat16 as those
// values rounded to nearest even; strided blocks and outputs, threads, flush-to-zero; and
// every refusal.
#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <Eigen/Core>

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>


#include "formats/gguf/dequantize_blocks.hpp"
#include "formats/gguf/ggml_types.hpp"
#include "support/file_test_support.hpp"
#include "support/flush_denormals.hpp"
#include "support/gguf_reference.hpp"
#include "support/message_check.hpp"
#include "zerotensor/any_tensor.hpp"
#include "zerotensor/dequantize.hpp"
#include "zerotensor/empty.hpp"
#include "zerotensor/error.hpp"
#include "zerotensor/frombuffer.hpp"

namespace {

using zt_test::covered_ggml_types;
using zt_test::ggml_type_named;

/// A reference file's blocks as a 1-D tensor of its block dtype, and the float32 values.
struct Reference {
  zt::AnyTensor blocks;
  std::vector<float> values;
  zt::index_t block_values;
};

Reference reference(const std::string& name) {
  const auto& type = ggml_type_named(name);
  zt_test::DequantizeReference stored = zt_test::dequantize_reference(name);
  std::vector<float> values(stored.values.size());
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = std::bit_cast<float>(stored.values[i]);
  auto bytes = std::make_shared<std::vector<std::uint8_t>>(std::move(stored.blocks));
  return {zt::frombuffer(zt::Buffer(std::move(bytes)), type.dtype), std::move(values), zt::index_t(type.block_values)};
}

/// The bits a value of `dtype` holds for the float32 value `x`: Eigen's round to nearest even.
std::uint32_t bits_as(zt::DType dtype, float x) {
  if (dtype == zt::float16) return std::bit_cast<std::uint16_t>(Eigen::half(x));
  if (dtype == zt::bfloat16) return std::bit_cast<std::uint16_t>(Eigen::bfloat16(x));
  return std::bit_cast<std::uint32_t>(x);
}

/// The bits of element `index` (in elements, along each dimension) of a float32, float16 or
/// bfloat16 tensor.
std::uint32_t bits_at(const zt::AnyTensor& t, std::initializer_list<zt::index_t> index) {
  zt::index_t offset = 0;
  std::size_t d = 0;
  for (const zt::index_t i : index) offset += i * t.strides()[d++];
  const auto* at = static_cast<const std::byte*>(t.data_ptr()) + offset * zt::index_t(t.itemsize());
  if (t.itemsize() == 2) {
    std::uint16_t bits = 0;
    std::memcpy(&bits, at, 2);
    return bits;
  }
  std::uint32_t bits = 0;
  std::memcpy(&bits, at, 4);
  return bits;
}

/// Mismatches between `got`, of shape (rows, columns) values, and the reference value
/// expected(r, c) converted to got's dtype; the first is logged.
template <class Expected>
std::size_t mismatches(const zt::AnyTensor& got, const Expected& expected) {
  std::size_t count = 0;
  for (zt::index_t r = 0; r < got.shape()[0]; ++r) {
    for (zt::index_t c = 0; c < got.shape()[1]; ++c) {
      const std::uint32_t want = bits_as(got.dtype(), expected(r, c)), have = bits_at(got, {r, c});
      if (want != have && count++ == 0)
        BOOST_TEST_MESSAGE(got.dtype() << " (" << r << ", " << c << "): got 0x" << std::hex << have << ", expected 0x"
                                       << want << std::dec);
    }
  }
  return count;
}

std::size_t subnormals(const std::vector<float>& values) {
  std::size_t count = 0;
  for (const float x : values) count += std::fpclassify(x) == FP_SUBNORMAL;
  return count;
}

const zt::DType outputs[] = {zt::float32, zt::float16, zt::bfloat16};

/// A tensor of q8_0 blocks of `shape`, their bytes unset (for the refusals).
zt::AnyTensor q8_0_blocks(std::initializer_list<zt::index_t> shape) {
  return zt::empty(std::vector<zt::index_t>(shape), zt::gguf_q8_0_);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(dequantize)

BOOST_DATA_TEST_CASE(each_decoded_type_dequantizes_to_the_reference_values_in_float32_float16_and_bfloat16,
                     boost::unit_test::data::make(covered_ggml_types), name) {
  const Reference ref = reference(name);
  const zt::index_t n = ref.blocks.numel(), rows = 4;
  const zt::AnyTensor blocks = ref.blocks.view({rows, n / rows});
  for (const zt::DType dtype : outputs) {
    const zt::AnyTensor values = zt::dequantize(blocks, dtype);
    BOOST_TEST(values.dtype() == dtype);
    BOOST_TEST(values.shape() == zt::DynamicExtents({rows, n / rows * ref.block_values}));
    BOOST_TEST(values.is_contiguous());
    const zt::index_t columns = values.shape()[1];
    const std::vector<float>& expected = ref.values;
    BOOST_TEST(mismatches(values, [&](zt::index_t r, zt::index_t c) { return expected[std::size_t(r * columns + c)]; }) == 0u,
               dtype);
  }
  BOOST_TEST(zt::dequantize(ref.blocks).shape() == zt::DynamicExtents({n * ref.block_values}));
}

BOOST_DATA_TEST_CASE(every_other_row_and_a_narrow_of_blocks_dequantize_to_their_blocks_values,
                     boost::unit_test::data::make(covered_ggml_types), name) {
  const Reference ref = reference(name);
  const zt::index_t n = ref.blocks.numel(), columns = n / 4, bv = ref.block_values;
  const zt::AnyTensor view = ref.blocks.view({4, columns}).slice(0, 0, 4, 2).narrow(1, 1, columns - 2);
  const std::vector<float>& expected = ref.values;
  for (const zt::DType dtype : outputs) {
    const zt::AnyTensor values = zt::dequantize(view, dtype);
    BOOST_TEST(values.shape() == zt::DynamicExtents({2, (columns - 2) * bv}));
    BOOST_TEST(mismatches(values, [&](zt::index_t r, zt::index_t c) {
                 return expected[std::size_t((2 * r * columns + 1) * bv + c)];
               }) == 0u,
               dtype);
  }
}

BOOST_DATA_TEST_CASE(blocks_whose_row_is_strided_dequantize_block_by_block, boost::unit_test::data::make(covered_ggml_types),
                     name) {
  // The transpose of (4, n / 4) blocks: each row's blocks are n / 4 blocks apart.
  const Reference ref = reference(name);
  const zt::index_t n = ref.blocks.numel(), columns = n / 4, bv = ref.block_values;
  const zt::AnyTensor transposed = ref.blocks.view({4, columns}).t();
  const std::vector<float>& expected = ref.values;
  for (const zt::DType dtype : outputs) {
    const zt::AnyTensor values = zt::dequantize(transposed, dtype);
    BOOST_TEST(values.shape() == zt::DynamicExtents({columns, 4 * bv}));
    BOOST_TEST(mismatches(values, [&](zt::index_t r, zt::index_t c) {
                 return expected[std::size_t((c / bv * columns + r) * bv + c % bv)];
               }) == 0u,
               dtype);
  }
}

BOOST_AUTO_TEST_CASE(dequantize_into_writes_a_transposed_output_and_a_strided_one) {
  const Reference ref = reference("q4_K");
  const zt::AnyTensor blocks = ref.blocks.view({4, 4});  // (4, 1024) values
  for (const zt::DType dtype : outputs) {
    const zt::AnyTensor transposed = zt::empty(std::vector<zt::index_t>{1024, 4}, dtype).t();
    zt::dequantize_into(blocks, transposed);
    BOOST_TEST(mismatches(transposed, [&](zt::index_t r, zt::index_t c) { return ref.values[std::size_t(r * 1024 + c)]; }) ==
                   0u,
               dtype);
    const zt::AnyTensor every_third = zt::empty(std::vector<zt::index_t>{4, 3 * 1024}, dtype).slice(1, 0, 3 * 1024, 3);
    zt::dequantize_into(blocks, every_third);
    BOOST_TEST(mismatches(every_third, [&](zt::index_t r, zt::index_t c) { return ref.values[std::size_t(r * 1024 + c)]; }) ==
                   0u,
               dtype);
  }
}

BOOST_AUTO_TEST_CASE(four_threads_give_the_values_one_thread_gives) {
  // 4096 copies of the reference blocks, each rotated by a hash of its number, so that the
  // parts of the work hold different bytes: 16 MiB of float32 values, 4 MiB for each thread.
  const Reference ref = reference("q8_0");
  const std::size_t ref_blocks = std::size_t(ref.blocks.numel()), block_bytes = ref.blocks.itemsize(), copies = 4096;
  const auto* ref_bytes = static_cast<const std::uint8_t*>(ref.blocks.data_ptr());
  const auto source_block = [&](std::size_t block) {
    const std::uint32_t copy = std::uint32_t(block / ref_blocks), rotation = (copy * 2654435761u) >> 16;
    return (block + rotation) % ref_blocks;
  };
  auto bytes = std::make_shared<std::vector<std::uint8_t>>(copies * ref_blocks * block_bytes);
  for (std::size_t block = 0; block < copies * ref_blocks; ++block)
    std::memcpy(bytes->data() + block * block_bytes, ref_bytes + source_block(block) * block_bytes, block_bytes);
  const zt::AnyTensor all = zt::frombuffer(zt::Buffer(std::move(bytes)), zt::gguf_q8_0_);
  const zt::index_t n = all.numel();
  for (const zt::AnyTensor& blocks :
       {all.view({256, n / 256}), all, all.view({512, n / 512}).slice(0, 0, 512, 2), all.view({n / 64, 64}).t()}) {
    for (const zt::DType dtype : outputs) {
      const zt::AnyTensor one = zt::dequantize(blocks, dtype, {.threads = 1});
      const zt::AnyTensor four = zt::dequantize(blocks, dtype, {.threads = 4});
      const zt::AnyTensor every_core = zt::dequantize(blocks, dtype, {.threads = 0});
      BOOST_TEST(std::memcmp(one.data_ptr(), four.data_ptr(), one.nbytes()) == 0, dtype);
      BOOST_TEST(std::memcmp(one.data_ptr(), every_core.data_ptr(), one.nbytes()) == 0, dtype);
      const zt::AnyTensor into = zt::empty(one.shape().span(), dtype);
      zt::dequantize_into(blocks, into, {.threads = 4});
      BOOST_TEST(std::memcmp(one.data_ptr(), into.data_ptr(), one.nbytes()) == 0, dtype);
    }
  }
  const zt::AnyTensor values = zt::dequantize(all.view({256, n / 256}), zt::float32, {.threads = 4});
  const auto* got = static_cast<const float*>(values.data_ptr());
  std::size_t wrong = 0;
  const auto bv = std::size_t(ref.block_values);
  for (std::size_t i = 0; i < std::size_t(values.numel()); ++i)
    wrong += std::bit_cast<std::uint32_t>(got[i]) !=
             std::bit_cast<std::uint32_t>(ref.values[source_block(i / bv) * bv + i % bv]);
  BOOST_TEST(wrong == 0u);
}

#if defined(__SSE2__)
BOOST_AUTO_TEST_CASE(subnormal_values_are_kept_with_flush_to_zero_and_denormals_are_zero_on) {
  for (const std::string name : {"mxfp4", "q8_K"}) {
    const Reference ref = reference(name);
    BOOST_TEST_REQUIRE(subnormals(ref.values) > 0u);
    const zt::AnyTensor blocks = ref.blocks.view({1, ref.blocks.numel()});
    for (const zt::DType dtype : outputs) {
      const zt::AnyTensor strided =
          zt::empty(std::vector<zt::index_t>{ref.blocks.numel() * ref.block_values, 2}, dtype).t().narrow(0, 0, 1);
      const zt::AnyTensor values = [&] {
        zt_test::FlushDenormals mode;
        zt::dequantize_into(blocks, strided);
        return zt::dequantize(blocks, dtype);
      }();
      const auto expected = [&](zt::index_t, zt::index_t c) { return ref.values[std::size_t(c)]; };
      BOOST_TEST(mismatches(values, expected) == 0u, name << " " << dtype);
      BOOST_TEST(mismatches(strided, expected) == 0u, name << " " << dtype);
    }
  }
}
#endif

BOOST_AUTO_TEST_CASE(empty_blocks_give_empty_values_of_the_values_shape) {
  const zt::AnyTensor values = zt::dequantize(q8_0_blocks({0, 3}), zt::bfloat16);
  BOOST_TEST(values.shape() == zt::DynamicExtents({0, 96}));
  BOOST_TEST(values.dtype() == zt::bfloat16);
  BOOST_CHECK_NO_THROW(zt::dequantize_into(q8_0_blocks({2, 0}), zt::empty(std::vector<zt::index_t>{2, 0}, zt::float32)));
}

BOOST_AUTO_TEST_CASE(a_tensor_of_another_dtype_is_refused_naming_it) {
  const zt::AnyTensor floats = zt::empty(std::vector<zt::index_t>{2, 32}, zt::float32);
  BOOST_CHECK_EXCEPTION((void)zt::dequantize(floats), zt::TypeError,
                        with_message<zt::TypeError>("dequantize: float32 is not a GGUF block dtype"));
  BOOST_CHECK_EXCEPTION(zt::dequantize_into(zt::empty(std::vector<zt::index_t>{2}, zt::uint8), floats), zt::TypeError,
                        with_message<zt::TypeError>("dequantize_into: uint8 is not a GGUF block dtype"));
}

BOOST_AUTO_TEST_CASE(an_output_dtype_other_than_float32_float16_and_bfloat16_is_refused_naming_it) {
  BOOST_CHECK_EXCEPTION((void)zt::dequantize(q8_0_blocks({2}), zt::float64), zt::TypeError,
                        with_message<zt::TypeError>("dequantize: GGUF blocks dequantize to float32, float16 or bfloat16, "
                                                    "not float64"));
  BOOST_CHECK_EXCEPTION(zt::dequantize_into(q8_0_blocks({2}), zt::empty(std::vector<zt::index_t>{64}, zt::int32)),
                        zt::TypeError, with_message<zt::TypeError>("float32, float16 or bfloat16, not int32"));
}

BOOST_AUTO_TEST_CASE(block_types_not_yet_decoded_are_refused_by_dtype_name_and_the_others_decode) {
  for (const auto& type : zt::detail::ggml_types) {
    if (type.block_values == 1) continue;
    const zt::AnyTensor blocks = zt::empty(std::vector<zt::index_t>{1, 2}, type.dtype);
    std::memset(blocks.mutable_data_ptr(), 0, blocks.nbytes());
    if (zt::detail::dequantizes(type.number)) {
      BOOST_TEST(zt::dequantize(blocks).numel() == 2 * zt::index_t(type.block_values), type.name);
      continue;
    }
    const std::string message = "cannot dequantize " + std::string(zt::name(type.dtype)) + " yet";
    BOOST_CHECK_EXCEPTION((void)zt::dequantize(blocks), zt::TypeError, with_message<zt::TypeError>(message));
  }
}

BOOST_AUTO_TEST_CASE(zero_dimensional_blocks_are_refused) {
  BOOST_CHECK_EXCEPTION((void)zt::dequantize(q8_0_blocks({1})[0]), zt::ValueError,
                        with_message<zt::ValueError>("dequantize: a 0-dimensional tensor of gguf_q8_0 has no innermost "
                                                     "dimension for its 32 values"));
}

BOOST_AUTO_TEST_CASE(more_values_in_a_row_than_an_index_counts_are_refused) {
  const zt::AnyTensor expanded = q8_0_blocks({1}).expand({zt::index_t(1) << 60});
  BOOST_CHECK_EXCEPTION((void)zt::dequantize(expanded), zt::ValueError,
                        with_message<zt::ValueError>("dequantize: 1152921504606846976 blocks of 32 values are more "
                                                     "values than an index can count"));
}

BOOST_AUTO_TEST_CASE(an_output_of_another_shape_is_refused_naming_both_shapes) {
  BOOST_CHECK_EXCEPTION(zt::dequantize_into(q8_0_blocks({2, 3}), zt::empty(std::vector<zt::index_t>{2, 95}, zt::float32)),
                        zt::ValueError,
                        with_message<zt::ValueError>("dequantize_into: gguf_q8_0 blocks of shape (2, 3) hold values of "
                                                     "shape (2, 96); the output has shape (2, 95)"));
  BOOST_CHECK_EXCEPTION(zt::dequantize_into(q8_0_blocks({2, 3}), zt::empty(std::vector<zt::index_t>{96, 2}, zt::float32)),
                        zt::ValueError, with_message<zt::ValueError>("the output has shape (96, 2)"));
}

BOOST_AUTO_TEST_CASE(a_read_only_output_is_refused) {
  const std::vector<float> memory(64);
  const zt::AnyTensor read_only = zt::frombuffer(zt::Buffer(memory.data(), memory.size() * 4), zt::float32);
  BOOST_CHECK_EXCEPTION(zt::dequantize_into(q8_0_blocks({2}), read_only), zt::TypeError,
                        with_message<zt::TypeError>("dequantize_into: the tensor's memory is read-only"));
}

BOOST_AUTO_TEST_CASE(device_memory_is_refused_for_the_blocks_and_the_output) {
  std::vector<std::uint8_t> block_bytes(2 * 34);
  std::vector<float> floats(64);
  const zt::index_t two[] = {2}, one[] = {1}, sixty_four[] = {64};
  const zt::AnyTensor device_blocks(reinterpret_cast<const zt::gguf_q8_0*>(block_bytes.data()), two, one, {}, zt::cuda(1));
  const zt::AnyTensor device_out(floats.data(), sixty_four, one, {}, zt::cuda(1));
  const auto names_cuda = [](const std::string& operation) {
    return with_message<zt::DeviceError>(operation + ": the memory is on cuda:1, which the host cannot access");
  };
  BOOST_CHECK_EXCEPTION((void)zt::dequantize(device_blocks), zt::DeviceError, names_cuda("dequantize"));
  BOOST_CHECK_EXCEPTION(zt::dequantize_into(device_blocks, zt::empty(sixty_four, zt::float32)), zt::DeviceError,
                        names_cuda("dequantize_into"));
  BOOST_CHECK_EXCEPTION(zt::dequantize_into(q8_0_blocks({2}), device_out), zt::DeviceError,
                        names_cuda("dequantize_into"));
}

BOOST_AUTO_TEST_CASE(an_output_that_overlaps_the_blocks_or_itself_is_refused) {
  const zt::AnyTensor bytes = zt::empty(std::vector<zt::index_t>{1024}, zt::float32);
  const zt::AnyTensor blocks = zt::frombuffer(zt::Buffer(bytes.mutable_data_ptr(), 2 * 34), zt::gguf_q8_0_);
  BOOST_CHECK_EXCEPTION(zt::dequantize_into(blocks, bytes.narrow(0, 0, 64)), zt::ValueError,
                        with_message<zt::ValueError>("dequantize_into: the output shares memory with the blocks"));
  const zt::AnyTensor one_row = zt::empty(std::vector<zt::index_t>{1, 64}, zt::float32);
  BOOST_CHECK_EXCEPTION(zt::dequantize_into(q8_0_blocks({3, 2}), one_row.expand({3, 64})), zt::ValueError,
                        with_message<zt::ValueError>("dequantize_into: unsupported operation: more than one element of "
                                                     "the written-to tensor refers to a single memory location "
                                                     "(dimension 0 has extent 3 and stride 0)"));
}

BOOST_AUTO_TEST_SUITE_END()
