// load_torch on any bytes: a whole torch.save file (zip directory, data.pkl, records). A file
// that loads must read in full, load the same as copies (tied storages still shared), and the
// same again without copies where no copy is needed (torch_archive.hpp).
#include "torch_archive.hpp"

using namespace zt::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const ScratchFile input(".pt");
  input.write({data, size});
  check_torch_load(input.path());
  return 0;
}
