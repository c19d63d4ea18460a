// load_torch on any bytes: a whole torch.save file (zip directory, data.pkl, records). A file
// that loads must read in full, load the same as copies (tied storages still shared), and the
// same again without copies where no copy is needed.
#include "fuzz_support.hpp"

#include "zerotensor/shares_memory.hpp"

using namespace zt;
using namespace zt::fuzz;

namespace {

void require_same_files(const TorchFile& a, const TorchFile& b, const std::string& what) {
  require(a.values == b.values, what + ": the values changed");
  require_same_tensors(a.tensors, b.tensors, what);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const ScratchFile input(".pt");
  input.write({data, size});
  const auto loaded = unless_refused([&] { return load_torch(input.path()); });
  if (!loaded) return 0;
  for (const auto& [name, tensor] : loaded->tensors) inspect(tensor);

  const auto copied = unless_refused([&] { return load_torch(input.path(), copy_every_tensor); });
  require(copied.has_value(), "a file that loads as views must also load as copies");
  require_same_files(*loaded, *copied, "load_torch with copy = true");
  for (const auto& [name, tensor] : loaded->tensors) {
    for (const auto& [other, other_tensor] : loaded->tensors) {
      if (tensor.data_ptr() == other_tensor.data_ptr() && tensor.dtype() == other_tensor.dtype())
        require(copied->at(name).data_ptr() == copied->at(other).data_ptr(),
                "tensors '" + name + "' and '" + other + "' of one storage must stay together in copies");
    }
  }
  // Refusing is allowed here (misaligned or big-endian data needs a copy); loading something else is not.
  if (const auto viewed = unless_refused([&] { return load_torch(input.path(), never_copy); }))
    require_same_files(*loaded, *viewed, "load_torch with copy = false");
  return 0;
}
