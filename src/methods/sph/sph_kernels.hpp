#pragma once
// SPH kernels of Jeske et al. 2023 (Sec. 3.1, Eqs. 2-3): the SPlisHSPlasH cubic
// spline with compact support radius h (q = |x|/h; the paper's "smoothing length" is this support
// radius, h = 2d = 4r), and the clamped cohesion kernel W^st = theta * W(max(|x|, d)), theta = 10/7,
// whose integral is exactly 1 only for h = 2d. Device functions, usable inside any Kokkos kernel.
#include <Kokkos_Core.hpp>

#include "core/kmath.hpp"

namespace meniscus::sph {

constexpr double kCohesionTheta = 10.0 / 7.0;

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

// Cohesion kernel W^st (Jeske et al. 2023, Eqs. 2-3): theta W(r) for r > d, the constant theta W(d) inside; its radial
// derivative is theta W'(r) for r > d and 0 inside (the reference code's convention).
template <int Dim>
struct CohesionKernel {
  CubicSpline<Dim> w;
  double d = 0;  // particle diameter = h/2
  double theta = kCohesionTheta;
  double w_at_d = 0;

  KOKKOS_INLINE_FUNCTION CohesionKernel() = default;
  KOKKOS_INLINE_FUNCTION CohesionKernel(double support, double diameter, double theta_factor = kCohesionTheta)
      : w(support), d(diameter), theta(theta_factor), w_at_d(CubicSpline<Dim>(support).value(diameter)) {}

  KOKKOS_INLINE_FUNCTION double value(double r) const { return theta * (r > d ? w.value(r) : w_at_d); }
  KOKKOS_INLINE_FUNCTION double derivative(double r) const { return r > d ? theta * w.derivative(r) : 0.0; }
};

}  // namespace meniscus::sph
