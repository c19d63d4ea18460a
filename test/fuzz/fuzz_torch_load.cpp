// load_torch on any bytes, passed in memory: a whole torch.save file (zip directory, data.pkl,
// records). A file
// that loads must read in full, load the same as copies (tied storages still shared), and the
// same again without copies where no copy is needed (torch_archive.hpp).
#include "fuzz/torch_archive.hpp"

using namespace zt::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  check_torch_load(input_bytes(data, size));
  return 0;
}
