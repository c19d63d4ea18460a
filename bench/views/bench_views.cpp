// Views of views: each view operation on Tensor<float, R> and on AnyTensor, against the same
// view built by hand from its pointer, shape, strides and owner (the floor: what any view
// costs), and against libtorch's same call where libtorch is found. Each row is one paired
// benchmark (ratio.hpp); one timed body makes `batch` views, so the clock's own cost does not
// count. Goals: typed static-rank views within 1.5x of the hand-built view, AnyTensor views
// within 2x of an AnyTensor built by hand, both at least 10x faster than libtorch.
#include <benchmark/benchmark.h>

#include <array>
#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "../ratio.hpp"
#include "zerotensor/any_tensor.hpp"
#include "zerotensor/tensor.hpp"

#if ZT_HAVE_TORCH
#include <ATen/ATen.h>
#endif

namespace {

constexpr int batch = 256;

std::vector<zt_bench::Comparison> comparisons;

/// `batch` calls of `make`, each view kept from being optimised away and then destroyed.
template <class Make>
auto repeated(Make make) {
  return [make]() mutable {
    for (int i = 0; i < batch; ++i) {
      auto view = make();
      benchmark::DoNotOptimize(view);
    }
    benchmark::ClobberMemory();
  };
}

/// The hand-built twin of a typed result: the same constructor a user calls, from the
/// result's own pointer, shape and strides, and the owner of the tensor `x` it views (as a
/// user building the view of `x` by hand passes x.owner()).
template <class T, std::size_t Rank>
auto by_hand(const zt::Tensor<T, Rank>& r) {
  return [data = r.data(), shape = r.shape(), strides = r.strides()](const auto& x) {
    return zt::Tensor<T, Rank>(data, shape, strides, x.owner());
  };
}
template <class T, std::size_t Rank>
auto by_hand(const std::vector<zt::Tensor<T, Rank>>& views) {
  std::vector<decltype(by_hand(views[0]))> parts;
  for (const auto& v : views) parts.push_back(by_hand(v));
  return [parts](const auto& x) {
    std::vector<zt::Tensor<T, Rank>> out;
    out.reserve(parts.size());
    for (const auto& part : parts) out.push_back(part(x));
    return out;
  };
}

/// The hand-built twin of an AnyTensor result: AnyTensor(T*, shape, strides, x.owner()).
auto by_hand(const zt::AnyTensor& r) {
  return [data = static_cast<float*>(const_cast<void*>(r.data_ptr())),
          shape = std::vector<zt::index_t>(r.shape().begin(), r.shape().end()),
          strides = std::vector<zt::index_t>(r.strides().begin(), r.strides().end())](const auto& x) {
    return zt::AnyTensor(data, shape, strides, x.owner());
  };
}
auto by_hand(const std::vector<zt::AnyTensor>& views) {
  std::vector<decltype(by_hand(views[0]))> parts;
  for (const auto& v : views) parts.push_back(by_hand(v));
  return [parts](const auto& x) {
    std::vector<zt::AnyTensor> out;
    out.reserve(parts.size());
    for (const auto& part : parts) out.push_back(part(x));
    return out;
  };
}

/// The inputs every operation starts from: 4 x 8 x 16 floats in C order, owned by a
/// shared vector, as a typed view, an AnyTensor and (with libtorch) an at::Tensor.
struct Inputs {
  std::shared_ptr<std::vector<float>> values = std::make_shared<std::vector<float>>(4 * 8 * 16, 1.0f);
  zt::Tensor<float, 3> typed{values->data(), {4, 8, 16}, {128, 16, 1}, values};
  zt::AnyTensor any = typed;
#if ZT_HAVE_TORCH
  at::Tensor torch = at::from_blob(values->data(), {4, 8, 16});
#endif
};

/// The inputs narrowed to extent 1 in dimension 1 (4 x 1 x 16): what expand() broadcasts
/// and squeeze() drops.
std::shared_ptr<Inputs> narrowed(const Inputs& in) {
  auto out = std::make_shared<Inputs>(in);
  out->typed = in.typed.narrow(1, 0, 1);
  out->any = in.any.narrow(1, 0, 1);
#if ZT_HAVE_TORCH
  out->torch = in.torch.narrow(1, 0, 1);
#endif
  return out;
}

/// Registers the rows of one operation: `op` applied to the typed view and to the
/// AnyTensor, each against its hand-built twin and against libtorch's `torch_op`.
template <class Op, class TorchOp>
void register_op(const std::string& name, const std::shared_ptr<Inputs>& in, Op op, [[maybe_unused]] TorchOp torch_op) {
  const auto typed = [in, op] {
    const auto& x = in->typed;
    return op(x);
  };
  const auto any = [in, op] {
    const auto& x = in->any;
    return op(x);
  };
  // Each side reads its input in place and takes one reference to its owner: a copy of the
  // input would add the same work to both sides, timed as the compiler happens to inline it.
  const auto typed_by_hand = [in, make = by_hand(op(in->typed))] {
    const auto& x = in->typed;
    return make(x);
  };
  const auto any_by_hand = [in, make = by_hand(op(in->any))] {
    const auto& x = in->any;
    return make(x);
  };
  zt_bench::register_paired(comparisons, "BM_typed_" + name, "the Tensor built by hand", repeated(typed),
                            repeated(typed_by_hand));
  zt_bench::register_paired(comparisons, "BM_any_" + name, "the AnyTensor built by hand", repeated(any),
                            repeated(any_by_hand));
#if ZT_HAVE_TORCH
  const auto torch = [in, torch_op] {
    const auto& x = in->torch;
    return torch_op(x);
  };
  zt_bench::register_paired(comparisons, "BM_typed_vs_torch_" + name, "libtorch", repeated(typed), repeated(torch));
  zt_bench::register_paired(comparisons, "BM_any_vs_torch_" + name, "libtorch", repeated(any), repeated(torch));
#endif
}

/// The same call on every side: zerotensor's and libtorch's names agree.
#define ZT_SAME_CALL(expression) [](const auto& x) { return x.expression; }
#if ZT_HAVE_TORCH
#define ZT_TORCH_CALL(expression) ZT_SAME_CALL(expression)
#else
#define ZT_TORCH_CALL(expression) nullptr
#endif

void register_all() {
  auto in = std::make_shared<Inputs>();
  register_op("narrow", in, ZT_SAME_CALL(narrow(1, 2, 4)), ZT_TORCH_CALL(narrow(1, 2, 4)));
  register_op("select", in, ZT_SAME_CALL(select(0, 1)), ZT_TORCH_CALL(select(0, 1)));
  register_op("slice", in, ZT_SAME_CALL(slice(2, 1, 9, 2)), ZT_TORCH_CALL(slice(2, 1, 9, 2)));
  register_op("index", in, [](const auto& x) { return x[2]; }, ZT_TORCH_CALL(select(0, 2)));
  register_op("transpose", in, ZT_SAME_CALL(transpose(0, 2)), ZT_TORCH_CALL(transpose(0, 2)));
  register_op("permute", in, [](const auto& x) { return x.permute(std::array<zt::index_t, 3>{2, 0, 1}); },
              ZT_TORCH_CALL(permute({2, 0, 1})));
  register_op("movedim", in, ZT_SAME_CALL(movedim(0, 2)), ZT_TORCH_CALL(movedim(0, 2)));
  register_op("mT", in, ZT_SAME_CALL(mT()), ZT_TORCH_CALL(mT()));
  register_op("t_of_select", in, ZT_SAME_CALL(select(0, 1).t()), ZT_TORCH_CALL(select(0, 1).t()));
  register_op("unsqueeze", in, ZT_SAME_CALL(unsqueeze(1)), ZT_TORCH_CALL(unsqueeze(1)));
  register_op("squeeze_dim", narrowed(*in), ZT_SAME_CALL(squeeze(1)), ZT_TORCH_CALL(squeeze(1)));
  register_op("expand", narrowed(*in), [](const auto& x) { return x.expand(std::array<zt::index_t, 3>{-1, 8, -1}); },
              ZT_TORCH_CALL(expand({-1, 8, -1})));
  register_op("view", in, [](const auto& x) { return x.view(std::array<zt::index_t, 2>{32, 16}); },
              ZT_TORCH_CALL(view({32, 16})));
  register_op("reshape_as_view", in, [](const auto& x) { return x.reshape(std::array<zt::index_t, 2>{32, -1}); },
              ZT_TORCH_CALL(reshape({32, -1})));
  register_op("flatten", in, ZT_SAME_CALL(flatten(1)), ZT_TORCH_CALL(flatten(1)));
  register_op("unflatten", in, [](const auto& x) { return x.unflatten(2, std::array<zt::index_t, 2>{4, 4}); },
              ZT_TORCH_CALL(unflatten(2, {4, 4})));
  register_op("diagonal", in, ZT_SAME_CALL(diagonal(0, 1, 2)), ZT_TORCH_CALL(diagonal(0, 1, 2)));
  register_op("unfold", in, ZT_SAME_CALL(unfold(2, 4, 4)), ZT_TORCH_CALL(unfold(2, 4, 4)));
  register_op("as_strided", in,
              [](const auto& x) {
                return x.as_strided(std::array<zt::index_t, 2>{4, 4}, std::array<zt::index_t, 2>{16, 1}, 8);
              },
              ZT_TORCH_CALL(as_strided({4, 4}, {16, 1}, 8)));
  register_op("contiguous_already", in, ZT_SAME_CALL(contiguous()), ZT_TORCH_CALL(contiguous()));
  // The floor of contiguous() of a contiguous tensor: a plain copy of the tensor object.
  register_op("copy_vs_contiguous", in, [](const auto& x) { return x; }, ZT_TORCH_CALL(contiguous()));
  register_op("chunk_4", in, ZT_SAME_CALL(chunk(4, 1)), ZT_TORCH_CALL(chunk(4, 1)));
  register_op("split_4", in, ZT_SAME_CALL(split(2, 1)), ZT_TORCH_CALL(split(2, 1)));
  register_op("unbind_4", in, ZT_SAME_CALL(unbind(0)), ZT_TORCH_CALL(unbind(0)));
}

/// Element-type views: Tensor's view<U>() against AnyTensor's view(DType) and libtorch's view(ScalarType).
void register_dtype_views() {
  auto in = std::make_shared<Inputs>();
  register_op("view_dtype_int32", in,
              [](const auto& x) {
                if constexpr (std::is_same_v<std::decay_t<decltype(x)>, zt::AnyTensor>)
                  return x.view(zt::int32);
                else
                  return x.template view<std::int32_t>();
              },
              ZT_TORCH_CALL(view(at::kInt)));
  register_op("view_dtype_uint8", in,
              [](const auto& x) {
                if constexpr (std::is_same_v<std::decay_t<decltype(x)>, zt::AnyTensor>)
                  return x.view(zt::uint8);
                else
                  return x.template view<std::uint8_t>();
              },
              ZT_TORCH_CALL(view(at::kByte)));
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  register_dtype_views();
  return zt_bench::run(argc, argv, comparisons);
}
