// Arrow C (Device) Data Interface: from_arrow over hand-built structs (every type of the
// table, offsets, nulls, bool, alignment, refusals, ownership), to_arrow and record batches.
// The peer check against pyarrow itself is test/arrow/pyarrow_check.py.
#include <boost/test/unit_test.hpp>

#include "arrow/arrow_metadata.hpp"
#include "support/message_check.hpp"

#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <new>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "zerotensor/as_tensor.hpp"
#include "zerotensor/from_arrow.hpp"
#include "zerotensor/shape.hpp"
#include "zerotensor/to_arrow.hpp"

namespace ar = zt::arrow;

namespace {
/// Allocations until operator new fails once with std::bad_alloc; negative: none fails.
thread_local long allocations_until_failure = -1;
}  // namespace

// Replaced for this program, to fail one allocation on demand (the ownership tests below):
// every form but the aligned ones (which pair among themselves), so that each allocation is
// freed by its own kind, also under AddressSanitizer, which replaces the forms left out.
void* operator new(std::size_t size) {
  if (allocations_until_failure == 0) {
    allocations_until_failure = -1;
    throw std::bad_alloc();
  }
  if (allocations_until_failure > 0) --allocations_until_failure;
  if (void* memory = std::malloc(size == 0 ? 1 : size)) return memory;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return ::operator new(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return ::operator new(size);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}
void* operator new[](std::size_t size, const std::nothrow_t& nothrow) noexcept { return ::operator new(size, nothrow); }
void operator delete(void* memory) noexcept { std::free(memory); }
void operator delete[](void* memory) noexcept { std::free(memory); }
void operator delete(void* memory, std::size_t) noexcept { std::free(memory); }
void operator delete[](void* memory, std::size_t) noexcept { std::free(memory); }
void operator delete(void* memory, const std::nothrow_t&) noexcept { std::free(memory); }
void operator delete[](void* memory, const std::nothrow_t&) noexcept { std::free(memory); }

namespace {

/// A producer of Arrow structs that counts releases of its base structs: children are
/// released by their parent, as the interface says, and only the base counts.
struct Producer {
  int array_releases = 0;
  int schema_releases = 0;
  std::deque<ar::Array> arrays;
  std::deque<ar::Schema> schemas;
  std::deque<std::vector<const void*>> buffers;
  std::deque<std::vector<ar::Array*>> array_children;
  std::deque<std::vector<ar::Schema*>> schema_children;
  std::deque<std::string> strings;

  static void release_array(ar::Array* a) {
    for (std::int64_t i = 0; i < a->n_children; ++i)
      if (a->children[i] != nullptr && a->children[i]->release != nullptr) a->children[i]->release(a->children[i]);
    if (a->private_data != nullptr) ++static_cast<Producer*>(a->private_data)->array_releases;
    a->release = nullptr;
  }
  static void release_schema(ar::Schema* s) {
    for (std::int64_t i = 0; i < s->n_children; ++i)
      if (s->children[i] != nullptr && s->children[i]->release != nullptr) s->children[i]->release(s->children[i]);
    if (s->private_data != nullptr) ++static_cast<Producer*>(s->private_data)->schema_releases;
    s->release = nullptr;
  }

  ar::Schema* schema(const std::string& format, std::vector<ar::Schema*> children = {}, std::string metadata = {},
                     const char* name = nullptr) {
    auto& kids = schema_children.emplace_back(std::move(children));
    const char* meta = metadata.empty() ? nullptr : strings.emplace_back(std::move(metadata)).c_str();
    for (ar::Schema* child : kids) child->private_data = nullptr;  // only the base counts
    return &schemas.emplace_back(ar::Schema{strings.emplace_back(format).c_str(), name, meta, 0,
                                            std::int64_t(kids.size()), kids.empty() ? nullptr : kids.data(),
                                            nullptr, &release_schema, this});
  }

  ar::Array* array(std::int64_t length, std::vector<const void*> bufs, std::vector<ar::Array*> children = {},
                   std::int64_t offset = 0, std::int64_t null_count = 0) {
    auto& b = buffers.emplace_back(std::move(bufs));
    auto& kids = array_children.emplace_back(std::move(children));
    for (ar::Array* child : kids) child->private_data = nullptr;
    return &arrays.emplace_back(ar::Array{length, null_count, offset, std::int64_t(b.size()),
                                          std::int64_t(kids.size()), b.data(), kids.empty() ? nullptr : kids.data(),
                                          nullptr, &release_array, this});
  }

  /// A primitive array over `values`, all valid.
  template <class T>
  ar::Array* primitive(const std::vector<T>& values, std::int64_t offset = 0) {
    return array(std::int64_t(values.size()) - offset, {nullptr, values.data()}, {}, offset);
  }
};

using zt_test::arrow_metadata;

std::string tensor_extension(const std::string& json) {
  return arrow_metadata({{"ARROW:extension:name", "arrow.fixed_shape_tensor"}, {"ARROW:extension:metadata", json}});
}

std::vector<float> iota_floats(std::size_t n) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = float(i);
  return v;
}

/// A `length`-row fixed_shape_tensor (or plain FixedSizeList when json is empty) over `values`.
std::pair<ar::Array*, ar::Schema*> tensor_array(Producer& p, const std::vector<float>& values, std::int64_t size,
                                                const std::string& json, std::int64_t offset = 0) {
  ar::Schema* schema = p.schema("+w:" + std::to_string(size), {p.schema("f")}, json.empty() ? "" : tensor_extension(json));
  ar::Array* leaf = p.array(std::int64_t(values.size()), {nullptr, values.data()});
  ar::Array* array = p.array(std::int64_t(values.size()) / size - offset, {nullptr}, {leaf}, offset);
  return {array, schema};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(arrow_import)

BOOST_AUTO_TEST_CASE(primitive_float32_is_a_read_only_view_released_once) {
  Producer p;
  const std::vector<float> values = {1.5f, 2.5f, 3.5f};
  {
    zt::AnyTensor t = zt::from_arrow(p.primitive(values), p.schema("f"));
    BOOST_TEST(p.schema_releases == 1);  // the taken schema is released at once
    BOOST_TEST(p.array_releases == 0);
    BOOST_TEST(t.dtype() == zt::float32);
    BOOST_TEST(t.data_ptr() == values.data());
    BOOST_TEST(t.shape() == (zt::DynamicExtents{3}));
    BOOST_TEST(!t.is_writable());
    auto typed = t.as<const float, 1>();
    BOOST_TEST(typed(2) == 3.5f);
    zt::AnyTensor copy = t;
    t = zt::asarray(1);
    BOOST_TEST(p.array_releases == 0);  // the copy keeps the producer's memory alive
  }
  BOOST_TEST(p.array_releases == 1);
  BOOST_TEST(p.arrays.front().release == nullptr);  // the caller's struct was moved from
}

BOOST_AUTO_TEST_CASE(every_primitive_format_and_the_offset) {
  const std::array<std::pair<const char*, zt::DType>, 11> formats = {{{"c", zt::int8},
                                                                      {"C", zt::uint8},
                                                                      {"s", zt::int16},
                                                                      {"S", zt::uint16},
                                                                      {"i", zt::int32},
                                                                      {"I", zt::uint32},
                                                                      {"l", zt::int64},
                                                                      {"L", zt::uint64},
                                                                      {"e", zt::float16},
                                                                      {"f", zt::float32},
                                                                      {"g", zt::float64}}};
  alignas(16) std::array<std::byte, 64> bytes{};
  for (auto [format, dtype] : formats) {
    Producer p;
    const ar::Schema schema = *p.schema(format);  // borrowed: never released by from_arrow
    zt::AnyTensor t = zt::from_arrow(p.array(5, {nullptr, bytes.data()}, {}, 3), schema);
    BOOST_TEST(t.dtype() == dtype);
    BOOST_TEST(t.data_ptr() == bytes.data() + 3 * zt::itemsize(dtype));
    BOOST_TEST(t.shape() == (zt::DynamicExtents{5}));
    BOOST_TEST(p.schema_releases == 0);
  }
}

BOOST_AUTO_TEST_CASE(fixed_size_list_offsets_at_both_levels) {
  Producer p;
  const std::vector<std::int32_t> values = [] {
    std::vector<std::int32_t> v(40);
    for (int i = 0; i < 40; ++i) v[std::size_t(i)] = i;
    return v;
  }();
  // Child offset 2, list offset 1, list size 4: row i starts at element 2 + (1 + i) * 4.
  ar::Array* leaf = p.array(38, {nullptr, values.data()}, {}, 2);
  ar::Array* list = p.array(3, {nullptr}, {leaf}, 1);
  zt::AnyTensor t = zt::from_arrow(list, p.schema("+w:4", {p.schema("i")}));
  BOOST_TEST(t.shape() == (zt::DynamicExtents{3, 4}));
  BOOST_TEST(t.strides() == (zt::DynamicExtents{4, 1}));
  BOOST_TEST(t.data_ptr() == values.data() + 6);
  BOOST_TEST((t.as<const std::int32_t, 2>()(2, 3)) == 6 + 2 * 4 + 3);
}

BOOST_AUTO_TEST_CASE(nested_fixed_size_lists_are_n_dimensional) {
  Producer p;
  const std::vector<double> values(2 * 3 * 4, 0.0);
  ar::Array* leaf = p.array(24, {nullptr, values.data()});
  ar::Array* inner = p.array(6, {nullptr}, {leaf});
  ar::Array* outer = p.array(2, {nullptr}, {inner});
  zt::AnyTensor t = zt::from_arrow(outer, p.schema("+w:3", {p.schema("+w:4", {p.schema("g")})}));
  BOOST_TEST(t.shape() == (zt::DynamicExtents{2, 3, 4}));
  BOOST_TEST(t.strides() == (zt::DynamicExtents{12, 4, 1}));
  BOOST_TEST(t.data_ptr() == values.data());
}

BOOST_AUTO_TEST_CASE(fixed_shape_tensor_shape_and_permutation) {
  Producer p;
  const std::vector<float> values = iota_floats(12);
  {
    auto [array, schema] = tensor_array(p, values, 6, R"({"shape":[2,3]})");
    zt::AnyTensor t = zt::from_arrow(array, schema);
    BOOST_TEST(t.shape() == (zt::DynamicExtents{2, 2, 3}));
    BOOST_TEST(t.strides() == (zt::DynamicExtents{6, 3, 1}));
    BOOST_TEST((t.as<const float, 3>()(1, 1, 2)) == 11.0f);
  }
  {
    // Physical (2, 3), permutation [1, 0]: logical dimension 0 is physical dimension 1.
    auto [array, schema] = tensor_array(
        p, values, 6, R"( { "dim_names" : ["H", "W"], "permutation": [1, 0], "shape" : [2, 3], "x": [1, null] })",
        1);
    zt::AnyTensor t = zt::from_arrow(array, schema);
    BOOST_TEST(t.shape() == (zt::DynamicExtents{1, 3, 2}));
    BOOST_TEST(t.strides() == (zt::DynamicExtents{6, 1, 3}));
    BOOST_TEST(t.data_ptr() == values.data() + 6);
    BOOST_TEST((t.as<const float, 3>()(0, 2, 1)) == 6.0f + 1 * 3 + 2);  // physical (1, 2)
  }
  BOOST_TEST(p.array_releases == 2);
  BOOST_TEST(p.schema_releases == 2);
}

BOOST_AUTO_TEST_CASE(fixed_shape_tensor_metadata_errors_name_the_numbers) {
  const std::vector<float> values = iota_floats(12);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"shape":[2,2]})", "the shape has 4 elements but the storage list size is 6"},
      {R"({"shape":[2,3],"permutation":[0,0]})", "is not a permutation of 0…1"},
      {R"({"shape":[2,3],"permutation":[0]})", "\"permutation\" has 1 entries for 2 dimensions"},
      {R"({"shape":[2,3],"dim_names":["a"]})", "\"dim_names\" has 1 names for 2 dimensions"},
      {R"({"shape":[2,-3]})", "metadata {\"shape\":[2,-3]}: \"shape\" must be an array of integers ≥ 0 that fit int64"},
      {R"({"shape":[99999999999999999999]})",
       "metadata is not valid JSON: Problem while parsing a number (integers must fit 64 bits)"},
      {R"({"shape":[9223372036854775808]})", "\"shape\" must be an array of integers ≥ 0 that fit int64"},
      {R"({"shape":6})", "\"shape\" must be an array of integers ≥ 0 that fit int64"},
      {R"({"shape":{"a":1}})", "\"shape\" must be an array of integers ≥ 0 that fit int64"},
      {R"({"shape":[2,3],"permutation":[1,"0"]})", "\"permutation\" must be an array of integers ≥ 0"},
      {R"({"shape":[2,3],"dim_names":["a",1]})", "\"dim_names\" must be an array of strings"},
      {R"([2,3])", "metadata [2,3]: must be a JSON object"},
      {R"(6)", "metadata 6: must be a JSON object"},
      {R"({"permutation":[0,1]})", "has no \"shape\""},
      {R"({"shape":[2,3],"shape":[2,3]})", "names 'shape' twice"},
  };
  for (const auto& [json, message] : cases) {
    Producer p;
    auto [array, schema] = tensor_array(p, values, 6, json);
    BOOST_TEST_CONTEXT(json) {
      BOOST_CHECK_EXCEPTION(static_cast<void>(zt::from_arrow(array, schema)), zt::ValueError,
                            with_message<zt::ValueError>(message));
    }
    BOOST_TEST(p.array_releases == 1);  // released at once on error
    BOOST_TEST(p.schema_releases == 1);
  }
}

BOOST_AUTO_TEST_CASE(fixed_shape_tensor_json_in_any_valid_form_reads_the_same) {
  // Arrow's compact form and every other valid spelling of the same parameters: physical
  // (2, 3), permutation [1, 0], so each row is (3, 2) with strides (1, 3).
  const std::vector<float> values = iota_floats(12);
  const std::vector<std::string> forms = {
      R"({"shape":[2,3],"permutation":[1,0]})",
      R"({"shape":[2,3],"permutation":[1,0],"dim_names":["H","W"]})",
      "{ \"shape\" : [ 2 , 3 ] ,\n\t\"permutation\" : [1,0] }\r\n",
      R"({"permutation":[1,0],"shape":[2,3]})",
      R"({"shape":[2,3],"permutation":[1,0],"dim_names":["h\u00e9\"ight\\","w\/\n"]})",
      "{\"shape\":[2,3],\"permutation\":[1,0],\"dim_names\":[\"h\xc3\xa9\",\"\xf0\x9f\x98\x80\"]}",
      R"({"x":[true,false,null,-0,12.5e-3,1E+2,"y"],"shape":[2,3],"z":"","w":{},"permutation":[1,0]})",
  };
  for (const std::string& json : forms) {
    Producer p;
    auto [array, schema] = tensor_array(p, values, 6, json);
    zt::AnyTensor t = zt::from_arrow(array, schema);
    BOOST_TEST_CONTEXT(json) {
      BOOST_TEST(t.shape() == (zt::DynamicExtents{2, 3, 2}));
      BOOST_TEST(t.strides() == (zt::DynamicExtents{6, 1, 3}));
    }
  }
}

BOOST_AUTO_TEST_CASE(fixed_shape_tensor_json_is_strict) {
  // The parameters are read by the project's one JSON reader (simdjson): RFC 8259, an
  // object of arrays (nothing nested deeper), no key twice.
  const std::vector<float> values = iota_floats(12);
  const std::string invalid = "from_arrow: arrow.fixed_shape_tensor metadata is not valid JSON: ";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"shape":[02,3]})", invalid},
      {R"({"shape":[2,3],})", invalid},
      {R"({"shape":[2,3,]})", invalid},
      {R"({"shape":[2,3]}})", invalid},
      {R"({"shape":[2,3]} x)", invalid},
      {R"({"shape":[2,3)", invalid},
      {R"({"shape":[2,3],"x":tru})", invalid},
      {R"({"shape":[2,3],"x":-})", invalid},
      {R"({"shape":[2,3],"x":1.})", invalid},
      {R"({"shape":[2,3],"dim_names":["\q","b"]})", invalid},
      {R"({"shape":[2,3],"dim_names":["\u12g4","b"]})", invalid},
      {"{\"shape\":[2,3],\"dim_names\":[\"\xc0\x80\",\"b\"]}", invalid},
      {"{\"shape\":[2,3],\"dim_names\":[\"a\tb\",\"c\"]}", invalid},
      {R"({"shape":[2,3],"dim_names":["a","b"],"dim_names":["a","b"]})",
       "from_arrow: arrow.fixed_shape_tensor metadata names 'dim_names' twice"},
      {R"({"shape":[2,3],"x":[[1]]})", "from_arrow: arrow.fixed_shape_tensor metadata nests JSON deeper than 2 levels"},
      {R"({"shape":[2,3],"x":{"y":{}}})", "nests JSON deeper than 2 levels"},
      {R"({"shape":[2,3],"x":{"y":1,"y":2}})", "names 'y' twice"},
      {R"({"shape":[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,6]})",
       "\"shape\" has 33 dimensions; with the 0 before it the type would have more than 31"},
  };
  for (const auto& [json, message] : cases) {
    Producer p;
    auto [array, schema] = tensor_array(p, values, 6, json);
    BOOST_TEST_CONTEXT(json) {
      BOOST_CHECK_EXCEPTION(static_cast<void>(zt::from_arrow(array, schema)), zt::ValueError,
                            with_message<zt::ValueError>(message));
    }
    BOOST_TEST(p.array_releases == 1);
    BOOST_TEST(p.schema_releases == 1);
  }
}

BOOST_AUTO_TEST_CASE(fixed_shape_tensor_parameters_are_checked_against_the_storage) {
  // Valid JSON whose numbers do not fit the type: each error names them.
  const std::vector<float> values = iota_floats(12);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"shape":[2,3],"permutation":[1,0,2]})", "\"permutation\" has 3 entries for 2 dimensions"},
      {R"({"shape":[2,3],"permutation":[2,0]})", "is not a permutation of 0…1"},
      {R"({"shape":[1000000000000000000]})",
       "the shape has 1000000000000000000 elements but the storage list size is 6"},
      {R"({"shape":[100000000000,100000000000]})", "the shape's product overflows int64"},
      {R"({"shape":[2,3],"permutation":[1,0]} )", ""},  // accepted: whitespace after the value
  };
  for (const auto& [json, message] : cases) {
    Producer p;
    auto [array, schema] = tensor_array(p, values, 6, json);
    BOOST_TEST_CONTEXT(json) {
      if (message.empty()) {
        BOOST_TEST(zt::from_arrow(array, schema).strides() == (zt::DynamicExtents{6, 1, 3}));
      } else {
        BOOST_CHECK_EXCEPTION(static_cast<void>(zt::from_arrow(array, schema)), zt::ValueError,
                              with_message<zt::ValueError>(message));
      }
    }
    BOOST_TEST(p.array_releases == 1);
  }
}

BOOST_AUTO_TEST_CASE(list_sizes_past_18_digits_are_read_with_checks) {
  const std::vector<float> values = iota_floats(12);
  const auto import = [&](const std::string& format) {
    Producer p;
    ar::Array* leaf = p.array(12, {nullptr, values.data()});
    return zt::from_arrow(p.array(2, {nullptr}, {leaf}), p.schema(format, {p.schema("f")})).shape();
  };
  BOOST_TEST(import("+w:0000000000000000000006") == (zt::DynamicExtents{2, 6}));
  BOOST_CHECK_EXCEPTION(static_cast<void>(import("+w:9223372036854775808")), zt::ValueError,
                        with_message<zt::ValueError>("does not end in a list size that fits int64"));
  BOOST_CHECK_EXCEPTION(static_cast<void>(import("+w:9223372036854775807")), zt::ValueError,
                        with_message<zt::ValueError>("list slots overflow int64 at nesting level 1"));
}

BOOST_AUTO_TEST_CASE(extension_metadata_in_any_layout_reads_the_same) {
  // Pairs in any order, among others: the last name counts.
  const std::vector<float> values = iota_floats(12);
  using Pairs = std::vector<std::pair<std::string, std::string>>;
  const std::pair<std::string, std::string> name = {"ARROW:extension:name", "arrow.fixed_shape_tensor"};
  const std::pair<std::string, std::string> parameters = {"ARROW:extension:metadata", R"({"shape":[2,3]})"};
  const auto import = [&](const std::string& bytes) {
    Producer p;
    ar::Array* leaf = p.array(12, {nullptr, values.data()});
    return zt::from_arrow(p.array(2, {nullptr}, {leaf}), p.schema("+w:6", {p.schema("f")}, bytes)).shape();
  };
  const std::vector<Pairs> tensors = {
      {name, parameters},
      {parameters, name},
      {{"a", "b"}, name, parameters},
      {name, parameters, {"ARROW:extension:nbme", "x"}},
      {name, {"k", ""}, parameters},
  };
  for (const Pairs& pairs : tensors) BOOST_TEST(import(arrow_metadata(pairs)) == (zt::DynamicExtents{2, 2, 3}));
  // Not the extension (a name off by one byte, or renamed later): the storage, as it is.
  const std::vector<Pairs> storages = {
      {{"ARROW:extension:nbme", name.second}, parameters},
      {{name.first, "arrow.fixed_shape_tensoR"}, parameters},
      {{name.first, "arrow.fixed_shape_tensor_"}, parameters},
      {name, parameters, {name.first, "arrow.uuid"}},
  };
  for (const Pairs& pairs : storages) BOOST_TEST(import(arrow_metadata(pairs)) == (zt::DynamicExtents{2, 6}));
  // The extension without its parameters' key spelled right: no JSON to read.
  BOOST_CHECK_EXCEPTION(static_cast<void>(import(arrow_metadata({name, {"ARROW:extension:metadatA", "{}"}}))),
                        zt::ValueError, with_message<zt::ValueError>("arrow.fixed_shape_tensor has no \"ARROW:extension:metadata\""));
  // A negative JSON length: refused, naming it.
  std::string negative = arrow_metadata({name, {parameters.first, ""}});
  const std::int32_t minus_one = -1;
  std::memcpy(negative.data() + negative.size() - 4, &minus_one, 4);
  BOOST_CHECK_EXCEPTION(static_cast<void>(import(negative)), zt::ValueError,
                        with_message<zt::ValueError>("metadata value length is -1"));
}

BOOST_AUTO_TEST_CASE(nulls_are_refused_or_filled_in_a_copy) {
  const std::vector<std::int64_t> values = {10, 20, 30, 40, 50};
  const std::uint8_t validity = 0b11101;  // slot 1 is null
  {
    Producer p;
    ar::Array* array = p.array(5, {&validity, values.data()}, {}, 0, 1);
    BOOST_CHECK_EXCEPTION(static_cast<void>(zt::from_arrow(array, p.schema("l"))), zt::ValueError,
                          with_message<zt::ValueError>("holds 1 nulls (the first at slot 1 of nesting level 0)"));
    BOOST_TEST(p.array_releases == 1);
  }
  {
    Producer p;
    ar::Array* array = p.array(5, {&validity, values.data()}, {}, 0, -1);  // null count unknown
    zt::AnyTensor t = zt::from_arrow(array, p.schema("l"), {.fill_nulls = -7});
    BOOST_TEST(p.array_releases == 1);  // copied: released at once
    BOOST_TEST(t.data_ptr() != values.data());
    BOOST_TEST(t.is_writable());
    auto typed = t.as<std::int64_t, 1>();
    BOOST_TEST((std::vector<std::int64_t>{typed(0), typed(1), typed(2), typed(3), typed(4)}) ==
                   (std::vector<std::int64_t>{10, -7, 30, 40, 50}),
               boost::test_tools::per_element());
  }
  {
    // Unknown count, but the viewed slots (offset 2) are all valid: a view.
    Producer p;
    ar::Array* array = p.array(3, {&validity, values.data()}, {}, 2, -1);
    zt::AnyTensor t = zt::from_arrow(array, p.schema("l"));
    BOOST_TEST(t.data_ptr() == values.data() + 2);
  }
  {
    Producer p;
    ar::Array* array = p.array(5, {&validity, values.data()}, {}, 0, 1);
    BOOST_CHECK_EXCEPTION(static_cast<void>(zt::from_arrow(array, p.schema("l"), {.copy = false, .fill_nulls = 0})),
                          zt::ValueError, with_message<zt::ValueError>("copy = false, but filling 1 nulls needs a copy"));
  }
}

BOOST_AUTO_TEST_CASE(a_null_list_slot_fills_its_whole_row) {
  Producer p;
  const std::vector<float> values = iota_floats(6);
  const std::uint8_t rows_valid = 0b101;
  ar::Array* leaf = p.array(6, {nullptr, values.data()});
  ar::Array* list = p.array(3, {&rows_valid, nullptr}, {leaf}, 0, 1);
  list->n_buffers = 1;
  zt::AnyTensor t = zt::from_arrow(list, p.schema("+w:2", {p.schema("f")}), {.fill_nulls = 0.5});
  auto typed = t.as<const float, 2>();
  BOOST_TEST(typed(0, 1) == 1.0f);
  BOOST_TEST(typed(1, 0) == 0.5f);
  BOOST_TEST(typed(1, 1) == 0.5f);
  BOOST_TEST(typed(2, 0) == 4.0f);
}

BOOST_AUTO_TEST_CASE(bool_is_unpacked_in_a_copy_and_refused_without_one) {
  const std::uint8_t bits = 0b1011'0110;
  {
    Producer p;
    zt::AnyTensor t = zt::from_arrow(p.array(6, {nullptr, &bits}, {}, 1), p.schema("b"));
    BOOST_TEST(t.dtype() == zt::bool_);
    auto typed = t.as<const bool, 1>();
    BOOST_TEST((std::vector<bool>{typed(0), typed(1), typed(2), typed(3), typed(4), typed(5)}) ==
                   (std::vector<bool>{true, true, false, true, true, false}),
               boost::test_tools::per_element());
    BOOST_TEST(p.array_releases == 1);
  }
  Producer p;
  BOOST_CHECK_EXCEPTION(static_cast<void>(zt::from_arrow(p.array(6, {nullptr, &bits}), p.schema("b"), {.copy = false})),
                        zt::ValueError, with_message<zt::ValueError>("bit-packed bool"));
}

BOOST_AUTO_TEST_CASE(unaligned_data_is_copied_or_refused) {
  alignas(8) std::array<std::byte, 17> bytes{};
  const float value = 4.25f;
  std::memcpy(bytes.data() + 1, &value, sizeof value);
  {
    Producer p;
    zt::AnyTensor t = zt::from_arrow(p.array(4, {nullptr, bytes.data() + 1}), p.schema("f"));
    BOOST_TEST(t.data_ptr() != static_cast<const void*>(bytes.data() + 1));
    BOOST_TEST((t.as<const float, 1>()(0)) == 4.25f);
  }
  Producer p;
  BOOST_CHECK_EXCEPTION(
      static_cast<void>(zt::from_arrow(p.array(4, {nullptr, bytes.data() + 1}), p.schema("f"), {.copy = false})),
      zt::ValueError, with_message<zt::ValueError>("not aligned to 4 bytes (the alignment of float32)"));
}

BOOST_AUTO_TEST_CASE(unsupported_types_are_refused_by_name) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"u", "a string is variable-size"},
      {"+l", "a variable-size list has slots of different lengths"},
      {"+s", "zt::from_arrow_record_batch"},
      {"tsu:UTC", "temporal types have no tensor dtype"},
      {"d:10,2", "decimals"},
      {"w:16", "fixed-size binary"},
      {"+m", "a map"},
      {"+ud:0,1", "a union"},
      {"q", "not an Arrow format zerotensor knows"},
  };
  const std::int64_t zero = 0;
  for (const auto& [format, message] : cases) {
    Producer p;
    BOOST_CHECK_EXCEPTION(static_cast<void>(zt::from_arrow(p.array(1, {nullptr, &zero}), p.schema(format))),
                          zt::TypeError, with_message<zt::TypeError>("\"" + format + "\" at nesting level 0"));
    Producer q;
    BOOST_CHECK_EXCEPTION(static_cast<void>(zt::from_arrow(q.array(1, {nullptr, &zero}), q.schema(format))),
                          zt::TypeError, with_message<zt::TypeError>(message));
    BOOST_TEST(q.array_releases == 1);
    BOOST_TEST(q.schema_releases == 1);
  }
  Producer p;
  ar::Schema* dictionary = p.schema("i");
  dictionary->dictionary = p.schema("u");
  BOOST_CHECK_EXCEPTION(static_cast<void>(zt::from_arrow(p.array(1, {nullptr, &zero}), dictionary)), zt::TypeError,
                        with_message<zt::TypeError>("dictionary-encoded (indices \"i\")"));
}

BOOST_AUTO_TEST_CASE(malformed_structs_are_value_errors) {
  const std::vector<float> values = iota_floats(8);
  {
    Producer p;
    BOOST_CHECK_EXCEPTION(static_cast<void>(zt::from_arrow(static_cast<ar::Array*>(nullptr), p.schema("f"))), zt::ValueError,
                          with_message<zt::ValueError>("the ArrowArray pointer is NULL"));
    BOOST_TEST(p.schema_releases == 1);
  }
  {
    Producer p;
    ar::Array* array = p.primitive(values);
    array->release = nullptr;
    BOOST_CHECK_EXCEPTION(static_cast<void>(zt::from_arrow(array, p.schema("f"))), zt::ValueError,
                          with_message<zt::ValueError>("is released"));
  }
  {
    Producer p;  // the list needs 3 * 4 = 12 child slots, the child has 8
    ar::Array* list = p.array(3, {nullptr}, {p.primitive(values)});
    BOOST_CHECK_EXCEPTION(static_cast<void>(zt::from_arrow(list, p.schema("+w:4", {p.schema("f")}))), zt::ValueError,
                          with_message<zt::ValueError>("slots [0, 12) are used at nesting level 1 but its length is 8"));
    BOOST_TEST(p.array_releases == 1);
  }
  {
    Producer p;
    ar::Array* array = p.array(8, {nullptr, values.data(), nullptr});
    BOOST_CHECK_EXCEPTION(static_cast<void>(zt::from_arrow(array, p.schema("f"))), zt::ValueError,
                          with_message<zt::ValueError>("3 buffers (or NULL buffers) at nesting level 0 where the type has 2"));
  }
  {
    Producer p;
    ar::Array* array = p.array(8, {nullptr, nullptr});
    BOOST_CHECK_EXCEPTION(static_cast<void>(zt::from_arrow(array, p.schema("f"))), zt::ValueError,
                          with_message<zt::ValueError>("the data buffer is NULL for 8 elements"));
  }
  {
    Producer p;
    BOOST_CHECK_EXCEPTION(static_cast<void>(zt::from_arrow(p.primitive(values), p.schema("+w:x", {p.schema("f")}))),
                          zt::ValueError, with_message<zt::ValueError>("does not end in a list size"));
  }
}

BOOST_AUTO_TEST_CASE(every_refusal_releases_the_array_once) {
  const std::vector<float> values = iota_floats(4);
  {
    Producer p;
    ar::Array* array = p.primitive(values);
    BOOST_CHECK_EXCEPTION(static_cast<void>(zt::from_arrow(array, static_cast<ar::Schema*>(nullptr))),
                          zt::ValueError, with_message<zt::ValueError>("the ArrowSchema pointer is NULL"));
    BOOST_TEST(p.array_releases == 1);
    BOOST_TEST(array->release == nullptr);
  }
  {
    Producer p;
    ar::DeviceArray d{*p.primitive(values), 0, ar::device_cpu, nullptr, {}};
    BOOST_CHECK_EXCEPTION(static_cast<void>(zt::from_arrow(&d, static_cast<ar::Schema*>(nullptr))),
                          zt::ValueError, with_message<zt::ValueError>("the ArrowSchema pointer is NULL"));
    BOOST_TEST(p.array_releases == 1);
    BOOST_TEST(d.array.release == nullptr);
  }
  {
    // Refused while the import reads the caller's struct, before taking it.
    Producer p;
    ar::Array* array = p.primitive(values);
    BOOST_CHECK_EXCEPTION(static_cast<void>(zt::from_arrow(array, p.schema("u"))), zt::TypeError,
                          with_message<zt::TypeError>("a string is variable-size"));
    BOOST_TEST(p.array_releases == 1);
    BOOST_TEST(array->release == nullptr);
  }
}

BOOST_AUTO_TEST_CASE(copy_true_owns_its_memory_and_releases_at_once) {
  Producer p;
  const std::vector<float> values = iota_floats(4);
  zt::AnyTensor t = zt::from_arrow(p.primitive(values), p.schema("f"), {.copy = true});
  BOOST_TEST(p.array_releases == 1);
  BOOST_TEST(t.data_ptr() != values.data());
  BOOST_TEST(t.is_writable());
  BOOST_TEST((t.as<float, 1>()(3)) == 3.0f);
}

BOOST_AUTO_TEST_CASE(asarray_and_as_tensor_take_arrow_arrays) {
  const std::vector<std::int32_t> values = {1, 2, 3};
  {
    Producer p;
    zt::AnyTensor t = zt::asarray(zt::ArrowData{p.primitive(values), p.schema("i")}, {.dtype = zt::float64});
    BOOST_TEST(t.dtype() == zt::float64);
    BOOST_TEST((t.as<const double, 1>()(2)) == 3.0);
    BOOST_TEST(p.array_releases == 1);
  }
  {
    Producer p;
    zt::AnyTensor t = zt::as_tensor(zt::ArrowData{p.primitive(values), p.schema("i")});
    BOOST_TEST(t.data_ptr() == values.data());
  }
  Producer p;
  BOOST_CHECK_EXCEPTION(static_cast<void>(zt::asarray(zt::ArrowData{p.primitive(values), p.schema("i")},
                                                      {.dtype = zt::float32, .copy = false})),
                        zt::ValueError, with_message<zt::ValueError>("can't alias"));
  BOOST_TEST(p.array_releases == 1);
  BOOST_TEST(p.schema_releases == 1);
}

BOOST_AUTO_TEST_CASE(device_arrays_give_tensors_on_their_device) {
  const std::vector<float> values = iota_floats(4);
  const std::array<std::pair<ar::DeviceType, zt::Device>, 4> devices = {{
      {ar::device_cpu, zt::cpu},
      {ar::device_cuda, zt::cuda(1)},
      {ar::device_cuda_host, zt::Device{zt::DeviceKind::CUDAHost, 1}},
      {ar::device_cuda_managed, zt::Device{zt::DeviceKind::CUDAManaged, 1}},
  }};
  for (auto [type, device] : devices) {
    Producer p;
    ar::DeviceArray d{*p.primitive(values), type == ar::device_cpu ? 0 : 1, type, nullptr, {}};
    {
      zt::AnyTensor t = zt::from_arrow(&d, p.schema("f"));
      BOOST_TEST(t.device() == device);
      BOOST_TEST(t.data_ptr() == values.data());
      BOOST_TEST(d.array.release == nullptr);
    }
    BOOST_TEST(p.array_releases == 1);
  }
  Producer p;
  ar::DeviceArray d{*p.primitive(values), 0, 4, nullptr, {}};  // OpenCL
  BOOST_CHECK_EXCEPTION(static_cast<void>(zt::from_arrow(&d, p.schema("f"))), zt::DeviceError,
                        with_message<zt::DeviceError>("unsupported Arrow device type 4"));
  BOOST_TEST(p.array_releases == 1);
  // The validity bitmap of CUDA memory cannot be read by the host.
  const std::uint8_t validity = 0xff;
  Producer q;
  ar::DeviceArray nulls{*q.array(4, {&validity, values.data()}, {}, 0, -1), 0, ar::device_cuda, nullptr, {}};
  BOOST_CHECK_EXCEPTION(static_cast<void>(zt::from_arrow(&nulls, q.schema("f"))), zt::DeviceError,
                        with_message<zt::DeviceError>("may hold nulls (null_count -1)"));
#if !ZT_CUDA
  Producer r;
  int event = 0;
  ar::DeviceArray synced{*r.primitive(values), 0, ar::device_cuda, &event, {}};
  BOOST_CHECK_EXCEPTION(static_cast<void>(zt::from_arrow(&synced, r.schema("f"))), zt::DeviceError,
                        with_message<zt::DeviceError>("needs the CUDA build"));
  BOOST_TEST(r.array_releases == 1);
#endif
}

BOOST_AUTO_TEST_CASE(an_empty_format_is_a_malformed_schema) {
  const std::vector<float> values = iota_floats(4);
  Producer p;
  BOOST_CHECK_EXCEPTION(static_cast<void>(zt::from_arrow(p.primitive(values), p.schema(""))), zt::ValueError,
                        with_message<zt::ValueError>("from_arrow: malformed ArrowSchema: format is empty at nesting level 0"));
  BOOST_TEST(p.array_releases == 1);
  BOOST_TEST(p.schema_releases == 1);
}

BOOST_AUTO_TEST_CASE(offset_plus_length_past_int64_is_refused) {
  // Found by fuzzing: length INT64_MAX from offset 1 was a view of 2^63 - 1 bytes.
  std::array<std::uint8_t, 16> bytes{};
  Producer p;
  ar::Array* array = p.array(INT64_MAX, {nullptr, bytes.data()}, {}, 1);
  BOOST_CHECK_EXCEPTION(
      static_cast<void>(zt::from_arrow(array, p.schema("C"))), zt::ValueError,
      with_message<zt::ValueError>(
          "from_arrow: malformed ArrowArray: offset 1 + length 9223372036854775807 overflows int64 at nesting level 0"));
  BOOST_TEST(p.array_releases == 1);
}

BOOST_AUTO_TEST_CASE(a_device_copy_is_refused_before_any_allocation) {
  // Found by fuzzing: copy = true of CUDA memory allocated a host copy of the whole length
  // (std::bad_alloc for 2^62 bytes) before the device check.
  std::array<std::uint8_t, 16> bytes{};
  Producer p;
  ar::DeviceArray d{*p.array(std::int64_t{1} << 62, {nullptr, bytes.data()}), 0, ar::device_cuda, nullptr, {}};
  BOOST_CHECK_EXCEPTION(static_cast<void>(zt::from_arrow(&d, p.schema("C"), {.copy = true})), zt::DeviceError,
                        with_message<zt::DeviceError>("from_arrow: the uint8 array on cuda:0 needs a copy"));
  BOOST_TEST(p.array_releases == 1);
}

BOOST_AUTO_TEST_CASE(bools_unpack_from_any_bit_offset) {
  // 8 bytes of bits, read from bit offsets 0 … 9 over lengths that end mid-byte and on one.
  const std::array<std::uint8_t, 8> bits = {0xA5, 0x3C, 0xFF, 0x00, 0x81, 0x7E, 0x12, 0xED};
  for (std::int64_t offset = 0; offset < 10; ++offset) {
    for (const std::int64_t length : {std::int64_t{0}, std::int64_t{5}, std::int64_t{8}, 64 - offset - 7, 64 - offset}) {
      Producer p;
      zt::AnyTensor t = zt::from_arrow(p.array(length, {nullptr, bits.data()}, {}, offset), p.schema("b"));
      BOOST_TEST_CONTEXT("offset " << offset << ", length " << length) {
        BOOST_TEST(t.shape() == (zt::DynamicExtents{length}));
        const auto* bytes = static_cast<const std::uint8_t*>(t.data_ptr());
        for (std::int64_t i = 0; i < length; ++i)
          BOOST_TEST(int(bytes[i]) == (bits[std::size_t((offset + i) / 8)] >> ((offset + i) % 8) & 1));
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(arrow_record_batch)

BOOST_AUTO_TEST_CASE(columns_are_views_sharing_one_owner) {
  Producer p;
  const std::vector<float> x = {1, 2, 3, 4};
  const std::vector<float> y = {5, 6, 7, 8};
  ar::Array* batch = p.array(3, {nullptr}, {p.primitive(x), p.primitive(y)}, 1);
  ar::Schema* schema = p.schema("+s", {p.schema("f", {}, {}, "x"), p.schema("f", {}, {}, "y")});
  {
    zt::RecordBatchTensors columns = zt::from_arrow_record_batch(batch, schema);
    BOOST_TEST(p.schema_releases == 1);
    BOOST_TEST(columns.names() == (std::vector<std::string>{"x", "y"}), boost::test_tools::per_element());
    BOOST_TEST(columns.at("y").data_ptr() == y.data() + 1);
    BOOST_TEST(columns.at("x").shape() == (zt::DynamicExtents{3}));
    BOOST_CHECK_EXCEPTION(static_cast<void>(columns.at("z")), zt::ValueError,
                          with_message<zt::ValueError>("no column \"z\"; the columns are \"x\", \"y\""));
    zt::AnyTensor stacked = columns.stack();
    BOOST_TEST(stacked.shape() == (zt::DynamicExtents{3, 2}));
    BOOST_TEST((stacked.as<const float, 2>()(2, 1)) == 8.0f);
    zt::AnyTensor kept = columns.columns()[1];
    columns = {};
    BOOST_TEST(p.array_releases == 0);
  }
  BOOST_TEST(p.array_releases == 1);
}

BOOST_AUTO_TEST_CASE(duplicate_names_and_mixed_stacks_are_refused) {
  const std::vector<float> x = {1, 2};
  const std::vector<std::int32_t> n = {1, 2};
  {
    Producer p;
    ar::Array* batch = p.array(2, {nullptr}, {p.primitive(x), p.primitive(x)});
    ar::Schema* schema = p.schema("+s", {p.schema("f", {}, {}, "a"), p.schema("f", {}, {}, "a")});
    BOOST_CHECK_EXCEPTION(static_cast<void>(zt::from_arrow_record_batch(batch, schema)), zt::ValueError,
                          with_message<zt::ValueError>("column name \"a\" appears twice"));
    BOOST_TEST(p.array_releases == 1);
  }
  Producer p;
  ar::Array* batch = p.array(2, {nullptr}, {p.primitive(x), p.primitive(n)});
  ar::Schema* schema = p.schema("+s", {p.schema("f", {}, {}, "a"), p.schema("i", {}, {}, "b")});
  zt::RecordBatchTensors columns = zt::from_arrow_record_batch(batch, schema);
  BOOST_TEST(columns.at("b").dtype() == zt::int32);
  BOOST_CHECK_EXCEPTION(static_cast<void>(columns.stack()), zt::TypeError,
                        with_message<zt::TypeError>("column \"b\" is int32"));
}

BOOST_AUTO_TEST_CASE(a_released_schema_is_refused_and_the_array_released) {
  // Found by fuzzing: the released schema was read (a use after free when its producer had
  // freed it).
  const std::vector<float> x = {1, 2};
  Producer p;
  ar::Array* batch = p.array(2, {nullptr}, {p.primitive(x)});
  ar::Schema* schema = p.schema("+s", {p.schema("f", {}, {}, "x")});
  schema->release(schema);
  BOOST_TEST(p.schema_releases == 1);
  BOOST_CHECK_EXCEPTION(static_cast<void>(zt::from_arrow_record_batch(batch, schema)), zt::ValueError,
                        with_message<zt::ValueError>("from_arrow_record_batch: the ArrowSchema is released"));
  BOOST_TEST(p.array_releases == 1);
  BOOST_TEST(p.schema_releases == 1);
}

BOOST_AUTO_TEST_CASE(a_null_in_a_column_names_the_column) {
  const std::vector<double> x = {1, 2, 3};
  const std::vector<double> y = {4, 5, 6};
  const std::uint8_t validity = 0b011;
  Producer p;
  ar::Array* column = p.array(3, {&validity, y.data()}, {}, 0, 1);
  ar::Array* batch = p.array(3, {nullptr}, {p.primitive(x), column});
  ar::Schema* schema = p.schema("+s", {p.schema("g", {}, {}, "x"), p.schema("g", {}, {}, "y")});
  BOOST_CHECK_EXCEPTION(
      static_cast<void>(zt::from_arrow_record_batch(batch, schema)), zt::ValueError,
      with_message<zt::ValueError>("from_arrow_record_batch: column 1 \"y\": the float64 array holds 1 nulls (the "
                                   "first at slot 2 of nesting level 0)"));
  BOOST_TEST(p.array_releases == 1);
}

BOOST_AUTO_TEST_CASE(names_and_columns_cannot_disagree) {
  const zt::AnyTensor a = zt::asarray(std::vector<float>{1, 2});
  BOOST_CHECK_EXCEPTION((zt::RecordBatchTensors{{"a", "b"}, {a}}), zt::ValueError,
                        with_message<zt::ValueError>("RecordBatchTensors: 2 names for 1 columns"));
  BOOST_CHECK_EXCEPTION((zt::RecordBatchTensors{{"a", "a"}, {a, a}}), zt::ValueError,
                        with_message<zt::ValueError>("RecordBatchTensors: column name \"a\" appears twice"));
  const zt::RecordBatchTensors batch{{"b", "a", "c"}, {a, a, zt::asarray(std::vector<std::int32_t>{7, 8})}};
  BOOST_TEST(batch.size() == 3u);
  BOOST_TEST(batch.names() == (std::vector<std::string>{"b", "a", "c"}), boost::test_tools::per_element());
  BOOST_TEST(batch.at("c").dtype() == zt::int32);
  BOOST_TEST(batch.at("a").data_ptr() == a.data_ptr());
}

BOOST_AUTO_TEST_CASE(many_columns_are_found_by_name) {
  // 5,000 columns over one buffer: every name found at its own column, in any order.
  const std::vector<std::int64_t> values = {1, 2, 3};
  constexpr int columns = 5000;
  Producer p;
  std::vector<ar::Array*> arrays;
  std::vector<ar::Schema*> fields;
  std::deque<std::string> names;
  for (int c = 0; c < columns; ++c) {
    arrays.push_back(p.primitive(values));
    fields.push_back(p.schema("l", {}, {}, names.emplace_back("column " + std::to_string((c * 7919) % columns)).c_str()));
  }
  ar::Array* batch = p.array(3, {nullptr}, arrays);
  const zt::RecordBatchTensors tensors = zt::from_arrow_record_batch(batch, p.schema("+s", fields));
  BOOST_TEST(tensors.size() == std::size_t(columns));
  for (int c = 0; c < columns; ++c) {
    const zt::AnyTensor& column = tensors.at("column " + std::to_string((c * 7919) % columns));
    BOOST_TEST(&column == &tensors.columns()[std::size_t(c)]);
  }
}

BOOST_AUTO_TEST_CASE(a_null_row_is_null_in_every_column) {
  Producer p;
  const std::vector<double> x = {1, 2, 3};
  const std::vector<std::int32_t> y = {4, 5, 6};
  const std::uint8_t rows = 0b101;
  ar::Array* batch = p.array(3, {&rows}, {p.primitive(x), p.primitive(y)}, 0, 1);
  ar::Schema* schema = p.schema("+s", {p.schema("g", {}, {}, "x"), p.schema("i", {}, {}, "y")});
  zt::RecordBatchTensors columns = zt::from_arrow_record_batch(batch, schema, {.fill_nulls = -1.0});
  auto typed = columns.at("x").as<const double, 1>();
  BOOST_TEST(typed(0) == 1.0);
  BOOST_TEST(typed(1) == -1.0);
  BOOST_TEST(typed(2) == 3.0);
  auto second = columns.at("y").as<const std::int32_t, 1>();
  BOOST_TEST(second(0) == 4);
  BOOST_TEST(second(1) == -1);
  BOOST_TEST(second(2) == 6);
}

/// A two-row record batch of columns "x" (float32) and "t" (a 2x2 arrow.fixed_shape_tensor of
/// float32) over `values` (at least 10 floats), made by `p`.
std::pair<ar::Array*, ar::Schema*> two_column_batch(Producer& p, const std::vector<float>& values) {
  ar::Array* tensor = p.array(2, {nullptr}, {p.array(8, {nullptr, values.data() + 2})});
  ar::Array* batch = p.array(2, {nullptr}, {p.primitive(values), tensor});
  ar::Schema* fields = p.schema("+s", {p.schema("f", {}, {}, "x"),
                                       p.schema("+w:4", {p.schema("f")}, tensor_extension(R"({"shape":[2,2]})"), "t")});
  return {batch, fields};
}

BOOST_AUTO_TEST_CASE(every_refusal_releases_the_array_and_the_schema_once) {
  // The structs are released once each, whichever check refuses them (a NULL one is not).
  const std::vector<float> values = iota_floats(10);
  struct Case {
    bool type_error;  ///< else a ValueError
    const char* message;
    void (*spoil)(ar::Array*&, ar::Schema*&);
  };
  const Case cases[] = {
      {false, "from_arrow_record_batch: the ArrowArray pointer is NULL",
       [](ar::Array*& a, ar::Schema*&) { a = nullptr; }},
      {false, "from_arrow_record_batch: the ArrowArray is released",
       [](ar::Array*& a, ar::Schema*&) { a->release(a); }},
      {false, "from_arrow_record_batch: the ArrowSchema pointer is NULL",
       [](ar::Array*&, ar::Schema*& s) { s = nullptr; }},
      {false, "from_arrow_record_batch: the ArrowSchema is released",
       [](ar::Array*&, ar::Schema*& s) { s->release(s); }},
      {true, "from_arrow_record_batch: the schema's format is \"f\"",
       [](ar::Array*&, ar::Schema*& s) { s->format = "f"; }},
      {false, "from_arrow_record_batch: malformed ArrowSchema: the struct has -1 children",
       [](ar::Array*&, ar::Schema*& s) { s->n_children = -1; }},
      {false, "from_arrow_record_batch: malformed ArrowSchema: the struct's child 1 is NULL",
       [](ar::Array*&, ar::Schema*& s) { s->children[1] = nullptr; }},
      {true, "from_arrow_record_batch: column 0 \"x\": Arrow format \"u\" at nesting level 0 is not supported",
       [](ar::Array*&, ar::Schema*& s) { s->children[0]->format = "u"; }},
      {false, "from_arrow_record_batch: column 1 \"t\": malformed ArrowSchema: format is empty at nesting level 1",
       [](ar::Array*&, ar::Schema*& s) { s->children[1]->children[0]->format = ""; }},
      {false,
       "from_arrow_record_batch: column 1 \"t\": arrow.fixed_shape_tensor metadata {\"shape\":[2,3]}: the shape has 6 "
       "elements but the storage list size is 4",
       [](ar::Array*&, ar::Schema*& s) {
         static const std::string metadata = tensor_extension(R"({"shape":[2,3]})");
         s->children[1]->metadata = metadata.c_str();
       }},
      {false, "from_arrow_record_batch: column 1 \"t\": arrow.fixed_shape_tensor metadata is not valid JSON",
       [](ar::Array*&, ar::Schema*& s) {
         static const std::string metadata = tensor_extension(R"({"shape":[2,2])");
         s->children[1]->metadata = metadata.c_str();
       }},
      {false, "from_arrow_record_batch: column 0 \"x\": malformed ArrowArray: the struct's child 0 is NULL",
       [](ar::Array*& a, ar::Schema*&) { a->children[0] = nullptr; }},
      {false,
       "from_arrow_record_batch: column 1 \"t\": malformed ArrowArray: slots [0, 8) are used at nesting level 1 but "
       "its length is 7",
       [](ar::Array*& a, ar::Schema*&) { a->children[1]->children[0]->length = 7; }},
      {false, "from_arrow_record_batch: malformed ArrowArray: 1 children (or NULL children) at nesting level 0 where "
              "the type has 2",
       [](ar::Array*& a, ar::Schema*&) { a->n_children = 1; }},
      {false, "RecordBatchTensors: column name \"x\" appears twice",
       [](ar::Array*&, ar::Schema*& s) { s->children[1]->name = "x"; }},
  };
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(c.message) {
      Producer p;
      auto [batch, schema] = two_column_batch(p, values);
      c.spoil(batch, schema);
      BOOST_CHECK_EXCEPTION(static_cast<void>(zt::from_arrow_record_batch(batch, schema)), zt::Error,
                            [&](const zt::Error& e) {
                              return (dynamic_cast<const zt::TypeError*>(&e) != nullptr) == c.type_error &&
                                     (c.type_error || dynamic_cast<const zt::ValueError*>(&e) != nullptr) &&
                                     message_has(e, c.message);
                            });
      BOOST_TEST(p.array_releases == (batch == nullptr ? 0 : 1));
      BOOST_TEST(p.schema_releases == (schema == nullptr ? 0 : 1));
    }
  }
}

BOOST_AUTO_TEST_CASE(a_failed_allocation_releases_the_array_and_the_schema_once) {
  // Each allocation of an import fails in turn, until the import needs no more: std::bad_alloc
  // on every way out, and the producer's structs released exactly once.
  const std::vector<float> values = iota_floats(10);
  bool failed = true;
  for (long allocation = 0; failed; ++allocation) {
    BOOST_TEST_CONTEXT("allocation " << allocation) {
      Producer p;
      auto [batch, schema] = two_column_batch(p, values);
      failed = false;
      allocations_until_failure = allocation;
      try {
        const zt::RecordBatchTensors columns = zt::from_arrow_record_batch(batch, schema);
        allocations_until_failure = -1;
        BOOST_TEST(columns.at("t").shape() == (zt::DynamicExtents{2, 2, 2}));
      } catch (const std::bad_alloc&) {
        failed = true;
      }
      allocations_until_failure = -1;
      BOOST_TEST(p.array_releases == 1);
      BOOST_TEST(p.schema_releases == 1);
    }
  }
}

BOOST_AUTO_TEST_CASE(from_arrow_releases_once_when_an_allocation_fails) {
  const std::vector<float> values = iota_floats(8);
  bool failed = true;
  for (long allocation = 0; failed; ++allocation) {
    BOOST_TEST_CONTEXT("allocation " << allocation) {
      Producer p;
      auto [array, schema] = tensor_array(p, values, 4, R"({"shape":[2,2]})");
      failed = false;
      allocations_until_failure = allocation;
      try {
        const zt::AnyTensor t = zt::from_arrow(array, schema);
        allocations_until_failure = -1;
        BOOST_TEST(t.shape() == (zt::DynamicExtents{2, 2, 2}));
      } catch (const std::bad_alloc&) {
        failed = true;
      }
      allocations_until_failure = -1;
      BOOST_TEST(p.array_releases == 1);
      BOOST_TEST(p.schema_releases == 1);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(arrow_export)

/// A float tensor 0, 1, 2, ... whose memory counts its destruction.
struct Owned {
  std::shared_ptr<int> destroyed = std::make_shared<int>(0);
  zt::AnyTensor tensor;
  explicit Owned(const std::vector<zt::index_t>& shape) : tensor(make(shape, destroyed)) {}

  static zt::AnyTensor make(const std::vector<zt::index_t>& shape, const std::shared_ptr<int>& destroyed) {
    const auto count = std::size_t(zt::checked_numel(shape, sizeof(float)));
    std::shared_ptr<std::vector<float>> memory(new std::vector<float>(iota_floats(count)),
                                               [destroyed](std::vector<float>* v) {
                                                 ++*destroyed;
                                                 delete v;
                                               });
    const zt::DynamicExtents extents{std::span<const zt::index_t>(shape)};
    return zt::AnyTensor(memory->data(), extents, zt::detail::contiguous_strides(extents), memory);
  }
};

BOOST_AUTO_TEST_CASE(one_dimension_is_a_primitive_array_keeping_the_owner) {
  Owned owned({5});
  ar::Array array{};
  ar::Schema schema{};
  zt::to_arrow(owned.tensor, &array, &schema);
  BOOST_TEST(std::string(schema.format) == "f");
  BOOST_TEST(schema.metadata == nullptr);
  BOOST_TEST(array.length == 5);
  BOOST_TEST(array.null_count == 0);
  BOOST_TEST(array.n_buffers == 2);
  BOOST_TEST(array.buffers[0] == nullptr);
  BOOST_TEST(array.buffers[1] == owned.tensor.data_ptr());
  owned.tensor = zt::asarray(0);
  BOOST_TEST(*owned.destroyed == 0);  // the export keeps it alive
  // Round trip: from_arrow shares the same memory.
  const void* address = array.buffers[1];
  zt::AnyTensor back = zt::from_arrow(&array, &schema);
  BOOST_TEST(back.data_ptr() == address);
  BOOST_TEST(schema.release == nullptr);
  back = zt::asarray(0);
  BOOST_TEST(*owned.destroyed == 1);
}

BOOST_AUTO_TEST_CASE(n_dimensions_are_a_fixed_shape_tensor_or_nested_lists) {
  Owned owned({2, 3, 4});
  ar::Array array{};
  ar::Schema schema{};
  zt::to_arrow(owned.tensor, &array, &schema);
  BOOST_TEST(std::string(schema.format) == "+w:12");
  BOOST_TEST(std::string(schema.children[0]->format) == "f");
  BOOST_TEST(std::string(schema.metadata + 4 + 4 + 20 + 4, 24) == "arrow.fixed_shape_tensor");
  BOOST_TEST(array.length == 2);
  BOOST_TEST(array.children[0]->length == 24);
  zt::AnyTensor back = zt::from_arrow(&array, &schema);
  BOOST_TEST(back.shape() == (zt::DynamicExtents{2, 3, 4}));
  BOOST_TEST(back.data_ptr() == owned.tensor.data_ptr());

  zt::to_arrow(owned.tensor, &array, &schema, {.tensor_type = zt::ArrowTensorType::fixed_size_list});
  BOOST_TEST(std::string(schema.format) == "+w:3");
  BOOST_TEST(schema.metadata == nullptr);
  BOOST_TEST(std::string(schema.children[0]->format) == "+w:4");
  BOOST_TEST(std::string(schema.children[0]->name) == "item");
  back = zt::from_arrow(&array, &schema);
  BOOST_TEST(back.shape() == (zt::DynamicExtents{2, 3, 4}));
}

BOOST_AUTO_TEST_CASE(a_child_moved_out_outlives_its_parent) {
  Owned owned({2, 3});
  ar::Array array{};
  ar::Schema schema{};
  zt::to_arrow(owned.tensor, &array, &schema);
  ar::Array child = *array.children[0];  // the interface's move
  array.children[0]->release = nullptr;
  array.release(&array);
  schema.release(&schema);
  owned.tensor = zt::asarray(0);
  BOOST_TEST(*owned.destroyed == 0);
  BOOST_TEST(static_cast<const float*>(child.buffers[1])[5] == 5.0f);
  child.release(&child);
  BOOST_TEST(*owned.destroyed == 1);
}

BOOST_AUTO_TEST_CASE(refusals_and_the_copy_option) {
  ar::Array array{};
  ar::Schema schema{};
  BOOST_CHECK_EXCEPTION(zt::to_arrow(zt::asarray(1.0), &array, &schema), zt::ValueError,
                        with_message<zt::ValueError>("a 0-dim tensor"));
  BOOST_CHECK_EXCEPTION(zt::to_arrow(zt::asarray({true, false}), &array, &schema), zt::TypeError,
                        with_message<zt::TypeError>("bool has no Arrow type"));
  for (zt::DType dtype : {zt::float8_e4m3fn_, zt::complex32_, zt::float4_e2m1fn_x2_})
    BOOST_CHECK_EXCEPTION(zt::to_arrow(zt::empty(std::array<zt::index_t, 1>{2}, dtype), &array, &schema), zt::TypeError,
                          with_message<zt::TypeError>(
                              std::string(zt::name(dtype)) +
                              " has no Arrow type that shares memory (Arrow's bool packs bits; Arrow has no bfloat16, "
                              "complex, 8-bit or sub-byte floats); convert with .to(dtype) first"));
  BOOST_TEST(array.release == nullptr);  // nothing written
  Owned owned({3, 2});
  const float* data = static_cast<const float*>(owned.tensor.data_ptr());
  zt::AnyTensor transposed(data, std::array<zt::index_t, 2>{2, 3}, std::array<zt::index_t, 2>{1, 2});
  BOOST_CHECK_EXCEPTION(zt::to_arrow(transposed, &array, &schema), zt::ValueError,
                        with_message<zt::ValueError>("is not contiguous"));
  zt::to_arrow(transposed, &array, &schema, {.copy = true});
  zt::AnyTensor back = zt::from_arrow(&array, &schema);
  BOOST_TEST((back.as<const float, 2>()(1, 2)) == 5.0f);
  BOOST_TEST(back.data_ptr() != owned.tensor.data_ptr());
  zt::AnyTensor device(const_cast<float*>(data), std::array<zt::index_t, 1>{6}, std::array<zt::index_t, 1>{1}, {},
                       zt::cuda(0));
  BOOST_CHECK_EXCEPTION(zt::to_arrow(device, &array, &schema), zt::DeviceError,
                        with_message<zt::DeviceError>("export an ArrowDeviceArray"));
  ar::DeviceArray exported{};
  zt::to_arrow(device, &exported, &schema);
  BOOST_TEST(exported.device_type == ar::device_cuda);
  BOOST_TEST(exported.array.buffers[1] == data);
  zt::AnyTensor imported = zt::from_arrow(&exported, &schema);
  BOOST_TEST(imported.device() == zt::cuda(0));
}

BOOST_AUTO_TEST_CASE(exports_mark_nullability_as_pyarrow_does) {
  // pyarrow builds every type and field nullable; only a record batch's own schema is not.
  // Anything else fails pa.concat_arrays / concat_tables with pyarrow's own arrays.
  Owned a({4});
  Owned b({4, 2, 3});
  const auto every_node = [](const ar::Schema& root, auto&& check) {
    std::vector<const ar::Schema*> pending = {&root};
    while (!pending.empty()) {
      const ar::Schema* s = pending.back();
      pending.pop_back();
      check(*s);
      for (std::int64_t i = 0; i < s->n_children; ++i) pending.push_back(s->children[i]);
    }
  };
  for (const auto type : {zt::ArrowTensorType::fixed_shape_tensor, zt::ArrowTensorType::fixed_size_list}) {
    ar::Array array{};
    ar::Schema schema{};
    zt::to_arrow(b.tensor, &array, &schema, {.tensor_type = type});
    every_node(schema, [](const ar::Schema& s) { BOOST_TEST(s.flags == ar::flag_nullable); });
    array.release(&array);
    schema.release(&schema);
  }
  ar::Array array{};
  ar::Schema schema{};
  zt::to_arrow_record_batch(zt::RecordBatchTensors{{"a", "b"}, {a.tensor, b.tensor}}, &array, &schema);
  BOOST_TEST(schema.flags == 0);
  for (std::int64_t i = 0; i < schema.n_children; ++i)
    every_node(*schema.children[i], [](const ar::Schema& s) { BOOST_TEST(s.flags == ar::flag_nullable); });
  array.release(&array);
  schema.release(&schema);
}

BOOST_AUTO_TEST_CASE(record_batch_round_trip) {
  Owned a({4});
  Owned b({4, 2});
  zt::RecordBatchTensors batch{{"a", "b"}, {a.tensor, b.tensor}};
  ar::Array array{};
  ar::Schema schema{};
  zt::to_arrow_record_batch(batch, &array, &schema);
  BOOST_TEST(std::string(schema.format) == "+s");
  BOOST_TEST(std::string(schema.children[1]->name) == "b");
  zt::RecordBatchTensors back = zt::from_arrow_record_batch(&array, &schema);
  BOOST_TEST(back.at("a").data_ptr() == a.tensor.data_ptr());
  BOOST_TEST(back.at("b").shape() == (zt::DynamicExtents{4, 2}));
  const zt::RecordBatchTensors uneven{{"a", "b"}, {a.tensor, zt::asarray(std::vector<float>(3))}};
  BOOST_CHECK_EXCEPTION(zt::to_arrow_record_batch(uneven, &array, &schema), zt::ValueError,
                        with_message<zt::ValueError>("column \"b\" has 3 rows, column \"a\" has 4"));
}

BOOST_AUTO_TEST_SUITE_END()
