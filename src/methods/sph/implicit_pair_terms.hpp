#pragma once
// Per-pair and per-boundary-sample terms of the implicit cohesion + viscosity system (Jeske et al.
// 2023, Sec. 3.2-3.4, Eqs. 13-25), as device functions shared by the implicit operator and the explicit variant.
#include <Kokkos_Core.hpp>

#include "core/kmath.hpp"
#include "methods/sph/sph_kernels.hpp"

namespace meniscus::sph::implicit_terms {

// The kernel quantities one pair needs, evaluated together from q = r/h with a single division:
// the cubic spline's W'(r)/r (density rate, viscosity) and the cohesion kernel W^st(r) with
// dW^st/dr / r (theta W for r > d, the constant theta W(d) and zero slope inside). Same values as
// CubicSpline and CohesionKernel (tests compare against those), cheaper inside the pair loops.
template <int Dim>
struct PairKernels {
  double h = 0, inv_h = 0, k = 0, l_over_h = 0, l_over_h2 = 0, d = 0, theta = 0, w_st_inside = 0;

  PairKernels() = default;
  PairKernels(double support, double diameter, double theta_factor) {
    const CubicSpline<Dim> w(support);
    h = support;
    inv_h = 1.0 / support;
    k = w.k;
    l_over_h = w.l / support;
    l_over_h2 = w.l / (support * support);
    d = diameter;
    theta = theta_factor;
    w_st_inside = theta_factor * w.value(diameter);
  }

  struct Values {
    double dw_over_r;     // cubic W'(r) / r
    double w_st;          // W^st(r)
    double dw_st_over_r;  // (dW^st/dr) / r
  };

  KOKKOS_INLINE_FUNCTION Values at(double r) const {
    Values out{0.0, 0.0, 0.0};
    const double q = r * inv_h;
    if (q >= 1.0) return out;
    double w;
    if (q <= 0.5) {
      w = k * (6.0 * q * q * q - 6.0 * q * q + 1.0);
      out.dw_over_r = l_over_h2 * (3.0 * q - 2.0);  // (l/h) q (3q - 2) / r with q / r = 1/h
    } else {
      const double a = 1.0 - q;
      w = 2.0 * k * a * a * a;
      out.dw_over_r = r > 0 ? -l_over_h * a * a / r : 0.0;
    }
    if (r > d) {
      out.w_st = theta * w;
      out.dw_st_over_r = theta * out.dw_over_r;
    } else {
      out.w_st = w_st_inside;
    }
    return out;
  }
};

// Linearised kernel weight g~_ij (paper Eqs. 13-16; the density-rate term divided by rho_bar^2, as
// Eq. 22 and the reference implementation have it): g = W^st/rho_bar, its time derivative dW^st/dt / rho_bar - W^st rho_bar_dot / rho_bar^2,
// with dW^st/dt = grad_i W^st . v_ij = (dW^st/dr / r) x_ij . v_ij and rho_bar_dot = (rho_dot_i +
// rho_dot_j)/2.  xv = x_ij . v_ij.
KOKKOS_INLINE_FUNCTION double linearised_weight(double dt, double w_st, double dw_st_over_r, double xv,
                                                double rho_bar, double rho_bar_dot) {
  const double inv = 1.0 / rho_bar;
  return (w_st + dt * dw_st_over_r * xv - dt * w_st * rho_bar_dot * inv) * inv;
}

// Weiler et al. 2018 viscosity coupling c with a_i = sum_j c_ij x_ij (x_ij . v_ij); c <= 0 because
// W' <= 0 (so the backward-Euler block -dt c x x^T is positive semidefinite). weight carries
// mu m_bar / (rho_i rho_j) for fluid pairs and mu_b V_k / rho_i for boundary samples; h is the
// support radius in the regulariser 0.01 h^2.
template <int Dim>
KOKKOS_INLINE_FUNCTION double viscosity_coupling(double dw_over_r, double r2, double h, double weight) {
  return 2.0 * (Dim + 2) * weight * dw_over_r / (r2 + 0.01 * h * h);
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
