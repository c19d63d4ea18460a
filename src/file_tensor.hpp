// Internal: the one place a tensor stored in a mapped file (.npy, .safetensors) becomes a
// view into the mapping or, where it must, a copy — as LoadOptions say.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <span>
#include <string_view>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "zerotensor/any_tensor.hpp"
#include "zerotensor/load_options.hpp"
#include "zerotensor/path_ref.hpp"

namespace zt::detail {

/// The parts of each element a copy negates, as torch.load resolves a tensor saved with its
/// conjugate or negative bit: `real` the values (of a complex dtype, the real parts),
/// `imaginary` the imaginary parts. Only integers of 8 to 64 bits, float16, bfloat16, float32,
/// float64 and the complex dtypes are negated: floats by their sign bit, as torch does (-0.0 and
/// NaN included), integers in two's complement (wrapping).
struct Negation {
  bool real = false;
  bool imaginary = false;
  [[nodiscard]] bool any() const noexcept { return real || imaginary; }
};

/// Where and how one tensor lies in a mapped file. The caller has validated that
/// [offset, offset + numel * itemsize) lies inside the mapping and that the shape's byte
/// count does not overflow; the bytes are dense in the order `strides` describe.
struct StoredTensor {
  std::size_t offset;  ///< bytes from the start of the mapping
  DType dtype;
  DynamicExtents shape;
  DynamicExtents strides;      ///< in elements: C order, or Fortran order for .npy
  bool foreign_byte_order;     ///< stored in the byte order opposite to this machine's
  Negation negate{};           ///< parts negated in the copy that this then needs
};

/// The text that starts every error message about a stored tensor ("<file>: tensor 'w'"),
/// built only when a message needs it: a small load builds no text.
using DescribeTensor = std::function<std::string()>;

/// The tensor as a view of `mapping` (sharing its owner) or as a copy.
AnyTensor load_stored_tensor(const Buffer& mapping, const StoredTensor& stored, const LoadOptions& options,
                             const DescribeTensor& describe);

/// The tensors in memory of their own on options.device (not the CPU), all streamed from the
/// mapping through one staged copy. `describe(i)` starts the messages about stored[i]'s bytes,
/// `description` those about the copy.
std::vector<AnyTensor> upload_stored_tensors(const Buffer& mapping, std::span<const StoredTensor> stored,
                                             const LoadOptions& options, std::string_view description,
                                             const std::function<std::string(std::size_t)>& describe);

/// ValueError when `file` starts like a zip archive: torch.save and np.savez write zip
/// archives, which reach the loaders by mistake and would otherwise fail on a nonsensical
/// header. `format` (".npy") is what the loader reads.
void refuse_zip_archive(std::span<const std::byte> file, std::string_view format, std::string_view description);

/// The tensor called `name` among a loaded file's `tensors`; ValueError naming `collection`
/// ("SafetensorsFile") and the count when there is none.
const AnyTensor& tensor_named(const std::map<std::string, AnyTensor, std::less<>>& tensors, std::string_view name,
                              std::string_view collection);

/// "<loader>: <path>" and a part after it, in one string: the loaders build it for every load,
/// without a stream and, for a path of usual length, without an allocation. `file()` opens the
/// messages about the file, `whole()` those about the part ("load_npy: <a.npy>: array").
class FileContext {
 public:
  FileContext(std::string_view loader, PathRef path, std::string_view part);
  std::string_view file() const { return whole().substr(0, file_length_); }
  std::string_view whole() const { return {text_.data(), text_.size()}; }

 private:
  boost::container::small_vector<char, 256> text_;
  std::size_t file_length_;
};

/// The access to map a file with for `options`: copies only read, so copy = true maps read-only.
MapAccess mapping_access(const LoadOptions& options);

}  // namespace zt::detail
