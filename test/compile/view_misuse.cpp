// Must not compile: view operations whose misuse the static rank or element type shows
// stop the compiler with their static_assert sentences (CTest view_misuse_does_not_compile).
#include <complex>

#include "zerotensor/tensor.hpp"

void misuse(const zt::Tensor<float, 0>& scalar, const zt::Tensor<float, 1>& vector, const zt::Tensor<float, 3>& cube,
            const zt::Tensor<std::complex<float>, 2>& complex, const zt::Tensor<zt::complex32, 2>& half_complex) {
  (void)scalar.select(0, 0);
  (void)scalar[0];
  (void)cube.t();
  (void)vector.mT();
  (void)complex.mH();
  (void)half_complex.mH();  // complex32 is complex everywhere
}
