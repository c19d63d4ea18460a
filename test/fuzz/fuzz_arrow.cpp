// Fuzzes from_arrow and from_arrow_record_batch on whole foreign struct trees: the input
// chooses a schema tree (format strings, fixed_shape_tensor JSON and other metadata,
// children, dictionaries) and a parallel array tree (lengths, offsets, null counts, validity
// bitmaps, buffer and child counts), the device of a device array, and structs released
// before the call. Buffers are as large as the array's own lengths say (the C interface
// carries no buffer sizes, so that much a producer must get right), except for lengths
// that no buffer can hold: past int64 with the offset (which must be refused) or, on CUDA
// memory the host never reads, 2^62. Every element of an imported tensor is read, and
// each release callback must run exactly once: no leak, no double release.
//
// Input layout, one byte each unless said (bytes past the end read as 0):
//   mode: bits 0-1 copy (1 true, 2 false, else unset), bit 2 fill_nulls (the next byte is
//         the value), bit 3 record batch, bit 4 device array (the next byte: type
//         {CPU, CUDA, CUDA host, CUDA managed, OpenCL}[b % 5], id b / 5 % 3), bit 5 the
//         schema released before the call, bit 6 the array released before the call;
//   the root's slot count (% 17); then the tree, each level as
//     format (% 20 of the list below; "+w:" then list size % 9 and a byte: % 16 == 0 spells
//     the size as text: a length byte % 5 and the bytes), a byte % 32 == 0 replacing the
//     format by text (length % 7), a struct's child count (1 + b % 2), the length (b % 4 ==
//     0 under a parent of at most 2^20 slots: those slots + next % 3 - 1; b % 16 == 1:
//     INT64_MAX with offset 1 + next % 3; b % 16 == 5 on CUDA: 2^62; else the parent's
//     slots), the offset (% 4), null_count (% 4 - 1), validity (b % 2 == 0: a bitmap),
//     each buffer's first bytes (up to 4), an extra NULL buffer (b % 16 == 0), the
//     children's levels, metadata (b % 4: none, a fixed_shape_tensor with JSON text, another
//     extension, a fixed_shape_tensor with generated shape and permutation: 4 bytes), a
//     dictionary (b % 16 == 0). Children are named c0, c1.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "arrow/arrow_metadata.hpp"
#include "fuzz/fuzz_support.hpp"
#include "zerotensor/from_arrow.hpp"

namespace {

namespace ar = zt::arrow;

class Input {
 public:
  Input(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint8_t byte() { return position_ < size_ ? data_[position_++] : 0; }
  std::string text(std::size_t max) {
    const std::size_t length = std::min<std::size_t>(byte() % (max + 1), size_ - std::min(position_, size_));
    std::string out(reinterpret_cast<const char*>(data_ + position_), length);
    position_ += length;
    return out;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t position_ = 0;
};

/// Lengths past this are never backed by a buffer of their size.
constexpr std::int64_t max_backed = std::int64_t{1} << 20;

struct Tree {
  bool cuda = false;  ///< a CUDA device array: the host never reads its buffers
  int array_releases = 0;
  int schema_releases = 0;
  std::deque<ar::Array> arrays;
  std::deque<ar::Schema> schemas;
  std::deque<std::string> strings;
  std::deque<std::vector<std::uint64_t>> memory;  // 8-byte aligned buffers
  std::deque<std::vector<const void*>> buffers;
  std::deque<std::vector<ar::Array*>> array_children;
  std::deque<std::vector<ar::Schema*>> schema_children;

  static void release_array(ar::Array* a) {
    if (a->release == nullptr) std::abort();  // released twice
    for (std::int64_t i = 0; i < a->n_children; ++i)
      if (a->children[i] != nullptr && a->children[i]->release != nullptr) a->children[i]->release(a->children[i]);
    if (a->private_data != nullptr) ++static_cast<Tree*>(a->private_data)->array_releases;
    a->release = nullptr;
  }
  static void release_schema(ar::Schema* s) {
    if (s->release == nullptr) std::abort();
    for (std::int64_t i = 0; i < s->n_children; ++i)
      if (s->children[i] != nullptr && s->children[i]->release != nullptr) s->children[i]->release(s->children[i]);
    if (s->dictionary != nullptr && s->dictionary->release != nullptr) s->dictionary->release(s->dictionary);
    if (s->private_data != nullptr) ++static_cast<Tree*>(s->private_data)->schema_releases;
    s->release = nullptr;
  }

  /// `bytes` zeroed bytes and then some, the first words set from the input.
  const void* zeroed(std::int64_t bytes, Input& in) {
    auto& block = memory.emplace_back(std::size_t(bytes / 8 + 2), 0);
    for (std::size_t i = 0; i < std::min<std::size_t>(block.size(), 4); ++i) block[i] = ~std::uint64_t(in.byte());
    return block.data();
  }

  std::string metadata(Input& in) {
    std::vector<std::pair<std::string, std::string>> pairs;
    switch (in.byte() % 4) {
      case 0: return {};
      case 1:
        pairs = {{"ARROW:extension:name", "arrow.fixed_shape_tensor"}, {"ARROW:extension:metadata", in.text(48)}};
        break;
      case 2:
        pairs = {{"ARROW:extension:name", in.text(24)}, {in.text(8), in.text(8)}};
        break;
      default: {
        std::string parts[4];
        for (int i = 0; i < 4; ++i) parts[i] = std::to_string(in.byte() % (i < 2 ? 5 : 3));
        pairs = {{"ARROW:extension:name", "arrow.fixed_shape_tensor"},
                 {"ARROW:extension:metadata", "{\"shape\":[" + parts[0] + "," + parts[1] + "],\"permutation\":[" +
                                                  parts[2] + "," + parts[3] + "]}"}};
      }
    }
    return zt_test::arrow_metadata(pairs);
  }

  /// One level: its schema and array, then (for lists and structs) their children. `slots`
  /// is how many slots the parent expects this array to have, which the input may ignore.
  void level(Input& in, int depth, std::int64_t slots, ar::Schema*& schema, ar::Array*& array) {
    static constexpr std::string_view formats[] = {"f", "g", "e", "c", "C", "s", "S", "i", "I", "l",
                                                   "L", "b", "+w:", "+w:", "+w:", "+s", "u", "+l", "n", "w:4"};
    std::string format(formats[in.byte() % std::size(formats)]);
    std::int64_t list_size = 0;
    if (format == "+w:") {
      list_size = in.byte() % 9;
      format += in.byte() % 16 == 0 ? in.text(4) : std::to_string(list_size);
    }
    if (in.byte() % 32 == 0) format = in.text(6);
    const bool nested = format.rfind("+w:", 0) == 0 || format == "+s";
    const std::int64_t n_children = nested && depth < 4 ? (format == "+s" ? 1 + in.byte() % 2 : 1) : 0;

    std::int64_t length = slots, offset = 0;
    const std::uint8_t length_choice = in.byte();
    if (length_choice % 4 == 0 && slots <= max_backed) length = slots + in.byte() % 3 - 1;
    if (length_choice % 16 == 1) {
      length = INT64_MAX;
      offset = 1 + in.byte() % 3;
    } else if (length_choice % 16 == 5 && cuda) {
      length = std::int64_t{1} << 62;
      offset = in.byte() % 4;
    } else {
      offset = in.byte() % 4;
    }
    const std::int64_t null_count = std::int64_t(in.byte() % 4) - 1;
    const std::int64_t total = length > max_backed ? 8 : std::max<std::int64_t>(length + offset, 0);
    const bool validity = in.byte() % 2 == 0;
    std::vector<const void*> bufs{validity ? zeroed(total / 8 + 1, in) : nullptr};
    if (!nested) bufs.push_back(zeroed(total * 8, in));
    if (in.byte() % 16 == 0) bufs.push_back(nullptr);

    std::int64_t child_slots = 0;
    if (length > max_backed) child_slots = length;
    else child_slots = format == "+s" ? length + offset : (length + offset) * list_size;
    auto& kids = schema_children.emplace_back(std::size_t(n_children), nullptr);
    auto& array_kids = array_children.emplace_back(std::size_t(n_children), nullptr);
    for (std::int64_t i = 0; i < n_children; ++i) {
      level(in, depth + 1, child_slots, kids[std::size_t(i)], array_kids[std::size_t(i)]);
      kids[std::size_t(i)]->name = strings.emplace_back("c" + std::to_string(i)).c_str();  // a record batch's columns
    }
    const std::string meta = metadata(in);
    ar::Schema* dictionary = nullptr;
    if (in.byte() % 16 == 0)
      dictionary = &schemas.emplace_back(ar::Schema{"u", nullptr, nullptr, 0, 0, nullptr, nullptr, &release_schema, nullptr});
    schema = &schemas.emplace_back(ar::Schema{strings.emplace_back(format).c_str(), nullptr,
                                              meta.empty() ? nullptr : strings.emplace_back(meta).c_str(), 0,
                                              n_children, kids.data(), dictionary, &release_schema, nullptr});
    auto& b = buffers.emplace_back(std::move(bufs));
    array = &arrays.emplace_back(ar::Array{length, null_count, offset, std::int64_t(b.size()), n_children, b.data(),
                                           array_kids.data(), nullptr, &release_array, nullptr});
  }
};

constexpr ar::DeviceType device_types[] = {ar::device_cpu, ar::device_cuda, ar::device_cuda_host,
                                           ar::device_cuda_managed, 4};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Input in(data, size);
  Tree tree;
  const std::uint8_t mode = in.byte();
  zt::FromArrowOptions options;
  if (mode % 4 == 1 || mode % 4 == 2) options.copy = mode % 4 == 1;
  if (mode & 4) options.fill_nulls = double(in.byte());
  const bool batch = (mode & 8) != 0, device = !batch && (mode & 16) != 0;
  ar::DeviceType device_type = ar::device_cpu;
  std::int64_t device_id = 0;
  if (device) {
    const std::uint8_t choice = in.byte();
    device_type = device_types[choice % std::size(device_types)];
    device_id = choice / 5 % 3;
    tree.cuda = device_type == ar::device_cuda;
  }
  ar::Schema* schema = nullptr;
  ar::Array* array = nullptr;
  tree.level(in, 0, in.byte() % 17, schema, array);
  schema->private_data = &tree;
  array->private_data = &tree;
  if (mode & 32) schema->release(schema);
  if (mode & 64) array->release(array);
  const bool released = (mode & 96) != 0;
  try {
    if (batch) {
      const zt::RecordBatchTensors columns = zt::from_arrow_record_batch(array, schema, options);
      for (const zt::AnyTensor& column : columns.columns()) zt::fuzz::read_every_element(column);
    } else if (device) {
      ar::DeviceArray device_array{*array, device_id, device_type, nullptr, {}};
      array->release = nullptr;  // moved into device_array
      zt::fuzz::read_every_element(zt::from_arrow(&device_array, schema, options));
    } else {
      zt::fuzz::read_every_element(zt::from_arrow(array, schema, options));
    }
    // A released struct belongs to no one: its memory may be gone.
    zt::fuzz::require(!released, "imported from a released struct");
  } catch (const zt::Error&) {
  }
  zt::fuzz::require(tree.array_releases == 1, "the array was released " + std::to_string(tree.array_releases) + " times");
  zt::fuzz::require(tree.schema_releases == 1,
                    "the schema was released " + std::to_string(tree.schema_releases) + " times");
  return 0;
}
