// Seeded random round trips (property_support.hpp says what is generated and how to
// reproduce a case): every random view goes through DLPack (both exports and a hand-built
// descriptor), Arrow, .npy, .safetensors and from_file, and comes back with its dtype, its
// shape and every element's bytes (bitwise, so NaNs compare); imports that promise no copy
// share the source's memory, and file views share the file's.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "support/file_test_support.hpp"
#include "support/property_support.hpp"
#include "zerotensor/from_arrow.hpp"
#include "zerotensor/from_dlpack.hpp"
#include "zerotensor/from_file.hpp"
#include "zerotensor/npy.hpp"
#include "zerotensor/safetensors.hpp"
#include "zerotensor/shares_memory.hpp"
#include "zerotensor/to_arrow.hpp"
#include "zerotensor/to_dlpack.hpp"

namespace tt = boost::test_tools;
using namespace zt_test;
using zt::AnyTensor;
using zt::DType;

namespace {

/// Cases per suite: the file suites' time is mostly the saves' fsync, so they run fewer.
constexpr int memory_cases = 1000;
constexpr int file_cases = 100;

/// Runs `check(source, rng)` on a random view of a random dtype for each case; every failure,
/// an escaped exception included, names the seed, the case and the view.
template <class Check>
void for_each_case(int default_cases, Check&& check) {
  const std::uint64_t seed = property_seed();
  const int cases = property_cases(default_cases);
  for (int c = 0; c < cases; ++c) {
    std::mt19937_64 rng = case_rng(seed, c);
    Source source = random_source(rng, random_dtype(rng));
    BOOST_TEST_CONTEXT("ZT_PROPERTY_SEED=" << seed << " case " << c << ": " << source.description) {
      try {
        check(source, rng);
      } catch (const std::exception& e) {
        BOOST_ERROR("threw " << e.what());
      }
    }
  }
}

/// The source's own references go: whatever still reads its memory must keep it alive.
void drop(Source& source) { [[maybe_unused]] const Source gone = std::move(source); }

std::vector<index_t> vector_of(const zt::DynamicExtents& extents) { return {extents.begin(), extents.end()}; }

/// `got` has `dtype`, `shape` and the elements whose C-order bytes are `want`.
void check_elements(const AnyTensor& got, DType dtype, const std::vector<index_t>& shape,
                    const std::vector<std::byte>& want) {
  BOOST_TEST(got.dtype() == dtype);
  BOOST_TEST(vector_of(got.shape()) == shape, tt::per_element());
  if (got.dtype() != dtype || vector_of(got.shape()) != shape) return;
  const index_t bad = first_difference(c_order_bytes(got), want, zt::itemsize(dtype));
  BOOST_TEST(bad == -1, "element " << bad << " (C order) differs; got " << describe(got));
}

/// `got` is `source` itself: same address, shape, strides and elements.
void check_same_view(const AnyTensor& got, const AnyTensor& source, bool writable) {
  check_elements(got, source.dtype(), vector_of(source.shape()), c_order_bytes(source));
  BOOST_TEST(vector_of(got.strides()) == vector_of(source.strides()), tt::per_element());
  BOOST_TEST(got.is_writable() == writable);
  BOOST_TEST(zt::shares_memory(got, source) == (source.numel() > 0));
  if (source.numel() > 0) BOOST_TEST(got.data_ptr() == source.data_ptr());
}

/// Changes the first element (C order) of a writable view in place, keeping Bool bytes 0/1.
void flip_first(const AnyTensor& view, std::vector<std::byte>& expected) {
  const std::byte mask = view.dtype() == zt::bool_ ? std::byte{1} : std::byte{0xFF};
  *static_cast<std::byte*>(view.mutable_data_ptr()) ^= mask;
  expected[0] ^= mask;
}

}  // namespace

// ---- DLPack -------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(dlpack_exports_import_as_the_same_view) {
  for_each_case(memory_cases, [](Source& source, std::mt19937_64&) {
    const AnyTensor& t = source.tensor;
    const std::vector<std::byte> want = c_order_bytes(t);
    const std::vector<index_t> shape = vector_of(t.shape());
    const AnyTensor versioned = zt::from_dlpack(zt::to_dlpack(t));
    check_same_view(versioned, t, t.is_writable());
    if (t.is_writable()) {
      check_same_view(zt::from_dlpack(zt::to_dlpack_legacy(t)), t, true);
    } else {
      BOOST_CHECK_EXCEPTION(static_cast<void>(zt::to_dlpack_legacy(t)), zt::TypeError,
                            with_message<zt::TypeError>("a legacy DLManagedTensor cannot mark memory read-only"));
    }
    drop(source);
    check_elements(versioned, versioned.dtype(), shape, want);
  });
}

namespace {

/// A producer's managed tensor over the source's buffer; its deleter counts calls.
template <class M>
struct Produced {
  M managed{};
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> strides;
  int* calls = nullptr;

  static void deleter(M* self) {
    auto* produced = static_cast<Produced*>(self->manager_ctx);
    ++*produced->calls;
    delete produced;
  }
};

/// DLPack's code, bits and lanes for `dtype`, as dlpack.h 1.1 and PyTorch's exporter give them.
zt::dlpack::DataType dlpack_type(DType dtype) {
  using zt::dlpack::TypeCode;
  const auto bits = std::uint8_t(8 * zt::itemsize(dtype));
  const auto of = [](TypeCode code, std::uint8_t width, std::uint16_t lanes = 1) {
    return zt::dlpack::DataType{std::uint8_t(code), width, lanes};
  };
  switch (dtype) {
    case zt::bool_: return of(TypeCode::Bool, 8);
    case zt::bfloat16: return of(TypeCode::Bfloat, 16);
    case zt::float8_e4m3fn_: return of(TypeCode::Float8_e4m3fn, 8);
    case zt::float8_e5m2_: return of(TypeCode::Float8_e5m2, 8);
    case zt::float8_e4m3fnuz_: return of(TypeCode::Float8_e4m3fnuz, 8);
    case zt::float8_e5m2fnuz_: return of(TypeCode::Float8_e5m2fnuz, 8);
    case zt::float8_e8m0fnu_: return of(TypeCode::Float8_e8m0fnu, 8);
    case zt::float4_e2m1fn_x2_: return of(TypeCode::Float4_e2m1fn, 4, 2);
    case zt::float6_e2m3fn_x4_: return of(TypeCode::Float6_e2m3fn, 6, 4);
    case zt::float6_e3m2fn_x4_: return of(TypeCode::Float6_e3m2fn, 6, 4);
    default: break;
  }
  if (zt::is_complex(dtype)) return of(TypeCode::Complex, bits);
  if (zt::is_floating_point(dtype)) return of(TypeCode::Float, bits);
  return of(zt::is_signed_integer(dtype) ? TypeCode::Int : TypeCode::UInt, bits);
}

/// Describes `source` the way a producer may: data at the buffer's start with a byte_offset
/// or at the first element, NULL strides for C order, read-only when the source is.
template <class M>
M* produce(const Source& source, std::mt19937_64& rng, int* calls) {
  auto* produced = new Produced<M>{{}, source.layout.shape, source.layout.strides, calls};
  auto& t = produced->managed.dl_tensor;
  const std::size_t size = source.tensor.itemsize();
  const bool with_offset = chance(rng, 0.5);
  t.data = with_offset ? static_cast<void*>(source.storage->data()) : const_cast<void*>(source.tensor.data_ptr());
  t.byte_offset = with_offset ? std::uint64_t(source.offset) * size : 0;
  t.device = {zt::dlpack::DeviceType::CPU, 0};
  t.ndim = std::int32_t(produced->shape.size());
  t.dtype = dlpack_type(source.tensor.dtype());
  t.shape = produced->shape.data();
  const bool c_order = produced->strides == c_order_strides(produced->shape);
  t.strides = c_order && chance(rng, 0.5) ? nullptr : produced->strides.data();
  produced->managed.manager_ctx = produced;
  produced->managed.deleter = &Produced<M>::deleter;
  if constexpr (zt::dlpack::VersionedManagedTensorLayout<M>) {
    produced->managed.version = {zt::dlpack::major_version, zt::dlpack::minor_version};
    produced->managed.flags = source.tensor.is_writable() ? 0 : zt::dlpack::flag_read_only;
  }
  return &produced->managed;
}

}  // namespace

BOOST_AUTO_TEST_CASE(hand_built_dlpack_descriptors_import_as_the_view_they_describe) {
  for_each_case(memory_cases, [](Source& source, std::mt19937_64& rng) {
    int calls = 0;
    const bool versioned = chance(rng, 0.5);
    {
      const AnyTensor view = versioned
                                 ? zt::from_dlpack(produce<zt::dlpack::ManagedTensorVersioned>(source, rng, &calls))
                                 : zt::from_dlpack(produce<zt::dlpack::ManagedTensor>(source, rng, &calls));
      check_same_view(view, source.tensor, !versioned || source.tensor.is_writable());
      BOOST_TEST(calls == 0);
    }
    BOOST_TEST(calls == 1);
  });
}

namespace {

// ---- Arrow --------------------------------------------------------------------------------

bool has_arrow_type(DType dtype) {
  return dtype != zt::bool_ && dtype != zt::bfloat16 && !zt::is_complex(dtype) && !zt::is_float8(dtype) &&
         !zt::is_packed(dtype);
}

/// Rows [begin, end) of an array: what a consumer's slice sets in the top-level struct.
struct Rows {
  index_t begin = 0;
  index_t end = 0;
};

/// to_arrow into the plain or the device form, sliced to `rows`, then from_arrow, which takes
/// both structs.
AnyTensor arrow_round_trip(const AnyTensor& t, const zt::ToArrowOptions& to, Rows rows,
                           const zt::FromArrowOptions& from, bool device_form) {
  zt::arrow::DeviceArray device_array{};
  zt::arrow::Schema schema{};
  if (device_form) {
    zt::to_arrow(t, &device_array, &schema, to);
    BOOST_TEST(device_array.device_type == zt::arrow::device_cpu);
  } else {
    zt::to_arrow(t, &device_array.array, &schema, to);
  }
  device_array.array.offset = rows.begin;
  device_array.array.length = rows.end - rows.begin;
  AnyTensor back = device_form ? zt::from_arrow(&device_array, &schema, from)
                               : zt::from_arrow(&device_array.array, &schema, from);
  BOOST_TEST(device_array.array.release == nullptr);
  BOOST_TEST(schema.release == nullptr);
  return back;
}

}  // namespace

BOOST_AUTO_TEST_CASE(arrow_exports_import_with_every_element) {
  for_each_case(memory_cases, [](Source& source, std::mt19937_64& rng) {
    const AnyTensor& t = source.tensor;
    zt::arrow::Array array{};
    zt::arrow::Schema schema{};
    if (t.rank() == 0) {
      BOOST_CHECK_EXCEPTION(zt::to_arrow(t, &array, &schema), zt::ValueError,
                            with_message<zt::ValueError>("to_arrow: a 0-dim tensor ("));
      return;
    }
    if (!has_arrow_type(t.dtype())) {
      BOOST_CHECK_EXCEPTION(zt::to_arrow(t, &array, &schema), zt::TypeError,
                            with_message<zt::TypeError>("has no Arrow type that shares memory"));
      return;
    }
    const bool contiguous = t.is_contiguous();
    if (!contiguous) {
      BOOST_CHECK_EXCEPTION(zt::to_arrow(t, &array, &schema), zt::ValueError,
                            with_message<zt::ValueError>(") is not contiguous; Arrow buffers are"));
    }
    const auto type = chance(rng, 0.5) ? zt::ArrowTensorType::fixed_shape_tensor : zt::ArrowTensorType::fixed_size_list;
    const std::optional<bool> copy = chance(rng, 0.25) ? std::optional(true) : std::nullopt;
    const bool device_form = chance(rng, 0.3);
    const index_t begin = uniform(rng, 0, t.size(0));
    const Rows rows{begin, chance(rng, 0.5) ? t.size(0) : uniform(rng, begin, t.size(0))};
    BOOST_TEST_CONTEXT((type == zt::ArrowTensorType::fixed_shape_tensor ? "fixed_shape_tensor" : "fixed_size_list")
                       << (device_form ? ", device form" : "") << (copy ? ", imported with copy" : "") << ", rows "
                       << rows.begin << " to " << rows.end) {
      const std::vector<std::byte> all = c_order_bytes(t);
      const std::size_t row_bytes = t.size(0) == 0 ? 0 : all.size() / std::size_t(t.size(0));
      const std::vector<std::byte> want(all.begin() + std::ptrdiff_t(rows.begin * row_bytes),
                                        all.begin() + std::ptrdiff_t(rows.end * row_bytes));
      std::vector<index_t> shape = vector_of(t.shape());
      shape[0] = rows.end - rows.begin;
      const AnyTensor back =
          arrow_round_trip(t, {.tensor_type = type, .copy = !contiguous}, rows, {.copy = copy}, device_form);
      check_elements(back, t.dtype(), shape, want);
      BOOST_TEST(back.is_contiguous());
      BOOST_TEST(back.is_writable() == copy.has_value());
      const bool shared = contiguous && !copy && !want.empty();
      BOOST_TEST(zt::shares_memory(back, t) == shared);
      if (shared) BOOST_TEST(back.data_ptr() == static_cast<const std::byte*>(t.data_ptr()) + rows.begin * row_bytes);
      drop(source);
      check_elements(back, back.dtype(), shape, want);
    }
  });
}

namespace {

// ---- Files --------------------------------------------------------------------------------

/// Views (read-only, copy-on-write, shared) or copies, at random.
zt::LoadOptions random_load_options(std::mt19937_64& rng) {
  switch (uniform(rng, 0, 4)) {
    case 0: return {.access = zt::MapAccess::read_only, .copy = false};
    case 1: return {.access = zt::MapAccess::copy_on_write, .copy = false};
    case 2: return {.access = zt::MapAccess::shared, .copy = false};
    case 3: return {.access = zt::MapAccess::read_only, .copy = true};
    default: return {.access = zt::MapAccess::copy_on_write, .copy = true};
  }
}

std::string load_mode(const zt::LoadOptions& options) {
  const char* access[] = {"read_only", "copy_on_write", "shared"};
  return std::string("loaded ") + access[int(options.access)] + (options.copy.value_or(false) ? " copy" : " view");
}

/// A file's tensor `got`, loaded with `options`, holds `want`; a writable view is one of the
/// file's memory: a write reaches the file exactly when the mapping is shared (`reload`
/// reads the file again, as a copy).
void check_loaded(const AnyTensor& got, const zt::LoadOptions& options, DType dtype, const std::vector<index_t>& shape,
                  std::vector<std::byte> want, const std::function<AnyTensor()>& reload) {
  check_elements(got, dtype, shape, want);
  BOOST_TEST(got.is_writable() == (options.access != zt::MapAccess::read_only));
  const std::vector<index_t> f_order = [&] {
    std::vector<index_t> reversed(shape.rbegin(), shape.rend());
    std::vector<index_t> strides = c_order_strides(reversed);
    return std::vector<index_t>(strides.rbegin(), strides.rend());
  }();
  const std::vector<index_t> strides = vector_of(got.strides());
  BOOST_TEST((strides == c_order_strides(shape) || strides == f_order), "strides of " << describe(got));
  if (!got.is_writable() || got.numel() == 0 || options.copy.value_or(false)) return;
  std::vector<std::byte> in_file = want;
  flip_first(got, want);
  if (options.access == zt::MapAccess::shared) in_file = want;
  check_elements(got, dtype, shape, want);
  check_elements(reload(), dtype, shape, in_file);
}

}  // namespace

BOOST_AUTO_TEST_CASE(npy_files_load_with_every_element) {
  const TempDir dir;
  const std::filesystem::path path = dir / "case.npy";
  for_each_case(file_cases, [&](Source& source, std::mt19937_64& rng) {
    const AnyTensor& t = source.tensor;
    const DType dtype = t.dtype();
    if (dtype == zt::bfloat16 || dtype == zt::complex32_ || zt::is_float8(dtype) || zt::is_packed(dtype)) {
      BOOST_CHECK_EXCEPTION(zt::save_npy(path, t), zt::TypeError, with_message<zt::TypeError>(
                                "save_npy: NumPy has no " + std::string(zt::name(dtype)) + " dtype"));
      return;
    }
    zt::save_npy(path, t);
    const zt::LoadOptions options = random_load_options(rng);
    BOOST_TEST_CONTEXT(load_mode(options)) {
      check_loaded(zt::load_npy(path, options), options, t.dtype(), vector_of(t.shape()), c_order_bytes(t),
                   [&] { return zt::load_npy(path, {.copy = true}); });
    }
  });
}

namespace {

/// 1-8 characters JSON must escape or encode as well as plain ones.
std::string random_name(std::mt19937_64& rng) {
  static const char* const pieces[] = {"a", "Z", "7", "_", ".", "-", "/", " ", "\"", "\\", "\t",
                                       "\xc3\xa9" /* é */, "\xe2\x82\xac" /* € */};
  std::string name;
  for (index_t n = uniform(rng, 1, 8); n > 0; --n) name += pieces[uniform(rng, 0, index_t(std::size(pieces)) - 1)];
  return name;
}

}  // namespace

BOOST_AUTO_TEST_CASE(safetensors_files_load_with_every_element) {
  const TempDir dir;
  const std::filesystem::path path = dir / "case.safetensors";
  for_each_case(file_cases, [&](Source& source, std::mt19937_64& rng) {
    std::map<std::string, AnyTensor, std::less<>> tensors{{random_name(rng), source.tensor}};
    for (index_t n = uniform(rng, 0, 3); n > 0; --n)
      tensors.insert_or_assign(random_name(rng), random_source(rng, random_dtype(rng)).tensor);
    std::map<std::string, std::string, std::less<>> metadata;
    for (index_t n = uniform(rng, 0, 2); n > 0; --n) metadata.insert_or_assign(random_name(rng), random_name(rng));
    // safetensors has no complex128 or complex32, and counts packed values along a dimension.
    const auto has_no_dtype = [](const auto& entry) {
      return entry.second.dtype() == zt::complex128 || entry.second.dtype() == zt::complex32_;
    };
    const auto packed_scalar = [](const auto& entry) { return zt::is_packed(entry.second.dtype()) && entry.second.rank() == 0; };
    for (const auto& entry : tensors) {
      const std::map<std::string, AnyTensor, std::less<>> alone{entry};
      if (has_no_dtype(entry))
        BOOST_CHECK_EXCEPTION(zt::save_safetensors(path, alone), zt::TypeError,
                              with_message<zt::TypeError>("save_safetensors: safetensors has no " +
                                                          std::string(zt::name(entry.second.dtype())) + " dtype"));
      else if (packed_scalar(entry))
        BOOST_CHECK_EXCEPTION(zt::save_safetensors(path, alone), zt::ValueError,
                              with_message<zt::ValueError>("save_safetensors: a 0-dimensional " +
                                                           std::string(zt::name(entry.second.dtype())) + " tensor holds"));
    }
    std::erase_if(tensors, [&](const auto& entry) { return has_no_dtype(entry) || packed_scalar(entry); });
    zt::save_safetensors(path, tensors, metadata);
    const zt::LoadOptions options = random_load_options(rng);
    BOOST_TEST_CONTEXT(load_mode(options)) {
      const zt::SafetensorsFile file = zt::load_safetensors(path, options);
      BOOST_TEST((file.metadata == metadata));
      BOOST_TEST(file.tensors.size() == tensors.size());
      for (const auto& entry : tensors) {
        const std::string& name = entry.first;
        const AnyTensor& t = entry.second;
        BOOST_TEST_CONTEXT("tensor \"" << name << "\": " << describe(t)) {
          check_loaded(file.at(name), options, t.dtype(), vector_of(t.shape()), c_order_bytes(t),
                       [&] { return zt::load_safetensors(path, {.copy = true}).at(name); });
        }
      }
    }
  });
}

BOOST_AUTO_TEST_CASE(from_file_maps_the_bytes_written) {
  const TempDir dir;
  const std::filesystem::path path = dir / "case.bin";
  for_each_case(file_cases, [&](Source& source, std::mt19937_64& rng) {
    const AnyTensor& t = source.tensor;
    const std::vector<std::byte> want = c_order_bytes(t);
    std::vector<std::uint8_t> bytes(want.size() + std::size_t(uniform(rng, 0, 7)), 1);  // then spare bytes
    std::transform(want.begin(), want.end(), bytes.begin(), [](std::byte b) { return std::uint8_t(b); });
    write_bytes(path, bytes);
    const zt::FromFileOptions options{
        .shared = chance(rng, 0.5), .size = t.numel(), .dtype = t.dtype(), .writable = chance(rng, 0.75)};
    BOOST_TEST_CONTEXT((options.shared ? "shared" : "private") << (options.writable ? "" : " read-only")) {
      const AnyTensor got = zt::from_file(path, options);
      check_elements(got, t.dtype(), {t.numel()}, want);
      BOOST_TEST(vector_of(got.strides()) == std::vector<index_t>{1}, tt::per_element());
      BOOST_TEST(got.is_writable() == options.writable);
      if (!options.writable || t.numel() == 0) return;
      std::vector<std::byte> in_view = want;
      flip_first(got, in_view);
      check_elements(got, t.dtype(), {t.numel()}, in_view);
      if (options.shared) bytes[0] = std::uint8_t(in_view[0]);
      BOOST_TEST((read_bytes(path) == bytes), "the file's bytes after a write to the first element");
    }
  });
}

