// load_torch against files PyTorch's torch.save wrote (test/data/torch, made by
// make_fixtures.py, which also wrote expected.json from torch.load of each), files PyTorch
// refuses or cannot be read as weights (legacy format, TorchScript, float8), and the table of
// malicious files under test/data/torch/malicious: each a ValueError with its exact message.
#include <boost/test/unit_test.hpp>

#include <complex>
#include <fstream>
#include <numeric>
#include <string>

#include <nlohmann/json.hpp>

#include "file_test_support.hpp"
#include "zerotensor/shares_memory.hpp"
#include "zerotensor/torch_load.hpp"

using zt_test::data_file;
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

/// load_torch(path) throws ValueError with exactly this message after the path.
void check_refused(const std::filesystem::path& path, const std::string& message) {
  BOOST_CHECK_EXCEPTION((void)zt::load_torch(path), zt::ValueError, [&](const zt::ValueError& e) {
    const bool same = std::string(e.what()) == prefix(path) + message;
    if (!same) BOOST_TEST_MESSAGE("message was: " << e.what() << "\nexpected: " << prefix(path) + message);
    return same;
  });
}

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
      else
        BOOST_TEST(text == value_want.get<std::string>(), value_name);
    }
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(load_torch_conformance)

BOOST_AUTO_TEST_CASE(every_file_torch_save_wrote_loads_as_torch_load_reads_it) {
  for (const auto& [name, want] : expected().items()) {
    // copy = false: every tensor is a view of the mapped file.
    check_against_torch(name, zt::load_torch(fixture(name), {.copy = false}), want);
  }
  BOOST_TEST(expected().size() == 14u);
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
                          return std::string(e.what()) == "TorchFile: no tensor named 'wieght' among 2 tensors";
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
  };
  for (const auto& [name, message] : table) {
    BOOST_TEST_CONTEXT(name) {
      const auto path = data_file(std::string("torch/malicious/") + name + ".pt");
      check_refused(path, message);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
