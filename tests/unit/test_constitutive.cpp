// Fixed-corotated stress against central finite differences of its energy, and the polar rotation.
#include <gtest/gtest.h>

#include <random>

#include "physics/material.hpp"

using namespace meniscus::physics;

namespace {
template <int Dim>
void random_F(std::mt19937& rng, double* F, double spread, bool invert) {
  std::uniform_real_distribution<double> u(-spread, spread);
  // A rotation times a stretch, plus noise.
  const double th = u(rng) * 10;
  for (int i = 0; i < Dim * Dim; ++i) F[i] = (i % (Dim + 1) == 0 ? 1.0 : 0.0) + u(rng);
  double R[Dim * Dim] = {};
  for (int i = 0; i < Dim * Dim; ++i) R[i] = (i % (Dim + 1) == 0 ? 1.0 : 0.0);
  R[0] = std::cos(th);
  R[1] = -std::sin(th);
  R[Dim] = std::sin(th);
  R[Dim + 1] = std::cos(th);
  double G[Dim * Dim];
  matmul<Dim>(R, F, G);
  for (int i = 0; i < Dim * Dim; ++i) F[i] = G[i];
  if (invert)
    for (int d = 0; d < Dim; ++d) F[d * Dim] = -F[d * Dim];
}

template <int Dim>
void check_piola(bool invert) {
  std::mt19937 rng(11 + Dim + (invert ? 100 : 0));
  const Material m = Material::fixed_corotated(1000, 1e5, 0.3);
  for (int trial = 0; trial < 50; ++trial) {
    double F[Dim * Dim], P[Dim * Dim];
    random_F<Dim>(rng, F, 0.3, invert);
    fixed_corotated_piola<Dim>(m, F, P);
    const double h = 1e-6;
    for (int i = 0; i < Dim * Dim; ++i) {
      double Fp[Dim * Dim], Fm[Dim * Dim];
      for (int j = 0; j < Dim * Dim; ++j) Fp[j] = Fm[j] = F[j];
      Fp[i] += h;
      Fm[i] -= h;
      const double fd = (fixed_corotated_energy<Dim>(m, Fp) - fixed_corotated_energy<Dim>(m, Fm)) / (2 * h);
      EXPECT_NEAR(P[i], fd, 1e-6 * (1 + std::fabs(fd)) * m.mu) << "component " << i;
    }
  }
}

template <int Dim>
void check_polar() {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 200; ++trial) {
    double F[Dim * Dim], R[Dim * Dim], RtR[Dim * Dim], S[Dim * Dim];
    random_F<Dim>(rng, F, 0.8, trial % 3 == 0);
    polar_rotation<Dim>(F, R);
    matmul_at<Dim>(R, R, RtR);
    for (int i = 0; i < Dim * Dim; ++i) EXPECT_NEAR(RtR[i], i % (Dim + 1) == 0 ? 1.0 : 0.0, 1e-12);
    EXPECT_NEAR(det<Dim>(R), 1.0, 1e-12);
    matmul_at<Dim>(R, F, S);  // S = R^T F must be symmetric
    for (int a = 0; a < Dim; ++a)
      for (int b = 0; b < Dim; ++b) EXPECT_NEAR(S[a * Dim + b], S[b * Dim + a], 1e-10);
  }
}
}  // namespace

TEST(Constitutive, FixedCorotatedStressMatchesEnergy2D) { check_piola<2>(false); }
TEST(Constitutive, FixedCorotatedStressMatchesEnergy3D) { check_piola<3>(false); }
TEST(Constitutive, FixedCorotatedStressMatchesEnergyInverted2D) { check_piola<2>(true); }
TEST(Constitutive, FixedCorotatedStressMatchesEnergyInverted3D) { check_piola<3>(true); }
TEST(Constitutive, PolarRotation2D) { check_polar<2>(); }
TEST(Constitutive, PolarRotation3D) { check_polar<3>(); }

TEST(Constitutive, KirchhoffStressOfFluidAtRestIsPressure) {
  const Material m = Material::fluid(1000, 2e5, 7, 0.0);
  double F[4] = {1, 0, 0, 1}, C[4] = {0, 0, 0, 0}, tau[4];
  const double J = 0.99;
  kirchhoff_stress<2>(m, F, J, C, tau);
  const double p = 2e5 / 7 * (std::pow(J, -7.0) - 1);
  EXPECT_NEAR(tau[0], -J * p, 1e-9 * p);
  EXPECT_NEAR(tau[3], -J * p, 1e-9 * p);
  EXPECT_EQ(tau[1], 0.0);
  // Near J = 1 the Tait law has bulk modulus K: dp/dJ = -K.
  const double h = 1e-7;
  EXPECT_NEAR((tait_pressure(m, 1 + h) - tait_pressure(m, 1 - h)) / (2 * h), -2e5, 1e-2);
}

TEST(Constitutive, SolidStressVanishesUnderRotation) {
  const Material m = Material::fixed_corotated(1000, 1e6, 0.3);
  const double th = 0.7;
  double F[9] = {std::cos(th), -std::sin(th), 0, std::sin(th), std::cos(th), 0, 0, 0, 1}, C[9] = {}, tau[9];
  kirchhoff_stress<3>(m, F, 1.0, C, tau);
  for (double t : tau) EXPECT_NEAR(t, 0.0, 1e-9);
}
