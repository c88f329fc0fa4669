#pragma once
// Constitutive models of the explicit MPM core, as one POD per material (copied to the device in a
// table indexed by the particle's material id). Stresses are Kirchhoff stresses tau = J sigma,
// which is what the MPM force -V0 tau grad N needs.
#include "physics/polar.hpp"
#include "physics/small_matrix.hpp"

namespace meniscus::physics {

enum class MaterialModel : int { Fluid = 0, FixedCorotated = 1 };

struct Material {
  MaterialModel model = MaterialModel::Fluid;
  double density = 1000;         // kg/m^3
  double bulk_modulus = 0;       // Pa (fluid)
  double tait_gamma = 7;         // 1 (fluid); 1 gives the linear law p = K(1/J - 1)
  double viscosity = 0;          // Pa*s, dynamic (fluid)
  double mu = 0, lambda = 0;     // Pa, Lame parameters (solid)

  static Material fluid(double rho, double K, double gamma, double eta) {
    Material m;
    m.model = MaterialModel::Fluid;
    m.density = rho;
    m.bulk_modulus = K;
    m.tait_gamma = gamma;
    m.viscosity = eta;
    return m;
  }
  static Material fixed_corotated(double rho, double E, double nu) {
    Material m;
    m.model = MaterialModel::FixedCorotated;
    m.density = rho;
    m.mu = E / (2 * (1 + nu));
    m.lambda = E * nu / ((1 + nu) * (1 - 2 * nu));
    return m;
  }
  // Longitudinal (P-wave) speed, the CFL-relevant one.
  double wave_speed() const {
    if (model == MaterialModel::Fluid) return kmath::sqrt(bulk_modulus / density);
    return kmath::sqrt((lambda + 2 * mu) / density);
  }
};

// Tait equation of state in J: p = K/gamma (J^-gamma - 1), dp/dJ = -K at rest.
KOKKOS_INLINE_FUNCTION double tait_pressure(const Material& m, double J) {
  return m.bulk_modulus / m.tait_gamma * (kmath::pow(J, -m.tait_gamma) - 1.0);
}

// Fixed-corotated energy density psi(F) = mu |F - R|^2 + lambda/2 (J - 1)^2 (Stomakhin et al. 2012).
template <int Dim>
KOKKOS_INLINE_FUNCTION double fixed_corotated_energy(const Material& m, const double* F) {
  double R[Dim * Dim];
  polar_rotation<Dim>(F, R);
  double s = 0;
  for (int i = 0; i < Dim * Dim; ++i) s += (F[i] - R[i]) * (F[i] - R[i]);
  const double J = det<Dim>(F);
  return m.mu * s + 0.5 * m.lambda * (J - 1) * (J - 1);
}

// First Piola-Kirchhoff stress P = d psi / dF = 2 mu (F - R) + lambda (J - 1) cof(F).
template <int Dim>
KOKKOS_INLINE_FUNCTION void fixed_corotated_piola(const Material& m, const double* F, double* P) {
  double R[Dim * Dim], C[Dim * Dim];
  polar_rotation<Dim>(F, R);
  cofactor<Dim>(F, C);
  const double J = det<Dim>(F);
  for (int i = 0; i < Dim * Dim; ++i) P[i] = 2 * m.mu * (F[i] - R[i]) + m.lambda * (J - 1) * C[i];
}

// Kirchhoff stress of a particle. Fluids use their volume ratio J and the APIC velocity gradient C
// for the Newtonian viscous part; solids use F.
template <int Dim>
KOKKOS_INLINE_FUNCTION void kirchhoff_stress(const Material& m, const double* F, double J, const double* gradv,
                                             double* tau) {
  if (m.model == MaterialModel::Fluid) {
    const double p = tait_pressure(m, J);
    for (int i = 0; i < Dim; ++i)
      for (int j = 0; j < Dim; ++j)
        tau[i * Dim + j] = J * m.viscosity * (gradv[i * Dim + j] + gradv[j * Dim + i]) - (i == j ? J * p : 0.0);
  } else {
    double P[Dim * Dim];
    fixed_corotated_piola<Dim>(m, F, P);
    matmul_bt<Dim>(P, F, tau);
    // tau is symmetric in exact arithmetic; symmetrise so that round-off cannot create torque.
    for (int i = 0; i < Dim; ++i)
      for (int j = i + 1; j < Dim; ++j) {
        const double s = 0.5 * (tau[i * Dim + j] + tau[j * Dim + i]);
        tau[i * Dim + j] = tau[j * Dim + i] = s;
      }
  }
}

}  // namespace meniscus::physics
