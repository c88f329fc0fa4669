#pragma once
// Hypoelastic solid with the Jaumann (co-rotational) stress rate, Yan et al. 2018 eq. (11):
//   dsigma/dt = C : eps_dot + omega sigma - sigma omega,  eps_dot = sym(grad u), omega = skew(grad u),
//   C : eps_dot = K tr(eps_dot) I + 2 G (eps_dot - tr(eps_dot)/3 I)   (Hooke's law, isotropic).
// The paper prints the volumetric term as K tr(eps_dot) I / 3, which is Hooke's law with bulk
// modulus K/3; `paper_literal` keeps that form for reproduction. The rotation terms make the rate
// objective: under a rigid spin the stress only rotates with the body. Stresses are Cauchy stresses
// stored as Dim x Dim row-major matrices; grad u is (grad u)_ab = d u_a / d x_b. In 2D the model is
// plane strain (the out-of-plane stress is not needed by the in-plane forces and is not kept).
#include <Kokkos_Core.hpp>

namespace meniscus::physics {

struct HypoelasticModuli {
  double bulk = 0;   // K = E / (3 (1 - 2 nu))
  double shear = 0;  // G = E / (2 (1 + nu))
  static HypoelasticModuli from_young(double E, double nu) {
    return {E / (3.0 * (1.0 - 2.0 * nu)), E / (2.0 * (1.0 + nu))};
  }
};

// sigma <- sigma + dt dsigma/dt (explicit), then symmetrised so round-off cannot create torque.
// Returns tr(eps_dot), which the caller uses to update the density.
template <int Dim>
KOKKOS_INLINE_FUNCTION double jaumann_update(const HypoelasticModuli& m, const double* gradu, double dt,
                                             bool paper_literal, double* sigma) {
  double eps[Dim * Dim], om[Dim * Dim];
  double tr = 0;
  for (int a = 0; a < Dim; ++a) {
    for (int b = 0; b < Dim; ++b) {
      eps[a * Dim + b] = 0.5 * (gradu[a * Dim + b] + gradu[b * Dim + a]);
      om[a * Dim + b] = 0.5 * (gradu[a * Dim + b] - gradu[b * Dim + a]);
    }
    tr += gradu[a * Dim + a];
  }
  const double vol = paper_literal ? m.bulk * tr / 3.0 : m.bulk * tr;
  double rate[Dim * Dim];
  for (int a = 0; a < Dim; ++a)
    for (int b = 0; b < Dim; ++b) {
      double r = 2.0 * m.shear * eps[a * Dim + b];
      if (a == b) r += vol - 2.0 * m.shear * tr / 3.0;
      for (int c = 0; c < Dim; ++c) r += om[a * Dim + c] * sigma[c * Dim + b] - sigma[a * Dim + c] * om[c * Dim + b];
      rate[a * Dim + b] = r;
    }
  for (int i = 0; i < Dim * Dim; ++i) sigma[i] += dt * rate[i];
  for (int a = 0; a < Dim; ++a)
    for (int b = a + 1; b < Dim; ++b) {
      const double s = 0.5 * (sigma[a * Dim + b] + sigma[b * Dim + a]);
      sigma[a * Dim + b] = sigma[b * Dim + a] = s;
    }
  return tr;
}

}  // namespace meniscus::physics
