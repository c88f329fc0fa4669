// Quadratic B-spline properties that APIC's conservation rests on (Jiang et al. 2015).
#include <gtest/gtest.h>

#include <random>

#include "grid/bspline.hpp"

using meniscus::grid::Stencil;

namespace {
template <int Dim>
void check_stencil_identities() {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0.3, 0.9);
  const double dx = 0.037;
  double lower[Dim];
  for (int d = 0; d < Dim; ++d) lower[d] = -0.25 * d;
  for (int trial = 0; trial < 500; ++trial) {
    double x[Dim];
    for (int d = 0; d < Dim; ++d) x[d] = lower[d] + u(rng);
    Stencil<Dim> st;
    st.compute(x, lower, 1.0 / dx);
    double wsum = 0, gsum[Dim] = {}, xsum[Dim] = {}, xg[Dim][Dim] = {}, D[Dim][Dim] = {};
    const int n = Dim == 2 ? 9 : 27;
    for (int k = 0; k < n; ++k) {
      int o[Dim], c = k;
      for (int d = 0; d < Dim; ++d) {
        o[d] = c % 3;
        c /= 3;
      }
      double xi[Dim], g[Dim];
      for (int d = 0; d < Dim; ++d) xi[d] = lower[d] + (st.base[d] + o[d]) * dx;
      const double w = st.weight(o);
      st.gradient(o, g);
      EXPECT_GE(w, 0.0);
      wsum += w;
      for (int a = 0; a < Dim; ++a) {
        gsum[a] += g[a];
        xsum[a] += w * xi[a];
        for (int b = 0; b < Dim; ++b) {
          xg[a][b] += xi[a] * g[b];
          D[a][b] += w * (xi[a] - x[a]) * (xi[b] - x[b]);
        }
      }
    }
    EXPECT_NEAR(wsum, 1.0, 1e-14);
    for (int a = 0; a < Dim; ++a) {
      EXPECT_NEAR(gsum[a] * dx, 0.0, 1e-13);
      EXPECT_NEAR(xsum[a], x[a], 1e-14);
      for (int b = 0; b < Dim; ++b) {
        EXPECT_NEAR(xg[a][b], a == b ? 1.0 : 0.0, 1e-12) << "sum x_i grad N_i^T must be I";
        EXPECT_NEAR(D[a][b] / (dx * dx), a == b ? 0.25 : 0.0, 1e-12) << "APIC inertia D = dx^2/4 I";
      }
    }
  }
}
}  // namespace

TEST(BSpline, IdentitiesIn2D) { check_stencil_identities<2>(); }
TEST(BSpline, IdentitiesIn3D) { check_stencil_identities<3>(); }

TEST(BSpline, GradientMatchesFiniteDifference) {
  const double dx = 0.1, lower[1] = {0.0}, h = 1e-7;
  for (double x0 : {0.51, 0.77, 1.03, 1.49}) {
    Stencil<1> st, sp, sm;
    double x[1] = {x0}, xp[1] = {x0 + h}, xm[1] = {x0 - h};
    st.compute(x, lower, 1 / dx);
    sp.compute(xp, lower, 1 / dx);
    sm.compute(xm, lower, 1 / dx);
    ASSERT_EQ(sp.base[0], st.base[0]);
    ASSERT_EQ(sm.base[0], st.base[0]);
    for (int k = 0; k < 3; ++k) {
      int o[1] = {k};
      double g[1];
      st.gradient(o, g);
      EXPECT_NEAR(g[0], (sp.weight(o) - sm.weight(o)) / (2 * h), 1e-6);
    }
  }
}
