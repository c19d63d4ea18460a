// load_safetensors on any bytes, passed in memory: a .safetensors header (JSON, nested to
// any depth) and file. A file that loads must read in full, load the same as copies, and survive
// save_safetensors and load_safetensors unchanged.
#include "fuzz/fuzz_support.hpp"

using namespace zt;
using namespace zt::fuzz;

namespace {

void require_same_files(const SafetensorsFile& a, const SafetensorsFile& b, const std::string& what) {
  require(a.metadata == b.metadata, what + ": the metadata changed");
  require_same_tensors(a.tensors, b.tensors, what);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const ScratchFile saved(".safetensors");
  const Buffer input = input_bytes(data, size);
  const auto loaded = unless_refused([&] { return load_safetensors(input); });
  if (!loaded) return 0;
  for (const auto& [name, tensor] : loaded->tensors) inspect(tensor);

  const auto copied = unless_refused([&] { return load_safetensors(input, copy_every_tensor); });
  require(copied.has_value(), "a file that loads as views must also load as copies");
  require_same_files(*loaded, *copied, "load_safetensors with copy = true");
  // Refusing is allowed here (misaligned data needs a copy); loading something else is not.
  if (const auto viewed = unless_refused([&] { return load_safetensors(input, never_copy); }))
    require_same_files(*loaded, *viewed, "load_safetensors with copy = false");

  save_safetensors(saved.path(), loaded->tensors, loaded->metadata);
  require_same_files(*loaded, load_safetensors(saved.path()), "save_safetensors then load_safetensors");
  return 0;
}
