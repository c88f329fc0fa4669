#pragma once
// Stored energy of the Tait fluid as a function of the volume ratio J, per reference volume:
// psi(J) with -psi'(J) = p = K/gamma (J^-gamma - 1), psi(1) = 0 (so the explicit and implicit MPM see
// the same pressure). psi'' = K J^(-gamma-1) > 0: convex, so its Hessian needs no projection.
// J <= 0 is outside the domain; the energy is +infinity there, which a line search rejects.
#include "physics/material.hpp"

namespace meniscus::physics {

KOKKOS_INLINE_FUNCTION double tait_energy(const Material& m, double J) {
  if (!(J > 0)) return 1e300;
  const double K = m.bulk_modulus, g = m.tait_gamma;
  if (kmath::fabs(g - 1.0) < 1e-12) return K * (J - 1.0 - ::log(J));
  return K / g * (J + kmath::pow(J, 1.0 - g) / (g - 1.0)) - K / (g - 1.0);
}

// psi'(J) = -p(J)
KOKKOS_INLINE_FUNCTION double tait_energy_slope(const Material& m, double J) { return -tait_pressure(m, J); }

// psi''(J) = K J^(-gamma-1)
KOKKOS_INLINE_FUNCTION double tait_energy_curvature(const Material& m, double J) {
  return m.bulk_modulus * kmath::pow(J, -m.tait_gamma - 1.0);
}

}  // namespace meniscus::physics
