#pragma once
// Tait equation of state in terms of density (Yan et al. 2018 eq. 18; Monaghan 1994):
//   p = k_s ((rho / rho_bar)^gamma - 1),  k_s = rho_bar c0^2 / gamma,
// so that c0 is the sound speed at rest. Weakly compressible SPH and MPM fluids keep density
// variations near (u_ref/c0)^2. At a free surface an SPH density sum lacks neighbours and the law
// gives tension; clamping p at zero removes that artificial cohesion.
#include <Kokkos_Core.hpp>

#include "core/kmath.hpp"

namespace meniscus::physics {

KOKKOS_INLINE_FUNCTION double tait_stiffness(double rest_density, double sound_speed, double gamma) {
  return rest_density * sound_speed * sound_speed / gamma;
}

// x^gamma. The exponent is a small whole number in practice (7 for water, 1 for the linear law), and
// repeated squaring (four products for 7) costs far less than a call to pow, which took 3 % of a
// multiphase step. It differs from pow in the last bits only.
KOKKOS_INLINE_FUNCTION double tait_power(double x, double gamma) {
  const int n = static_cast<int>(gamma);
  if (n != gamma || n < 1 || n > 16) return kmath::pow(x, gamma);
  double r = 1.0, b = x;
  for (int e = n;; e >>= 1) {
    if (e & 1) r *= b;
    if (e == 1) return r;
    b *= b;
  }
}

KOKKOS_INLINE_FUNCTION double tait_pressure_from_density(double rho, double rest_density, double stiffness,
                                                         double gamma, bool clamp_negative) {
  const double p = stiffness * (tait_power(rho / rest_density, gamma) - 1.0);
  return (clamp_negative && p < 0) ? 0.0 : p;
}

}  // namespace meniscus::physics
