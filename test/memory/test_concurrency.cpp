// Threads sharing zerotensor's objects, as users do: views of one owner made and dropped
// at once, DLPack tensors whose last view dies on another thread, one file mapped by many,
// one shared-memory tensor opened and closed by many, and a file saved while others load
// it. Every deleter runs exactly once, every value read is the one written, nothing throws.
// CI also runs this suite under ThreadSanitizer (.ci/run), which must report no race.
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <atomic>
#include <barrier>
#include <cstdint>
#include <functional>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "support/file_test_support.hpp"
#include "zerotensor/zerotensor.hpp"

namespace {

constexpr int thread_count = 4;
constexpr int iterations = 100;

/// Runs `body(thread_index)` on thread_count threads and waits for all of them.
void on_threads(const std::function<void(int)>& body) {
  std::vector<std::thread> threads;
  for (int t = 0; t < thread_count; ++t) threads.emplace_back(body, t);
  for (auto& thread : threads) thread.join();
}

/// 0, 1, 2, ... as int32.
std::vector<std::int32_t> counting(std::size_t n) {
  std::vector<std::int32_t> values(n);
  std::iota(values.begin(), values.end(), 0);
  return values;
}

/// Whether element i of a 1-D int32 tensor is i + first, for every i.
bool counts_from(const zt::Tensor<const std::int32_t, 1>& view, std::int32_t first) {
  for (zt::index_t i = 0; i < view.size(0); ++i) {
    if (view(i) != first + std::int32_t(i)) return false;
  }
  return true;
}

/// Whether every element of a 1-D int32 tensor equals its first one (a file written whole).
bool all_equal(const zt::Tensor<const std::int32_t, 1>& view) {
  for (zt::index_t i = 0; i < view.size(0); ++i) {
    if (view(i) != view(0)) return false;
  }
  return true;
}

/// A DLPack producer's tensor of 0, 1, 2, ...: the deleter counts its call and frees it all.
struct Produced {
  zt::dlpack::ManagedTensorVersioned managed{};
  std::vector<std::int32_t> values;
  std::int64_t shape[1];
  std::atomic<int>* deleter_calls;

  static zt::dlpack::ManagedTensorVersioned* make(std::size_t n, std::atomic<int>& calls) {
    auto* produced = new Produced{{}, counting(n), {std::int64_t(n)}, &calls};
    auto& managed = produced->managed;
    managed.version = {zt::dlpack::major_version, zt::dlpack::minor_version};
    managed.manager_ctx = produced;
    managed.deleter = [](zt::dlpack::ManagedTensorVersioned* self) {
      auto* owner = static_cast<Produced*>(self->manager_ctx);
      ++*owner->deleter_calls;
      delete owner;
    };
    managed.dl_tensor = {produced->values.data(), {zt::dlpack::DeviceType::CPU, 0}, 1,
                         {std::uint8_t(zt::dlpack::TypeCode::Int), 32, 1}, produced->shape, nullptr, 0};
    return &managed;
  }
};

/// A shared-memory name no other run uses.
std::string unique_name(const std::string& what) { return "zt_test_" + std::to_string(::getpid()) + "_" + what; }

}  // namespace

BOOST_AUTO_TEST_SUITE(concurrency)

BOOST_AUTO_TEST_CASE(views_of_one_owner_are_made_and_dropped_on_many_threads_and_the_owner_is_freed_once) {
  std::atomic<int> frees{0};
  auto memory = std::shared_ptr<std::vector<std::int32_t>>(new std::vector<std::int32_t>(counting(256)),
                                                           [&](std::vector<std::int32_t>* v) {
                                                             ++frees;
                                                             delete v;
                                                           });
  std::optional<zt::AnyTensor> shared = zt::frombuffer(memory, zt::int32);
  std::atomic<int> wrong_values{0};
  on_threads([&](int) {
    for (int i = 0; i < iterations; ++i) {
      const zt::AnyTensor copy = *shared;                                   // one more reference
      const auto typed = copy.as<const std::int32_t, 1>();                 // and another
      const auto fresh = zt::frombuffer<const std::int32_t>(zt::Buffer(memory));  // a new view of the owner
      const zt::AnyTensor converted = zt::asarray(copy, {.dtype = zt::int64});
      if (!counts_from(typed, 0) || !counts_from(fresh, 0) || converted.as<const std::int64_t, 1>()(255) != 255)
        ++wrong_values;
    }
  });
  BOOST_TEST(wrong_values == 0);
  BOOST_TEST(frees == 0);  // `shared` and `memory` still hold it
  memory.reset();
  BOOST_TEST(frees == 0);
  shared.reset();
  BOOST_TEST(frees == 1);
}

BOOST_AUTO_TEST_CASE(dlpack_imports_whose_last_view_dies_on_another_thread_run_each_deleter_once) {
  constexpr int per_thread = 50;
  std::vector<std::atomic<int>> deleter_calls(thread_count * per_thread);
  std::vector<std::vector<zt::AnyTensor>> imported(thread_count);
  std::atomic<int> wrong_values{0};
  std::barrier all_imported(thread_count);
  on_threads([&](int t) {
    for (int k = 0; k < per_thread; ++k)
      imported[t].push_back(zt::from_dlpack(Produced::make(64 + k, deleter_calls[t * per_thread + k])));
    all_imported.arrive_and_wait();
    // Each thread reads and drops its neighbour's views, while the neighbour is alive and
    // dropping another thread's: the producers' memory is released away from its importer.
    auto& theirs = imported[(t + 1) % thread_count];
    for (const zt::AnyTensor& view : theirs) {
      if (!counts_from(view.as<const std::int32_t, 1>(), 0)) ++wrong_values;
    }
    theirs.clear();
  });
  BOOST_TEST(wrong_values == 0);
  for (const auto& calls : deleter_calls) BOOST_TEST(calls == 1);
}

BOOST_AUTO_TEST_CASE(dlpack_exports_released_by_consumers_on_other_threads_free_the_owner_once) {
  std::atomic<int> frees{0};
  {
    auto memory = std::shared_ptr<std::vector<std::int32_t>>(new std::vector<std::int32_t>(counting(32)),
                                                             [&](std::vector<std::int32_t>* v) {
                                                               ++frees;
                                                               delete v;
                                                             });
    const zt::AnyTensor shared = zt::frombuffer(std::move(memory), zt::int32);
    std::vector<std::vector<zt::dlpack::ManagedTensorVersioned*>> exported(thread_count);
    std::barrier all_exported(thread_count);
    on_threads([&](int t) {
      for (int k = 0; k < iterations; ++k) exported[t].push_back(zt::to_dlpack(shared));
      all_exported.arrive_and_wait();
      for (auto* managed : exported[(t + 1) % thread_count]) managed->deleter(managed);
    });
    BOOST_TEST(frees == 0);
  }
  BOOST_TEST(frees == 1);
}

BOOST_AUTO_TEST_CASE(many_threads_map_the_same_file_read_only) {
  zt_test::TempDir dir;
  const auto raw = dir / "counting.bin", npy = dir / "counting.npy";
  const std::vector<std::int32_t> values = counting(1024);
  zt::save_npy(npy, zt::asarray(values));
  zt::from_file(raw, {.shared = true, .size = 1024, .dtype = zt::int32}).as<std::int32_t, 1>().array() =
      zt::asarray(values).as<const std::int32_t, 1>().array();
  std::atomic<int> wrong_values{0};
  on_threads([&](int) {
    for (int i = 0; i < iterations; ++i) {
      const auto mapped = zt::from_file<const std::int32_t>(raw, {.size = 1024});
      const auto loaded = zt::load_npy(npy).as<const std::int32_t, 1>();
      if (!counts_from(mapped, 0) || !counts_from(loaded, 0)) ++wrong_values;
    }
  });
  BOOST_TEST(wrong_values == 0);
}

BOOST_AUTO_TEST_CASE(many_threads_open_and_close_the_same_shared_memory_tensor) {
  const std::string name = unique_name("concurrency");
  const zt::AnyTensor created =
      zt::create_shared_tensor(name, std::array<zt::index_t, 1>{thread_count + 64}, zt::int32);
  // Slots 0..thread_count-1 are the threads' counters; the rest hold 0, 1, 2, ... to read.
  auto all = created.as<std::int32_t, 1>();
  for (zt::index_t i = thread_count; i < all.size(0); ++i) all(i) = std::int32_t(i - thread_count);
  std::atomic<int> wrong_values{0};
  on_threads([&](int t) {
    for (int i = 0; i < iterations; ++i) {
      const auto writable = zt::open_shared_tensor(name).as<std::int32_t, 1>();
      const auto read_only = zt::open_shared_tensor(name, {.writable = false}).as<const std::int32_t, 1>();
      ++writable(t);  // each thread writes only its own slot
      const zt::Tensor<const std::int32_t, 1> rest(read_only.data() + thread_count, {64}, {1}, read_only.owner());
      if (read_only(t) != i + 1 || !counts_from(rest, 0)) ++wrong_values;
    }
  });
  BOOST_TEST(zt::remove_shared_tensor(name));
  BOOST_TEST(wrong_values == 0);
  for (int t = 0; t < thread_count; ++t) BOOST_TEST(all(t) == iterations);
}

BOOST_AUTO_TEST_CASE(loaders_of_a_path_being_saved_see_one_whole_version) {
  // Readers load while a writer replaces the file: each load is one version, whole (the
  // old or the new file), never a truncated or torn one.
  zt_test::TempDir dir;
  const auto npy = dir / "versions.npy", safetensors = dir / "versions.safetensors";
  const auto save_version = [&](std::int32_t version) {
    const zt::AnyTensor data = zt::asarray(std::vector<std::int32_t>(4096, version));
    zt::save_npy(npy, data);
    zt::save_safetensors(safetensors, {{"a", data}, {"b", data}});
  };
  save_version(0);
  std::atomic<int> torn{0};
  on_threads([&](int t) {
    for (int i = 1; i <= iterations; ++i) {
      if (t == 0) {
        save_version(i);
        continue;
      }
      const auto array = zt::load_npy(npy).as<const std::int32_t, 1>();
      const zt::SafetensorsFile file = zt::load_safetensors(safetensors);
      const auto a = file.at("a").as<const std::int32_t, 1>(), b = file.at("b").as<const std::int32_t, 1>();
      if (array.size(0) != 4096 || !all_equal(array) || a.size(0) != 4096 || !all_equal(a) || b(0) != a(0) ||
          !all_equal(b))
        ++torn;
    }
  });
  BOOST_TEST(torn == 0);
}

BOOST_AUTO_TEST_SUITE_END()
