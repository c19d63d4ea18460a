// Buffer: what is borrowed, what is owned, what is read-only.
#include <boost/test/unit_test.hpp>

#include <array>
#include <concepts>
#include <list>
#include <memory>
#include <ranges>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "support/message_check.hpp"
#include "zerotensor/buffer.hpp"
#include "zerotensor/error.hpp"

namespace {
/// Whether `B` hands out a writable address without checking that its bytes may be written.
template <class B>
concept gives_an_unchecked_writable_address = requires(const B& buffer) {
  { buffer.address() } -> std::same_as<std::byte*>;
};
}  // namespace

BOOST_AUTO_TEST_SUITE(buffer)

BOOST_AUTO_TEST_CASE(lvalue_ranges_are_borrowed) {
  std::vector<float> values(5);
  zt::Buffer b = values;
  BOOST_TEST(b.data() == reinterpret_cast<const std::byte*>(values.data()));
  BOOST_TEST(b.nbytes() == 20u);
  BOOST_TEST(b.is_writable());
  BOOST_TEST(!b.owner());
  BOOST_TEST(b.device() == zt::cpu);

  std::array<std::int16_t, 3> fixed{};
  BOOST_TEST(zt::Buffer(fixed).nbytes() == 6u);
  double c_array[4] = {};
  BOOST_TEST(zt::Buffer(c_array).nbytes() == 32u);
  std::string text = "abc";
  BOOST_TEST(zt::Buffer(text).nbytes() == 3u);
}

BOOST_AUTO_TEST_CASE(const_ranges_are_read_only) {
  const std::vector<int> values(3);
  zt::Buffer b = values;
  BOOST_TEST(!b.is_writable());
  BOOST_CHECK_EXCEPTION((void)b.writable_bytes(), zt::TypeError, [](const zt::TypeError& e) {
    return std::string(e.what()).find("the 12 bytes are read-only") != std::string::npos;
  });
  std::vector<int> mutable_values(3);
  BOOST_TEST(!zt::Buffer(std::span<const int>(mutable_values)).is_writable());
  BOOST_TEST(zt::Buffer(std::span<int>(mutable_values)).is_writable());
}

BOOST_AUTO_TEST_CASE(rvalue_containers_move_into_the_owner) {
  std::vector<float> values = {1, 2, 3};
  const float* address = values.data();
  zt::Buffer b = std::move(values);
  BOOST_TEST(b.owner() != nullptr);
  BOOST_TEST(b.data() == reinterpret_cast<const std::byte*>(address));  // moved, not copied
  BOOST_TEST(b.is_writable());
  BOOST_TEST(reinterpret_cast<const float*>(b.data())[2] == 3.0f);
}

BOOST_AUTO_TEST_CASE(views_are_borrowed_even_as_rvalues) {
  std::vector<float> values(2);
  zt::Buffer b = std::span<float>(values);
  BOOST_TEST(!b.owner());
  BOOST_TEST(b.data() == reinterpret_cast<const std::byte*>(values.data()));
}

BOOST_AUTO_TEST_CASE(shared_ptr_shares_ownership) {
  auto values = std::make_shared<std::vector<double>>(4, 1.0);
  zt::Buffer b = values;
  BOOST_TEST(values.use_count() == 2);
  BOOST_TEST(b.nbytes() == 32u);
  auto read_only = std::make_shared<const std::vector<double>>(2);
  BOOST_TEST(!zt::Buffer(read_only).is_writable());
}

BOOST_AUTO_TEST_CASE(a_null_shared_ptr_is_a_value_error) {
  const std::shared_ptr<std::vector<float>> none;
  BOOST_CHECK_EXCEPTION((void)zt::Buffer(none), zt::ValueError,
                        with_message<zt::ValueError>("Buffer: the shared_ptr holds no container"));
}

BOOST_AUTO_TEST_CASE(only_writable_bytes_give_a_writable_address) {
  // Writing into a read-only mapping must not compile without a cast.
  static_assert(std::is_same_v<decltype(std::declval<const zt::Buffer&>().data()), const std::byte*>);
  static_assert(!gives_an_unchecked_writable_address<zt::Buffer>,
                "Buffer hands out a std::byte* for read-only bytes; only writable_bytes() may, after its check");
  const std::vector<int> values(3);
  BOOST_CHECK_THROW((void)zt::Buffer(values).writable_bytes(), zt::TypeError);
}

BOOST_AUTO_TEST_CASE(pointer_and_byte_count) {
  alignas(8) std::byte raw[16] = {};
  zt::Buffer writable(static_cast<void*>(raw), 16);
  zt::Buffer read_only(static_cast<const void*>(raw), 8);
  BOOST_TEST(writable.is_writable());
  BOOST_TEST(!read_only.is_writable());
  BOOST_TEST(read_only.nbytes() == 8u);
  zt::Buffer on_device(static_cast<void*>(raw), 16, {}, zt::cuda(1));
  BOOST_TEST(on_device.device() == zt::cuda(1));
}

BOOST_AUTO_TEST_CASE(non_contiguous_ranges_are_not_buffers) {
  // Python's "could not retrieve buffer" (FB22) and "does not implement the buffer
  // protocol" (FB17) are compile-time facts here.
  BOOST_TEST(!(std::is_constructible_v<zt::Buffer, std::list<int>&>));
#if !(defined(__clang__) && __clang_major__ < 15)  // clang 14 cannot compile libstdc++ 12's iota_view
  BOOST_TEST(!(std::is_constructible_v<zt::Buffer, decltype(std::views::iota(0, 4))>));
#endif
  BOOST_TEST(!(std::is_constructible_v<zt::Buffer, std::vector<bool>&>));
}

BOOST_AUTO_TEST_SUITE_END()
