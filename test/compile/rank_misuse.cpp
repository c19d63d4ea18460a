// Must not compile: a matrix of a rank-1 tensor and a vector of a rank-2 tensor are
// compile-time errors that say so in a sentence (CTest rank_misuse_does_not_compile).
#include "zerotensor/tensor.hpp"

void misuse(const zt::Tensor<float, 1>& vector, const zt::Tensor<float, 2>& matrix) {
  (void)vector.matrix();
  (void)matrix.vector();
}
