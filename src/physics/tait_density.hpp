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

KOKKOS_INLINE_FUNCTION double tait_pressure_from_density(double rho, double rest_density, double stiffness,
                                                         double gamma, bool clamp_negative) {
  const double p = stiffness * (kmath::pow(rho / rest_density, gamma) - 1.0);
  return (clamp_negative && p < 0) ? 0.0 : p;
}

}  // namespace meniscus::physics
