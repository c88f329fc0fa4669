#pragma once
// The cubic spline kernel with compact support radius h (q = |x|/h), in the form of Monaghan 1992 as
// written by Koschier et al. 2019 (SPlisHSPlasH): W = k (6q^3 - 6q^2 + 1) for q <= 1/2, 2k (1-q)^3 for
// 1/2 < q <= 1, 0 beyond; k = 8/(pi h^3) in 3D, 40/(7 pi h^2) in 2D. Shared by the particle methods
// (SPH of Jeske et al. 2023 with h = 4r, position-based surface tension of Xing et al. 2022 with
// h = 6r). Device functions, usable inside any Kokkos kernel.
#include <Kokkos_Core.hpp>

#include "core/kmath.hpp"

namespace meniscus::kernels {

template <int Dim>
struct CubicSpline {
  double h = 0;       // support radius (m)
  double k = 0;       // value normalisation
  double l = 0;       // gradient normalisation
  double w_zero = 0;  // W(0)

  KOKKOS_INLINE_FUNCTION CubicSpline() = default;
  KOKKOS_INLINE_FUNCTION explicit CubicSpline(double support) : h(support) {
    const double pi = 3.14159265358979323846;
    if (Dim == 3) {
      k = 8.0 / (pi * h * h * h);
      l = 48.0 / (pi * h * h * h);
    } else {
      k = 40.0 / (7.0 * pi * h * h);
      l = 240.0 / (7.0 * pi * h * h);
    }
    w_zero = k;
  }

  // W as a function of the distance r >= 0.
  KOKKOS_INLINE_FUNCTION double value(double r) const {
    const double q = r / h;
    if (q > 1.0) return 0.0;
    if (q <= 0.5) return k * (6.0 * q * q * q - 6.0 * q * q + 1.0);
    const double a = 1.0 - q;
    return k * 2.0 * a * a * a;
  }
  // dW/dr (<= 0) as a function of the distance.
  KOKKOS_INLINE_FUNCTION double derivative(double r) const {
    const double q = r / h;
    if (q > 1.0) return 0.0;
    if (q <= 0.5) return l / h * q * (3.0 * q - 2.0);
    const double a = 1.0 - q;
    return -l / h * a * a;
  }
  // grad W(x) = W'(|x|) x/|x|, zero for |x| <= 1e-9 h.
  KOKKOS_INLINE_FUNCTION void gradient(const double* x, double* g) const {
    double r2 = 0;
    for (int d = 0; d < Dim; ++d) r2 += x[d] * x[d];
    const double r = kmath::sqrt(r2);
    const double s = r > 1e-9 * h ? derivative(r) / r : 0.0;
    for (int d = 0; d < Dim; ++d) g[d] = s * x[d];
  }
};

}  // namespace meniscus::kernels
