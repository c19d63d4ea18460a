// checkpoint_inventory: what is in a model — every tensor's name, dtype, shape and bytes,
// then the bytes per shard, the dtype mix (a GGUF model's quantization types: gguf_q4_k, ...,
// whose shapes count blocks in their last dimension), the totals and the metadata, long values
// cut short. Opening reads only the headers.
//
//   checkpoint_inventory <model directory | *.index.json | *.safetensors | *.bin | *.gguf> [--summary]
#include <iostream>
#include <map>
#include <string_view>

#include "zerotensor/checkpoint.hpp"

namespace {

struct Total {
  std::size_t tensors = 0;
  std::size_t bytes = 0;
};

/// Metadata values longer than this (a GGUF vocabulary is megabytes of text) print cut short.
constexpr std::size_t shown_characters = 96;

/// Writes a shape as Python prints it: (), (4,), (2, 3).
void print_shape(std::ostream& out, const zt::DynamicExtents& shape) {
  out << '(';
  for (std::size_t d = 0; d < shape.size(); ++d) out << (d ? ", " : "") << shape[d];
  out << (shape.size() == 1 ? ",)" : ")");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3 || (argc == 3 && std::string_view(argv[2]) != "--summary")) {
    std::cerr << "usage: " << argv[0]
              << " <model directory | *.index.json | *.safetensors | *.bin | *.gguf> [--summary]\n";
    return 2;
  }
  try {
    const zt::Checkpoint model = zt::load_checkpoint(argv[1]);
    std::map<std::string_view, Total> shards;
    std::map<zt::DType, Total> by_dtype;
    for (const auto& [name, tensor] : model.tensors) {
      if (argc == 2) {
        std::cout << name << "  " << tensor.dtype() << "  ";
        print_shape(std::cout, tensor.shape());
        std::cout << "  " << tensor.nbytes() << " bytes\n";
      }
      for (Total* sum : {&shards[model.shard_of.at(name)], &by_dtype[tensor.dtype()]}) {
        ++sum->tensors;
        sum->bytes += tensor.nbytes();
      }
    }
    std::size_t total = 0;
    for (const auto& [shard, sum] : shards) {
      std::cout << shard << ": " << sum.tensors << " tensors, " << sum.bytes << " bytes\n";
      total += sum.bytes;
    }
    for (const auto& [dtype, sum] : by_dtype)
      std::cout << dtype << ": " << sum.tensors << " tensors, " << sum.bytes << " bytes\n";
    std::cout << "total: " << model.tensors.size() << " tensors in " << shards.size() << " shards, " << total
              << " bytes\n";
    for (const auto& [key, value] : model.metadata) {
      std::cout << "metadata " << key << ": " << value.substr(0, shown_characters);
      if (value.size() > shown_characters) std::cout << "... (" << value.size() << " characters)";
      std::cout << "\n";
    }
  } catch (const zt::Error& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
}
