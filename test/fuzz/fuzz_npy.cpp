// load_npy on any bytes, passed in memory: a .npy header and file. A file that loads must
// read in full, load the same as copies, and survive save_npy and load_npy unchanged.
#include "fuzz/fuzz_support.hpp"

using namespace zt;
using namespace zt::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const ScratchFile saved(".npy");
  const Buffer input = input_bytes(data, size);
  const auto loaded = unless_refused([&] { return load_npy(input); });
  if (!loaded) return 0;
  inspect(*loaded);

  const auto copied = unless_refused([&] { return load_npy(input, copy_every_tensor); });
  require(copied.has_value(), "a file that loads as views must also load as copies");
  require_same_elements(*loaded, *copied, "load_npy with copy = true");
  // Refusing is allowed here (data that needs a copy); loading something else is not.
  if (const auto viewed = unless_refused([&] { return load_npy(input, never_copy); }))
    require_same_elements(*loaded, *viewed, "load_npy with copy = false");

  save_npy(saved.path(), *loaded);
  require_same_elements(*loaded, load_npy(saved.path()), "save_npy then load_npy");
  return 0;
}
