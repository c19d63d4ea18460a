// load_torch on data.pkl programs built from the input: each input byte picks a step — an
// opcode with a valid-looking argument (memo indices mostly ones already set, strs from the
// words a weights file uses), a whole construct (a storage's persistent id, a tensor rebuilt
// by _rebuild_tensor_v2 / _v3 with a metadata dict, torch.Size, OrderedDict with BUILD,
// _codecs.encode, torch.device, _rebuild_parameter, restore_type_tag), or the last step
// repeated up to 8,191 times (how values shared through the memo multiply) — and later bytes
// its arguments. The program goes into a valid torch.save archive with storages '0' to '3' of
// sizes the input picks, then through torch_archive.hpp's checks: it must load or stop at a
// zt::Error, within libFuzzer's memory limit.
//
// Input: [protocol, zip64 and byte order] [4 storage sizes] [steps...]; past its end every
// byte reads as zero, which ends the program (STOP).
#include <initializer_list>

#include "fuzz/torch_archive.hpp"

using namespace zt::fuzz;

namespace {

constexpr std::string_view words[] = {"storage", "cpu", "cuda", "cuda:0", "0", "1", "2", "3", "conj", "neg",
                                      "latin1", "utf8", "w", "weight", "layer.0", "", "\xc3\xbf", "\xc4\x80"};

constexpr std::string_view storage_classes[] = {
    "FloatStorage", "DoubleStorage", "HalfStorage", "BFloat16Storage", "LongStorage", "IntStorage", "ShortStorage",
    "CharStorage", "ByteStorage", "BoolStorage", "ComplexFloatStorage", "ComplexDoubleStorage", "UntypedStorage",
    "UInt16Storage", "Float8_e4m3fnStorage", "QInt8Storage"};
constexpr std::size_t storage_itemsizes[] = {4, 8, 2, 2, 8, 4, 2, 1, 1, 1, 8, 16, 1, 2, 1, 1};

/// Globals: the accepted ones first, then a few that are refused.
constexpr std::pair<std::string_view, std::string_view> globals[] = {
    {"torch._utils", "_rebuild_tensor_v2"},
    {"torch._utils", "_rebuild_tensor_v3"},
    {"torch._utils", "_rebuild_parameter"},
    {"collections", "OrderedDict"},
    {"torch", "Size"},
    {"torch", "device"},
    {"_codecs", "encode"},
    {"torch.jit._pickle", "restore_type_tag"},
    {"torch", "FloatStorage"},
    {"torch", "float32"},
    {"torch", "complex64"},
    {"torch", "bool"},
    {"torch", "float8_e5m2"},
    {"torch.storage", "UntypedStorage"},
    {"builtins", "eval"},
    {"torch", "qint8"},
};

constexpr std::string_view dtype_names[] = {"float32", "float64", "float16", "bfloat16", "int64", "int8",
                                            "uint8",   "bool",    "complex64", "complex128", "complex32",
                                            "uint16",  "float8_e4m3fn", "float4_e2m1fn_x2"};

constexpr std::size_t storage_count = 4;
constexpr std::size_t max_pickle = std::size_t{1} << 20;  // a program stops growing here

class Program {
 public:
  Program(InputReader& in, const std::array<std::size_t, storage_count>& storage_bytes)
      : in_(in), storage_bytes_(storage_bytes) {}

  /// The data.pkl the rest of the input describes.
  std::string build(unsigned protocol) {
    out_.op(0x80), out_.number(protocol, 1);
    while (!in_.rest().empty() && out_.size() < max_pickle) {
      const std::size_t before = out_.size();
      if (!step()) break;
      last_ = out_.bytes().substr(before);
    }
    out_.op('.');
    return out_.bytes();
  }

 private:
  std::uint8_t byte() { return in_.take<std::uint8_t>(); }
  template <class T, std::size_t N>
  const T& pick(const T (&choices)[N]) {
    return choices[byte() % N];
  }
  unsigned char pick_op(std::initializer_list<unsigned char> codes) { return codes.begin()[byte() % codes.size()]; }

  /// A small int mostly, sometimes an extreme one.
  std::int64_t small_int() {
    const std::uint8_t b = byte();
    switch (b >> 6) {
      case 0: return b & 7;
      case 1: return b & 63;
      case 2: return -std::int64_t(b & 7) - 1;
      default: return std::int64_t(in_.take<std::uint64_t>());
    }
  }

  void integer(std::int64_t value) {
    if (value >= 0 && value < 256) {
      out_.op('K'), out_.number(std::uint64_t(value), 1);
    } else if (value >= INT32_MIN && value <= INT32_MAX) {
      out_.integer(std::int32_t(value));
    } else {
      out_.op(0x8a), out_.number(8, 1), out_.number(std::uint64_t(value), 8);  // LONG1
    }
  }

  void word() {
    const std::uint8_t b = byte();
    if (b < 224) return out_.text(words[b % std::size(words)]);
    const std::size_t length = byte() % 40;
    std::string text;
    for (std::size_t i = 0; i < length; ++i) text += char(byte());
    if (b & 1) return out_.text(text);
    out_.op(0x8c), out_.number(text.size(), 1), out_.raw(text);  // SHORT_BINUNICODE
  }

  void global(std::string_view module, std::string_view name) {
    if (byte() % 4 != 0) return out_.global(module, name);
    out_.text(module), out_.text(name), out_.op(0x93);  // STACK_GLOBAL
  }

  /// A memo index: one already set (or the next) mostly, any other sometimes.
  std::uint32_t memo_index() {
    const std::uint8_t b = byte();
    if (b < 240 && memo_size_ > 0) return b % memo_size_;
    return b < 248 ? memo_size_ : in_.take<std::uint32_t>();
  }

  void memo_put() {
    const std::uint32_t index = byte() % 8 == 0 ? memo_index() : memo_size_;
    memo_size_ = std::max(memo_size_, index + 1);
    if (index < 256) {
      out_.op('q'), out_.number(index, 1);
    } else {
      out_.op('r'), out_.number(index, 4);
    }
  }

  void memo_get() {
    const std::uint32_t index = memo_index();
    if (index < 256) {
      out_.op('h'), out_.number(index, 1);
    } else {
      out_.op('j'), out_.number(index, 4);
    }
  }

  /// ('storage', class, key, location, numel) BINPERSID, numel mostly what the record holds.
  void storage() {
    const std::size_t which = byte() % std::size(storage_classes);
    const std::size_t key = byte() % storage_count;
    const std::uint8_t b = byte();
    const std::int64_t numel = b < 200 ? std::int64_t(storage_bytes_[key] / storage_itemsizes[which]) : small_int();
    out_.op('(');
    out_.text("storage");
    global(storage_classes[which] == "UntypedStorage" ? "torch.storage" : "torch", storage_classes[which]);
    out_.text(std::to_string(key));
    out_.text(b % 2 ? "cpu" : "cuda:0");
    integer(numel);
    out_.op('t');
    out_.op('Q');
  }

  void int_tuple(std::size_t length) {
    out_.op('(');
    for (std::size_t i = 0; i < length; ++i) integer(small_int());
    out_.op('t');
  }

  /// {'conj': bool, 'neg': bool}, with now and then another key or value.
  void metadata() {
    out_.op('}'), out_.op('(');
    for (std::size_t entries = byte() % 3; entries > 0; --entries) {
      const std::uint8_t b = byte();
      out_.text(b % 8 == 7 ? "foo" : b % 2 ? "conj" : "neg");
      if (b >> 5 == 7) {
        integer(1);
      } else {
        out_.op(b & 4 ? 0x88 : 0x89);
      }
    }
    out_.op('u');
  }

  /// _rebuild_tensor_v2(storage, offset, size, stride, False, OrderedDict()[, metadata]), or _v3
  /// with a dtype; the storage a new persistent id or a memo entry.
  void tensor() {
    const std::uint8_t b = byte();
    const bool v3 = b & 1;
    global("torch._utils", v3 ? "_rebuild_tensor_v3" : "_rebuild_tensor_v2");
    out_.op('(');
    if (b & 2) {
      memo_get();
    } else {
      storage();
    }
    integer(small_int() & 15);
    const std::size_t rank = byte() % 5;
    int_tuple(rank);
    if (b & 4) {
      int_tuple(rank);
    } else {  // C-order strides of small sizes are likelier to fit the storage
      out_.op('(');
      for (std::size_t i = 0; i < rank; ++i) integer(std::int64_t(1) << (2 * (rank - 1 - i)));
      out_.op('t');
    }
    out_.op(b & 8 ? 0x88 : 0x89);
    global("collections", "OrderedDict"), out_.op(')'), out_.op('R');
    if (v3) global("torch", pick(dtype_names));
    if (b & 16) metadata();
    out_.op('t'), out_.op('R');
  }

  /// One step; false ends the program.
  bool step() {
    const std::uint8_t choice = byte();
    switch (choice % 32) {
      case 0: return false;
      case 1: out_.op('('); break;
      case 2: out_.op(pick_op({'}', ']', ')'})); break;
      case 3: out_.op(pick_op({'t', 0x85, 0x86, 0x87})); break;
      case 4: out_.op(pick_op({'a', 'e'})); break;
      case 5: out_.op(pick_op({'s', 'u'})); break;
      case 6: out_.op(pick_op({'N', 0x88, 0x89})); break;
      case 7: integer(small_int()); break;
      case 8: {  // BINFLOAT (big-endian): -0.0, NaN, 1.0 or 0.0
        constexpr std::uint64_t floats[] = {0x8000000000000000, 0x7FF8000000000000, 0x3FF0000000000000, 0};
        const std::uint64_t bits = pick(floats);
        out_.op('G');
        for (int i = 7; i >= 0; --i) out_.number((bits >> (8 * i)) & 0xFF, 1);
        break;
      }
      case 9: case 10: word(); break;
      case 11: {  // SHORT_BINBYTES or BINBYTES
        const std::size_t length = byte() % 16;
        const bool is_short = byte() & 1;
        out_.op(is_short ? 'C' : 'B'), out_.number(length, is_short ? 1 : 4);
        for (std::size_t i = 0; i < length; ++i) out_.number(byte(), 1);
        break;
      }
      case 12: case 13: memo_put(); break;
      case 14: case 15: memo_get(); break;
      case 16: {
        const auto& [module, name] = pick(globals);
        global(module, name);
        break;
      }
      case 17: out_.op('R'); break;
      case 18: out_.op('b'); break;
      case 19: out_.op('Q'); break;
      case 20: storage(); break;
      case 21: case 22: tensor(); break;
      case 23:  // torch.Size(tuple), the tuple new or a memo entry
        global("torch", "Size");
        if (byte() & 1) {
          memo_get();
        } else {
          int_tuple(byte() % 5);
        }
        out_.op(0x85), out_.op('R');
        break;
      case 24:  // _codecs.encode(str, 'latin1' or another encoding)
        global("_codecs", "encode"), word(), out_.text(byte() % 8 ? "latin1" : "utf8"), out_.op(0x86), out_.op('R');
        break;
      case 25:  // OrderedDict(), its state set by BUILD
        global("collections", "OrderedDict"), out_.op(')'), out_.op('R');
        if (byte() & 1) out_.op('}'), out_.op('b');
        break;
      case 26:  // torch.device(type[, index])
        global("torch", "device"), word();
        if (byte() & 1) {
          integer(small_int());
          out_.op(0x86);
        } else {
          out_.op(0x85);
        }
        out_.op('R');
        break;
      case 27:  // _rebuild_parameter(tensor, requires_grad, OrderedDict())
        global("torch._utils", "_rebuild_parameter"), tensor(), out_.op(0x89);
        global("collections", "OrderedDict"), out_.op(')'), out_.op('R'), out_.op(0x87), out_.op('R');
        break;
      case 28:  // restore_type_tag(value, type)
        global("torch.jit._pickle", "restore_type_tag"), memo_get(), word(), out_.op(0x86), out_.op('R');
        break;
      case 29: {  // the last step again, up to 8,191 times
        const std::size_t times = in_.take<std::uint16_t>() % 8192;
        for (std::size_t i = 0; i < times && out_.size() < max_pickle; ++i) out_.raw(last_);
        return true;  // last_ stays the repeated step
      }
      case 30:
        if (byte() & 1) {
          out_.op(0x95), out_.number(in_.take<std::uint16_t>(), 8);  // FRAME
        } else {
          out_.op(0x94);  // MEMOIZE
          ++memo_size_;
        }
        break;
      default: out_.op(byte()); break;  // any byte, opcode or not
    }
    return true;
  }

  InputReader& in_;
  const std::array<std::size_t, storage_count>& storage_bytes_;
  PickleWriter out_;
  std::uint32_t memo_size_ = 0;
  std::string last_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  InputReader in(data, size);
  const std::uint8_t settings = in.take<std::uint8_t>();
  std::array<std::size_t, storage_count> storage_bytes{};
  std::vector<Record> storages;
  for (std::size_t key = 0; key < storage_count; ++key) {
    storage_bytes[key] = std::size_t(in.take<std::uint8_t>()) * 8;
    std::string bytes(storage_bytes[key], '\0');
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = char(key == 0 ? i % 2 : (i * 37 + key) & 0xFF);
    storages.push_back({std::to_string(key), std::move(bytes)});
  }
  std::string pickle = Program(in, storage_bytes).build(2 + settings % 4);
  ZipLayout archive = write_zip(torch_records(std::move(pickle), std::move(storages),
                                                    settings & 0x20 ? "big" : "little"),
                                      settings & 0x10);
  check_torch_load(zt::Buffer(archive.bytes));
  return 0;
}
