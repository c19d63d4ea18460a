// Test support: flush-to-zero and denormals-are-zero on for a scope, as a caller of the library
// may have them. x86 only (SSE's MXCSR): use it under `#if defined(__SSE2__)`.
#pragma once

#if defined(__SSE2__)
#include <xmmintrin.h>

namespace zt_test {

/// Sets MXCSR's FTZ (bit 15: subnormal results flushed to zero) and DAZ (bit 6: subnormal
/// inputs read as zero) for its lifetime, and restores the caller's MXCSR after.
class FlushDenormals {
 public:
  FlushDenormals() : saved_(_mm_getcsr()) { _mm_setcsr(saved_ | 0x8040u); }
  ~FlushDenormals() { _mm_setcsr(saved_); }
  FlushDenormals(const FlushDenormals&) = delete;
  FlushDenormals& operator=(const FlushDenormals&) = delete;

 private:
  unsigned saved_;
};

}  // namespace zt_test
#endif
