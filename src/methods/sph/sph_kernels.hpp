#pragma once
// SPH kernels of Jeske et al. 2023 (Sec. 3.1, Eqs. 2-3): the SPlisHSPlasH cubic
// spline with compact support radius h (q = |x|/h; the paper's "smoothing length" is this support
// radius, h = 2d = 4r), and the clamped cohesion kernel W^st = theta * W(max(|x|, d)), theta = 10/7,
// whose integral is exactly 1 only for h = 2d. Device functions, usable inside any Kokkos kernel.
#include <Kokkos_Core.hpp>

#include "core/cubic_spline.hpp"
#include "core/kmath.hpp"

namespace meniscus::sph {

constexpr double kCohesionTheta = 10.0 / 7.0;

// The cubic spline lives in core/ (shared with the position-based method, methods/pbd).
template <int Dim>
using CubicSpline = kernels::CubicSpline<Dim>;

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
