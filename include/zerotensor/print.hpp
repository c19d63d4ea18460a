// A tensor as text, as PyTorch's repr prints it (torch/_tensor_str.py with the default print
// options: precision 4, threshold 1000, edgeitems 3, linewidth 80):
//
//   tensor([1, 2, 3])                       int64 and bool print no dtype, as the default float
//   tensor([1.0000, 2.5000])                floats with a fraction: fixed, 4 decimals
//   tensor([1., 2.])                        floats that are all integers
//   tensor([1.0000e-05, 1.0000e+03])        scientific when max/min > 1000, max > 1e8 or min < 1e-4
//   tensor([ True, False])                  every value padded to the widest
//   tensor([[1, 2],
//           [3, 4]])                        one line per row, a blank line between blocks
//   tensor([   0,    1,    2,  ..., 1997, 1998, 1999])     over 1000 values: 3 at each edge
//   tensor([1.5000, 2.0000], dtype=float16) a dtype other than the default one
//   tensor(3)  tensor([])  tensor([], size=(0, 3))
//
// Where it differs from PyTorch:
//   - dtypes are named as everywhere in zerotensor, without "torch.": dtype=float16.
//   - a device other than the CPU is named as zt::Device prints it, pinned and managed host
//     memory included: device='cuda:0', device='cuda_host:0'.
//   - memory the host cannot read (device memory) prints no values, as PyTorch prints a meta
//     tensor: tensor(..., device='cuda:0', size=(2, 3)). t.to(zt::cpu) prints them.
//   - the packed sub-byte types (float4_e2m1fn_x2, float6_*_x4), whose element is a group of
//     values with no conversion to one number, print the same way: tensor(..., size=(4,),
//     dtype=float4_e2m1fn_x2). (PyTorch prints float4_e2m1fn_x2's bytes as uint8.)
// 16-bit, 8-bit floats and complex32 print their values converted to float, as PyTorch does.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>

#include "zerotensor/any_tensor.hpp"
#include "zerotensor/export.hpp"
#include "zerotensor/tensor.hpp"

namespace zt {

/// The tensor's repr, as above; "tensor(" and a closing ")" around it, lines after the first
/// indented to line up under the first value.
[[nodiscard]] ZT_API std::string to_string(const AnyTensor& tensor);
/// Writes to_string(tensor).
ZT_API std::ostream& operator<<(std::ostream& out, const AnyTensor& tensor);

/// The same for a typed view.
template <class T, std::size_t Rank>
[[nodiscard]] std::string to_string(const Tensor<T, Rank>& tensor) {
  return to_string(AnyTensor(tensor));
}
template <class T, std::size_t Rank>
std::ostream& operator<<(std::ostream& out, const Tensor<T, Rank>& tensor) {
  return out << AnyTensor(tensor);
}

}  // namespace zt
