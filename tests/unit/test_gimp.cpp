// Uniform GIMP shape functions (Yan et al. 2018, eqs. 5-6; particle half-width h/4): partition of
// unity, linear reproduction, gradient identities, the printed values at the breakpoints, and the
// gradient against central finite differences.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "grid/gimp.hpp"

using meniscus::grid::compute_gimp_stencil;
using meniscus::grid::gimp_slope;
using meniscus::grid::gimp_weight;
using meniscus::grid::Stencil;

namespace {

template <int Dim>
void offsets(int k, int* o) {
  for (int d = 0; d < Dim; ++d) {
    o[d] = k % 3;
    k /= 3;
  }
}

// N_I(x) of the node with global index `node`, evaluated from a fresh stencil at x (0 outside it).
template <int Dim>
double node_weight(const double* x, const double* lower, double dx, const int* node) {
  Stencil<Dim> st;
  compute_gimp_stencil<Dim>(st, x, lower, 1.0 / dx);
  int o[Dim];
  for (int d = 0; d < Dim; ++d) {
    o[d] = node[d] - st.base[d];
    if (o[d] < 0 || o[d] > 2) return 0.0;
  }
  return st.weight(o);
}

template <int Dim>
void check_identities() {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(0.2, 0.8);
  const double dx = 0.03;
  double lower[Dim];
  for (int d = 0; d < Dim; ++d) lower[d] = -0.1 * (d + 1);
  const int n = Dim == 2 ? 9 : 27;
  double worst_fd = 0;
  for (int trial = 0; trial < 1000; ++trial) {
    double x[Dim];
    for (int d = 0; d < Dim; ++d) x[d] = lower[d] + u(rng);
    Stencil<Dim> st;
    compute_gimp_stencil<Dim>(st, x, lower, 1.0 / dx);
    double wsum = 0, gsum[Dim] = {}, xsum[Dim] = {}, xg[Dim][Dim] = {};
    for (int k = 0; k < n; ++k) {
      int o[Dim];
      offsets<Dim>(k, o);
      double xi[Dim], g[Dim];
      for (int d = 0; d < Dim; ++d) xi[d] = lower[d] + (st.base[d] + o[d]) * dx;
      const double w = st.weight(o);
      st.gradient(o, g);
      EXPECT_GE(w, 0.0);
      wsum += w;
      for (int a = 0; a < Dim; ++a) {
        gsum[a] += g[a];
        xsum[a] += w * xi[a];
        for (int b = 0; b < Dim; ++b) xg[a][b] += xi[a] * g[b];
      }
      // Gradient with respect to the particle position against central differences.
      if (trial % 10 == 0) {
        int node[Dim];
        for (int d = 0; d < Dim; ++d) node[d] = st.base[d] + o[d];
        const double eps = 1e-6 * dx;
        for (int a = 0; a < Dim; ++a) {
          double xp[Dim], xm[Dim];
          for (int d = 0; d < Dim; ++d) xp[d] = xm[d] = x[d];
          xp[a] += eps;
          xm[a] -= eps;
          const double fd = (node_weight<Dim>(xp, lower, dx, node) - node_weight<Dim>(xm, lower, dx, node)) / (2 * eps);
          worst_fd = std::max(worst_fd, std::fabs(fd - g[a]) * dx);
        }
      }
    }
    EXPECT_NEAR(wsum, 1.0, 1e-14);
    for (int a = 0; a < Dim; ++a) {
      EXPECT_NEAR(gsum[a] * dx, 0.0, 1e-14);
      EXPECT_NEAR(xsum[a], x[a], 1e-14);
      for (int b = 0; b < Dim; ++b) EXPECT_NEAR(xg[a][b], a == b ? 1.0 : 0.0, 1e-13);
    }
  }
  // S is C1 and piecewise quadratic: a central difference of step 1e-6 h is exact to ~1e-9
  // (relative to 1/h) away from the breakpoints, where the one-sided slopes agree.
  EXPECT_LT(worst_fd, 1e-8);
}

}  // namespace

TEST(S001_GIMP, PartitionOfUnityAndLinearReproduction2D) { check_identities<2>(); }
TEST(S001_GIMP, PartitionOfUnityAndLinearReproduction3D) { check_identities<3>(); }

TEST(S001_GIMP, PrintedValuesAndContinuityAtBreakpoints) {
  EXPECT_DOUBLE_EQ(gimp_weight(0.0), 0.875);
  EXPECT_DOUBLE_EQ(gimp_weight(1.0), 0.0625);
  EXPECT_DOUBLE_EQ(gimp_weight(0.25), 0.75);
  EXPECT_DOUBLE_EQ(gimp_weight(0.75), 0.25);
  EXPECT_DOUBLE_EQ(gimp_weight(1.25), 0.0);
  EXPECT_DOUBLE_EQ(gimp_weight(1.4), 0.0);
  const double e = 1e-12;
  for (double b : {0.25, 0.75, 1.25}) {
    EXPECT_NEAR(gimp_weight(b - e), gimp_weight(b + e), 1e-11) << b;
    EXPECT_NEAR(gimp_slope(b - e), gimp_slope(b + e), 1e-11) << b;
  }
  EXPECT_DOUBLE_EQ(gimp_slope(0.25), -1.0);
  EXPECT_DOUBLE_EQ(gimp_slope(0.75), -1.0);
}

TEST(S001_GIMP, ParticleOnANodeSeesOnlyItsNeighbours) {
  // At a node the weights are 7/8 and 1/16 on each side (1D), summing to one.
  const double lower[1] = {0.0};
  const double x[1] = {0.5};
  Stencil<1> st;
  compute_gimp_stencil<1>(st, x, lower, 10.0);
  EXPECT_EQ(st.base[0], 4);
  EXPECT_DOUBLE_EQ(st.w[0][0], 0.0625);
  EXPECT_DOUBLE_EQ(st.w[0][1], 0.875);
  EXPECT_DOUBLE_EQ(st.w[0][2], 0.0625);
}
