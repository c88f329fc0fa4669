#pragma once
// Per-pair and per-boundary-sample terms of the implicit cohesion + viscosity system (digest seed-002
// 4.3, 4.6, 4.7), as device functions shared by the implicit operator and the explicit variant.
#include <Kokkos_Core.hpp>

#include "core/kmath.hpp"
#include "methods/sph/sph_kernels.hpp"

namespace meniscus::sph::implicit_terms {

// Linearised kernel weight g~_ij (paper Eqs. 13-16 with the corrected density term, digest 4.3 and
// 7.3): g = W^st/rho_bar, its time derivative dW^st/dt / rho_bar - W^st rho_bar_dot / rho_bar^2,
// with dW^st/dt = grad_i W^st . v_ij and rho_bar_dot = (rho_dot_i + rho_dot_j)/2.
//   w_st: W^st(r); dw_st: dW^st/dr; r, xv = x_ij . v_ij; rho_bar; rho_bar_dot.
KOKKOS_INLINE_FUNCTION double linearised_weight(double dt, double w_st, double dw_st, double r, double xv,
                                                double rho_bar, double rho_bar_dot) {
  const double w_dot = r > 0 ? dw_st / r * xv : 0.0;
  return (w_st + dt * w_dot - dt * w_st * rho_bar_dot / rho_bar) / rho_bar;
}

// Weiler et al. 2018 viscosity coupling c with a_i = sum_j c_ij x_ij (x_ij . v_ij); c <= 0 because
// W' <= 0 (so the backward-Euler block -dt c x x^T is positive semidefinite). weight carries
// mu m_bar / (rho_i rho_j) for fluid pairs and mu_b V_k / rho_i for boundary samples.
template <int Dim>
KOKKOS_INLINE_FUNCTION double viscosity_coupling(const CubicSpline<Dim>& w, double r, double weight) {
  if (!(r > 1e-9 * w.h)) return 0.0;
  return 2.0 * (Dim + 2) * weight * (w.derivative(r) / r) / (r * r + 0.01 * w.h * w.h);
}

// Unit tangents t[0..Dim-2] perpendicular to the unit normal n (for Weiler's boundary samples).
template <int Dim>
KOKKOS_INLINE_FUNCTION void tangents(const double* n, double t[][3]) {
  if (Dim == 2) {
    t[0][0] = -n[1];
    t[0][1] = n[0];
    return;
  }
  // Cross n with the coordinate axis least aligned with it, then complete the frame.
  int a = 0;
  for (int d = 1; d < 3; ++d)
    if (kmath::fabs(n[d]) < kmath::fabs(n[a])) a = d;
  double e[3] = {0, 0, 0};
  e[a] = 1.0;
  double c[3] = {n[1] * e[2] - n[2] * e[1], n[2] * e[0] - n[0] * e[2], n[0] * e[1] - n[1] * e[0]};
  const double cn = kmath::sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
  for (int d = 0; d < 3; ++d) t[0][d] = c[d] / cn;
  t[1][0] = n[1] * t[0][2] - n[2] * t[0][1];
  t[1][1] = n[2] * t[0][0] - n[0] * t[0][2];
  t[1][2] = n[0] * t[0][1] - n[1] * t[0][0];
}

}  // namespace meniscus::sph::implicit_terms
