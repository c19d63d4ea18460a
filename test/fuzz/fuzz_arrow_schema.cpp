// Fuzzes from_arrow's reading of foreign structs: the input chooses a schema tree (format
// strings, fixed_shape_tensor JSON and other metadata, children, dictionaries) and a
// parallel array tree (lengths, offsets, null counts, validity bitmaps, buffer and child
// counts). Buffers are as large as the array's own lengths say (the C interface carries no
// buffer sizes, so that much a producer must get right); everything else may be wrong.
// Every element of an imported tensor is read, and both releases must run exactly once.
// The fixed_shape_tensor JSON reader is checked against nlohmann-json: a text from_arrow
// accepted must be valid JSON.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

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

struct Tree {
  int array_releases = 0;
  int schema_releases = 0;
  std::deque<ar::Array> arrays;
  std::deque<ar::Schema> schemas;
  std::deque<std::string> strings;
  std::deque<std::vector<std::uint64_t>> memory;  // 8-byte aligned buffers
  std::deque<std::vector<const void*>> buffers;
  std::deque<std::vector<ar::Array*>> array_children;
  std::deque<std::vector<ar::Schema*>> schema_children;
  std::vector<std::string> tensor_json;  ///< every arrow.fixed_shape_tensor parameter text

  static void release_array(ar::Array* a) {
    for (std::int64_t i = 0; i < a->n_children; ++i)
      if (a->children[i] != nullptr && a->children[i]->release != nullptr) a->children[i]->release(a->children[i]);
    if (a->private_data != nullptr) ++static_cast<Tree*>(a->private_data)->array_releases;
    a->release = nullptr;
  }
  static void release_schema(ar::Schema* s) {
    for (std::int64_t i = 0; i < s->n_children; ++i)
      if (s->children[i] != nullptr && s->children[i]->release != nullptr) s->children[i]->release(s->children[i]);
    if (s->dictionary != nullptr && s->dictionary->release != nullptr) s->dictionary->release(s->dictionary);
    if (s->private_data != nullptr) ++static_cast<Tree*>(s->private_data)->schema_releases;
    s->release = nullptr;
  }

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
      default:
        pairs = {{"ARROW:extension:name", "arrow.fixed_shape_tensor"},
                 {"ARROW:extension:metadata", "{\"shape\":[" + std::to_string(in.byte() % 5) + "," +
                                                  std::to_string(in.byte() % 5) + "],\"permutation\":[" +
                                                  std::to_string(in.byte() % 3) + "," + std::to_string(in.byte() % 3) +
                                                  "]}"}};
    }
    if (pairs[0].second == "arrow.fixed_shape_tensor") tensor_json.push_back(pairs[1].second);
    std::string out;
    const auto put = [&out](std::int32_t n) { out.append(reinterpret_cast<const char*>(&n), 4); };
    put(std::int32_t(pairs.size()));
    for (const auto& [key, value] : pairs) {
      put(std::int32_t(key.size()));
      out += key;
      put(std::int32_t(value.size()));
      out += value;
    }
    return out;
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

    const std::int64_t length = in.byte() % 4 == 0 ? slots + in.byte() % 3 - 1 : slots;
    const std::int64_t offset = in.byte() % 4;
    const std::int64_t null_count = std::int64_t(in.byte() % 4) - 1;
    const std::int64_t total = std::max<std::int64_t>(length + offset, 0);
    const bool validity = in.byte() % 2 == 0;
    std::vector<const void*> bufs{validity ? zeroed(total / 8 + 1, in) : nullptr};
    if (!nested) bufs.push_back(zeroed(total * 8, in));
    if (in.byte() % 16 == 0) bufs.push_back(nullptr);

    auto& kids = schema_children.emplace_back(std::size_t(n_children), nullptr);
    auto& array_kids = array_children.emplace_back(std::size_t(n_children), nullptr);
    for (std::int64_t i = 0; i < n_children; ++i)
      level(in, depth + 1, format == "+s" ? length + offset : (length + offset) * list_size, kids[std::size_t(i)],
            array_kids[std::size_t(i)]);
    const std::string meta = metadata(in);
    ar::Schema* dictionary = nullptr;
    if (in.byte() % 16 == 0) {
      dictionary = &schemas.emplace_back(ar::Schema{"u", nullptr, nullptr, 0, 0, nullptr, nullptr, &release_schema, nullptr});
    }
    schema = &schemas.emplace_back(ar::Schema{strings.emplace_back(format).c_str(), nullptr,
                                              meta.empty() ? nullptr : strings.emplace_back(meta).c_str(), 0,
                                              n_children, kids.data(), dictionary, &release_schema, nullptr});
    auto& b = buffers.emplace_back(std::move(bufs));
    array = &arrays.emplace_back(ar::Array{length, null_count, offset, std::int64_t(b.size()), n_children, b.data(),
                                           array_kids.data(), nullptr, &release_array, nullptr});
  }
};

/// Reads every element, so a view reaching past its memory is caught by AddressSanitizer.
double touch(const zt::AnyTensor& tensor) {
  double sum = 0;
  tensor.visit([&](const auto& typed) {
    const auto& shape = typed.shape();
    zt::DynamicExtents index(shape.size(), 0);
    for (zt::index_t n = 0; n < typed.numel(); ++n) {
      zt::index_t offset = 0;
      for (std::size_t d = 0; d < shape.size(); ++d) offset += index[d] * typed.stride(d);
      unsigned char bytes[sizeof(typed.data()[0])];
      std::memcpy(bytes, typed.data() + offset, sizeof bytes);
      sum += bytes[0];
      for (std::size_t d = shape.size(); d-- > 0;) {
        if (++index[d] < shape[d]) break;
        index[d] = 0;
      }
    }
  });
  return sum;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Input in(data, size);
  Tree tree;
  ar::Schema* schema = nullptr;
  ar::Array* array = nullptr;
  const std::uint8_t mode = in.byte();
  tree.level(in, 0, in.byte() % 17, schema, array);
  schema->private_data = &tree;
  array->private_data = &tree;
  zt::FromArrowOptions options;
  if (mode % 3 != 0) options.copy = mode % 3 == 1;
  if (mode & 4) options.fill_nulls = double(in.byte());
  volatile double sink = 0;
  try {
    if (mode & 8) {
      const zt::RecordBatchTensors batch = zt::from_arrow_record_batch(array, schema, options);
      for (const zt::AnyTensor& column : batch.columns()) sink = sink + touch(column);
    } else {
      sink = touch(zt::from_arrow(array, schema, options));
      // Imported: every schema of the tree was read (a fixed-size list has one child, a
      // dictionary is refused), so every extension text was accepted.
      for (const std::string& json : tree.tensor_json)
        if (!nlohmann::json::accept(json)) std::abort();
    }
  } catch (const zt::Error&) {
  }
  if (tree.array_releases != 1 || tree.schema_releases != 1) std::abort();
  return 0;
}
