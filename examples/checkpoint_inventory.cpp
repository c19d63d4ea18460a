// checkpoint_inventory: what is in a model — every tensor's name, dtype, shape and bytes,
// then the bytes per shard and the totals. Opening reads only the headers.
//
//   checkpoint_inventory <model directory | *.index.json | *.safetensors> [--summary]
#include <iostream>
#include <map>
#include <string_view>

#include "zerotensor/checkpoint.hpp"

namespace {

struct ShardTotal {
  std::size_t tensors = 0;
  std::size_t bytes = 0;
};

/// Writes a shape as Python prints it: (), (4,), (2, 3).
void print_shape(std::ostream& out, const zt::DynamicExtents& shape) {
  out << '(';
  for (std::size_t d = 0; d < shape.size(); ++d) out << (d ? ", " : "") << shape[d];
  out << (shape.size() == 1 ? ",)" : ")");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3 || (argc == 3 && std::string_view(argv[2]) != "--summary")) {
    std::cerr << "usage: " << argv[0] << " <model directory | *.index.json | *.safetensors> [--summary]\n";
    return 2;
  }
  try {
    const zt::Checkpoint model = zt::load_checkpoint(argv[1]);
    std::map<std::string_view, ShardTotal> shards;
    std::map<zt::DType, std::size_t> by_dtype;
    for (const auto& [name, tensor] : model.tensors) {
      if (argc == 2) {
        std::cout << name << "  " << tensor.dtype() << "  ";
        print_shape(std::cout, tensor.shape());
        std::cout << "  " << tensor.nbytes() << " bytes\n";
      }
      ShardTotal& shard = shards[model.shard_of.at(name)];
      ++shard.tensors;
      shard.bytes += tensor.nbytes();
      by_dtype[tensor.dtype()] += tensor.nbytes();
    }
    std::size_t total = 0;
    for (const auto& [shard, sum] : shards) {
      std::cout << shard << ": " << sum.tensors << " tensors, " << sum.bytes << " bytes\n";
      total += sum.bytes;
    }
    for (const auto& [dtype, bytes] : by_dtype) std::cout << dtype << ": " << bytes << " bytes\n";
    std::cout << "total: " << model.tensors.size() << " tensors in " << shards.size() << " shards, " << total
              << " bytes\n";
    for (const auto& [key, value] : model.metadata) std::cout << "metadata " << key << ": " << value << "\n";
  } catch (const zt::Error& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
}
