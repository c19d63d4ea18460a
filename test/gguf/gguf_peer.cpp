// The C++ side of gguf_check.py: zerotensor's view of a GGUF file, written out for the `gguf`
// package to compare, and a file rewritten with save_gguf for its GGUFReader to read.
//
//   gguf_peer dump <file.gguf> <dir>   <dir>/tensors.tsv: index, name, dtype, shape (PyTorch
//                                      order, comma-separated); <dir>/<index>.bytes: the tensor's
//                                      bytes in C order; <dir>/<index>.f32: dequantize's values
//                                      of a block tensor it decodes; <dir>/metadata.tsv: key,
//                                      type, to_string of the value (one line each)
//   gguf_peer resave <in.gguf> <out.gguf> <dropped tensor> <new general.name>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <string_view>

#include "zerotensor/gguf.hpp"

namespace {

void write_bytes(const std::string& path, const zt::AnyTensor& tensor) {
  const zt::AnyTensor dense = tensor.contiguous();
  std::ofstream out(path, std::ios::binary);
  out.write(static_cast<const char*>(dense.data_ptr()), std::streamsize(dense.nbytes()));
}

void dump(const std::string& file, const std::string& dir) {
  const zt::GgufFile model = zt::load_gguf(file);
  std::ofstream tensors(dir + "/tensors.tsv");
  int index = 0;
  for (const auto& [name, tensor] : model.tensors) {
    tensors << index << '\t' << name << '\t' << tensor.dtype() << '\t';
    for (std::size_t d = 0; d < tensor.rank(); ++d) tensors << (d ? "," : "") << tensor.shape()[d];
    tensors << '\n';
    write_bytes(dir + "/" + std::to_string(index) + ".bytes", tensor);
    if (zt::is_gguf_block(tensor.dtype())) {
      try {
        write_bytes(dir + "/" + std::to_string(index) + ".f32", zt::dequantize(tensor));
      } catch (const zt::TypeError&) {  // a type this version does not decode: its bytes are compared
      }
    }
    ++index;
  }
  std::ofstream metadata(dir + "/metadata.tsv");
  for (const auto& [key, value] : model.metadata) {
    std::string text = zt::to_string(value);
    for (char& c : text) c = c == '\n' ? ' ' : c;  // one line a key (the check compares no such text)
    metadata << key << '\t' << zt::name(value.type()) << '\t' << text << '\n';
  }
}

void resave(const std::string& in, const std::string& out, const std::string& dropped, const std::string& name) {
  zt::GgufFile model = zt::load_gguf(in);
  model.tensors.erase(dropped);
  model.metadata.insert_or_assign("general.name", zt::GgufValue(name));
  zt::save_gguf(out, model.tensors, model.metadata);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string_view command = argc > 1 ? argv[1] : "";
    if (command == "dump" && argc == 4) {
      dump(argv[2], argv[3]);
    } else if (command == "resave" && argc == 6) {
      resave(argv[2], argv[3], argv[4], argv[5]);
    } else {
      std::cerr << "usage: gguf_peer dump <file.gguf> <dir> | resave <in> <out> <dropped tensor> <new name>\n";
      return 2;
    }
  } catch (const zt::Error& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  return 0;
}
