// Views of views against libtorch (Debian's libtorch-dev, 1.13): random base layouts over
// one buffer, wrapped as a zt::AnyTensor and as an at::Tensor (at::from_blob with the same
// sizes and strides over the same memory), then random chains of every view operation with
// valid and invalid arguments applied to both. Both must refuse with the same error kind
// (IndexError ↔ zt::IndexError, RuntimeError ↔ zt::ValueError), or both succeed with the
// same shape, strides and first-element offset; reshape and contiguous must both view or
// both copy the same values. A second part runs the same chains through Tensor<float, R>
// with static ranks and checks each typed result against the AnyTensor's layout.
// Where 1.13 and current PyTorch differ (squeeze of a list of dims, narrow's and unfold's
// checks) the libtorch side follows current PyTorch; zerotensor's documented differences
// (as_strided's bounds and offset, no lazy conjugation, aligned dtype views, TypeError for a
// dtype not taken) are compared as documented or skipped and counted.
// ZT_VIEWS_SEED and ZT_VIEWS_CASES (environment) change the seed and the case count; a
// failure prints both and the chain. Built only when libtorch is found (test/CMakeLists.txt).
#include <boost/test/unit_test.hpp>

#include <ATen/ATen.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "zerotensor/any_tensor.hpp"
#include "zerotensor/error.hpp"

namespace {

using Shape = std::vector<std::int64_t>;

std::uint64_t env_or(const char* name, std::uint64_t fallback) {
  const char* value = std::getenv(name);
  return value != nullptr ? std::strtoull(value, nullptr, 10) : fallback;
}

const std::uint64_t seed = env_or("ZT_VIEWS_SEED", 20261125);
const std::uint64_t case_count = env_or("ZT_VIEWS_CASES", 4000);

std::string list(const Shape& values) {
  std::ostringstream out;
  out << '[';
  for (std::size_t i = 0; i < values.size(); ++i) out << (i != 0 ? ", " : "") << values[i];
  out << ']';
  return out.str();
}

Shape vec(const zt::DynamicExtents& e) { return {e.begin(), e.end()}; }
Shape vec(at::IntArrayRef e) { return e.vec(); }
template <class T, std::size_t Rank>
Shape vec(const zt::Tensor<T, Rank>& t) {
  return {t.shape().begin(), t.shape().end()};
}

// The dtypes libtorch 1.13 has; bool is left out (its bytes must be 0 or 1).
struct DTypePair {
  zt::DType zt;
  at::ScalarType torch;
};
const DTypePair dtypes[] = {
    {zt::uint8, at::kByte},      {zt::int8, at::kChar},       {zt::int16, at::kShort},
    {zt::int32, at::kInt},       {zt::int64, at::kLong},      {zt::float16, at::kHalf},
    {zt::bfloat16, at::kBFloat16}, {zt::float32, at::kFloat},   {zt::float64, at::kDouble},
    {zt::complex64, at::kComplexFloat}, {zt::complex128, at::kComplexDouble},
};

at::ScalarType torch_dtype(zt::DType d) {
  for (const DTypePair& p : dtypes)
    if (p.zt == d) return p.torch;
  throw std::logic_error("no libtorch dtype");
}



/// One buffer under every case: bytes below 0x40, so no element of a floating dtype is NaN
/// (copies compare bytewise).
struct Memory {
  static constexpr std::size_t bytes = std::size_t(1) << 21;
  std::shared_ptr<std::uint64_t[]> words{new std::uint64_t[bytes / 8]};
  Memory() {
    auto* b = reinterpret_cast<unsigned char*>(words.get());
    for (std::size_t i = 0; i < bytes; ++i) b[i] = static_cast<unsigned char>((i * 7 + i / 251) % 0x40);
  }
  [[nodiscard]] char* data() const { return reinterpret_cast<char*>(words.get()); }
};

const Memory& memory() {
  static const Memory m;
  return m;
}

/// How a call ended on one side.
enum class Kind { ok, index_error, value_error, type_error, other };
const char* name(Kind k) {
  switch (k) {
    case Kind::ok: return "success";
    case Kind::index_error: return "IndexError";
    case Kind::value_error: return "ValueError/RuntimeError";
    case Kind::type_error: return "TypeError";
    case Kind::other: return "another error";
  }
  return "?";
}

template <class F>
std::pair<Kind, std::string> run_zt(F&& f) {
  try {
    f();
    return {Kind::ok, {}};
  } catch (const zt::IndexError& e) {  // before ValueError, its base
    return {Kind::index_error, e.what()};
  } catch (const zt::ValueError& e) {
    return {Kind::value_error, e.what()};
  } catch (const zt::TypeError& e) {
    return {Kind::type_error, e.what()};
  } catch (const std::exception& e) {
    return {Kind::other, e.what()};
  }
}

/// PyTorch 2.x's unflatten rethrows its dimension check's IndexError as a RuntimeError
/// ("unflatten got an unexpected error:" and the IndexError's text); 1.13 raised the
/// IndexError itself, as zerotensor does.
bool wrapped_index_error(std::string_view what) {
  return what.find("got an unexpected error:\nDimension specified as") != std::string_view::npos;
}

template <class F>
std::pair<Kind, std::string> run_torch(F&& f) {
  try {
    f();
    return {Kind::ok, {}};
  } catch (const c10::IndexError& e) {
    return {Kind::index_error, e.what_without_backtrace()};
  } catch (const c10::TypeError& e) {
    return {Kind::type_error, e.what_without_backtrace()};
  } catch (const c10::Error& e) {
    return {wrapped_index_error(e.what_without_backtrace()) ? Kind::index_error : Kind::value_error,
            e.what_without_backtrace()};
  } catch (const std::runtime_error& e) {  // at::infer_size's, a RuntimeError in Python too
    return {Kind::value_error, e.what()};
  } catch (const std::exception& e) {
    return {Kind::other, e.what()};
  }
}

/// Both sides of one chain: the current tensors and the addresses their offsets count from
/// (the shared buffer, or the start of a copy once one side has copied).
struct Pair {
  zt::AnyTensor z;
  at::Tensor t;
  const char* z_base;
  const char* t_base;
};

struct Failure {
  std::string what;
};

std::int64_t offset_of(const void* data, const char* base) { return static_cast<const char*>(data) - base; }

/// libtorch's first-element address; its data_ptr() is null for a tensor with no elements.
const char* first_element(const at::Tensor& t) {
  return static_cast<const char*>(t.storage().data()) + t.storage_offset() * std::int64_t(t.itemsize());
}

/// Whether libtorch gave a result with a negative extent (a rank-0 tensor expanded to -1).
bool has_negative_extent(const at::Tensor& t) {
  return std::any_of(t.sizes().begin(), t.sizes().end(), [](std::int64_t s) { return s < 0; });
}
bool has_negative_extent(const std::vector<at::Tensor>&) { return false; }

struct Tally {
  std::uint64_t cases = 0, calls = 0, both_ok = 0, both_refused = 0, copies = 0, skipped = 0;
};
Tally tally;

/// The first and last element offsets a layout reaches (in elements, from its first
/// element); empty for no elements.
std::optional<std::pair<std::int64_t, std::int64_t>> reach(const Shape& shape, const Shape& strides) {
  std::int64_t low = 0, high = 0;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0) return std::nullopt;
    (strides[i] < 0 ? low : high) += (shape[i] - 1) * strides[i];
  }
  return std::pair{low, high};
}

/// One chain of one case: draws operations and their arguments, applies each to both sides.
class Chain {
 public:
  Chain(std::mt19937_64& rng, Pair start, zt::KeepAlive owner, bool writable)
      : rng_(rng), p_(std::move(start)), owner_(std::move(owner)), writable_(writable) {}

  /// One random operation; false when the chain cannot go on (a copy with no elements).
  bool step() {
    ++tally.calls;
    const int rank = int(p_.z.rank());
    switch (pick(0, 33)) {
      case 0: {
        const auto d = dim(rank), start = index(d, rank), length = pick(-1, extent(d, rank) + 1);
        return apply(describe("narrow", d, start, length), [&](const auto& x) {
          if constexpr (std::is_same_v<std::decay_t<decltype(x)>, at::Tensor>)
            return narrow_checks(x, d, start, length);
          else
            return x.narrow(d, start, length);
        });
      }
      case 1: {
        const auto d = dim(rank), i = index(d, rank);
        return apply(describe("select", d, i), [&](const auto& x) { return x.select(d, i); });
      }
      case 2: {
        const auto d = dim(rank);
        const std::optional<std::int64_t> start = maybe_index(d, rank), end = maybe_index(d, rank);
        const std::int64_t step = chance(10) ? pick(-1, 0) : pick(1, 3);
        return apply("slice(" + std::to_string(d) + ", " + opt(start) + ", " + opt(end) + ", " + std::to_string(step) + ")",
                     [&](const auto& x) {
                       if constexpr (std::is_same_v<std::decay_t<decltype(x)>, at::Tensor>)
                         return x.slice(d, c10_opt(start), c10_opt(end), step);
                       else
                         return x.slice(d, start, end, step);
                     });
      }
      case 3: {
        const auto i = index(0, rank);
        return apply(describe("operator[]", i), [&](const auto& x) {
          if constexpr (std::is_same_v<std::decay_t<decltype(x)>, at::Tensor>)
            return x.select(0, i);  // at::Tensor::operator[] wraps differently on 0-dim tensors
          else
            return x[i];
        });
      }
      case 4: {
        const auto a = dim(rank), b = dim(rank);
        return apply(describe("transpose", a, b), [&](const auto& x) { return x.transpose(a, b); });
      }
      case 5: {
        const auto a = dim(rank), b = dim(rank);
        return apply(describe("swapaxes", a, b), [&](const auto& x) { return x.swapaxes(a, b); });
      }
      case 6: {
        const auto a = dim(rank), b = dim(rank);
        return apply(describe("swapdims", a, b), [&](const auto& x) { return x.swapdims(a, b); });
      }
      case 7: {
        const Shape dims = dim_list(rank, true);
        return apply("permute(" + list(dims) + ")", [&](const auto& x) { return x.permute(dims); });
      }
      case 8: {
        const auto s = dim(rank), d = dim(rank);
        return apply(describe("movedim", s, d), [&](const auto& x) { return x.movedim(s, d); });
      }
      case 9: {
        const Shape s = dim_list(rank, false), d = chance(80) ? dim_list_of_length(rank, s.size()) : dim_list(rank, false);
        return apply("movedim(" + list(s) + ", " + list(d) + ")", [&](const auto& x) { return x.movedim(s, d); });
      }
      case 10: return apply("t()", [&](const auto& x) { return x.t(); });
      case 11:
        // A 0-dim tensor's mT, mH and adjoint() are the tensor itself (deprecated in PyTorch 2).
        return apply("mT()", [&](const auto& x) { return x.mT(); });
      case 12:
        // zerotensor has no lazy conjugation: for complex dtypes it refuses what PyTorch
        // does with a conjugate view (the documented difference), so only real dtypes compare.
        if (zt::is_complex(p_.z.dtype())) return skip();
        return chance(50) ? apply("adjoint()", [&](const auto& x) { return x.adjoint(); })
                          : apply("mH()", [&](const auto& x) { return x.mH(); });
      case 13: return apply("squeeze()", [&](const auto& x) { return x.squeeze(); });
      case 14: {
        const auto d = dim(rank);
        return apply(describe("squeeze", d), [&](const auto& x) { return x.squeeze(d); });
      }
      case 15: {
        const Shape dims = dim_list(rank, false);
        return apply("squeeze(" + list(dims) + ")", [&](const auto& x) {
          if constexpr (std::is_same_v<std::decay_t<decltype(x)>, at::Tensor>)
            return squeeze_dims(x, dims);
          else
            return x.squeeze(dims);
        });
      }
      case 16: {
        const auto d = pick(-rank - 2, rank + 1);
        return apply(describe("unsqueeze", d), [&](const auto& x) { return x.unsqueeze(d); });
      }
      case 17: {
        const Shape sizes = expand_sizes();
        return apply("expand(" + list(sizes) + ")", [&](const auto& x) { return x.expand(sizes); });
      }
      case 18: {
        const Shape sizes = expand_sizes();
        return apply("broadcast_to(" + list(sizes) + ")", [&](const auto& x) { return x.broadcast_to(sizes); });
      }
      case 19: {
        Shape sizes = expand_sizes();
        for (auto& s : sizes) s = std::max<std::int64_t>(s, 0);
        return apply("expand_as(<" + list(sizes) + ">)",
                     [&](const auto& x) { return x.expand_as(other_like(x, sizes)); });
      }
      case 20: {
        const Shape sizes = sizes_of_numel(p_.z.numel(), true);
        return apply("view(" + list(sizes) + ")", [&](const auto& x) { return x.view(sizes); });
      }
      case 21: {
        const Shape sizes = sizes_of_numel(p_.z.numel(), true);
        return apply("reshape(" + list(sizes) + ")", [&](const auto& x) { return x.reshape(sizes); });
      }
      case 22: {
        const auto s = dim(rank), e = dim(rank);
        return apply(describe("flatten", s, e), [&](const auto& x) { return x.flatten(s, e); });
      }
      case 23: {
        const auto d = dim(rank);
        const Shape sizes = sizes_of_numel(extent(d, rank), true);
        return apply("unflatten(" + std::to_string(d) + ", " + list(sizes) + ")",
                     [&](const auto& x) { return x.unflatten(d, sizes); });
      }
      case 24: {
        Shape sizes = sizes_of_numel(p_.z.numel(), false);
        for (auto& s : sizes) s = std::max<std::int64_t>(s, 0);
        return apply("view_as(<" + list(sizes) + ">)", [&](const auto& x) { return x.view_as(other_like(x, sizes)); });
      }
      case 25: {
        const auto a = dim(rank), b = dim(rank), offset = pick(-4, 4);
        return apply(describe("diagonal", offset, a, b), [&](const auto& x) { return x.diagonal(offset, a, b); });
      }
      case 26: {
        const auto d = dim(rank), size = pick(-1, extent(d, rank) + 1), step = pick(-1, 3);
        return apply(describe("unfold", d, size, step), [&](const auto& x) {
          if constexpr (std::is_same_v<std::decay_t<decltype(x)>, at::Tensor>)
            return unfold_checks(x, d, size, step);
          else
            return x.unfold(d, size, step);
        });
      }
      case 27: return as_strided();
      case 28: {
        const auto d = dim(rank), chunks = pick(-1, 5);
        return apply(describe("chunk", chunks, d), [&](const auto& x) { return x.chunk(chunks, d); });
      }
      case 29: {
        const auto d = dim(rank);
        if (chance(50)) {
          const auto size = pick(-1, 4);
          return apply(describe("split", size, d), [&](const auto& x) { return x.split(size, d); });
        }
        const Shape sizes = split_sizes(extent(d, rank));
        return apply("split(" + list(sizes) + ", " + std::to_string(d) + ")", [&](const auto& x) {
          if constexpr (std::is_same_v<std::decay_t<decltype(x)>, at::Tensor>)
            return x.split_with_sizes(sizes, d);
          else
            return x.split(std::span<const std::int64_t>(sizes), d);
        });
      }
      case 30: {
        const auto d = dim(rank);
        if (chance(50)) {
          const auto sections = pick(-1, 5);
          return apply(describe("tensor_split", sections, d), [&](const auto& x) { return x.tensor_split(sections, d); });
        }
        Shape indices(std::size_t(pick(0, 3)));
        for (auto& i : indices) i = pick(-extent(d, rank) - 1, extent(d, rank) + 1);
        return apply("tensor_split(" + list(indices) + ", " + std::to_string(d) + ")", [&](const auto& x) {
          if constexpr (std::is_same_v<std::decay_t<decltype(x)>, at::Tensor>)
            return x.tensor_split(at::IntArrayRef(indices), d);
          else
            return x.tensor_split(std::span<const std::int64_t>(indices), d);
        });
      }
      case 31: {
        const auto d = dim(rank);
        return apply(describe("unbind", d), [&](const auto& x) { return x.unbind(d); });
      }
      case 32: return view_dtype();
      default: return contiguous();
    }
  }

  [[nodiscard]] const std::string& history() const { return history_; }

 private:
  std::int64_t pick(std::int64_t low, std::int64_t high) {
    return std::uniform_int_distribution<std::int64_t>(low, high)(rng_);
  }
  bool chance(int percent) { return pick(0, 99) < percent; }

  /// A dim: in range mostly, one past either end sometimes.
  std::int64_t dim(int rank) {
    const int r = std::max(rank, 1);
    return chance(90) ? pick(-r, r - 1) : (chance(50) ? r : -r - 1);
  }
  std::int64_t extent(std::int64_t d, int rank) const {
    if (rank == 0) return 1;
    const std::int64_t w = d < 0 ? d + rank : d;
    return w >= 0 && w < rank ? p_.z.size(std::size_t(w)) : 1;
  }
  std::int64_t index(std::int64_t d, int rank) {
    const std::int64_t n = extent(d, rank);
    return chance(85) ? pick(-n, std::max<std::int64_t>(n - 1, -n)) : pick(-n - 2, n + 2);
  }
  std::optional<std::int64_t> maybe_index(std::int64_t d, int rank) {
    if (chance(25)) return std::nullopt;
    const std::int64_t n = extent(d, rank);
    return pick(-n - 2, n + 2);
  }
  /// A permutation of `rank` dims (wrapped at random), else a list that is not one.
  Shape dim_list(int rank, bool whole) {
    Shape dims(static_cast<std::size_t>(rank));
    std::iota(dims.begin(), dims.end(), 0);
    std::shuffle(dims.begin(), dims.end(), rng_);
    if (!whole) dims.resize(std::size_t(pick(0, rank)));
    for (auto& d : dims)
      if (chance(30)) d -= rank;
    if (chance(12)) {
      if (dims.empty() || chance(50))
        dims.push_back(dim(rank));
      else
        dims[std::size_t(pick(0, std::int64_t(dims.size()) - 1))] = dim(rank);
    }
    return dims;
  }
  Shape dim_list_of_length(int rank, std::size_t length) {
    Shape dims = dim_list(rank, true);
    dims.resize(std::min(dims.size(), length));
    return dims;
  }
  /// Sizes for expand: new leading dims, -1, the same size, a size-1 dim grown; sometimes wrong.
  Shape expand_sizes() {
    Shape sizes;
    for (std::int64_t i = pick(0, chance(80) ? 0 : 2); i > 0; --i) sizes.push_back(chance(10) ? -1 : pick(0, 3));
    for (const auto s : vec(p_.z.shape())) {
      if (chance(30))
        sizes.push_back(-1);
      else if (s == 1)
        sizes.push_back(pick(0, 4));
      else
        sizes.push_back(chance(90) ? s : pick(-2, 5));
    }
    return sizes;
  }
  /// A shape with `numel` elements (one -1 at times), sometimes one that has not.
  Shape sizes_of_numel(std::int64_t numel, bool allow_infer) {
    Shape sizes;
    std::int64_t left = numel;
    const std::int64_t rank = pick(0, 4);
    for (std::int64_t i = 0; i + 1 < rank; ++i) {
      std::int64_t s = 1;
      if (left == 0) {
        s = pick(0, 3);
      } else {
        for (std::int64_t tries = 0; tries < 4; ++tries) {
          const std::int64_t c = pick(1, std::min<std::int64_t>(left, 6));
          if (left % c == 0) {
            s = c;
            break;
          }
        }
      }
      if (left != 0) left /= s;
      sizes.push_back(s);
    }
    if (rank > 0) sizes.push_back(left);
    if (rank > 0 && allow_infer && chance(30)) sizes[std::size_t(pick(0, rank - 1))] = -1;
    if (allow_infer && chance(5) && !sizes.empty()) sizes.push_back(-1);
    if (chance(10)) {
      if (sizes.empty())
        sizes.push_back(pick(0, 3));
      else
        sizes[std::size_t(pick(0, std::int64_t(sizes.size()) - 1))] += pick(-1, 1);
    }
    return sizes;
  }
  Shape split_sizes(std::int64_t n) {
    Shape sizes;
    for (std::int64_t left = n; left > 0;) {
      const std::int64_t s = pick(0, left);
      sizes.push_back(s);
      left -= s;
    }
    if (chance(15)) sizes.push_back(pick(-1, 2));
    return sizes;
  }

  static std::string opt(std::optional<std::int64_t> v) { return v ? std::to_string(*v) : "{}"; }
  static c10::optional<std::int64_t> c10_opt(std::optional<std::int64_t> v) {
    return v ? c10::optional<std::int64_t>(*v) : c10::nullopt;
  }
  template <class... Args>
  static std::string describe(const char* op, Args... args) {
    std::string s = std::string(op) + "(";
    std::size_t i = 0;
    ((s += (i++ != 0 ? ", " : "") + std::to_string(args)), ...);
    return s + ")";
  }

  /// Current PyTorch's squeeze(dims) (libtorch 1.13 has only one dim): dims wrapped, no dim
  /// twice, each listed dim of size 1 removed.
  static at::Tensor squeeze_dims(const at::Tensor& x, const Shape& dims) {
    Shape wrapped;
    for (const auto d : dims) wrapped.push_back(c10::maybe_wrap_dim(d, x.dim()));
    Shape sorted = wrapped;
    std::sort(sorted.begin(), sorted.end(), std::greater<>());
    for (std::size_t i = 1; i < sorted.size(); ++i)
      TORCH_CHECK(sorted[i] != sorted[i - 1], "dim ", sorted[i], " appears multiple times in the list of dims");
    at::Tensor result = x;
    for (const auto d : sorted)
      if (x.dim() > 0) result = result.squeeze(d);
    return result;
  }

  /// Current PyTorch's narrow checks, in its order (0-dim, length, dim, start range, end);
  /// 1.13 wraps `start` as if it were a dim and checks the length later.
  static at::Tensor narrow_checks(const at::Tensor& x, std::int64_t dim, std::int64_t start, std::int64_t length) {
    TORCH_CHECK(x.dim() > 0, "narrow() cannot be applied to a 0-dim tensor.");
    TORCH_CHECK(length >= 0, "narrow(): length must be non-negative.");
    const std::int64_t size = x.size(c10::maybe_wrap_dim(dim, x.dim()));
    TORCH_CHECK_INDEX(-size <= start && start <= size, "start out of range (expected to be in range of [", -size, ", ",
                      size, "], but got ", start, ")");
    return x.narrow(dim, start, length);
  }

  /// Current PyTorch's unfold refuses a negative size (1.13 makes a view of it).
  static at::Tensor unfold_checks(const at::Tensor& x, std::int64_t dim, std::int64_t size, std::int64_t step) {
    (void)c10::maybe_wrap_dim(dim, x.dim());
    TORCH_CHECK(size >= 0, "size is ", size, " but must be >= 0");
    return x.unfold(dim, size, step);
  }

  /// A tensor of `sizes` on the same side as `x`, for expand_as and view_as.
  static zt::AnyTensor other_like(const zt::AnyTensor& x, const Shape& sizes) {
    const Shape strides(sizes.size(), 0);
    return zt::AnyTensor(static_cast<const std::uint8_t*>(x.data_ptr()), sizes, strides);
  }
  static at::Tensor other_like(const at::Tensor& x, const Shape& sizes) {
    return at::empty(sizes, x.options());
  }

  bool skip() {
    ++tally.skipped;
    return true;
  }

  /// as_strided: zerotensor counts storage_offset from the tensor's first element and keeps
  /// the result inside the memory the tensor reaches (the documented difference), so
  /// libtorch gets the offset counted from its storage start, and a refusal by zerotensor
  /// alone is right exactly when the result leaves that reach.
  bool as_strided() {
    Shape size(std::size_t(pick(0, 3))), stride(size.size());
    for (auto& s : size) s = chance(95) ? pick(0, 4) : -1;
    for (auto& s : stride) s = chance(95) ? pick(0, 5) : -1;
    const std::int64_t offset = chance(30) ? 0 : pick(-2, 6);
    const std::string what = "as_strided(" + list(size) + ", " + list(stride) + ", " + std::to_string(offset) + ")";
    history_ += " ." + what;
    std::optional<zt::AnyTensor> z;
    const auto [zk, zm] = run_zt([&] { z = p_.z.as_strided(size, stride, offset); });
    std::optional<at::Tensor> t;
    const auto [tk, tm] = run_torch([&] {
      t = p_.t.as_strided(size, stride, c10::optional<std::int64_t>(p_.t.storage_offset() + offset));
    });
    const auto result = reach(size, stride);
    const auto source = reach(vec(p_.z.shape()), vec(p_.z.strides()));
    const bool bad_arguments = std::any_of(size.begin(), size.end(), [](auto s) { return s < 0; }) ||
                               std::any_of(stride.begin(), stride.end(), [](auto s) { return s < 0; });
    const bool inside = result && source && offset + result->first >= source->first && offset + result->second <= source->second;
    if (zk == Kind::ok && tk == Kind::ok) return compare_views(*z, *t, false);
    if (zk != Kind::ok && (tk != Kind::ok || (!bad_arguments && result && !inside))) {
      if (zk != Kind::value_error) fail("as_strided refused with " + std::string(name(zk)) + ": " + zm);
      ++tally.both_refused;
      return true;
    }
    if (!result) return skip();  // no elements: whether an empty result lies inside is not a layout question
    fail(std::string("as_strided: zerotensor ") + (zk == Kind::ok ? "accepted" : "refused (" + zm + ")") +
         ", libtorch " + (tk == Kind::ok ? "accepted" : "refused (" + tm + ")") + ", result " +
         (inside ? "inside" : "outside") + " the tensor's reach");
    return false;
  }

  bool view_dtype() {
    const DTypePair& to = dtypes[std::size_t(pick(0, std::size(dtypes) - 1))];
    const int which = int(pick(0, 2));
    // zerotensor refuses a start address not aligned for the new element type (docs/conventions.md,
    // the differences: a misaligned T* is undefined behaviour in C++); PyTorch does not check.
    const std::size_t alignment = zt::itemsize(to.zt) / (zt::is_complex(to.zt) ? 2 : 1);
    if (which == 0 && reinterpret_cast<std::uintptr_t>(p_.z.data_ptr()) % alignment != 0) return skip();
    if (which == 0)
      return apply("view(" + std::string(c10::toString(to.torch)) + ")", [&](const auto& x) {
        if constexpr (std::is_same_v<std::decay_t<decltype(x)>, at::Tensor>)
          return x.view(to.torch);
        else
          return x.view(to.zt);
      });
    // libtorch turns half into complex32, a dtype zerotensor lacks.
    if (which == 2 && p_.z.dtype() == zt::float16) return skip();
    if (which == 1)
      return apply("view_as_real()", [&](const auto& x) {
        if constexpr (std::is_same_v<std::decay_t<decltype(x)>, at::Tensor>)
          return at::view_as_real(x);
        else
          return x.view_as_real();
      });
    return apply("view_as_complex()", [&](const auto& x) {
      if constexpr (std::is_same_v<std::decay_t<decltype(x)>, at::Tensor>)
        return at::view_as_complex(x);
      else
        return x.view_as_complex();
    });
  }

  bool contiguous() {
    return apply("contiguous()", [&](const auto& x) { return x.contiguous(); });
  }

  [[noreturn]] void fail(const std::string& what) {
    throw Failure{"seed " + std::to_string(seed) + ", " + what + "\n  chain:" + history_};
  }

  /// Runs `op` on both sides and compares; on success the chain goes on with the result (a
  /// random one of a list).
  template <class Op>
  bool apply(const std::string& what, Op op) {
    history_ += " ." + what;
    using ZResult = decltype(op(p_.z));
    std::optional<ZResult> z;
    std::optional<decltype(op(p_.t))> t;
    const auto [zk, zm] = run_zt([&] { z = op(p_.z); });
    const auto [tk, tm] = run_torch([&] { t = op(p_.t); });
    // A dtype the operation does not take is a TypeError in zerotensor (docs/design.md,
    // "Errors") where PyTorch raises RuntimeError.
    const bool dtype_refusal = zk == Kind::type_error && tk == Kind::value_error && what.rfind("view", 0) == 0;
    // A rank-0 tensor expands to any sizes in PyTorch (inferExpandGeometry takes them as
    // given), a -1 or a negative size included; a negative extent is no shape in zerotensor.
    const bool negative_extent = zk == Kind::value_error && tk == Kind::ok && p_.z.rank() == 0 &&
                                 has_negative_extent(*t);
    if (negative_extent) return skip();
    if (zk != tk && !dtype_refusal) {
      fail(std::string("zerotensor: ") + name(zk) + " " + zm + "; libtorch: " + name(tk) + " " + tm);
    }
    if (zk != Kind::ok) {
      ++tally.both_refused;
      return true;
    }
    ++tally.both_ok;
    // PyTorch's flatten is a reshape: it copies where a view cannot be had.
    const bool may_copy = what.rfind("reshape", 0) == 0 || what.rfind("flatten", 0) == 0 || what == "contiguous()";
    if constexpr (std::is_same_v<ZResult, zt::AnyTensor>) {
      return compare_views(*z, *t, may_copy);
    } else {
      if (z->size() != t->size())
        fail("zerotensor gave " + std::to_string(z->size()) + " views, libtorch " + std::to_string(t->size()));
      if (z->empty()) return true;
      const Pair before = p_;
      for (std::size_t i = 0; i < z->size(); ++i) {
        p_ = before;
        compare_views((*z)[i], (*t)[i], false);
      }
      const auto i = std::size_t(pick(0, std::int64_t(z->size()) - 1));
      p_ = before;
      return compare_views((*z)[i], (*t)[i], false);
    }
  }

  /// Compares the results, then makes them the current pair.
  bool compare_views(const zt::AnyTensor& z, const at::Tensor& t, bool may_copy) {
    if (z.dtype() == zt::uint16 || torch_dtype(z.dtype()) != t.scalar_type())
      fail("dtype differs: libtorch " + std::string(c10::toString(t.scalar_type())));
    if (vec(z.shape()) != vec(t.sizes()))
      fail("shape " + list(vec(z.shape())) + ", libtorch " + list(vec(t.sizes())));
    if (vec(z.strides()) != vec(t.strides())) {
      fail("strides " + list(vec(z.strides())) + " (shape " + list(vec(z.shape())) + "), libtorch " +
           list(vec(t.strides())));
    }
    const bool z_copied = z.owner().owner_before(owner_) || owner_.owner_before(z.owner());
    const bool t_copied = !t.is_alias_of(p_.t);
    if (!may_copy && (z_copied || t_copied))
      fail(std::string("a view copied: zerotensor ") + (z_copied ? "copied" : "viewed") + ", libtorch " +
           (t_copied ? "copied" : "viewed"));
    if (z_copied != t_copied)
      fail(std::string("zerotensor ") + (z_copied ? "copied" : "viewed") + ", libtorch " + (t_copied ? "copied" : "viewed"));
    if (z_copied) {
      ++tally.copies;
      if (!z.is_contiguous()) fail("the copy is not contiguous");
      if (std::memcmp(z.data_ptr(), t.data_ptr(), z.nbytes()) != 0) fail("the copies' values differ");
      p_ = {z, t, static_cast<const char*>(z.data_ptr()), first_element(t)};
      owner_ = z.owner();
      writable_ = z.is_writable();
      return z.numel() != 0;  // an empty copy's address means nothing: the chain ends
    }
    if (offset_of(z.data_ptr(), p_.z_base) != offset_of(first_element(t), p_.t_base))
      fail("first element at byte " + std::to_string(offset_of(z.data_ptr(), p_.z_base)) + ", libtorch " +
           std::to_string(offset_of(first_element(t), p_.t_base)));
    if (z.is_writable() != writable_) fail("writability changed");
    if (z.device() != zt::cpu) fail("device changed");
    p_.z = z;
    p_.t = t;
    return true;
  }

  std::mt19937_64& rng_;
  Pair p_;
  zt::KeepAlive owner_;
  bool writable_;
  std::string history_;
};

/// A random base layout over the shared buffer: permuted, stepped, offset, with zero-size
/// and size-1 dims (whose strides are anything) and now and then a broadcast (stride-0) dim.
struct Base {
  zt::DType dtype;
  Shape shape, strides;
  std::int64_t offset;
  bool writable;
};

Base random_base(std::mt19937_64& rng) {
  auto pick = [&](std::int64_t low, std::int64_t high) { return std::uniform_int_distribution<std::int64_t>(low, high)(rng); };
  Base b;
  b.dtype = dtypes[std::size_t(pick(0, std::size(dtypes) - 1))].zt;
  const auto rank = std::size_t(pick(0, 4));
  b.shape.resize(rank);
  b.strides.resize(rank);
  std::int64_t stride = pick(1, 2);
  for (std::size_t i = rank; i-- > 0;) {
    const std::int64_t r = pick(0, 99);
    b.shape[i] = r < 6 ? 0 : r < 30 ? 1 : pick(2, 5);
    const std::int64_t step = pick(0, 3) == 0 ? pick(2, 3) : 1;
    b.strides[i] = stride * step;
    stride *= std::max<std::int64_t>(b.shape[i], 1) * step;
    if (b.shape[i] == 1 && pick(0, 2) == 0) b.strides[i] = pick(0, 20);
    if (pick(0, 19) == 0) b.strides[i] = 0;
  }
  std::vector<std::size_t> order(rank);
  std::iota(order.begin(), order.end(), 0);
  if (pick(0, 1) == 0) std::shuffle(order.begin(), order.end(), rng);
  Shape shape(rank), strides(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    shape[i] = b.shape[order[i]];
    strides[i] = b.strides[order[i]];
  }
  b.shape = shape;
  b.strides = strides;
  b.offset = pick(0, 1) == 0 ? 0 : pick(1, 7);
  b.writable = pick(0, 3) != 0;
  return b;
}

zt::AnyTensor zt_view(const Base& b, zt::KeepAlive owner) {
  char* data = memory().data() + b.offset * std::int64_t(zt::itemsize(b.dtype));
  return zt::dispatch(b.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return zt::AnyTensor(reinterpret_cast<T*>(data), b.shape, b.strides, std::move(owner), zt::cpu, b.writable);
  });
}

at::Tensor torch_view(const Base& b) {
  char* data = memory().data() + b.offset * std::int64_t(zt::itemsize(b.dtype));
  return at::from_blob(data, b.shape, b.strides, at::TensorOptions().dtype(torch_dtype(b.dtype)));
}

std::string describe(const Base& b) {
  return std::string(zt::name(b.dtype)) + " shape " + list(b.shape) + " strides " + list(b.strides) + " offset " +
         std::to_string(b.offset) + (b.writable ? "" : " read-only");
}


/// The typed part: the same operations through Tensor<T, R> with static ranks (and the
/// dynamic rank where the result's rank is a run-time fact) must give what the AnyTensor
/// gives: the same refusal kind, or the same layout, address and owner.
class TypedChain {
 public:
  explicit TypedChain(std::mt19937_64& rng) : rng_(rng) {}

  template <class T, std::size_t R>
  void run(const zt::Tensor<T, R>& t, const zt::AnyTensor& a, int steps) {
    if (steps == 0) return;
    const int rank = int(a.rank());
    const auto d = dim(rank), d2 = dim(rank);
    const auto n = rank == 0 ? 1 : a.size(std::size_t(d < 0 ? d + rank : std::min<std::int64_t>(d, rank - 1)));
    const auto i = pick(-n, n), j = pick(-1, n + 1);
    switch (pick(0, 19)) {
      case 0: return next(describe("narrow", d, i, j), t, a, [&](const auto& x) { return x.narrow(d, i, j); }, steps);
      case 1: {
        const auto step = pick(0, 2);
        return next(describe("slice", d, i, j, step), t, a, [&](const auto& x) { return x.slice(d, i, j, step); }, steps);
      }
      case 2:
        if constexpr (R == zt::dynamic || R > 0)
          return next(describe("select", d, i), t, a, [&](const auto& x) { return x.select(d, i); }, steps);
        break;
      case 3:
        if constexpr (R == zt::dynamic || R > 0)
          return next(describe("operator[]", i), t, a, [&](const auto& x) { return x[i]; }, steps);
        break;
      case 4: return next(describe("transpose", d, d2), t, a, [&](const auto& x) { return x.transpose(d, d2); }, steps);
      case 5: {
        Shape dims(static_cast<std::size_t>(rank));
        std::iota(dims.begin(), dims.end(), 0);
        std::shuffle(dims.begin(), dims.end(), rng_);
        return next("permute(" + list(dims) + ")", t, a, [&](const auto& x) { return x.permute(dims); }, steps);
      }
      case 6: return next(describe("movedim", d, d2), t, a, [&](const auto& x) { return x.movedim(d, d2); }, steps);
      case 7:
        if constexpr (R == zt::dynamic || R <= 2) return next("t()", t, a, [&](const auto& x) { return x.t(); }, steps);
        break;
      case 8:
        if constexpr (R != 1) return next("mT()", t, a, [&](const auto& x) { return x.mT(); }, steps);
        break;
      case 9:
        if constexpr (R == zt::dynamic || R < 4)
          return next(describe("unsqueeze", d), t, a, [&](const auto& x) { return x.unsqueeze(d); }, steps);
        break;
      case 10: return next(describe("squeeze", d), t, a, [&](const auto& x) { return x.squeeze(d); }, steps);
      case 11: {
        Shape sizes = vec(a.shape());
        for (auto& s : sizes) s = s == 1 ? pick(1, 3) : -1;
        return next("expand(" + list(sizes) + ")", t, a, [&](const auto& x) { return x.expand(sizes); }, steps);
      }
      case 12: {
        const Shape sizes = {-1, pick(1, 3)};
        if (pick(0, 1) == 0)
          return next("view<2>(" + list(sizes) + ")", t, a, [&](const auto& x) {
            if constexpr (std::is_same_v<std::decay_t<decltype(x)>, zt::AnyTensor>)
              return x.view(sizes);
            else
              return x.template view<2>(sizes);
          }, steps);
        return next("reshape(" + list(sizes) + ")", t, a, [&](const auto& x) { return x.reshape(sizes); }, steps);
      }
      case 13: return next(describe("flatten", d, d2), t, a, [&](const auto& x) { return x.flatten(d, d2); }, steps);
      case 14:
        if constexpr (R == zt::dynamic || R >= 2)
          return next(describe("diagonal", j - 1, d, d2), t, a, [&](const auto& x) { return x.diagonal(j - 1, d, d2); }, steps);
        break;
      case 15:
        if constexpr (R == zt::dynamic || R < 4) {
          const auto step = pick(0, 2);
          return next(describe("unfold", d, j, step), t, a, [&](const auto& x) { return x.unfold(d, j, step); }, steps);
        }
        break;
      case 16: {
        const auto parts = pick(1, 3);
        return next(describe("chunk", parts, d), t, a, [&](const auto& x) { return x.chunk(parts, d); }, steps);
      }
      case 17:
        if constexpr (R == zt::dynamic || R > 0)
          return next(describe("unbind", d), t, a, [&](const auto& x) { return x.unbind(d); }, steps);
        break;
      case 18:
        return next("view<int32>()", t, a, [&](const auto& x) {
          if constexpr (std::is_same_v<std::decay_t<decltype(x)>, zt::AnyTensor>)
            return x.view(zt::int32);
          else
            return x.template view<std::conditional_t<std::is_const_v<T>, const std::int32_t, std::int32_t>>();
        }, steps);
      default: return next("contiguous()", t, a, [&](const auto& x) { return x.contiguous(); }, steps);
    }
    run(t, a, steps);  // an operation this static rank does not have: draw again
  }

  std::string history;

 private:
  std::int64_t pick(std::int64_t low, std::int64_t high) {
    return std::uniform_int_distribution<std::int64_t>(low, high)(rng_);
  }
  std::int64_t dim(int rank) {
    const int r = std::max(rank, 1);
    return pick(0, 9) != 0 ? pick(-r, r - 1) : r;
  }
  template <class... Args>
  static std::string describe(const char* op, Args... args) {
    std::string s = std::string(op) + "(";
    std::size_t k = 0;
    ((s += (k++ != 0 ? ", " : "") + std::to_string(args)), ...);
    return s + ")";
  }

  /// Compares a typed result with the AnyTensor's; true when both copied.
  template <class U, std::size_t Rank, class Source>
  bool check(const zt::Tensor<U, Rank>& t, const zt::AnyTensor& a, const Source& t_source,
             const zt::AnyTensor& source) {
    if (t.rank() != a.rank() || vec(t) != vec(a.shape()) ||
        Shape(t.strides().begin(), t.strides().end()) != vec(a.strides()))
      throw Failure{"typed layout " + list(vec(t)) + " strides " + list(Shape(t.strides().begin(), t.strides().end())) +
                    ", AnyTensor " + list(vec(a.shape())) + " strides " + list(vec(a.strides()))};
    if (zt::dtype_of<U> != a.dtype()) throw Failure{"typed dtype differs"};
    const auto differ = [](const zt::KeepAlive& x, const zt::KeepAlive& y) { return x.owner_before(y) || y.owner_before(x); };
    const bool copied = differ(a.owner(), source.owner());
    if (copied != differ(t.owner(), t_source.owner())) throw Failure{"one of typed and AnyTensor copied"};
    if (!copied && offset_of(t.data(), t_base_) != offset_of(a.data_ptr(), a_base_))
      throw Failure{"typed address differs"};
    if (copied && std::memcmp(t.data(), a.data_ptr(), a.nbytes()) != 0) throw Failure{"typed copy's values differ"};
    // A copy of a Tensor<const T> stays const, while an AnyTensor's copy is writable.
    if (!copied_ && !copied && std::is_const_v<U> == a.is_writable())
      throw Failure{"typed constness differs from writability"};
    return copied;
  }

  template <class T, std::size_t R, class Op>
  void next(const std::string& what, const zt::Tensor<T, R>& t, const zt::AnyTensor& a, Op op, int steps) {
    history += " ." + what;
    std::optional<decltype(op(t))> typed;
    std::optional<decltype(op(a))> any;
    const auto [tk, tm] = run_zt([&] { typed = op(t); });
    const auto [ak, am] = run_zt([&] { any = op(a); });
    if (tk != ak || tm != am)
      throw Failure{std::string("typed: ") + name(tk) + " " + tm + "; AnyTensor: " + name(ak) + " " + am};
    if (tk != Kind::ok) return run(t, a, steps - 1);
    if constexpr (std::is_same_v<decltype(op(a)), zt::AnyTensor>) {
      if (check(*typed, *any, t, a)) {
        if (any->numel() == 0) return;  // an empty copy's address means nothing: the chain ends
        copied_ = true;
        t_base_ = reinterpret_cast<const char*>(typed->data());
        a_base_ = static_cast<const char*>(any->data_ptr());
      }
      run(*typed, *any, steps - 1);
    } else {
      if (typed->size() != any->size()) throw Failure{"typed and AnyTensor lists differ in length"};
      for (std::size_t k = 0; k < any->size(); ++k)
        if (check((*typed)[k], (*any)[k], t, a)) throw Failure{"a list of views copied"};
      if (!any->empty()) {
        const auto k = std::size_t(pick(0, std::int64_t(any->size()) - 1));
        run((*typed)[k], (*any)[k], steps - 1);
      }
    }
  }

  std::mt19937_64& rng_;
  // The addresses offsets count from: the buffer, or each side's copy once they copied.
  const char* t_base_ = memory().data();
  const char* a_base_ = memory().data();
  bool copied_ = false;
};

template <class T, std::size_t R>
void typed_case(TypedChain& chain, const Base& b, const zt::KeepAlive& owner, int steps) {
  const zt::AnyTensor a = zt_view(b, owner);
  auto* data = reinterpret_cast<T*>(memory().data() + b.offset * std::int64_t(sizeof(float)));
  zt::Extents<R> shape{}, strides{};
  std::copy(b.shape.begin(), b.shape.end(), shape.begin());
  std::copy(b.strides.begin(), b.strides.end(), strides.begin());
  chain.run(zt::Tensor<T, R>(data, shape, strides, owner), a, steps);
}

template <class T>
void typed_case(TypedChain& chain, const Base& b, const zt::KeepAlive& owner, int steps) {
  switch (b.shape.size()) {
    case 0: return typed_case<T, 0>(chain, b, owner, steps);
    case 1: return typed_case<T, 1>(chain, b, owner, steps);
    case 2: return typed_case<T, 2>(chain, b, owner, steps);
    case 3: return typed_case<T, 3>(chain, b, owner, steps);
    default: return typed_case<T, 4>(chain, b, owner, steps);
  }
}
}  // namespace

BOOST_AUTO_TEST_SUITE(torch_views)

BOOST_AUTO_TEST_CASE(TV01_random_chains_match_libtorch) {
  const zt::KeepAlive owner = memory().words;
  std::uint64_t failures = 0;
  for (std::uint64_t c = 0; c < case_count; ++c) {
    std::mt19937_64 rng(seed + c);
    const Base base = random_base(rng);
    Chain chain(rng, {zt_view(base, owner), torch_view(base), memory().data(), memory().data()}, owner, base.writable);
    ++tally.cases;
    try {
      for (int length = int(std::uniform_int_distribution<int>(1, 6)(rng)); length > 0; --length)
        if (!chain.step()) break;
    } catch (const Failure& f) {
      if (++failures <= 20)
        BOOST_ERROR("case " << c << " (" << describe(base) << "): " << f.what);
    }
  }
  BOOST_TEST(failures == 0u);
  std::printf("%s\n", (std::ostringstream() << "torch_views: seed " << seed << ", " << tally.cases << " cases, " << tally.calls
                                          << " calls: " << tally.both_ok << " both succeeded, " << tally.both_refused
                                          << " both refused, " << tally.copies << " copies compared, "
                                          << tally.skipped << " skipped (documented differences)").str().c_str());
}

BOOST_AUTO_TEST_CASE(TV02_typed_chains_match_the_any_tensor_chains) {
  const zt::KeepAlive owner = memory().words;
  std::uint64_t failures = 0;
  for (std::uint64_t c = 0; c < case_count; ++c) {
    std::mt19937_64 rng(seed + c);
    Base base = random_base(rng);
    base.dtype = zt::float32;
    TypedChain chain(rng);
    const int steps = int(std::uniform_int_distribution<int>(1, 6)(rng));
    try {
      if (base.writable)
        typed_case<float>(chain, base, owner, steps);
      else
        typed_case<const float>(chain, base, owner, steps);
    } catch (const Failure& f) {
      if (++failures <= 20)
        BOOST_ERROR("seed " << seed << ", case " << c << " (" << describe(base) << "): " << f.what
                            << "\n  chain:" << chain.history);
    }
  }
  BOOST_TEST(failures == 0u);
}

BOOST_AUTO_TEST_SUITE_END()
