// Host ↔ GPU transfers on a real GPU: staged copies through small staging buffers (so
// every test crosses many chunks), loading files straight to the device, pinning in place,
// non_blocking copies on a stream, and the errors for missing devices and memory. Without a
// usable GPU the program prints why and exits 77, which CTest reports as Skipped.
#include "zerotensor/cuda.hpp"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "zerotensor/checkpoint.hpp"
#include "zerotensor/from_file.hpp"
#include "zerotensor/frombuffer.hpp"
#include "zerotensor/gguf.hpp"
#include "zerotensor/npy.hpp"
#include "zerotensor/pin_memory.hpp"
#include "zerotensor/safetensors.hpp"
#include "zerotensor/staging.hpp"
#include "vocabulary/concat.hpp"
#include "support/file_test_support.hpp"
#include "cuda/require_gpu.hpp"

namespace {

/// Small buffers, so that a few kilobytes already cross many chunks and reuse every buffer.
struct SmallStaging {
  zt::StagingOptions saved = zt::staging_options();
  explicit SmallStaging(std::size_t host_threads = 2) {
    zt::set_staging_options({.buffer_bytes = 256, .buffers = 3, .host_threads = host_threads});
  }
  ~SmallStaging() { zt::set_staging_options(saved); }
};

zt::AnyTensor iota_floats(zt::index_t count) {
  auto values = std::make_shared<std::vector<float>>(std::size_t(count));
  std::iota(values->begin(), values->end(), 0.5f);
  return zt::Tensor<float, 1>(values->data(), {count}, {1}, values);
}

/// Same dtype, shape and bytes (both read in C order through host copies).
void check_same(const zt::AnyTensor& found, const zt::AnyTensor& expected) {
  BOOST_TEST(found.dtype() == expected.dtype());
  BOOST_TEST((found.shape() == expected.shape()));
  const zt::AnyTensor a = found.to(zt::cpu).clone(), b = expected.to(zt::cpu).clone();
  BOOST_TEST((a.nbytes() == 0 || std::memcmp(a.data_ptr(), b.data_ptr(), a.nbytes()) == 0));
}

/// A version 1.0 .npy header for `elements` float32 values, the data left sparse (no disk).
void write_sparse_npy(const std::filesystem::path& path, zt::index_t elements) {
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(elements) + ",), }";
  dict.append((64 - (10 + dict.size() + 1) % 64) % 64, ' ');
  dict += '\n';
  std::string preamble = "\x93NUMPY";
  preamble += char(1);
  preamble += char(0);
  preamble += char(dict.size() & 0xFF);
  preamble += char(dict.size() >> 8);
  zt_test::write_text(path, preamble + dict);
  std::filesystem::resize_file(path, preamble.size() + dict.size() + std::size_t(elements) * 4);
}

std::filesystem::path fixture(const std::string& name) { return std::filesystem::path(ZT_TEST_DATA_DIR) / name; }

}  // namespace

BOOST_TEST_GLOBAL_FIXTURE(RequireGpu);

BOOST_AUTO_TEST_SUITE(transfer_gpu)

BOOST_AUTO_TEST_CASE(staged_copies_round_trip_every_byte) {
  for (const std::size_t threads : {0, 1, 2}) {
    const SmallStaging staging(threads);
    // 64 floats fit one buffer (a single cudaMemcpy); the others cross 2 to 65 chunks.
    for (const zt::index_t count : {64, 65, 64 * 3, 1000, 4099}) {
      BOOST_TEST_CONTEXT("threads " << threads << ", " << count << " floats") {
        const zt::AnyTensor host = iota_floats(count);
        const zt::AnyTensor device = host.to(zt::cuda(0));
        BOOST_TEST(device.device() == zt::cuda(0));
        BOOST_TEST(zt::device_of(device.data_ptr()) == zt::cuda(0));
        const zt::AnyTensor back = device.to(zt::cpu);
        BOOST_TEST(back.device() == zt::cpu);
        check_same(back, host);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(strided_sources_are_staged_as_well) {
  const SmallStaging staging;
  const zt::AnyTensor host = iota_floats(40 * 30);
  auto* base = static_cast<float*>(host.mutable_data_ptr());
  const zt::AnyTensor transposed = zt::Tensor<float, 2>(base, {30, 40}, {1, 30}, host.owner());
  const zt::AnyTensor device = transposed.to(zt::cuda(0));
  BOOST_TEST(device.is_contiguous());
  check_same(device, transposed);
  // A strided device tensor: its span is staged back, then gathered.
  auto* device_base = static_cast<float*>(device.mutable_data_ptr());
  const zt::AnyTensor device_transposed = zt::Tensor<float, 2>(device_base, {40, 30}, {1, 40}, device.owner(), zt::cuda(0));
  check_same(device_transposed, zt::AnyTensor(zt::Tensor<float, 2>(base, {40, 30}, {30, 1}, host.owner())));
}

BOOST_AUTO_TEST_CASE(files_load_straight_to_the_gpu_as_they_load_on_the_host) {
  const SmallStaging staging;
  for (const char* name : {"npy/float32.npy", "npy/float64_fortran_big_endian.npy", "npy/complex128_big_endian.npy",
                           "npy/float64_misaligned.npy", "npy/bool.npy", "npy/float32_empty.npy", "npy/float64_0d.npy",
                           "npy/int32_big_endian.npy"}) {
    BOOST_TEST_CONTEXT(name) {
      const zt::AnyTensor on_host = zt::load_npy(fixture(name));
      const zt::AnyTensor on_device = zt::load_npy(fixture(name), {.device = zt::cuda(0)});
      BOOST_TEST(on_device.device() == zt::cuda(0));
      BOOST_TEST((on_device.strides() == on_host.strides()));  // Fortran order stays Fortran order
      BOOST_TEST(!on_device.is_writable());                      // read_only access, as the views
      check_same(on_device, on_host);
    }
  }
  for (const char* name : {"safetensors/model.safetensors", "safetensors/misaligned.safetensors",
                           "safetensors/bfloat16.safetensors"}) {
    const zt::SafetensorsFile on_host = zt::load_safetensors(fixture(name));
    const zt::SafetensorsFile on_device =
        zt::load_safetensors(fixture(name), {.access = zt::MapAccess::copy_on_write, .device = zt::cuda(0)});
    BOOST_TEST(on_device.tensors.size() == on_host.tensors.size());
    for (const auto& [tensor_name, tensor] : on_host.tensors) {
      BOOST_TEST_CONTEXT(name << ": " << tensor_name) {
        BOOST_TEST(on_device.at(tensor_name).device() == zt::cuda(0));
        BOOST_TEST(on_device.at(tensor_name).is_writable());
        check_same(on_device.at(tensor_name), tensor);
      }
    }
  }
  const zt::AnyTensor pinned = zt::load_npy(fixture("npy/float32.npy"), {.device = {zt::DeviceKind::CUDAHost, 0}});
  BOOST_TEST((zt::device_of(pinned.data_ptr()).kind == zt::DeviceKind::CUDAHost));
  check_same(pinned, zt::load_npy(fixture("npy/float32.npy")));
}

BOOST_AUTO_TEST_CASE(gguf_models_load_to_the_gpu_blocks_as_stored) {
  const SmallStaging staging;
  const zt::GgufFile on_host = zt::load_gguf(fixture("gguf/small.gguf"));
  const zt::GgufFile on_device = zt::load_gguf(fixture("gguf/small.gguf"), {.device = zt::cuda(0)});
  const zt::Checkpoint placed = zt::load_checkpoint(fixture("gguf/small.gguf"), {.device_map = [](std::string_view name) {
    return name.starts_with("Q") ? zt::cuda(0) : zt::cpu;
  }});
  BOOST_TEST(on_device.tensors.size() == on_host.tensors.size());
  for (const auto& [name, tensor] : on_host.tensors) {
    BOOST_TEST_CONTEXT(name) {
      BOOST_TEST(on_device.at(name).device() == zt::cuda(0));
      check_same(on_device.at(name), tensor);
      BOOST_TEST(placed.at(name).device() == (name.starts_with("Q") ? zt::cuda(0) : zt::cpu));
      check_same(placed.at(name), tensor);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_file_of_many_tensors_goes_through_one_staged_copy_and_each_lands_whole) {
  // With 256-byte buffers the tensors' ends fall inside chunks, at their edges and across many.
  const SmallStaging staging;
  const zt_test::TempDir dir;
  std::map<std::string, zt::AnyTensor, std::less<>> tensors;
  for (const zt::index_t count : {0, 1, 63, 64, 65, 257, 1000})
    tensors.emplace("f" + std::to_string(count), iota_floats(count));
  const std::vector<std::uint8_t> bools{1, 0, 1, 1, 0};
  const std::vector<std::int8_t> bytes{-3, 7, 11};
  tensors.emplace("b", zt::frombuffer(bools, zt::bool_));
  tensors.emplace("i", zt::frombuffer(bytes, zt::int8));
  zt::save_safetensors(dir / "many.safetensors", tensors);
  const zt::SafetensorsFile on_device = zt::load_safetensors(dir / "many.safetensors", {.device = zt::cuda(0)});
  BOOST_TEST(on_device.tensors.size() == tensors.size());
  std::set<const void*> owners;
  for (const auto& [name, tensor] : tensors) {
    BOOST_TEST_CONTEXT(name) {
      const zt::AnyTensor& loaded = on_device.at(name);
      BOOST_TEST(loaded.device() == zt::cuda(0));
      owners.insert(loaded.owner().get());  // memory of its own: freed with its last view
      check_same(loaded, tensor);
    }
  }
  BOOST_TEST(owners.size() == tensors.size());
}

BOOST_AUTO_TEST_CASE(a_sharded_checkpoint_loads_to_the_gpu_as_on_the_host) {
  const SmallStaging staging;
  const zt_test::TempDir dir;
  zt::save_safetensors(dir / "model-1.safetensors", {{"a", iota_floats(100)}, {"b", iota_floats(3)}});
  zt::save_safetensors(dir / "model-2.safetensors", {{"c", iota_floats(70)}, {"unlisted", iota_floats(5)}});
  zt_test::write_text(dir / "model.safetensors.index.json", R"({"weight_map":{"a":"model-1.safetensors",)"
                                                            R"("b":"model-1.safetensors","c":"model-2.safetensors"}})");
  const zt::Checkpoint on_host = zt::load_checkpoint(dir.path());
  for (const unsigned threads : {0u, 2u}) {
    const zt::Checkpoint on_device = zt::load_checkpoint(dir.path(), {.device = zt::cuda(0), .threads = threads});
    BOOST_TEST(on_device.tensors.size() == 3u);  // the index is the allowlist
    for (const auto& [name, tensor] : on_host.tensors) {
      BOOST_TEST_CONTEXT(name << ", threads " << threads) {
        BOOST_TEST(on_device.at(name).device() == zt::cuda(0));
        check_same(on_device.at(name), tensor);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(a_checkpoint_streams_in_one_copy_with_progress_and_a_device_map_places_each_tensor) {
  const SmallStaging staging;
  const zt_test::TempDir dir;
  std::uint64_t total_size = 0;
  for (int shard = 0; shard < 3; ++shard) {
    const auto path = dir / zt::detail::concat("model-", shard, ".safetensors");
    zt::save_safetensors(path, {{zt::detail::concat("w", shard), iota_floats(100 + shard)},
                                {zt::detail::concat("b", shard), iota_floats(3)}});
    total_size += std::filesystem::file_size(path);
  }
  zt_test::write_text(dir / "model.safetensors.index.json",
                      R"({"weight_map":{"w0":"model-0.safetensors","b0":"model-0.safetensors",)"
                      R"("w1":"model-1.safetensors","b1":"model-1.safetensors",)"
                      R"("w2":"model-2.safetensors","b2":"model-2.safetensors"}})");
  const zt::Checkpoint on_host = zt::load_checkpoint(dir.path());
  std::vector<std::uint64_t> done;
  const zt::Checkpoint on_device = zt::load_checkpoint(
      dir.path(), {.device = zt::cuda(0), .progress = [&](std::uint64_t bytes, std::uint64_t total) {
                     BOOST_TEST(total == total_size);
                     done.push_back(bytes);
                   }});
  BOOST_TEST(done.size() > 6u);  // 256-byte chunks: progress as the copy reads, not once per shard
  BOOST_TEST(std::is_sorted(done.begin(), done.end()));
  BOOST_TEST(done.back() == total_size);
  const zt::Device pinned{zt::DeviceKind::CUDAHost, 0};
  const zt::Checkpoint placed = zt::load_checkpoint(dir.path(), {.device_map = [&](std::string_view name) {
                                                      return name.starts_with('w') ? zt::cuda(0)
                                                             : name == "b1"        ? pinned
                                                                                   : zt::cpu;
                                                    }});
  for (const auto& [name, tensor] : on_host.tensors) {
    BOOST_TEST_CONTEXT(name) {
      BOOST_TEST(on_device.at(name).device() == zt::cuda(0));
      check_same(on_device.at(name), tensor);
      const zt::Device expected = name.starts_with('w') ? zt::cuda(0) : name == "b1" ? pinned : zt::cpu;
      BOOST_TEST(placed.at(name).device() == expected);
      check_same(placed.at(name), tensor);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_rank_slice_loads_to_the_gpu_as_its_copy_on_the_host) {
  // Rows, columns (runs of 10 values, so that 256-byte chunks start and end inside runs) and
  // bool columns, each as rank 1 of 2 copies it on the host.
  const SmallStaging staging;
  const zt_test::TempDir dir;
  const std::vector<std::uint8_t> bools{1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0, 0, 1, 1};
  zt::save_safetensors(dir / "model.safetensors", {{"rows", iota_floats(30 * 12).view({30, 12})},
                                                   {"columns", iota_floats(12 * 20).view({12, 20})},
                                                   {"flags", zt::frombuffer(bools, zt::bool_).view({4, 4})}});
  const zt::SliceOptions slice{.rank = 1, .world = 2, .rules = {{"rows", 0}, {"columns", 1}, {"flags", -1}}};
  const zt::SafetensorsFile on_host = zt::load_safetensors(dir / "model.safetensors", {.copy = true, .slice = slice});
  const zt::SafetensorsFile on_device =
      zt::load_safetensors(dir / "model.safetensors", {.device = zt::cuda(0), .slice = slice});
  for (const auto& [name, tensor] : on_host.tensors) {
    BOOST_TEST_CONTEXT(name) {
      BOOST_TEST(on_device.at(name).device() == zt::cuda(0));
      BOOST_TEST((on_device.at(name).strides() == tensor.strides()));
      check_same(on_device.at(name), tensor);
    }
  }
}

BOOST_AUTO_TEST_CASE(device_tensors_save_through_the_staging_buffers_over_an_old_file) {
  const SmallStaging staging;  // 256-byte buffers: each tensor crosses many chunks
  const zt_test::TempDir dir;
  const zt::AnyTensor host = iota_floats(1000).view({40, 25});
  const zt::AnyTensor gpu = host.to(zt::cuda(0));
  zt::save_npy(dir / "a.npy", iota_floats(3));
  zt::save_npy(dir / "a.npy", gpu);
  check_same(zt::load_npy(dir / "a.npy"), host);
  zt::save_npy(dir / "t.npy", gpu.t());  // Fortran order: saved as it lies on the device
  check_same(zt::load_npy(dir / "t.npy"), host.t());
  zt::save_npy(dir / "every_other.npy", gpu.narrow(1, 0, 24).view({40, 12, 2}).select(2, 0));  // cloned on the device
  check_same(zt::load_npy(dir / "every_other.npy"), host.narrow(1, 0, 24).view({40, 12, 2}).select(2, 0));
  zt::save_safetensors(dir / "m.safetensors", {{"w", gpu}, {"wt", gpu.t()}, {"b", iota_floats(7)}});
  const zt::SafetensorsFile file = zt::load_safetensors(dir / "m.safetensors");
  check_same(file.at("w"), host);
  check_same(file.at("wt"), host.t());
  check_same(file.at("b"), iota_floats(7));
}

BOOST_AUTO_TEST_CASE(direct_reads_to_the_gpu_hold_what_the_mapping_holds) {
  const SmallStaging staging;  // 256-byte chunks: most reads start and end inside a block
  const zt_test::TempDir dir;
  zt::save_safetensors(dir / "model.safetensors", {{"a", iota_floats(5000)},
                                                   {"b", iota_floats(3)},
                                                   {"c", iota_floats(12 * 20).view({12, 20})}});
  zt::save_npy(dir / "a.npy", iota_floats(3000));
  const zt::SliceOptions slice{.rank = 1, .world = 2, .rules = {{"c", 1}}};  // from the mapping
  const zt::SafetensorsFile on_host = zt::load_safetensors(dir / "model.safetensors", {.copy = true, .slice = slice});
  const zt::SafetensorsFile direct =
      zt::load_safetensors(dir / "model.safetensors", {.device = zt::cuda(0), .slice = slice, .direct = true});
  for (const auto& [name, tensor] : on_host.tensors) BOOST_TEST_CONTEXT(name) { check_same(direct.at(name), tensor); }
  check_same(zt::load_npy(dir / "a.npy", {.device = zt::cuda(0), .direct = true}), iota_floats(3000));
  zt_test::write_text(dir / "model.safetensors.index.json",
                      R"({"weight_map":{"a":"model.safetensors","b":"model.safetensors"}})");
  const zt::Checkpoint checkpoint = zt::load_checkpoint(dir.path(), {.device = zt::cuda(0), .direct = true});
  check_same(checkpoint.at("a"), iota_floats(5000));
  check_same(checkpoint.at("b"), iota_floats(3));
}

BOOST_AUTO_TEST_CASE(from_file_streams_to_the_gpu) {
  const SmallStaging staging;
  const zt_test::TempDir dir;
  const zt::AnyTensor host = iota_floats(1000);
  zt::save_npy(dir / "a.npy", host);
  const auto path = dir / "raw.bin";
  std::filesystem::copy_file(dir / "a.npy", path);
  const auto header = std::filesystem::file_size(path) - host.nbytes();
  const zt::AnyTensor all = zt::from_file(path, {.size = zt::index_t(std::filesystem::file_size(path)),
                                                 .dtype = zt::uint8, .device = zt::cuda(0)});
  BOOST_TEST(all.device() == zt::cuda(0));
  BOOST_TEST(all.is_writable());
  const zt::AnyTensor bytes = all.to(zt::cpu);
  BOOST_TEST(std::memcmp(static_cast<const std::byte*>(bytes.data_ptr()) + header, host.data_ptr(), host.nbytes()) == 0);
  const zt::AnyTensor none = zt::from_file(dir / "missing.bin", {.size = 0, .device = zt::cuda(0)});
  BOOST_TEST(none.device() == zt::cuda(0));  // PyTorch's size 0 touches no file, on any device
  BOOST_TEST(none.numel() == 0);
}

BOOST_AUTO_TEST_CASE(pinned_in_place_until_the_last_view_dies) {
  const zt::AnyTensor host = iota_floats(1000);
  const void* address = host.data_ptr();
  std::weak_ptr<const void> registration;
  {
    const zt::AnyTensor pinned = zt::pin_memory(host);
    registration = pinned.owner();
    BOOST_TEST(pinned.data_ptr() == address);  // no copy
    BOOST_TEST((pinned.device().kind == zt::DeviceKind::CUDAHost));
    BOOST_TEST((zt::device_of(address).kind == zt::DeviceKind::CUDAHost));
    BOOST_TEST(zt::pin_memory(pinned).data_ptr() == address);  // already pinned: the same view
    BOOST_CHECK_EXCEPTION((void)zt::pin_memory(host), zt::DeviceError, [](const zt::DeviceError& e) {
      return message_has(e, "overlap memory that is already registered");
    });
    // Pinned: one asynchronous copy on a stream of our own, both ways.
    cudaStream_t stream = nullptr;
    BOOST_TEST(cudaStreamCreate(&stream) == cudaSuccess);
    const zt::AnyTensor device = pinned.to(zt::cuda(0), {.non_blocking = true, .stream = stream});
    const zt::AnyTensor back = device.to({zt::DeviceKind::CUDAHost, 0}, {.non_blocking = true, .stream = stream});
    BOOST_TEST(cudaStreamSynchronize(stream) == cudaSuccess);
    check_same(back, host);
    BOOST_TEST(cudaStreamDestroy(stream) == cudaSuccess);
  }
  BOOST_TEST(registration.expired());
  BOOST_TEST(zt::device_of(address) == zt::cpu);  // unregistered with its last view
  const zt::AnyTensor again = zt::pin_memory(host);  // and can be pinned again
  BOOST_TEST((again.device().kind == zt::DeviceKind::CUDAHost));
}

BOOST_AUTO_TEST_CASE(missing_devices_and_memory_are_device_errors_that_leave_nothing_behind) {
  const int count = zt::cuda_device_count();
  const std::string npy = fixture("npy/float32.npy").native();
  BOOST_CHECK_EXCEPTION((void)zt::load_npy(npy, {.device = zt::cuda(count)}), zt::DeviceError,
                        [&](const zt::DeviceError& e) {
                          return message_has(e, zt::detail::concat("loading to cuda:", count, ": cuda:", count,
                                                                   " does not exist; the CUDA driver reports ", count));
                        });
  std::size_t free_before = 0, total_bytes = 0;
  BOOST_TEST(cudaMemGetInfo(&free_before, &total_bytes) == cudaSuccess);
  // A sparse .npy file whose one array needs more than the whole device holds.
  const auto elements = zt::index_t(total_bytes / 4 + 1024);
  const zt_test::TempDir dir;
  const auto huge = dir / "huge.npy";
  write_sparse_npy(huge, elements);
  const auto names_sizes = [&](const zt::DeviceError& e) {
    return message_has(e, zt::detail::concat("allocating ", elements * 4, " bytes on cuda:0")) &&
           message_has(e, "out of memory): cuda:0 has ") &&
           message_has(e, zt::detail::concat(" bytes free of ", total_bytes));
  };
  BOOST_CHECK_EXCEPTION((void)zt::load_npy(huge, {.device = zt::cuda(0)}), zt::DeviceError, names_sizes);
  BOOST_CHECK_EXCEPTION((void)zt::empty(std::vector<zt::index_t>{elements}, zt::float32, zt::cuda(0)), zt::DeviceError,
                        names_sizes);
  std::size_t free_after = 0;
  BOOST_TEST(cudaMemGetInfo(&free_after, &total_bytes) == cudaSuccess);
  BOOST_TEST(free_after + (std::size_t{64} << 20) >= free_before);  // nothing of note left allocated
}

BOOST_AUTO_TEST_SUITE_END()
