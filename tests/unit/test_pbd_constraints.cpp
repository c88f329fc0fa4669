// Position-based fluid constraints of Xing et al. 2022 (sec. 3.1, 3.4; Eqs. 1-4, 9-10): the lattice
// the paper's units rest on (92 neighbours in the support h = 6r of a cubic lattice of spacing 2r,
// calibrated mass), the density multiplier against finite differences of C, the unilateral distance
// projection against its closed form and its gradient against finite differences, and the Jacobi gather against the scatter form of the paper.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "core/cubic_spline.hpp"
#include "methods/pbd/pbf_constraints.hpp"
#include "particles/neighbor_search.hpp"

using namespace meniscus;

namespace {
constexpr double kR = 0.1, kH = 0.6, kD0 = 0.2;

// A small cloud as owned rows (no ghosts) with its neighbour lists and zero labels.
struct Cloud {
  std::vector<double> p;  // n x 3
  pbd::PbfSweep sweep;
  int n() const { return static_cast<int>(p.size() / 3); }
  void build(double mass, double density_cfm, double distance_cfm) {
    const int n = this->n();
    sweep.x = Kokkos::View<double**>("x", n, 3);
    auto xh = Kokkos::create_mirror_view(sweep.x);
    for (int i = 0; i < n; ++i)
      for (int d = 0; d < 3; ++d) xh(i, d) = p[3 * i + d];
    Kokkos::deep_copy(sweep.x, xh);
    particles::NeighborLists lists;
    particles::build_neighbor_lists<3>(sweep.x, n, kH, lists);
    sweep.offset = lists.offset;
    sweep.index = lists.index;
    sweep.label = Kokkos::View<int*>("label", n);
    sweep.density_off = Kokkos::View<int*>("off", n);
    sweep.owned = n;
    sweep.mass = mass;
    sweep.rest_density = 1.0;
    sweep.support = kH;
    sweep.min_distance = kD0;
    sweep.density_cfm = density_cfm;
    sweep.distance_cfm = distance_cfm;
  }
};

// Cubic lattice of spacing 2r, (2k+1)^3 points centred on the origin (index 0 is the centre).
std::vector<double> lattice(int k) {
  std::vector<double> p = {0, 0, 0};
  for (int a = -k; a <= k; ++a)
    for (int b = -k; b <= k; ++b)
      for (int c = -k; c <= k; ++c)
        if (a || b || c) p.insert(p.end(), {2 * kR * a, 2 * kR * b, 2 * kR * c});
  return p;
}

double kernel_sum(const std::vector<double>& p, int i) {
  const kernels::CubicSpline<3> w(kH);
  double s = 0;
  for (size_t j = 0; j < p.size() / 3; ++j) {
    double r2 = 0;
    for (int d = 0; d < 3; ++d) r2 += (p[3 * i + d] - p[3 * j + d]) * (p[3 * i + d] - p[3 * j + d]);
    s += w.value(std::sqrt(r2));
  }
  return s;
}
}  // namespace

TEST(PbdConstraints, LatticeNeighboursAndCalibratedMass) {  // Xing 2022 sec. 3.4: h = 6r, d0 = 2r
  const auto p = lattice(4);
  int neighbours = 0;
  for (size_t j = 1; j < p.size() / 3; ++j) {
    const double r2 = p[3 * j] * p[3 * j] + p[3 * j + 1] * p[3 * j + 1] + p[3 * j + 2] * p[3 * j + 2];
    neighbours += r2 < kH * kH * (1 - 1e-12) ? 1 : 0;
  }
  EXPECT_EQ(neighbours, 92);  // lattice points with |n|^2 < 9, n != 0
  const double mass = 1.0 / kernel_sum(p, 0);
  EXPECT_NEAR(mass, 0.0079857, 5e-7);  // the paper's re-implementation units (r = 0.1, rho0 = 1)
  Cloud c;
  c.p = p;
  c.build(mass, 600, 40);
  Kokkos::View<double*> rho("rho", c.n()), lambda("lambda", c.n());
  pbd::density_and_lambda(c.sweep, rho, lambda);
  auto rh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), rho);
  auto lh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), lambda);
  EXPECT_NEAR(rh(0), 1.0, 1e-12);
  EXPECT_NEAR(lh(0), 0.0, 1e-12);
}

TEST(PbdConstraints, DensityLambdaMatchesFiniteDifferences) {  // lambda = -C / (sum_k |grad_k C|^2 + eps)
  auto p = lattice(3);
  const double mass = 1.0 / kernel_sum(p, 0);
  p[3 * 5 + 0] += 0.037;  // one neighbour displaced
  p[3 * 5 + 2] -= 0.021;
  p[0] += 0.011;
  const double eps = 600;
  Cloud c;
  c.p = p;
  c.build(mass, eps, 40);
  Kokkos::View<double*> rho("rho", c.n()), lambda("lambda", c.n());
  pbd::density_and_lambda(c.sweep, rho, lambda);
  auto lh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), lambda);
  auto C = [&](const std::vector<double>& q) { return mass * kernel_sum(q, 0) - 1.0; };
  const double c0 = C(p);
  ASSERT_GT(std::fabs(c0), 1e-4);  // the displacement violates the constraint
  double S = 0;
  const double step = 1e-6;
  for (int k = 0; k < c.n(); ++k)
    for (int d = 0; d < 3; ++d) {
      auto a = p, b = p;
      a[3 * k + d] += step;
      b[3 * k + d] -= step;
      const double g = (C(a) - C(b)) / (2 * step);
      S += g * g;
    }
  EXPECT_NEAR(lh(0), -c0 / (S + eps), 1e-7 * std::fabs(c0 / (S + eps)));
  // Without CFM the multiplier is the Newton step of the linearised constraint.
  c.build(mass, 0, 40);
  pbd::density_and_lambda(c.sweep, rho, lambda);
  Kokkos::deep_copy(lh, lambda);
  EXPECT_NEAR(lh(0), -c0 / S, 1e-6 * std::fabs(c0 / S));
}

TEST(PbdConstraints, DistanceProjectionOfAClosePair) {  // two particles at 1.5 r
  for (double eps : {0.0, 40.0}) {
    Cloud c;
    c.p = {0, 0, 0, 1.5 * kR, 0, 0, 5.0, 0, 0, 5.0 + 2 * kR, 0, 0};  // second pair exactly at d0: untouched
    c.build(0.0, 600, eps);  // zero mass: no density correction
    Kokkos::View<double*> lambda("lambda", c.n());
    Kokkos::View<double**> dp("dp", c.n(), 3);
    pbd::gather_corrections(c.sweep, lambda, dp);
    auto d = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dp);
    const double sep = 1.5 * kR + d(1, 0) - d(0, 0);
    EXPECT_NEAR(sep - 1.5 * kR, 0.5 * kR * 2 / (2 + eps), 1e-15);  // eps = 0: exactly 2r
    EXPECT_DOUBLE_EQ(d(0, 0), -d(1, 0));                         // momentum: equal and opposite
    for (int i = 2; i < 4; ++i)
      for (int k = 0; k < 3; ++k) EXPECT_EQ(d(i, k), 0.0);
  }
}

TEST(PbdConstraints, DistanceGradientMatchesFiniteDifferences) {
  // A pair closer than d0 along an oblique direction: the correction of each particle must be
  // lambda grad_k C with C(x_0, x_1) = |x_0 - x_1| - d0, grad_k C by central differences and
  // lambda = -C / (|grad_0 C|^2 + |grad_1 C|^2 + eps) (paper Eqs. 9-10).
  const double dir[3] = {0.48, -0.6, 0.64};  // unit length
  const double eps = 40, len = 1.3 * kR;
  Cloud c;
  c.p = {0.01, 0.02, -0.03, 0.01 + len * dir[0], 0.02 + len * dir[1], -0.03 + len * dir[2]};
  c.build(0.0, 600, eps);  // zero mass: no density correction
  Kokkos::View<double*> lambda("lambda", c.n());
  Kokkos::View<double**> dp("dp", c.n(), 3);
  pbd::gather_corrections(c.sweep, lambda, dp);
  auto d = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dp);
  auto C = [&](const std::vector<double>& q) {
    return std::sqrt(std::pow(q[0] - q[3], 2) + std::pow(q[1] - q[4], 2) + std::pow(q[2] - q[5], 2)) - kD0;
  };
  const double h = 1e-6;
  double g[6], s = 0;
  for (int k = 0; k < 6; ++k) {
    auto a = c.p, b = c.p;
    a[k] += h;
    b[k] -= h;
    g[k] = (C(a) - C(b)) / (2 * h);
    s += g[k] * g[k];
  }
  const double lam = -C(c.p) / (s + eps);
  for (int k = 0; k < 6; ++k) EXPECT_NEAR(d(k / 3, k % 3), lam * g[k], 1e-10) << "component " << k;
}

TEST(PbdConstraints, JacobiGatherEqualsConstraintScatter) {
  // The paper's form: every constraint adds lambda grad_k C to each particle k it involves (Eq. 4 and
  // Eq. 10). The gather must give the same dp to round-off, including surface/interior label rules.
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-0.06, 0.06);
  auto p = lattice(2);
  for (auto& v : p) v += u(rng);
  const int n = static_cast<int>(p.size() / 3);
  const double mass = 0.0079857, eps_p = 50, eps_d = 40;
  Cloud c;
  c.p = p;
  c.build(mass, eps_p, eps_d);
  std::vector<int> label(n);
  auto lab = Kokkos::create_mirror_view(c.sweep.label);
  for (int i = 0; i < n; ++i) lab(i) = label[i] = (i % 3 == 0);
  Kokkos::deep_copy(c.sweep.label, lab);
  Kokkos::View<double*> rho("rho", n), lambda("lambda", n);
  Kokkos::View<double**> dp("dp", n, 3);
  pbd::density_and_lambda(c.sweep, rho, lambda);
  pbd::gather_corrections(c.sweep, lambda, dp);
  auto d = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dp);
  auto lh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), lambda);
  const kernels::CubicSpline<3> w(kH);
  std::vector<double> ref(3 * n, 0.0);
  long active_pairs = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      if (i == j) continue;
      double xij[3], g[3];
      for (int k = 0; k < 3; ++k) xij[k] = p[3 * i + k] - p[3 * j + k];
      w.gradient(xij, g);
      for (int k = 0; k < 3; ++k) {
        ref[3 * i + k] += lh(i) * mass * g[k];  // constraint i on particle i
        ref[3 * j + k] -= lh(i) * mass * g[k];  // constraint i on particle j
      }
      if (j > i && label[i] == label[j]) {  // each pair once
        const double r = std::sqrt(xij[0] * xij[0] + xij[1] * xij[1] + xij[2] * xij[2]);
        if (r < kD0) {
          ++active_pairs;
          const double l = -(r - kD0) / (2 + eps_d);
          for (int k = 0; k < 3; ++k) {
            ref[3 * i + k] += l * xij[k] / r;
            ref[3 * j + k] -= l * xij[k] / r;
          }
        }
      }
    }
  EXPECT_GT(active_pairs, 5);
  double err = 0, scale = 0;
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) {
      err = std::max(err, std::fabs(d(i, k) - ref[3 * i + k]));
      scale = std::max(scale, std::fabs(ref[3 * i + k]));
    }
  EXPECT_LT(err, 1e-13 * scale) << "scale " << scale;
}
