#include "formats/torch/torch_pickle.hpp"

#include <array>
#include <bit>
#include <unordered_map>

#include "vocabulary/concat.hpp"
#include "interop/dtype_formats.hpp"
#include "zerotensor/error.hpp"
#include "zerotensor/shape.hpp"

namespace zt::detail {
namespace {

/// The pickle opcodes (Python's pickletools), each named once here: its name and byte.
#define ZT_PICKLE_OPCODES(X) \
  X(MARK, '(') X(STOP, '.') X(POP, '0') X(POP_MARK, '1') X(DUP, '2') X(FLOAT, 'F') X(INT, 'I') X(BININT, 'J') \
  X(BININT1, 'K') X(LONG, 'L') X(BININT2, 'M') X(NONE, 'N') X(PERSID, 'P') X(BINPERSID, 'Q') X(REDUCE, 'R') \
  X(STRING, 'S') X(BINSTRING, 'T') X(SHORT_BINSTRING, 'U') X(UNICODE, 'V') X(BINUNICODE, 'X') X(APPEND, 'a') \
  X(BUILD, 'b') X(GLOBAL, 'c') X(DICT, 'd') X(EMPTY_DICT, '}') X(APPENDS, 'e') X(GET, 'g') X(BINGET, 'h') \
  X(INST, 'i') X(LONG_BINGET, 'j') X(LIST, 'l') X(EMPTY_LIST, ']') X(OBJ, 'o') X(PUT, 'p') X(BINPUT, 'q') \
  X(LONG_BINPUT, 'r') X(SETITEM, 's') X(TUPLE, 't') X(EMPTY_TUPLE, ')') X(SETITEMS, 'u') X(BINFLOAT, 'G') \
  X(PROTO, 0x80) X(NEWOBJ, 0x81) X(EXT1, 0x82) X(EXT2, 0x83) X(EXT4, 0x84) X(TUPLE1, 0x85) X(TUPLE2, 0x86) \
  X(TUPLE3, 0x87) X(NEWTRUE, 0x88) X(NEWFALSE, 0x89) X(LONG1, 0x8a) X(LONG4, 0x8b) X(BINBYTES, 'B') \
  X(SHORT_BINBYTES, 'C') X(SHORT_BINUNICODE, 0x8c) X(BINUNICODE8, 0x8d) X(BINBYTES8, 0x8e) X(EMPTY_SET, 0x8f) \
  X(ADDITEMS, 0x90) X(FROZENSET, 0x91) X(NEWOBJ_EX, 0x92) X(STACK_GLOBAL, 0x93) X(MEMOIZE, 0x94) \
  X(FRAME, 0x95) X(BYTEARRAY8, 0x96) X(NEXT_BUFFER, 0x97) X(READONLY_BUFFER, 0x98)

enum class Opcode : unsigned char {
#define ZT_OPCODE_ENUMERATOR(name, byte) name = byte,
  ZT_PICKLE_OPCODES(ZT_OPCODE_ENUMERATOR)
#undef ZT_OPCODE_ENUMERATOR
};

constexpr unsigned char byte_of(Opcode opcode) { return static_cast<unsigned char>(opcode); }

/// Every opcode's name by its byte, for messages; empty: the byte is no opcode.
constexpr std::array<std::string_view, 256> opcode_names = [] {
  std::array<std::string_view, 256> names{};
#define ZT_OPCODE_NAME(name, byte) names[byte] = #name;
  ZT_PICKLE_OPCODES(ZT_OPCODE_NAME)
#undef ZT_OPCODE_NAME
  return names;
}();

/// The globals that are called (by REDUCE); storage classes and dtypes are only named.
constexpr std::string_view ordered_dict = "collections.OrderedDict", rebuild_v2 = "torch._utils._rebuild_tensor_v2",
                           rebuild_v3 = "torch._utils._rebuild_tensor_v3",
                           rebuild_parameter = "torch._utils._rebuild_parameter", torch_size = "torch.Size",
                           torch_device = "torch.device",
                           restore_type_tag = "torch.jit._pickle.restore_type_tag",
                           codecs_encode = "_codecs.encode";
constexpr std::string_view callables[] = {ordered_dict, rebuild_v2,   rebuild_v3,       rebuild_parameter,
                                          torch_size,   torch_device, restore_type_tag, codecs_encode};
/// Dtypes PyTorch has and zerotensor has not.
constexpr std::string_view unsupported_dtypes[] = {"qint8", "quint8", "qint32", "quint4x2", "quint2x4"};

/// The dtype a global names ("torch.float32"), if it names one.
std::optional<DType> dtype_global(std::string_view global) {
  for (DType dtype : all_dtypes) {
    if (!is_gguf_block(dtype) && global.starts_with("torch.") && global.substr(6) == name(dtype)) return dtype;
  }
  return std::nullopt;
}

/// The dtype of a storage class global ("torch.FloatStorage"), if it names one.
std::optional<DType> storage_global(std::string_view global) {
  if (!global.starts_with("torch.")) return std::nullopt;
  return dtype_named<&DTypeFormats::torch_storage>(global.substr(6));
}

/// torch.save names the untyped storage by its defining module; torch.UntypedStorage is the same class.
bool is_untyped_storage(std::string_view global) {
  return global == "torch.storage.UntypedStorage" || global == "torch.UntypedStorage";
}

bool is_callable(std::string_view global) {
  for (std::string_view callable : callables) {
    if (global == callable) return true;
  }
  return false;
}

constexpr std::string_view kind_name(PickleKind kind) {
  constexpr std::string_view names[] = {"None", "bool", "int", "float", "str", "bytes", "list",
                                        "tuple", "dict", "global", "torch.device", "storage", "tensor"};
  return names[std::size_t(kind)];
}

class PickleReader {
 public:
  PickleReader(std::span<const std::byte> pickle, std::string_view description)
      : pickle_(pickle), description_(description), numel_context_(std::string(description) + ": data.pkl"),
        build_limit_(max_pickle_build(pickle.size())) {}

  PickleGraph read() {
    while (true) {
      if (position_ == pickle_.size())
        fail("data.pkl ends at byte ", position_, " without a STOP opcode");
      opcode_at_ = position_;
      opcode_ = static_cast<Opcode>(pickle_[position_++]);
      if (opcode_ == Opcode::STOP) break;
      step();
    }
    if (stack_.empty()) fail_here("finds an empty stack");
    graph_.root = stack_.back();
    return std::move(graph_);
  }

 private:
  template <class... Parts>
  [[noreturn]] void fail(const Parts&... what) const {
    throw ValueError(concat(description_, ": ", what...));
  }

  /// ValueError naming the opcode being read and its byte offset in data.pkl.
  template <class... Parts>
  [[noreturn]] void fail_here(const Parts&... what) const {
    fail("data.pkl: ", opcode_names[byte_of(opcode_)], " at byte ", opcode_at_, " ", what...);
  }

  void step() {
    switch (opcode_) {
      case Opcode::PROTO: return protocol();
      case Opcode::FRAME: (void)take(8); return;  // a length that only helps buffered readers
      case Opcode::MARK: return mark();
      case Opcode::EMPTY_DICT: return push_new(PickleKind::dict);
      case Opcode::EMPTY_LIST: return push_new(PickleKind::list);
      case Opcode::EMPTY_TUPLE: return push_new(PickleKind::tuple);
      case Opcode::TUPLE: return push_tuple(pop_mark());
      case Opcode::TUPLE1: return push_tuple(pop(1));
      case Opcode::TUPLE2: return push_tuple(pop(2));
      case Opcode::TUPLE3: return push_tuple(pop(3));
      case Opcode::APPEND: return append(pop(1));
      case Opcode::APPENDS: return append(pop_mark());
      case Opcode::SETITEM: return set_items(pop(2));
      case Opcode::SETITEMS: return set_items(pop_mark());
      case Opcode::NONE: return push_new(PickleKind::none);
      case Opcode::NEWTRUE: return push_integer(PickleKind::boolean, 1);
      case Opcode::NEWFALSE: return push_integer(PickleKind::boolean, 0);
      case Opcode::BININT1: return push_integer(PickleKind::integer, std::int64_t(unsigned_number(1)));
      case Opcode::BININT2: return push_integer(PickleKind::integer, std::int64_t(unsigned_number(2)));
      case Opcode::BININT: return push_integer(PickleKind::integer, std::int32_t(unsigned_number(4)));
      case Opcode::LONG1: return long_integer(unsigned_number(1));
      case Opcode::LONG4: return long_integer(unsigned_number(4));
      case Opcode::BINFLOAT: return binary_float();
      case Opcode::BINUNICODE: return push_text(PickleKind::string, unsigned_number(4));
      case Opcode::SHORT_BINUNICODE: return push_text(PickleKind::string, unsigned_number(1));
      case Opcode::BINUNICODE8: return push_text(PickleKind::string, unsigned_number(8));
      case Opcode::SHORT_BINBYTES: return push_text(PickleKind::bytes, unsigned_number(1));
      case Opcode::BINBYTES: return push_text(PickleKind::bytes, unsigned_number(4));
      case Opcode::BINBYTES8: return push_text(PickleKind::bytes, unsigned_number(8));
      case Opcode::BINPUT: return memo_put(unsigned_number(1));
      case Opcode::LONG_BINPUT: return memo_put(unsigned_number(4));
      case Opcode::MEMOIZE: return memo_put(memo_.size());
      case Opcode::BINGET: return memo_get(unsigned_number(1));
      case Opcode::LONG_BINGET: return memo_get(unsigned_number(4));
      case Opcode::GLOBAL: return global();
      case Opcode::STACK_GLOBAL: return stack_global();
      case Opcode::REDUCE: return reduce();
      case Opcode::BUILD: return build();
      case Opcode::BINPERSID: return persistent_id();
      case Opcode::INST: {  // INST names its class in its argument
        const std::string module(line());
        fail_here("names ", module.substr(0, 48), ".", line().substr(0, 48),
                  ", which is not allowed: a torch.save weights file does not use INST");
      }
      default:
        if (opcode_names[byte_of(opcode_)].empty())
          fail("data.pkl: byte ", opcode_at_, " holds 0x", std::hex, unsigned(byte_of(opcode_)), std::dec,
               ", which is not a pickle opcode");
        fail_here("is not allowed", class_on_stack(), ": a torch.save weights file does not use it");
    }
  }

  /// " (of collections.OrderedDict)": the class NEWOBJ, NEWOBJ_EX or OBJ would instantiate,
  /// when it is a global; empty otherwise.
  std::string class_on_stack() const {
    const std::size_t below_top = opcode_ == Opcode::NEWOBJ ? 2 : opcode_ == Opcode::NEWOBJ_EX ? 3 : 0;
    std::size_t at = stack_.size();
    if (below_top != 0 && stack_.size() >= below_top) at = stack_.size() - below_top;
    if (opcode_ == Opcode::OBJ && !marks_.empty()) at = marks_.back();
    if (at >= stack_.size() || graph_.objects[stack_[at]].kind != PickleKind::global) return {};
    return concat(" (of ", graph_.objects[stack_[at]].text.substr(0, 96), ")");
  }

  // ---- reading arguments

  std::span<const std::byte> take(std::uint64_t length) {
    if (length > pickle_.size() - position_)
      fail_here("needs ", length, " bytes, but data.pkl has ", pickle_.size() - position_, " left");
    const auto bytes = pickle_.subspan(position_, length);
    position_ += length;
    return bytes;
  }

  std::uint64_t unsigned_number(std::size_t width) {
    const auto bytes = take(width);
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < width; ++i) value |= std::uint64_t(bytes[i]) << (8 * i);
    return value;
  }

  std::string_view line() {
    const auto rest = pickle_.subspan(position_);
    const std::string_view text(reinterpret_cast<const char*>(rest.data()), rest.size());
    const std::size_t end = text.find('\n');
    if (end == std::string_view::npos) fail_here("has no end of line");
    position_ += end + 1;
    return text.substr(0, end);
  }

  // ---- objects and the stack

  PickleObject& object(ObjectId id) { return graph_.objects[id]; }

  /// Counts `bytes` more held by the objects; ValueError past max_pickle_build.
  void charge(std::uint64_t bytes) {
    if (bytes > build_limit_ - built_)
      fail_here("would make its objects hold more than ", build_limit_, " bytes (16 MiB and 32 per byte of the ",
                pickle_.size(), " of data.pkl): values shared through the memo, built again and again");
    built_ += bytes;
  }

  ObjectId add(PickleObject value) {
    if (graph_.objects.size() == max_pickle_objects)
      fail_here("would make more than ", max_pickle_objects, " objects");
    charge(value.items.size() * sizeof(ObjectId) + value.text.size());
    graph_.objects.push_back(std::move(value));
    return ObjectId(graph_.objects.size() - 1);
  }

  void push(ObjectId id) {
    if (stack_.size() == max_pickle_stack) fail_here("would grow the stack beyond ", max_pickle_stack, " entries");
    stack_.push_back(id);
  }

  void push_new(PickleKind kind) { push(add({kind})); }
  void push_integer(PickleKind kind, std::int64_t value) { push(add({kind, value})); }
  void push_text(PickleKind kind, std::uint64_t length) {
    const auto bytes = take(length);
    push(add({kind, 0, 0, std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size())}));
  }
  void push_tuple(std::vector<ObjectId> items) { push(add({PickleKind::tuple, 0, 0, {}, std::move(items)})); }

  /// The top `count` entries, bottom first.
  std::vector<ObjectId> pop(std::size_t count) {
    const std::size_t floor = marks_.empty() ? 0 : marks_.back();
    if (stack_.size() - floor < count)
      fail_here("needs ", count, " values on the stack, but ", stack_.size() - floor, " are there");
    std::vector<ObjectId> items(stack_.end() - std::ptrdiff_t(count), stack_.end());
    stack_.resize(stack_.size() - count);
    return items;
  }

  ObjectId pop_one() { return pop(1)[0]; }

  void mark() {
    if (marks_.size() == max_pickle_marks) fail_here("nests MARKs deeper than ", max_pickle_marks);
    marks_.push_back(stack_.size());
  }

  std::vector<ObjectId> pop_mark() {
    if (marks_.empty()) fail_here("finds no MARK");
    std::vector<ObjectId> items(stack_.begin() + std::ptrdiff_t(marks_.back()), stack_.end());
    stack_.resize(marks_.back());
    marks_.pop_back();
    return items;
  }

  /// The object on top of the stack, which must be a `kind`.
  ObjectId top(PickleKind kind) {
    const std::size_t floor = marks_.empty() ? 0 : marks_.back();
    if (stack_.size() == floor) fail_here("finds no ", kind_name(kind), " on the stack");
    const ObjectId id = stack_.back();
    if (object(id).kind != kind) fail_here("needs a ", kind_name(kind), ", found a ", kind_name(object(id).kind));
    return id;
  }

  // ---- opcodes

  void protocol() {
    const std::uint64_t version = unsigned_number(1);
    if (version < 2 || version > 5) fail_here("names protocol ", version, "; torch.save writes protocols 2 to 5");
  }

  void append(const std::vector<ObjectId>& items) {
    const ObjectId list = top(PickleKind::list);
    charge(items.size() * sizeof(ObjectId));
    object(list).items.insert(object(list).items.end(), items.begin(), items.end());
  }

  void set_items(const std::vector<ObjectId>& items) {
    if (items.size() % 2 != 0) fail_here("has a key without a value");
    const ObjectId dict = top(PickleKind::dict);
    charge(items.size() * sizeof(ObjectId));
    object(dict).items.insert(object(dict).items.end(), items.begin(), items.end());
  }

  void long_integer(std::uint64_t length) {
    if (length > 8) fail_here("holds an integer of ", length, " bytes; the reader takes 64-bit integers");
    std::uint64_t value = unsigned_number(length);
    if (length > 0 && length < 8 && (value >> (8 * length - 1)) != 0)
      value |= ~std::uint64_t(0) << (8 * length);  // sign-extend two's complement
    push_integer(PickleKind::integer, std::int64_t(value));
  }

  void binary_float() {
    const auto bytes = take(8);
    std::uint64_t bits = 0;
    for (std::byte b : bytes) bits = bits << 8 | std::uint64_t(b);  // big-endian
    push(add({PickleKind::floating, 0, std::bit_cast<double>(bits)}));
  }

  void memo_put(std::uint64_t index) {
    if (stack_.size() == (marks_.empty() ? 0 : marks_.back())) fail_here("finds nothing on the stack to store");
    memo_[index] = stack_.back();
  }

  void memo_get(std::uint64_t index) {
    const auto found = memo_.find(index);
    if (found == memo_.end()) fail_here("reads memo index ", index, ", which was never set");
    push(found->second);
  }

  void global() {
    const std::string module(line());
    const std::string name(line());
    push_global(module + "." + name);
  }

  void stack_global() {
    const std::vector<ObjectId> parts = pop(2);
    if (object(parts[0]).kind != PickleKind::string || object(parts[1]).kind != PickleKind::string)
      fail_here("needs two str, found ", kind_name(object(parts[0]).kind), " and ", kind_name(object(parts[1]).kind));
    push_global(object(parts[0]).text + "." + object(parts[1]).text);
  }

  /// Accepts only the globals of a weights file; nothing is imported or looked up.
  void push_global(const std::string& global) {
    const std::string shown = global.substr(0, 96);
    for (std::string_view dtype : unsupported_dtypes) {
      if (global.starts_with("torch.") && global.substr(6) == dtype)
        fail_here("names ", shown, ": zerotensor has no ", dtype, " dtype");
    }
    if (!is_callable(global) && !dtype_global(global) && !storage_global(global) && !is_untyped_storage(global))
      fail_here("names ", shown, ", which is not allowed: a weights file names only tensors, containers and scalars");
    push(add({PickleKind::global, 0, 0, global}));
  }

  void reduce() {
    const ObjectId arguments = pop_one();
    const ObjectId callable = pop_one();
    if (object(callable).kind != PickleKind::global)
      fail_here("calls a ", kind_name(object(callable).kind), ", which is not allowed");
    const std::string global = object(callable).text;
    if (!is_callable(global)) fail_here("calls ", global, ", which is not allowed");
    if (object(arguments).kind != PickleKind::tuple)
      fail_here("calls ", global, " with a ", kind_name(object(arguments).kind), " of arguments");
    const std::vector<ObjectId> args = object(arguments).items;
    if (global == ordered_dict) {
      expect_arguments(global, args, 0, 0);
      push_new(PickleKind::dict);
    } else if (global == torch_size) {
      expect_arguments(global, args, 1, 1);
      push(add({PickleKind::tuple, 0, 0, {}, integers(global, args[0], "size")}));
    } else if (global == torch_device) {
      push(device(args));
    } else if (global == restore_type_tag) {  // libtorch's torch::pickle_save tags a value with its type
      expect_arguments(global, args, 2, 2);
      expect(global, args[1], PickleKind::string, "type");
      push(args[0]);
    } else if (global == codecs_encode) {
      push(latin1_bytes(args));
    } else if (global == rebuild_parameter) {
      expect_arguments(global, args, 3, 3);
      expect(global, args[0], PickleKind::tensor, "data");
      push(args[0]);
    } else {
      push(tensor(global, args));
    }
  }

  void expect_arguments(std::string_view global, const std::vector<ObjectId>& args, std::size_t least,
                        std::size_t most) {
    if (args.size() < least || args.size() > most)
      fail_here("calls ", global, " with ", args.size(), " arguments; it takes ", least,
                least == most ? concat("") : concat(" to ", most));
  }

  const PickleObject& expect(std::string_view global, ObjectId id, PickleKind kind, std::string_view argument) {
    if (object(id).kind != kind)
      fail_here("calls ", global, " with a ", kind_name(object(id).kind), " as ", argument, "; it must be a ",
                kind_name(kind));
    return object(id);
  }

  /// The items of the tuple `id`, checked to be ints; valid until the next object is added.
  const std::vector<ObjectId>& integers(std::string_view global, ObjectId id, std::string_view argument) {
    for (ObjectId item : expect(global, id, PickleKind::tuple, argument).items) {
      if (object(item).kind != PickleKind::integer)
        fail_here("calls ", global, " with a ", argument, " that holds a ", kind_name(object(item).kind));
    }
    return object(id).items;
  }

  DynamicExtents extents(const std::vector<ObjectId>& integers) {
    charge(integers.size() * sizeof(index_t));
    DynamicExtents result(integers.size(), 0);
    for (std::size_t i = 0; i < integers.size(); ++i) result[i] = object(integers[i]).integer;
    return result;
  }

  ObjectId device(const std::vector<ObjectId>& args) {
    expect_arguments(torch_device, args, 1, 2);
    std::string text = expect(torch_device, args[0], PickleKind::string, "type").text;
    if (args.size() == 2) text += concat(":", expect(torch_device, args[1], PickleKind::integer, "index").integer);
    return add({PickleKind::device, 0, 0, std::move(text)});
  }

  /// _rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks[, metadata]);
  /// _v3 takes the dtype after the hooks.
  ObjectId tensor(std::string_view global, const std::vector<ObjectId>& args) {
    const bool v3 = global == rebuild_v3;
    expect_arguments(global, args, v3 ? 7 : 6, v3 ? 8 : 7);
    const PickleStorage& storage = graph_.storages[expect(global, args[0], PickleKind::storage, "storage").integer];
    PickleTensor tensor{std::size_t(object(args[0]).integer), uint8,
                        expect(global, args[1], PickleKind::integer, "storage offset").integer, {}, {}};
    tensor.shape = extents(integers(global, args[2], "size"));
    tensor.strides = extents(integers(global, args[3], "stride"));
    expect(global, args[4], PickleKind::boolean, "requires_grad");
    expect(global, args[5], PickleKind::dict, "backward_hooks");
    if (v3) {
      const std::optional<DType> dtype = dtype_global(expect(global, args[6], PickleKind::global, "dtype").text);
      if (!dtype) fail_here("calls ", global, " with ", object(args[6]).text, " as dtype");
      if (storage.dtype && storage.dtype != dtype)
        fail_here("calls ", global, " with dtype ", *dtype, " for a storage of ", *storage.dtype);
      tensor.dtype = *dtype;
    } else {
      if (!storage.dtype) fail_here("calls ", global, " with a torch.UntypedStorage, which has no dtype");
      tensor.dtype = *storage.dtype;
    }
    if (const std::size_t metadata = v3 ? 7 : 6; args.size() > metadata) read_bits(global, args[metadata], tensor);
    check_inside(global, storage, tensor);
    graph_.tensors.push_back(std::move(tensor));
    return add({PickleKind::tensor, std::int64_t(graph_.tensors.size() - 1)});
  }

  /// The metadata argument: None, or a dict of the tensor's bits, 'conj' and 'neg', each True
  /// or False. torch refuses the conjugate bit of a tensor that is not complex, and cannot
  /// negate bool, uint16 to uint64, the 8-bit and the packed floats.
  void read_bits(std::string_view global, ObjectId metadata, PickleTensor& tensor) {
    const PickleObject& bits = object(metadata);
    if (bits.kind == PickleKind::none) return;
    if (bits.kind != PickleKind::dict)
      fail_here("calls ", global, " with a ", kind_name(bits.kind), " as metadata; it must be a dict");
    bool has_conj = false;
    for (std::size_t i = 0; i + 1 < bits.items.size(); i += 2) {
      const PickleObject& key = object(bits.items[i]);
      const PickleObject& value = object(bits.items[i + 1]);
      const bool is_string = key.kind == PickleKind::string;
      if (!is_string || (key.text != "conj" && key.text != "neg"))
        fail_here("calls ", global, " with metadata ",
                  is_string ? concat("'", key.text.substr(0, 48), "'") : concat("keyed by a ", kind_name(key.kind)),
                  "; it holds only 'conj' and 'neg'");
      if (value.kind != PickleKind::boolean)
        fail_here("calls ", global, " with metadata '", key.text, "' of type ", kind_name(value.kind),
                  "; it must be True or False");
      has_conj |= key.text == "conj";
      (key.text == "conj" ? tensor.conj : tensor.neg) = value.integer != 0;
    }
    if (has_conj && !is_complex(tensor.dtype))
      fail_here("calls ", global, " with the conjugate bit for a ", tensor.dtype,
                " tensor; only complex tensors have one");
    const bool negatable = is_signed_integer(tensor.dtype) || tensor.dtype == uint8 || is_complex(tensor.dtype) ||
                           (is_floating_point(tensor.dtype) && !is_float8(tensor.dtype) && !is_packed(tensor.dtype));
    if (tensor.neg && !negatable)
      fail_here("calls ", global, " with the negative bit for a ", tensor.dtype,
                " tensor, whose values torch cannot negate");
  }

  /// _codecs.encode(str, 'latin1'), which is how protocol 2 pickles bytes: the bytes whose
  /// values are the str's code points, each below 256.
  ObjectId latin1_bytes(const std::vector<ObjectId>& args) {
    expect_arguments(codecs_encode, args, 2, 2);
    const std::string& text = expect(codecs_encode, args[0], PickleKind::string, "str").text;
    const std::string& encoding = expect(codecs_encode, args[1], PickleKind::string, "encoding").text;
    if (encoding != "latin1")
      fail_here("calls ", codecs_encode, " with encoding '", encoding.substr(0, 32),
                "'; torch.save writes bytes as _codecs.encode(str, 'latin1')");
    std::string bytes;
    for (std::size_t at = 0; at < text.size(); ++at) {
      const auto lead = static_cast<unsigned char>(text[at]);
      const auto next = at + 1 < text.size() ? static_cast<unsigned char>(text[at + 1]) : 0u;
      if (lead >= 0x80 && ((lead != 0xC2 && lead != 0xC3) || (next & 0xC0) != 0x80))
        fail_here("calls ", codecs_encode, " with a str whose byte ", at, " (0x", std::hex, unsigned(lead), std::dec,
                  ") starts no UTF-8 character below U+0100, which latin1 cannot encode");
      bytes += lead < 0x80 ? char(lead) : char(((lead & 0x1F) << 6) | (next & 0x3F));
      at += lead < 0x80 ? 0 : 1;
    }
    return add({PickleKind::bytes, 0, 0, std::move(bytes)});
  }

  /// Every element the tensor reaches lies inside its storage (overflow-checked).
  void check_inside(std::string_view global, const PickleStorage& storage, const PickleTensor& tensor) {
    const std::size_t size = itemsize(tensor.dtype);
    if (!storage.dtype && storage.numel % index_t(size) != 0)
      fail_here("calls ", global, " with a storage of ", storage.numel, " bytes, not a whole number of ",
                tensor.dtype, " elements");
    const std::int64_t elements = storage.dtype ? storage.numel : storage.numel / index_t(size);
    const auto layout = [&] {
      return concat("a tensor of shape ", shape_string(tensor.shape), ", strides ", shape_string(tensor.strides),
                    " and storage offset ", tensor.offset);
    };
    if (tensor.shape.size() != tensor.strides.size() || tensor.offset < 0)
      fail_here("calls ", global, " with ", layout());
    const index_t count = checked_numel(tensor.shape, size, numel_context_);
    std::int64_t last = tensor.offset;  // the highest element reached
    bool overflow = false;
    for (index_t stride : tensor.strides) overflow |= stride < 0;
    for (std::size_t d = 0; d < tensor.shape.size() && count > 0; ++d) {
      std::int64_t step = 0;
      overflow |= mul_overflows(tensor.shape[d] - 1, tensor.strides[d], step) || add_overflows(last, step, last);
    }
    if (overflow || (count > 0 ? last >= elements : tensor.offset > elements))
      fail_here("calls ", global, " with ", layout(), ", which reaches outside its storage of ", elements, " ",
                tensor.dtype, " elements");
  }

  /// BUILD sets an object's state: accepted only for a dict (the _metadata of a state_dict's
  /// OrderedDict), whose state is dropped.
  void build() {
    const ObjectId state = pop_one();
    const ObjectId target = pop_one();
    if (object(target).kind != PickleKind::dict)
      fail_here("sets the state of a ", kind_name(object(target).kind), ", which is not allowed");
    if (object(state).kind != PickleKind::dict && object(state).kind != PickleKind::none)
      fail_here("sets the state of a dict to a ", kind_name(object(state).kind));
    push(target);
  }

  /// ('storage', storage class, key, location, numel): a storage whose bytes are the record
  /// data/<key>. The location (where the tensor was saved from) is not needed to read it.
  void persistent_id() {
    const ObjectId id = pop_one();
    const PickleObject& tuple = object(id);
    const auto is = [&](std::size_t i, PickleKind kind) { return object(tuple.items[i]).kind == kind; };
    if (tuple.kind != PickleKind::tuple || tuple.items.size() != 5 || !is(0, PickleKind::string) ||
        object(tuple.items[0]).text != "storage" || !is(1, PickleKind::global) || !is(2, PickleKind::string) ||
        !is(3, PickleKind::string) || !is(4, PickleKind::integer))
      fail_here("needs ('storage', storage class, key, location, numel)");
    const std::string& storage_class = object(tuple.items[1]).text;
    charge(object(tuple.items[2]).text.size());
    PickleStorage storage{object(tuple.items[2]).text, storage_global(storage_class),
                          object(tuple.items[4]).integer};
    if (!storage.dtype && !is_untyped_storage(storage_class))
      fail_here("names ", storage_class, ", which is not a storage class");
    if (storage.numel < 0) fail_here("names a storage of ", storage.numel, " elements");
    graph_.storages.push_back(std::move(storage));
    push(add({PickleKind::storage, std::int64_t(graph_.storages.size() - 1)}));
  }

  std::span<const std::byte> pickle_;
  std::string_view description_;
  std::string numel_context_;  // opens checked_numel's message
  std::size_t position_ = 0;
  std::size_t opcode_at_ = 0;
  Opcode opcode_ = Opcode::MARK;
  PickleGraph graph_;
  std::vector<ObjectId> stack_;
  std::vector<std::size_t> marks_;
  std::unordered_map<std::uint64_t, ObjectId> memo_;
  std::uint64_t build_limit_;
  std::uint64_t built_ = 0;  // bytes held by the objects, see charge
};

}  // namespace

PickleGraph read_torch_pickle(std::span<const std::byte> pickle, std::string_view description) {
  return PickleReader(pickle, description).read();
}

}  // namespace zt::detail
