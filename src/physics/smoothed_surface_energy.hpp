#pragma once
// The surface energy of one sample for implicit solves, smoothed at zero area:
//   g_e(M) = s (sqrt(g(M)^2 + e^2) - e),  e = eps |dA|,  g(M) = |cof(M) dA| (surface_energy.hpp),
// with s = sqrt(1 + eps^2), so that at rest and under rotations (g = |dA|) the gradient, i.e. the
// surface force, equals the unsmoothed one exactly; only stretched or shrunk samples differ.
// Why: backward Euler lets a node that only a sample's stencil reaches (so its mass is a small share
// of the sample's) shrink that sample to zero length, where |.| has a kink; the minimiser then sits on
// the kink and Newton's residual cannot converge. g_e is smooth (curvature 1/e at zero), convex in
// 2D like g.
// With phi(g) = sqrt(g^2 + e^2): grad g_e = phi'(g) grad g, Hess g_e = phi'(g) Hess g + phi''(g) grad g grad g^T,
// phi' = g/phi, phi'' = e^2/phi^3.
#include "physics/surface_energy.hpp"

namespace meniscus::physics {

template <int Dim>
KOKKOS_INLINE_FUNCTION double area_norm(const double* a) {
  double s = 0;
  for (int d = 0; d < Dim; ++d) s += a[d] * a[d];
  return kmath::sqrt(s);
}

template <int Dim>
KOKKOS_INLINE_FUNCTION double smoothed_surface_energy(const double* M, const double* a, double eps) {
  const double g = surface_energy<Dim>(M, a), e = eps * area_norm<Dim>(a);
  return kmath::sqrt(1 + eps * eps) * (kmath::sqrt(g * g + e * e) - e);
}

template <int Dim>
KOKKOS_INLINE_FUNCTION void smoothed_surface_energy_gradient(const double* M, const double* a, double eps, double* dg) {
  const double g = surface_energy_gradient<Dim>(M, a, dg), e = eps * area_norm<Dim>(a);
  const double phi = kmath::sqrt(g * g + e * e);
  const double s = phi > 0 ? kmath::sqrt(1 + eps * eps) * g / phi : 0.0;
  for (int i = 0; i < Dim * Dim; ++i) dg[i] *= s;
}

template <int Dim>
KOKKOS_INLINE_FUNCTION void smoothed_surface_energy_hessian(const double* M, const double* a, double eps, double* H) {
  constexpr int N = Dim * Dim;
  double dg[N];
  const double g = surface_energy_gradient<Dim>(M, a, dg), e = eps * area_norm<Dim>(a);
  surface_energy_hessian<Dim>(M, a, H);
  const double phi = kmath::sqrt(g * g + e * e);
  if (!(phi > 0)) return;
  const double scale = kmath::sqrt(1 + eps * eps);
  const double s1 = scale * g / phi, s2 = scale * e * e / (phi * phi * phi);
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) H[i * N + j] = s1 * H[i * N + j] + s2 * dg[i] * dg[j];
}

}  // namespace meniscus::physics
