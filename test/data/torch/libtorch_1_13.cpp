// Writes test/data/torch/libtorch_1_13.pt with Debian's libtorch 1.13 (libtorch-dev), whose
// torch::pickle_save writes the torch.save zip format (a typed Dict tagged by
// torch.jit._pickle.restore_type_tag, no byteorder record). Run before make_fixtures.py,
// which adds what torch.load reads from the file to expected.json:
//   g++ -std=c++17 test/data/torch/libtorch_1_13.cpp -I/usr/include/torch/csrc/api/include \
//       -ltorch -ltorch_cpu -lc10 -o /tmp/libtorch_1_13 && /tmp/libtorch_1_13 test/data/torch/libtorch_1_13.pt
#include <torch/torch.h>

#include <fstream>

int main(int argc, char** argv) {
  c10::Dict<std::string, at::Tensor> dict;
  dict.insert("weight", torch::arange(6, torch::kFloat32).reshape({2, 3}) * 0.25);
  dict.insert("bias", torch::arange(2, torch::kFloat64));
  auto base = torch::arange(12, torch::kInt64).reshape({3, 4});
  dict.insert("transposed", base.t());
  dict.insert("column", base.select(1, 2));
  dict.insert("flags", torch::tensor({true, false, true}));
  dict.insert("half", torch::arange(3, torch::kFloat16));
  dict.insert("count", torch::tensor(5));
  std::vector<char> bytes = torch::pickle_save(c10::IValue(dict));
  std::ofstream(argv[1], std::ios::binary).write(bytes.data(), bytes.size());
}
