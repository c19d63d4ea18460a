// zt::complex32: PyTorch's complex32 (chalf) element, two float16 halves, real first.
#pragma once

#include <complex>
#include <ostream>
#include <type_traits>

#include <Eigen/Core>

namespace zt {

class complex32 {
 public:
  using value_type = Eigen::half;

  complex32() = default;
  complex32(Eigen::half real, Eigen::half imag) noexcept : real_(real), imag_(imag) {}
  /// Rounds each part to float16 (to nearest even), as PyTorch's conversion to chalf.
  complex32(std::complex<float> value) noexcept  // NOLINT(google-explicit-constructor)
      : real_(value.real()), imag_(value.imag()) {}

  [[nodiscard]] Eigen::half real() const noexcept { return real_; }
  [[nodiscard]] Eigen::half imag() const noexcept { return imag_; }

  /// Exact.
  operator std::complex<float>() const noexcept {  // NOLINT(google-explicit-constructor)
    return {static_cast<float>(real_), static_cast<float>(imag_)};
  }

  friend bool operator==(complex32 a, complex32 b) noexcept {
    return std::complex<float>(a) == std::complex<float>(b);
  }

 private:
  Eigen::half real_;
  Eigen::half imag_;
};

/// As std::complex<float>: "(re,im)".
inline std::ostream& operator<<(std::ostream& out, complex32 value) { return out << std::complex<float>(value); }

static_assert(sizeof(complex32) == 4 && std::is_trivially_copyable_v<complex32>);

}  // namespace zt
