// load_torch against files PyTorch's torch.save wrote (test/data/torch, made by
// make_fixtures.py, which also wrote expected.json from torch.load of each), files PyTorch
// refuses or cannot be read as weights (legacy format, TorchScript, float8), and the table of
// malicious files under test/data/torch/malicious: each a ValueError with its exact message.
// Among those, files of a few hundred KB that name or build gigabytes through values shared by
// the memo are refused before they allocate more than a bounded multiple of their size. Each
// file also loads from memory (a zt::Buffer of its bytes) with the same result or message; the
// path forms keep naming files.
#include <boost/test/unit_test.hpp>

#include <complex>
#include <concepts>
#include <cstring>
#include <fstream>
#include <numeric>
#include <optional>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "support/file_test_support.hpp"
#include "zerotensor/shares_memory.hpp"
#include "zerotensor/storage.hpp"
#include "zerotensor/torch_load.hpp"

using zt_test::aligned_buffer;
using zt_test::counted_buffer;
using zt_test::data_file;
using zt_test::read_bytes;
using zt_test::TempDir;

namespace {

std::filesystem::path fixture(const std::string& name) { return data_file("torch/" + name + ".pt"); }

const nlohmann::json& expected() {
  static const nlohmann::json parsed = [] {
    std::ifstream in(data_file("torch/expected.json"));
    return nlohmann::json::parse(in);
  }();
  return parsed;
}

std::string prefix(const std::filesystem::path& path) { return "load_torch: <" + path.string() + ">: "; }

std::uintptr_t address(const zt::AnyTensor& t) { return reinterpret_cast<std::uintptr_t>(t.data_ptr()); }

/// A BOOST_CHECK_EXCEPTION predicate: the message is exactly `expected`.
auto exactly(const std::string& expected) {
  return [expected](const zt::ValueError& e) {
    const bool same = std::string(e.what()) == expected;
    if (!same) BOOST_TEST_MESSAGE("message was: " << e.what() << "\nexpected: " << expected);
    return same;
  };
}

/// load_torch(path) throws ValueError with exactly this message after the path, and so does
/// load_torch of the file's bytes in memory after "<memory>".
void check_refused(const std::filesystem::path& path, const std::string& message) {
  BOOST_CHECK_EXCEPTION((void)zt::load_torch(path), zt::ValueError, exactly(prefix(path) + message));
  BOOST_CHECK_EXCEPTION((void)zt::load_torch(aligned_buffer(read_bytes(path))), zt::ValueError,
                        exactly("load_torch: <memory>: " + message));
}

/// Whether load_torch takes a `Source`, with and without options.
template <class Source>
concept torch_loads_from = requires {
  { zt::load_torch(std::declval<Source>()) } -> std::same_as<zt::TorchFile>;
  { zt::load_torch(std::declval<Source>(), {.copy = true}) } -> std::same_as<zt::TorchFile>;
};

// Paths in every form keep compiling (the bytes overload takes exactly a zt::Buffer, so none
// of them is ambiguous with it); bytes go in as a Buffer and in no other form.
static_assert(torch_loads_from<const char*>);
static_assert(torch_loads_from<const char (&)[5]>);
static_assert(torch_loads_from<std::string>);
static_assert(torch_loads_from<const std::string&>);
static_assert(torch_loads_from<std::filesystem::path>);
static_assert(torch_loads_from<const std::filesystem::path&>);
static_assert(torch_loads_from<zt::Buffer>);
static_assert(torch_loads_from<zt::Buffer&>);
static_assert(torch_loads_from<const zt::Buffer&>);
static_assert(!torch_loads_from<std::vector<std::byte>>);

std::string repeat(const std::string& text, int times) {
  std::string out;
  for (int i = 0; i < times; ++i) out += text;
  return out;
}

/// Every element, in C order, as complex128 (the one type every dtype converts to exactly here).
std::vector<std::complex<double>> elements(const zt::AnyTensor& tensor) {
  zt::AnyTensor converted = tensor.to(zt::complex128);
  if (!converted.is_contiguous()) converted = converted.clone();
  const auto* first = static_cast<const std::complex<double>*>(converted.data_ptr());
  return {first, first + converted.numel()};
}

std::string hex(const void* data, std::size_t size) {
  constexpr char digits[] = "0123456789abcdef";
  std::string text;
  for (std::size_t i = 0; i < size; ++i) {
    const auto byte = static_cast<const unsigned char*>(data)[i];
    text += digits[byte >> 4];
    text += digits[byte & 15];
  }
  return text;
}

/// The bytes of every element, in C order, as hex: what torch.load's values hold, bit for bit.
std::string element_bytes(const zt::AnyTensor& tensor) {
  const zt::AnyTensor packed = tensor.is_contiguous() ? tensor : tensor.clone();
  return hex(packed.data_ptr(), std::size_t(packed.numel()) * packed.itemsize());
}

zt::DynamicExtents extents(const nlohmann::json& list) {
  const auto values = list.get<std::vector<zt::index_t>>();
  return zt::DynamicExtents(std::span<const zt::index_t>(values));
}

void check_tensor(const std::string& name, const zt::AnyTensor& tensor, const nlohmann::json& want) {
  BOOST_TEST_CONTEXT("tensor '" << name << "'") {
    BOOST_TEST(std::string(zt::name(tensor.dtype())) == want["dtype"].get<std::string>());
    BOOST_TEST(tensor.shape() == extents(want["shape"]));
    BOOST_TEST(tensor.strides() == extents(want["strides"]));
    BOOST_TEST(!tensor.is_writable());
    BOOST_TEST(element_bytes(tensor) == want["bytes"].get<std::string>());
    if (want["values"].is_null()) return;  // NaN or infinity, which JSON cannot hold: the bytes are checked
    const auto values = elements(tensor);
    BOOST_REQUIRE(values.size() == want["values"].size());
    for (std::size_t i = 0; i < values.size(); ++i) {
      const auto& value = want["values"][i];
      const std::complex<double> expected_value =
          value.is_array() ? std::complex<double>(value[0].get<double>(), value[1].get<double>())
          : value.is_boolean() ? std::complex<double>(value.get<bool>() ? 1 : 0, 0)
                               : std::complex<double>(value.get<double>(), 0);
      BOOST_TEST((values[i] == expected_value), "element " << i << ": " << values[i] << " != " << expected_value);
    }
  }
}

/// Names, dtypes, shapes, strides, values and storage sharing equal torch.load's.
void check_against_torch(const std::string& name, const zt::TorchFile& file, const nlohmann::json& want) {
  BOOST_TEST_CONTEXT("fixture " << name) {
    BOOST_TEST(file.tensors.size() == want["tensors"].size());
    for (const auto& [tensor_name, tensor_want] : want["tensors"].items()) {
      BOOST_REQUIRE_MESSAGE(file.tensors.contains(tensor_name), "no tensor '" << tensor_name << "'");
      check_tensor(tensor_name, file.at(tensor_name), tensor_want);
      for (const auto& [other_name, other_want] : want["tensors"].items()) {
        const zt::AnyTensor& a = file.at(tensor_name);
        const zt::AnyTensor& b = file.at(other_name);
        if (tensor_want["storage"] != other_want["storage"]) {
          BOOST_TEST(!zt::shares_memory(a, b), "'" << tensor_name << "' and '" << other_name << "' share no memory");
          continue;
        }
        // One storage: the views lie where their storage offsets put them.
        const auto distance = static_cast<const std::byte*>(a.data_ptr()) - static_cast<const std::byte*>(b.data_ptr());
        BOOST_TEST(distance == tensor_want["offset"].get<std::ptrdiff_t>() * std::ptrdiff_t(a.itemsize()) -
                                   other_want["offset"].get<std::ptrdiff_t>() * std::ptrdiff_t(b.itemsize()),
                   "'" << tensor_name << "' and '" << other_name << "' are views of one storage");
      }
    }
    BOOST_TEST(file.values.size() == want["values"].size());
    for (const auto& [value_name, value_want] : want["values"].items()) {
      BOOST_REQUIRE_MESSAGE(file.values.contains(value_name), "no value '" << value_name << "'");
      const std::string& text = file.values.at(value_name);
      if (value_want.is_number())
        BOOST_TEST(std::stod(text) == value_want.get<double>(), value_name << ": " << text);
      else if (value_want.is_object())  // bytes, as hex
        BOOST_TEST(hex(text.data(), text.size()) == value_want["bytes"].get<std::string>(), value_name);
      else
        BOOST_TEST(text == value_want.get<std::string>(), value_name);
    }
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(load_torch_conformance)

BOOST_AUTO_TEST_CASE(every_file_torch_save_wrote_loads_as_torch_load_reads_it) {
  for (const auto& [name, want] : expected().items()) {
    // copy = false: every tensor is a view of the mapped file, but for the negated ones of conjugate.pt.
    const zt::LoadOptions options = name == "conjugate" ? zt::LoadOptions{} : zt::LoadOptions{.copy = false};
    check_against_torch(name, zt::load_torch(fixture(name), options), want);
  }
  BOOST_TEST(expected().size() == 17u);
}

BOOST_AUTO_TEST_CASE(tensors_saved_with_their_conjugate_or_negative_bit_load_as_negated_copies) {
  // make_fixtures.py conjugate(): "plain" is z, "conj" z.t().conj() and "conj_row" z.conj()[1]
  // (one storage: the first conjugated view makes the copy both share), "neg" x.conj().imag.
  // The conformance test above checks every value, bit for bit, with no copy option.
  const auto path = fixture("conjugate");
  check_against_torch("conjugate", zt::load_torch(path, {.copy = true}), expected()["conjugate"]);
  const zt::TorchFile writable = zt::load_torch(path, {.access = zt::MapAccess::copy_on_write});
  BOOST_TEST(writable.at("conj").is_writable());
  BOOST_TEST((writable.at("conj").as<const std::complex<float>, 2>()(0, 1) == std::complex<float>(1.5f, -2.0f)));
  BOOST_TEST((writable.at("neg").as<const float, 1>()(2) == 2.0f));

  // The first tensor with a bit is "conj": "plain" is viewed in place.
  BOOST_CHECK_EXCEPTION((void)zt::load_torch(path, {.copy = false}), zt::ValueError, [&](const zt::ValueError& e) {
    return message_has(e, prefix(path) + "storage '0' of 'conj' (saved with its conjugate bit) needs a copy with "
                                         "its imaginary parts negated, but copy = false");
  });
  BOOST_CHECK_EXCEPTION((void)zt::load_torch(path, {.access = zt::MapAccess::shared}), zt::ValueError,
                        [&](const zt::ValueError& e) {
                          return message_has(e, prefix(path) + "storage '0' of 'conj' (saved with its conjugate bit) "
                                                               "needs a copy with its imaginary parts negated, so it "
                                                               "cannot share memory with the file (shared access)");
                        });
}

BOOST_AUTO_TEST_CASE(bytes_load_as_their_own_bytes_whichever_protocol_pickled_them) {
  // Protocol 2 writes b"\x00\x01abc\xff" as _codecs.encode("\x00\x01abc\xff", "latin1"), protocol 4 as BINBYTES.
  for (const char* name : {"bytes", "bytes_protocol4"}) {
    BOOST_TEST_CONTEXT(name) {
      const zt::TorchFile file = zt::load_torch(fixture(name));
      BOOST_TEST(file.values.at("blob") == std::string("\x00\x01" "abc\xff", 6));
      BOOST_TEST(elements(file.at("w"))[1] == std::complex<double>(1, 0));
    }
  }
}

BOOST_AUTO_TEST_CASE(big_endian_storages_load_as_byte_swapped_copies) {
  const auto path = fixture("big_endian");
  check_against_torch("big_endian", zt::load_torch(path), expected()["linear"]);
  BOOST_CHECK_EXCEPTION(
      (void)zt::load_torch(path, {.copy = false}), zt::ValueError,
      [&](const zt::ValueError& e) {
        return message_has(e, prefix(path) + "storage '0' of 'weight' is stored in the other byte order "
                                             "(big-endian) and needs a byte-swapped copy, but copy = false");
      });
}

BOOST_AUTO_TEST_CASE(storages_saved_from_a_gpu_load_to_the_host) {
  const zt::TorchFile file = zt::load_torch(fixture("gpu_location"), {.copy = false});
  check_against_torch("gpu_location", file, expected()["linear"]);
  BOOST_TEST(file.at("weight").device() == zt::cpu);
}

BOOST_AUTO_TEST_CASE(views_of_one_storage_point_into_it_at_their_offsets) {
  const zt::TorchFile file = zt::load_torch(fixture("views"));
  const auto* base = static_cast<const float*>(file.at("base").data_ptr());
  BOOST_TEST(file.at("slice").data_ptr() == base + 8);
  BOOST_TEST(file.at("row").data_ptr() == base + 12);
  BOOST_TEST(file.at("element").data_ptr() == base + 22);
  BOOST_TEST(file.at("transposed").data_ptr() == base);
  BOOST_TEST(file.at("element").shape().size() == 0u);
}

BOOST_AUTO_TEST_CASE(tied_weights_share_memory_in_copies_too) {
  const zt::TorchFile copied = zt::load_torch(fixture("tied"), {.copy = true});
  BOOST_TEST(copied.at("embed.weight").data_ptr() == copied.at("lm_head.weight").data_ptr());
  BOOST_TEST(!zt::shares_memory(copied.at("embed.weight"), copied.at("lm_head.bias")));
  const zt::TorchFile writable = zt::load_torch(fixture("tied"), {.access = zt::MapAccess::copy_on_write});
  BOOST_TEST(writable.at("embed.weight").is_writable());
}

BOOST_AUTO_TEST_CASE(the_views_keep_the_mapping_alive) {
  zt::AnyTensor weight = [] { return zt::load_torch(fixture("linear")).at("weight"); }();
  BOOST_TEST(elements(weight)[5] == std::complex<double>(1.25, 0));
}

BOOST_AUTO_TEST_CASE(at_names_a_missing_tensor) {
  BOOST_CHECK_EXCEPTION((void)zt::load_torch(fixture("linear")).at("wieght"), zt::ValueError,
                        [](const zt::ValueError& e) {
                          return std::string(e.what()) == "LoadedTensors::at: no tensor named 'wieght' among 2 tensors";
                        });
}

BOOST_AUTO_TEST_CASE(float8_complex32_and_float4_tensors_load_as_views) {
  // make_fixtures.py low_precision(): torch 2.15 writes these with an UntypedStorage and the dtype.
  const zt::TorchFile file = zt::load_torch(fixture("low_precision"));
  std::vector<std::uint8_t> codes(256);
  std::iota(codes.begin(), codes.end(), std::uint8_t{0});
  for (const zt::DType dtype : {zt::float8_e4m3fn_, zt::float8_e5m2_, zt::float8_e4m3fnuz_, zt::float8_e5m2fnuz_,
                                zt::float8_e8m0fnu_}) {
    const zt::AnyTensor& t = file.at(std::string(zt::name(dtype)));
    BOOST_TEST(t.dtype() == dtype);
    BOOST_TEST(t.shape() == zt::DynamicExtents({16, 16}));
    const auto* first = static_cast<const std::uint8_t*>(t.data_ptr());
    BOOST_TEST(std::vector<std::uint8_t>(first, first + 256) == codes);
  }
  BOOST_TEST(float(file.at("float8_e5m2").as<const zt::float8_e5m2, 2>()(3, 12)) == 1.0f);
  const auto c32 = file.at("c32").as<const zt::complex32, 1>();
  BOOST_TEST((std::complex<float>(c32(0)) == std::complex<float>(1, 2)));
  BOOST_TEST((std::complex<float>(c32(1)) == std::complex<float>(-0.5f, 0)));
  const zt::AnyTensor& f4 = file.at("f4");
  BOOST_TEST(f4.dtype() == zt::float4_e2m1fn_x2_);
  BOOST_TEST(f4.shape() == zt::DynamicExtents({2, 3}));
  BOOST_TEST((f4.as<const zt::float4_e2m1fn_x2, 2>()(1, 2).bits == 0xBA));
}

BOOST_AUTO_TEST_CASE(files_that_are_not_torch_save_weights_are_refused_saying_what_they_are) {
  check_refused(fixture("legacy"),
                "is in PyTorch's legacy format (torch.save with _use_new_zipfile_serialization=False, or PyTorch "
                "before 1.6), which load_torch does not read; re-save it with torch.save in PyTorch 1.6 or later");
  check_refused(fixture("torchscript"),
                "is a TorchScript archive (torch.jit.save), not a torch.save file: load it with torch.jit.load, "
                "or save the module's state_dict() with torch.save");
  check_refused(data_file("safetensors/model.safetensors"), "not a zip archive: no end of central directory record");
  BOOST_CHECK_EXCEPTION((void)zt::load_torch(fixture("missing")), zt::IOError,
                        [](const zt::IOError& e) { return message_has(e, "missing.pt"); });
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(load_torch_from_memory)

BOOST_AUTO_TEST_CASE(every_path_form_still_names_a_file) {
  const std::filesystem::path path = fixture("linear");
  for (const zt::TorchFile& file : {zt::load_torch(path), zt::load_torch(path.string()), zt::load_torch(path.c_str()),
                                    zt::load_torch(path, {.copy = true}), zt::load_torch(path.string(), {.copy = true}),
                                    zt::load_torch(path.c_str(), {.copy = true})})
    check_against_torch("linear", file, expected()["linear"]);
  const auto missing = with_message<zt::IOError>("unable to open file <no_such.pt> in read-only mode");
  BOOST_CHECK_EXCEPTION((void)zt::load_torch("no_such.pt"), zt::IOError, missing);
  BOOST_CHECK_EXCEPTION((void)zt::load_torch("no_such.pt", {.copy = true}), zt::IOError, missing);
  BOOST_CHECK_EXCEPTION((void)zt::load_torch(std::string("no_such.pt")), zt::IOError, missing);
  BOOST_CHECK_EXCEPTION((void)zt::load_torch(std::string("no_such.pt"), {.copy = false}), zt::IOError, missing);
}

BOOST_AUTO_TEST_CASE(every_file_torch_save_wrote_loads_from_memory_as_from_the_file) {
  for (const auto& [name, want] : expected().items()) {
    const zt::Buffer bytes = aligned_buffer(read_bytes(fixture(name)));
    // copy = false: every tensor is a view of the buffer, but for the negated ones of conjugate.pt.
    const zt::LoadOptions options = name == "conjugate" ? zt::LoadOptions{} : zt::LoadOptions{.copy = false};
    const zt::TorchFile file = zt::load_torch(bytes, options);
    check_against_torch(name, file, want);
    if (name == "conjugate") continue;
    for (const auto& [tensor_name, tensor] : file.tensors) {
      const auto* data = static_cast<const std::byte*>(tensor.data_ptr());
      BOOST_TEST((data >= bytes.data() && data + tensor.nbytes() <= bytes.data() + bytes.nbytes()), tensor_name);
      BOOST_TEST(tensor.owner() == bytes.owner(), tensor_name);
    }
  }
}

BOOST_AUTO_TEST_CASE(the_views_point_where_the_records_lie_and_keep_the_owner_alive) {
  const auto path = fixture("linear");  // under a page: a view's offset in its page is its offset in the file
  const zt::TorchFile from_file = zt::load_torch(path);
  int deletions = 0;
  std::optional<zt::AnyTensor> weight;
  {
    const zt::Buffer bytes = counted_buffer(read_bytes(path), deletions);
    weight = zt::load_torch(bytes).at("weight");
    BOOST_TEST(weight->data_ptr() == bytes.data() + address(from_file.at("weight")) % 4096);
  }
  BOOST_TEST(deletions == 0);
  BOOST_TEST(elements(*weight)[5] == std::complex<double>(1.25, 0));
  weight.reset();
  BOOST_TEST(deletions == 1);
}

BOOST_AUTO_TEST_CASE(misaligned_bytes_are_copied_unless_copy_is_false) {
  const auto path = fixture("linear");
  const std::size_t weight_offset = address(zt::load_torch(path).at("weight")) % 4096;
  const zt::Buffer shifted = aligned_buffer(read_bytes(path), 1);
  const zt::TorchFile file = zt::load_torch(shifted);
  check_against_torch("linear", file, expected()["linear"]);
  BOOST_TEST(address(file.at("weight")) % 64 == 0u);  // a copy
  BOOST_TEST(file.at("weight").owner() != shifted.owner());
  BOOST_CHECK_EXCEPTION((void)zt::load_torch(shifted, {.copy = false}), zt::ValueError, [&](const zt::ValueError& e) {
    return message_has(e, "load_torch: <memory>: storage '0' of 'weight' starts at byte offset " +
                              std::to_string(weight_offset) + " of the buffer, at an address not aligned to 4 bytes "
                              "for float32, and needs a copy, but copy = false");
  });
}

BOOST_AUTO_TEST_CASE(truncated_bytes_are_refused_as_a_truncated_file_is) {
  TempDir dir;
  auto bytes = read_bytes(fixture("linear"));
  bytes.pop_back();
  zt_test::write_bytes(dir / "short.pt", bytes);
  check_refused(dir / "short.pt", "not a zip archive: no end of central directory record");
}

BOOST_AUTO_TEST_CASE(a_read_only_buffer_gives_read_only_tensors_only) {
  const std::vector<std::uint8_t> bytes = read_bytes(fixture("tied"));
  const zt::Buffer read_only{bytes};  // a const range: read-only, borrowed
  for (const zt::LoadOptions& options : {zt::LoadOptions{}, zt::LoadOptions{.copy = true}}) {
    for (const auto& [name, tensor] : zt::load_torch(read_only, options).tensors)
      BOOST_TEST(!tensor.is_writable(), name);
  }
  BOOST_CHECK_EXCEPTION(
      (void)zt::load_torch(read_only, {.access = zt::MapAccess::shared}), zt::ValueError,
      with_message<zt::ValueError>("load_torch: <memory>: shared access gives writable tensors, but the buffer is "
                                   "read-only"));
  BOOST_CHECK_EXCEPTION(
      (void)zt::load_torch(read_only, {.access = zt::MapAccess::copy_on_write}), zt::ValueError,
      with_message<zt::ValueError>("load_torch: <memory>: copy_on_write access gives writable tensors, but the "
                                   "buffer is read-only"));
}

BOOST_AUTO_TEST_CASE(shared_access_writes_reach_the_buffer_and_copy_on_write_copies) {
  std::vector<std::uint8_t> bytes = read_bytes(fixture("tied"));
  const zt::Buffer writable{bytes};
  {
    const zt::TorchFile shared = zt::load_torch(writable, {.access = zt::MapAccess::shared});
    shared.at("lm_head.weight").as<float>().data()[0] = 40.0f;  // tied: the embedding's too
  }
  BOOST_TEST(zt::load_torch(writable).at("embed.weight").as<const float>().data()[0] == 40.0f);
  const zt::TorchFile copies = zt::load_torch(writable, {.access = zt::MapAccess::copy_on_write});
  BOOST_TEST(copies.at("embed.weight").is_writable());
  BOOST_TEST(copies.at("embed.weight").data_ptr() == copies.at("lm_head.weight").data_ptr());  // still tied
  copies.at("embed.weight").as<float>().data()[0] = -1.0f;  // memory of its own: the buffer keeps its value
  BOOST_TEST(zt::load_torch(writable).at("embed.weight").as<const float>().data()[0] == 40.0f);

  std::vector<std::uint8_t> conjugate = read_bytes(fixture("conjugate"));
  BOOST_CHECK_EXCEPTION((void)zt::load_torch(zt::Buffer(conjugate), {.access = zt::MapAccess::shared}), zt::ValueError,
                        with_message<zt::ValueError>("load_torch: <memory>: storage '0' of 'conj' (saved with its "
                                                     "conjugate bit) needs a copy with its imaginary parts negated, so "
                                                     "it cannot share memory with the buffer (shared access)"));
}

BOOST_AUTO_TEST_CASE(big_endian_storages_follow_the_file_rules) {
  const zt::Buffer bytes = aligned_buffer(read_bytes(fixture("big_endian")));
  check_against_torch("big_endian", zt::load_torch(bytes), expected()["linear"]);
  BOOST_CHECK_EXCEPTION((void)zt::load_torch(bytes, {.copy = false}), zt::ValueError,
                        with_message<zt::ValueError>("load_torch: <memory>: storage '0' of 'weight' is stored in the "
                                                     "other byte order (big-endian) and needs a byte-swapped copy, "
                                                     "but copy = false"));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(load_torch_malicious_files)

// Each file of test/data/torch/malicious (make_fixtures.py writes its data.pkl by hand) is
// refused with exactly this message, after "load_torch: <path>: ": nothing is called, nothing
// is read outside the file.
BOOST_AUTO_TEST_CASE(each_is_a_value_error_with_its_message) {
  const std::string not_allowed = ", which is not allowed: a weights file names only tensors, containers and scalars";
  const std::pair<const char*, std::string> table[] = {
      {"global_reduce", "data.pkl: GLOBAL at byte 2 names posix.system" + not_allowed},
      {"stack_global", "data.pkl: STACK_GLOBAL at byte 17 names posix.system" + not_allowed},
      {"builtins_getattr", "data.pkl: GLOBAL at byte 2 names builtins.getattr" + not_allowed},
      {"builtins_eval", "data.pkl: GLOBAL at byte 2 names builtins.eval" + not_allowed},
      {"builtins_exec", "data.pkl: GLOBAL at byte 2 names builtins.exec" + not_allowed},
      {"module_class", "data.pkl: GLOBAL at byte 2 names torch.nn.modules.linear.Linear" + not_allowed},
      {"reduce_extra_arguments",
       "data.pkl: REDUCE at byte 50 calls collections.OrderedDict with 1 arguments; it takes 0"},
      {"reduce_storage_class", "data.pkl: REDUCE at byte 23 calls torch.FloatStorage, which is not allowed"},
      {"newobj", "data.pkl: NEWOBJ at byte 28 is not allowed (of collections.OrderedDict): a torch.save weights "
                 "file does not use it"},
      {"inst", "data.pkl: INST at byte 3 names posix.system, which is not allowed: a torch.save weights file does "
               "not use INST"},
      {"build_tensor", "data.pkl: BUILD at byte 140 sets the state of a tensor, which is not allowed"},
      {"missing_record", "a persistent id names the record 'archive/data/7', which is not in the archive"},
      {"storage_larger_than_record",
       "storage '0' of 1000 float32 elements needs 1000 x 4 bytes, but its record holds 24"},
      {"tensor_outside_storage",
       "data.pkl: REDUCE at byte 156 calls torch._utils._rebuild_tensor_v2 with a tensor of shape (2, 2), strides "
       "(2, 1) and storage offset 4, which reaches outside its storage of 6 float32 elements"},
      {"overlapping_records", "zip records 'archive/data/0' [134, 216) and 'archive/data/1' [134, 216) overlap"},
      {"compressed_record",
       "zip record 'archive/data.pkl' is compressed (method 8); torch.save stores every record uncompressed"},
      {"deep_lists", "values nest deeper than 1000 levels at '" + repeat("0.", 48) + "'"},
      {"deep_marks", "data.pkl: MARK at byte 1002 nests MARKs deeper than 1000"},
      {"shared_containers",
       "data.pkl names its values more often than the 60 references it holds: containers shared through the memo"},
      {"memo_out_of_range", "data.pkl: BINGET at byte 2 reads memo index 5, which was never set"},
      {"long_memo_index", "data.pkl: LONG_BINGET at byte 8 reads memo index 4294967294, which was never set"},
      {"truncated_string", "data.pkl: BINUNICODE at byte 2 needs 2147483647 bytes, but data.pkl has 3 left"},
      {"no_stop", "data.pkl ends at byte 3 without a STOP opcode"},
      {"metadata_unknown_key",
       "data.pkl: REDUCE at byte 158 calls torch._utils._rebuild_tensor_v2 with metadata 'foo'; it holds only 'conj' "
       "and 'neg'"},
      {"metadata_not_bool",
       "data.pkl: REDUCE at byte 159 calls torch._utils._rebuild_tensor_v2 with metadata 'neg' of type int; it must "
       "be True or False"},
      {"conj_of_float",
       "data.pkl: REDUCE at byte 159 calls torch._utils._rebuild_tensor_v2 with the conjugate bit for a float32 "
       "tensor; only complex tensors have one"},
      {"neg_of_bool",
       "data.pkl: REDUCE at byte 157 calls torch._utils._rebuild_tensor_v2 with the negative bit for a bool tensor, "
       "whose values torch cannot negate"},
      {"bytes_not_latin1",
       "data.pkl: REDUCE at byte 36 calls _codecs.encode with encoding 'utf8'; torch.save writes bytes as "
       "_codecs.encode(str, 'latin1')"},
      {"bytes_beyond_latin1",
       "data.pkl: REDUCE at byte 39 calls _codecs.encode with a str whose byte 2 (0xc4) starts no UTF-8 character "
       "below U+0100, which latin1 cannot encode"},
  };
  for (const auto& [name, message] : table) {
    BOOST_TEST_CONTEXT(name) {
      const auto path = data_file(std::string("torch/malicious/") + name + ".pt");
      check_refused(path, message);
    }
  }
}

// Each of these few-hundred-KB files would make the old reader allocate gigabytes (make_fixtures.py
// says how): one str key under 990 nested dicts (a 99 MB name, and every prefix of it held at
// once), one 64 KiB str named 60,000 times, torch.Size reduced 10,000 times from one tuple of
// 50,000 ints, 20,000 tensors sharing one argument tuple of rank 20,000. Each stops at its limit,
// a multiple of its data.pkl's size (torch_load.hpp).
BOOST_AUTO_TEST_CASE(values_shared_through_the_memo_are_refused_before_they_cost_gigabytes) {
  const std::string named = "': values shared through the memo, named again and again";
  const std::string built = ": values shared through the memo, built again and again";
  const std::pair<const char*, std::string> table[] = {
      {"nested_under_one_key", "names, values and shapes would take more than 73762880 bytes (64 MiB and 64 per "
                               "byte of the 103969 of data.pkl) at '" + std::string(96, 'k') + named},
      {"one_string_named_many_times", "names, values and shapes would take more than 78983872 bytes (64 MiB and 64 "
                                      "per byte of the 185547 of data.pkl) at '1205" + named},
      {"sizes_of_one_tuple", "data.pkl: REDUCE at byte 100673 would make its objects hold more than 21897888 bytes "
                             "(16 MiB and 32 per byte of the 160021 of data.pkl)" + built},
      {"tensors_of_one_shape", "data.pkl: REDUCE at byte 80454 would make its objects hold more than 22540640 bytes "
                               "(16 MiB and 32 per byte of the 180107 of data.pkl)" + built},
  };
  for (const auto& [name, message] : table) {
    BOOST_TEST_CONTEXT(name) {
      check_refused(data_file(std::string("torch/malicious/") + name + ".pt"), message);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
