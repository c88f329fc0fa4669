// Surface energy g(M) = |cof(M) dA| of a surface quadrature point (Chen et al. 2021, Eq. 16): gradient and
// Hessian against central finite differences (relative 1e-6), the explicit limit
// dg/dM(I) = |a|(I - n n^T), and convexity in 2D.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <random>

#include "physics/surface_energy.hpp"

using namespace meniscus::physics;

namespace {
template <int Dim>
void check_derivatives() {
  constexpr int N = Dim * Dim;
  std::mt19937 rng(17 + Dim);
  std::uniform_real_distribution<double> u(-0.3, 0.3);
  for (int trial = 0; trial < 40; ++trial) {
    double M[N], a[Dim], g[N], H[N * N];
    for (int i = 0; i < N; ++i) M[i] = (i % (Dim + 1) == 0 ? 1.0 : 0.0) + u(rng);
    for (int d = 0; d < Dim; ++d) a[d] = 0.05 * (1 + u(rng));
    surface_energy_gradient<Dim>(M, a, g);
    surface_energy_hessian<Dim>(M, a, H);
    const double h = 1e-6;
    double scale_g = 0, scale_h = 0;
    for (int i = 0; i < N; ++i) scale_g = std::max(scale_g, std::fabs(g[i]));
    for (int i = 0; i < N * N; ++i) scale_h = std::max(scale_h, std::fabs(H[i]));
    for (int i = 0; i < N; ++i) {
      double Mp[N], Mm[N], gp[N], gm[N];
      for (int j = 0; j < N; ++j) Mp[j] = Mm[j] = M[j];
      Mp[i] += h;
      Mm[i] -= h;
      const double fd = (surface_energy<Dim>(Mp, a) - surface_energy<Dim>(Mm, a)) / (2 * h);
      EXPECT_NEAR(g[i], fd, 1e-6 * scale_g) << "gradient " << i;
      surface_energy_gradient<Dim>(Mp, a, gp);
      surface_energy_gradient<Dim>(Mm, a, gm);
      for (int k = 0; k < N; ++k) EXPECT_NEAR(H[k * N + i], (gp[k] - gm[k]) / (2 * h), 1e-6 * scale_h) << k << "," << i;
    }
  }
}
}  // namespace

TEST(SurfaceEnergy, DerivativesMatchFiniteDifferences2D) { check_derivatives<2>(); }
TEST(SurfaceEnergy, DerivativesMatchFiniteDifferences3D) { check_derivatives<3>(); }

TEST(SurfaceEnergy, GradientAtIdentityIsTheTangentialProjector) {
  const double a2[2] = {0.3, -0.4}, I2[4] = {1, 0, 0, 1};
  double g2[4];
  EXPECT_NEAR(surface_energy_gradient<2>(I2, a2, g2), 0.5, 1e-15);
  const double n2[2] = {0.6, -0.8};
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) EXPECT_NEAR(g2[i * 2 + j], 0.5 * ((i == j) - n2[i] * n2[j]), 1e-15);
  const double a3[3] = {0.2, -0.4, 0.4}, I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  double g3[9];
  EXPECT_NEAR(surface_energy_gradient<3>(I3, a3, g3), 0.6, 1e-15);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_NEAR(g3[i * 3 + j], 0.6 * ((i == j) - a3[i] * a3[j] / 0.36), 1e-15);
}

TEST(SurfaceEnergy, ConvexIn2D) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-0.5, 0.5);
  for (int trial = 0; trial < 100; ++trial) {
    double M[4], a[2] = {u(rng), u(rng)}, H[16];
    for (int i = 0; i < 4; ++i) M[i] = (i % 3 == 0 ? 1.0 : 0.0) + u(rng);
    surface_energy_hessian<2>(M, a, H);
    Eigen::Matrix4d Hm = Eigen::Map<Eigen::Matrix<double, 4, 4, Eigen::RowMajor>>(H);
    EXPECT_GE(Eigen::SelfAdjointEigenSolver<Eigen::Matrix4d>(Hm).eigenvalues().minCoeff(), -1e-12 * Hm.norm());
  }
}

// The footprint h(M) = max(0, -nw . cof(M) a) of a solid-liquid sample on a wall (contact angles):
// gradient against central differences where the sample faces the wall, zero where it faces away, the
// value |a| for an element lying flat on the wall, and, for a flat underside, the same force at M = I as
// |dA| (so a flat wetted surface is unchanged), while a tilted (wrinkled) element's footprint is only
// its projection: |a| |n . nw| (cos 30 deg for 30 deg of tilt).
namespace {
template <int Dim>
void check_footprint() {
  constexpr int N = Dim * Dim;
  std::mt19937 rng(29 + Dim);
  std::uniform_real_distribution<double> u(-0.3, 0.3);
  double nw[Dim] = {};
  nw[Dim - 1] = 1;  // a floor
  int facing = 0;
  for (int trial = 0; trial < 40; ++trial) {
    double M[N], a[Dim], g[N];
    for (int i = 0; i < N; ++i) M[i] = (i % (Dim + 1) == 0 ? 1.0 : 0.0) + u(rng);
    for (int d = 0; d < Dim; ++d) a[d] = 0.05 * u(rng);
    a[Dim - 1] = trial % 2 ? -0.05 : 0.05;  // half face the wall (outward normal down), half away
    const double h0 = wall_footprint_gradient<Dim>(M, a, nw, g);
    EXPECT_GE(h0, 0.0);
    double scale = 1e-12;
    for (int i = 0; i < N; ++i) scale = std::max(scale, std::fabs(g[i]));
    if (h0 > 0) ++facing;
    const double step = 1e-6;
    for (int i = 0; i < N; ++i) {
      double Mp[N], Mm[N], tmp[N];
      for (int j = 0; j < N; ++j) Mp[j] = Mm[j] = M[j];
      Mp[i] += step;
      Mm[i] -= step;
      const double hp = wall_footprint_gradient<Dim>(Mp, a, nw, tmp), hm = wall_footprint_gradient<Dim>(Mm, a, nw, tmp);
      if (hp > 0 && hm > 0) EXPECT_NEAR(g[i], (hp - hm) / (2 * step), 1e-6 * scale) << "gradient " << i;
      if (hp == 0 && hm == 0) EXPECT_EQ(g[i], 0.0);
    }
  }
  EXPECT_GT(facing, 10);
}
}  // namespace

TEST(SurfaceEnergy, WallFootprintDerivativesMatchFiniteDifferences2D) { check_footprint<2>(); }
TEST(SurfaceEnergy, WallFootprintDerivativesMatchFiniteDifferences3D) { check_footprint<3>(); }

TEST(SurfaceEnergy, WallFootprintOfAFlatUndersideIsItsArea) {
  const double I2[4] = {1, 0, 0, 1}, nw2[2] = {0, 1};
  double dh[4], dg[4];
  const double flat[2] = {0, -0.4};
  EXPECT_NEAR(wall_footprint_gradient<2>(I2, flat, nw2, dh), 0.4, 1e-15);
  surface_energy_gradient<2>(I2, flat, dg);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(dh[i], dg[i], 1e-15) << i;
  const double tilted[2] = {0.4 * std::sin(M_PI / 6), -0.4 * std::cos(M_PI / 6)};
  EXPECT_NEAR(wall_footprint_gradient<2>(I2, tilted, nw2, dh), 0.4 * std::cos(M_PI / 6), 1e-15);
  const double away[2] = {0, 0.4};
  EXPECT_EQ(wall_footprint_gradient<2>(I2, away, nw2, dh), 0.0);
  const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, nw3[3] = {0, 0, 1}, flat3[3] = {0, 0, -0.3};
  double dh3[9], dg3[9];
  EXPECT_NEAR(wall_footprint_gradient<3>(I3, flat3, nw3, dh3), 0.3, 1e-15);
  surface_energy_gradient<3>(I3, flat3, dg3);
  for (int i = 0; i < 9; ++i) EXPECT_NEAR(dh3[i], dg3[i], 1e-15) << i;
}
