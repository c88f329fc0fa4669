// Area constraints of Xing et al. 2022 (sec. 5, Eqs. 7-8): triangle and fan area gradients against
// central finite differences, translation and rotation invariance of the gradients, and the regular
// hexagon fan of spacing 0.2 (centre gradient 0, ring gradients of magnitude 0.1732 pointing outward,
// sum of squared gradients 0.18).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "methods/pbd/area_constraint.hpp"

using namespace meniscus;

TEST(PbdAreaConstraint, TriangleGradientMatchesFiniteDifferences) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  double worst = 0;
  for (int t = 0; t < 1000; ++t) {
    double p[3][3];
    for (auto& v : p)
      for (double& c : v) c = u(rng);
    double g[3][3];
    const double area = pbd::triangle_area_gradient(p[0], p[1], p[2], g[0], g[1], g[2]);
    if (area < 1e-3) continue;
    double sum[3] = {0, 0, 0}, torque[3] = {0, 0, 0};
    for (int v = 0; v < 3; ++v) {
      for (int d = 0; d < 3; ++d) {
        const double e = 1e-6;
        double a[3][3], b[3][3], ga[3][3];
        std::copy(&p[0][0], &p[0][0] + 9, &a[0][0]);
        std::copy(&p[0][0], &p[0][0] + 9, &b[0][0]);
        a[v][d] += e;
        b[v][d] -= e;
        const double fd = (pbd::triangle_area_gradient(a[0], a[1], a[2], ga[0], ga[1], ga[2]) -
                           pbd::triangle_area_gradient(b[0], b[1], b[2], ga[0], ga[1], ga[2])) /
                          (2 * e);
        worst = std::max(worst, std::fabs(fd - g[v][d]) / std::max(1.0, std::fabs(g[v][d])));
        sum[d] += g[v][d];
      }
      double c[3];
      kmath::cross(p[v], g[v], c);
      for (int d = 0; d < 3; ++d) torque[d] += c[d];
    }
    for (int d = 0; d < 3; ++d) {
      EXPECT_NEAR(sum[d], 0.0, 1e-14);     // translation invariance
      EXPECT_NEAR(torque[d], 0.0, 1e-14);  // rotation invariance
    }
  }
  EXPECT_LT(worst, 1e-6);
}

namespace {
// C of a fan and the largest deviation of its gradients from central finite differences.
double fan_fd_error(const double* p, double (*q)[3], int m, bool closed) {
  double gp[3], gq[pbd::kMaxRing][3];
  pbd::fan_area_gradient(p, q, m, closed, gp, gq, 0);
  auto C = [&](const double* pc, double (*qc)[3]) {
    double a[3], b[pbd::kMaxRing][3];
    return pbd::fan_area_gradient(pc, qc, m, closed, a, b, 0);
  };
  const double e = 1e-6;
  double worst = 0;
  for (int v = -1; v < m; ++v)
    for (int d = 0; d < 3; ++d) {
      double pa[3] = {p[0], p[1], p[2]}, pb[3] = {p[0], p[1], p[2]}, qa[pbd::kMaxRing][3], qb[pbd::kMaxRing][3];
      for (int k = 0; k < m; ++k)
        for (int c = 0; c < 3; ++c) qa[k][c] = qb[k][c] = q[k][c];
      if (v < 0) {
        pa[d] += e;
        pb[d] -= e;
      } else {
        qa[v][d] += e;
        qb[v][d] -= e;
      }
      const double fd = (C(pa, qa) - C(pb, qb)) / (2 * e);
      const double g = v < 0 ? gp[d] : gq[v][d];
      worst = std::max(worst, std::fabs(fd - g));
    }
  return worst;
}
}  // namespace

TEST(PbdAreaConstraint, CurvedFanGradientsMatchFiniteDifferences) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> u(-0.03, 0.03);
  for (bool closed : {true, false})
    for (int m = 3; m <= 9; ++m) {
      const double p[3] = {0.01, -0.02, 0.005};
      double q[pbd::kMaxRing][3];
      for (int k = 0; k < m; ++k) {
        const double a = 2 * M_PI * k / m + u(rng);
        q[k][0] = 0.2 * std::cos(a) + u(rng);
        q[k][1] = 0.2 * std::sin(a) + u(rng);
        q[k][2] = -0.05 + 0.5 * u(rng);  // a cap: the ring below the centre
      }
      EXPECT_LT(fan_fd_error(p, q, m, closed), 1e-8) << m << (closed ? " closed" : " open");
    }
}

TEST(PbdAreaConstraint, RegularHexagonFan) {
  const double p[3] = {0, 0, 0};
  double q[pbd::kMaxRing][3], gp[3], gq[pbd::kMaxRing][3];
  for (int k = 0; k < 6; ++k) {
    q[k][0] = 0.2 * std::cos(M_PI * k / 3);
    q[k][1] = 0.2 * std::sin(M_PI * k / 3);
    q[k][2] = 0;
  }
  const double c = pbd::fan_area_gradient(p, q, 6, true, gp, gq, 0);
  EXPECT_NEAR(c, 6 * std::sqrt(3.0) / 4 * 0.04, 1e-15);  // six equilateral triangles of side 0.2
  EXPECT_NEAR(std::sqrt(gp[0] * gp[0] + gp[1] * gp[1] + gp[2] * gp[2]), 0.0, 1e-15);
  double S = 0;
  for (int k = 0; k < 6; ++k) {
    const double g = std::sqrt(gq[k][0] * gq[k][0] + gq[k][1] * gq[k][1] + gq[k][2] * gq[k][2]);
    EXPECT_NEAR(g, 0.2 * std::sqrt(3.0) / 2, 1e-14);  // 0.1732
    EXPECT_GT(gq[k][0] * q[k][0] + gq[k][1] * q[k][1], 0.0);  // outward
    S += g * g;
  }
  EXPECT_NEAR(S, 0.18, 1e-14);
}
