// Solves of the implicit cohesion + viscosity system (Jeske et al. 2023, Algorithm 1, Eqs. 19-20): identity
// limit, momentum, Galilean invariance, rigid rotation, first-order consistency with the explicit
// force, warm-start bookkeeping and ordering independence, BiCGStab for unequal masses and the
// -sph_st_ options; stability at a time step where the explicit force explodes; and the relation of
// sigma to a surface energy on a lattice interface (mean-field estimate, docs/theory-sph-implicit.md).
#include <gtest/gtest.h>
#include <petscsys.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "methods/method.hpp"
#include "test_sph_implicit_cloud.hpp"

using namespace sph_implicit_test;
using meniscus::sph::BoundarySamples;
using meniscus::sph::CohesionKernel;
using meniscus::sph::ImplicitCohesionViscosity;
using meniscus::sph::ImplicitForceParams;

namespace {
constexpr double kD = 0.02, kH = 2 * kD, kRho0 = 1000;

// The operator cloud: ~2000 particles, lattice spacing d jittered by
// +-0.1 d, random velocities |v| <= 1 m/s.
Cloud<3> operator_cloud(unsigned seed = 3) {
  auto c = make_cloud<3>(lattice<3>({13, 13, 12}, kD, 0.1, seed), kRho0, kD * kD * kD, kH);
  c.v = random_velocities<3>(c.size(), 1.0, seed + 100);
  return c;
}

struct Solved {
  std::vector<double> v_new, dv;
  meniscus::sph::ImplicitSolveStats stats;
};

Solved solve(const Cloud<3>& c, const ImplicitForceParams& p, const std::vector<double>* warm = nullptr,
             ImplicitCohesionViscosity<3>* reuse = nullptr) {
  auto nb = neighborhood(c, kH);
  auto vw = upload(c);
  if (warm) vw.warm = to_device(*warm, c.owned, 3);
  ImplicitCohesionViscosity<3> local(MPI_COMM_SELF);
  ImplicitCohesionViscosity<3>& s = reuse ? *reuse : local;
  Solved out;
  out.stats = s.solve(nb, p, vw.v, vw.mass, vw.density, vw.phase, BoundarySamples{}, vw.warm);
  out.v_new = to_host(vw.v);
  out.v_new.resize(size_t(c.owned) * 3);
  out.dv = to_host(vw.warm);
  return out;
}

std::vector<double> flat_v(const Cloud<3>& c) {
  std::vector<double> out;
  for (int i = 0; i < c.owned; ++i)
    for (int a = 0; a < 3; ++a) out.push_back(c.v[i][a]);
  return out;
}

double norm(const std::vector<double>& a) {
  double s = 0;
  for (double x : a) s += x * x;
  return std::sqrt(s);
}

double diff_norm(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (size_t k = 0; k < a.size(); ++k) s += (a[k] - b[k]) * (a[k] - b[k]);
  return std::sqrt(s);
}
}  // namespace

// U7: without cohesion, adhesion and viscosity the operator is the identity: v* in zero iterations.
TEST(SphImplicitSolve, IdentityLimitReturnsPredictedVelocity) {
  auto c = operator_cloud();
  auto p = operator_cloud_params();
  p.sigma = 0;
  p.viscosity = 0;
  const auto r = solve(c, p);
  EXPECT_EQ(r.stats.iterations, 0);
  EXPECT_TRUE(r.stats.converged);
  EXPECT_EQ(r.v_new, flat_v(c));
}

// U8: pair impulses are equal and opposite (uniform masses), so sum m dv = 0; cohesion impulses are
// central along x_ij + dt v_ij (the end-of-step separation), viscous impulses along x_ij, so their
// torques about the matching positions vanish.
TEST(SphImplicitSolve, ConservesLinearAndAngularMomentum) {
  auto c = operator_cloud();
  const double m = c.mass[0], dt = operator_cloud_params().dt;
  for (int variant = 0; variant < 3; ++variant) {  // 0: both, 1: cohesion only, 2: viscosity only
    auto p = operator_cloud_params();
    if (variant == 1) p.viscosity = 0;
    if (variant == 2) p.sigma = 0;
    const auto r = solve(c, p);
    ASSERT_TRUE(r.stats.converged);
    double P[3] = {0, 0, 0}, L[3] = {0, 0, 0}, scale = 0, lscale = 0;
    for (int i = 0; i < c.owned; ++i) {
      double arm[3], dv[3];
      for (int a = 0; a < 3; ++a) {
        dv[a] = r.dv[3 * i + a];
        arm[a] = c.x[i][a] + (variant == 1 ? dt * r.v_new[3 * i + a] : 0.0);
        P[a] += m * dv[a];
      }
      L[0] += m * (arm[1] * dv[2] - arm[2] * dv[1]);
      L[1] += m * (arm[2] * dv[0] - arm[0] * dv[2]);
      L[2] += m * (arm[0] * dv[1] - arm[1] * dv[0]);
      const double dvn = std::sqrt(dv[0] * dv[0] + dv[1] * dv[1] + dv[2] * dv[2]);
      scale += m * dvn;
      lscale += m * dvn * std::sqrt(arm[0] * arm[0] + arm[1] * arm[1] + arm[2] * arm[2]);
    }
    EXPECT_GT(scale, 0.0);
    EXPECT_LE(std::sqrt(P[0] * P[0] + P[1] * P[1] + P[2] * P[2]), 1e-8 * scale) << "variant " << variant;
    if (variant != 0)
      EXPECT_LE(std::sqrt(L[0] * L[0] + L[1] * L[1] + L[2] * L[2]), 1e-8 * lscale) << "variant " << variant;
  }
}

// U9: a uniform velocity added to every particle passes through unchanged (tight tolerance).
TEST(SphImplicitSolve, GalileanInvariance) {
  auto c = operator_cloud();
  auto p = operator_cloud_params();
  const auto r0 = solve(c, p);
  const double U[3] = {3, -2, 1};
  for (auto& v : c.v)
    for (int a = 0; a < 3; ++a) v[a] += U[a];
  const auto r1 = solve(c, p);
  ASSERT_TRUE(r0.stats.converged && r1.stats.converged);
  EXPECT_LE(diff_norm(r0.dv, r1.dv), 1e-8 * norm(r0.dv));
}

// U10: viscosity leaves a rigid rotation alone.
TEST(SphImplicitSolve, RigidRotationFeelsNoViscosity) {
  auto c = operator_cloud();
  const double w[3] = {0.5, -1.0, 2.0};
  for (int i = 0; i < c.size(); ++i) {
    const auto& x = c.x[i];
    c.v[i] = {w[1] * x[2] - w[2] * x[1], w[2] * x[0] - w[0] * x[2], w[0] * x[1] - w[1] * x[0]};
  }
  auto p = operator_cloud_params();
  p.sigma = 0;
  p.viscosity = 100;
  const auto r = solve(c, p);
  const double wn = std::sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
  for (double dv : r.dv) ASSERT_LE(std::abs(dv), 1e-12 * wn * kH);
}

// U11: as dt -> 0 the implicit acceleration dv/dt approaches the explicit force of Eq. 8 (+ Weiler
// viscosity) at first order.
TEST(SphImplicitSolve, FirstOrderConsistentWithExplicitForce) {
  auto c = make_cloud<3>(lattice<3>({7, 7, 6}, kD, 0.1, 21), kRho0, kD * kD * kD, kH);
  c.v = random_velocities<3>(c.size(), 1.0, 22);
  // Moderate coefficients, so that dt = 1e-3 is already in the asymptotic range (omega dt << 1).
  auto p = operator_cloud_params();
  p.sigma = 10;
  p.viscosity = 0.01;
  auto nb = neighborhood(c, kH);
  auto vw = upload(c);
  Kokkos::View<double**> a("a", c.owned, 3);
  ImplicitCohesionViscosity<3>::explicit_acceleration(nb, p, vw.v, vw.mass, vw.density, vw.phase, BoundarySamples{}, a);
  const auto a_expl = to_host(a);
  std::vector<double> err;
  for (double dt : {1e-3, 5e-4, 2.5e-4, 1.25e-4}) {
    p.dt = dt;
    const auto r = solve(c, p);
    ASSERT_TRUE(r.stats.converged);
    std::vector<double> a_impl(r.dv.size());
    for (size_t k = 0; k < a_impl.size(); ++k) a_impl[k] = r.dv[k] / dt;
    err.push_back(diff_norm(a_impl, a_expl) / norm(a_expl));
  }
  for (size_t k = 1; k < err.size(); ++k) {
    const double order = std::log2(err[k - 1] / err[k]);
    EXPECT_NEAR(order, 1.0, 0.25) << "dt level " << k << " errors " << err[k - 1] << " " << err[k];
    RecordProperty("order_" + std::to_string(k), std::to_string(order));
  }
  EXPECT_LT(err.back(), 0.05);
}

// Warm start (paper Eq. 20, for the part this module owns): warm_dv returns exactly
// v_new - v*, a warm-started repeat needs no iteration, and the result does not depend on the order
// of the particles as long as warm_dv travels with its particle (the caller's particle field).
TEST(SphImplicitSolve, WarmStartBookkeepingAndOrderIndependence) {
  auto c = operator_cloud();
  auto p = operator_cloud_params();
  ImplicitCohesionViscosity<3> solver(MPI_COMM_SELF);
  const auto cold = solve(c, p, nullptr, &solver);
  const auto v0 = flat_v(c);
  for (size_t k = 0; k < v0.size(); ++k) ASSERT_EQ(cold.dv[k], cold.v_new[k] - v0[k]);
  EXPECT_GT(cold.stats.iterations, 5);

  p.rtol = 1e-9;
  const auto warm = solve(c, p, &cold.dv, &solver);
  EXPECT_EQ(warm.stats.iterations, 0);
  EXPECT_LE(diff_norm(warm.v_new, cold.v_new), 1e-14 * norm(cold.v_new));  // x0 = v* + (v_new - v*)

  // A random permutation of the particles, with warm_dv permuted alongside.
  std::vector<int> perm(c.size());
  std::iota(perm.begin(), perm.end(), 0);
  std::mt19937 rng(9);
  std::shuffle(perm.begin(), perm.end(), rng);
  Cloud<3> q = c;
  std::vector<double> qwarm(3 * c.size());
  for (int k = 0; k < c.size(); ++k) {
    q.x[k] = c.x[perm[k]];
    q.v[k] = c.v[perm[k]];
    q.density[k] = c.density[perm[k]];
    for (int a = 0; a < 3; ++a) qwarm[3 * k + a] = 0.5 * cold.dv[3 * perm[k] + a];  // a partial guess
  }
  p.rtol = 1e-12;
  const auto pr = solve(q, p, &qwarm);
  std::vector<double> back(pr.v_new.size());
  for (int k = 0; k < c.size(); ++k)
    for (int a = 0; a < 3; ++a) back[3 * perm[k] + a] = pr.v_new[3 * k + a];
  EXPECT_LE(diff_norm(back, cold.v_new), 1e-10 * norm(cold.v_new));
}

// Unequal masses make the system non-symmetric: the default switches to BiCGStab, which must still
// meet the tolerance on the true residual. Options under -sph_st_ override the defaults.
TEST(SphImplicitSolve, BiCGStabForUnequalMassesAndOptionsPrefix) {
  auto c = operator_cloud();
  std::mt19937 rng(4);
  std::uniform_real_distribution<double> u(0.8, 1.2);
  for (auto& m : c.mass) m *= u(rng);
  compute_density(c, kH);
  auto p = operator_cloud_params();
  p.rtol = 1e-8;
  auto nb = neighborhood(c, kH);
  auto vw = upload(c);
  ImplicitCohesionViscosity<3> solver(MPI_COMM_SELF);
  const auto st = solver.solve(nb, p, vw.v, vw.mass, vw.density, vw.phase, BoundarySamples{}, vw.warm);
  EXPECT_EQ(solver.krylov_type(), "bcgs");
  EXPECT_TRUE(st.converged);
  // True residual of the returned velocity.
  Kokkos::View<double**> y("y", c.owned, 3);
  solver.apply(Kokkos::subview(vw.v, Kokkos::make_pair(0, c.owned), Kokkos::ALL()), y);
  const auto rhs = to_host(solver.right_hand_side());
  EXPECT_LE(diff_norm(to_host(y), rhs), 2 * p.rtol * norm(rhs));

  // Uniform masses: CG by default; -sph_st_ksp_max_it caps the iterations whatever the deck says.
  auto c2 = operator_cloud();
  ImplicitCohesionViscosity<3> cg(MPI_COMM_SELF);
  const auto r = solve(c2, operator_cloud_params(), nullptr, &cg);
  EXPECT_EQ(cg.krylov_type(), "cg");
  ASSERT_GT(r.stats.iterations, 3);
  PetscOptionsSetValue(nullptr, "-sph_st_ksp_max_it", "3");
  PetscOptionsSetValue(nullptr, "-sph_st_ksp_type", "bcgs");
  ImplicitCohesionViscosity<3> capped(MPI_COMM_SELF);
  const auto rc = solve(c2, operator_cloud_params(), nullptr, &capped);
  const std::string capped_type = capped.krylov_type();
  PetscOptionsClearValue(nullptr, "-sph_st_ksp_max_it");
  PetscOptionsClearValue(nullptr, "-sph_st_ksp_type");
  EXPECT_EQ(rc.stats.iterations, 3);
  EXPECT_FALSE(rc.stats.converged);
  EXPECT_EQ(capped_type, "bcgs");

  // Jacobi preconditioning through the shell's diagonal: the same solution.
  PetscOptionsSetValue(nullptr, "-sph_st_pc_type", "jacobi");
  const auto rj = solve(c2, operator_cloud_params());
  PetscOptionsClearValue(nullptr, "-sph_st_pc_type");
  EXPECT_TRUE(rj.stats.converged);
  EXPECT_LE(diff_norm(rj.v_new, r.v_new), 1e-9 * norm(r.v_new));
}

// The operator is SPD with M >= I, so one backward-Euler step cannot create energy. A 27-particle
// cluster at a time step ~19x beyond the explicit limit of a single clamped pair (spring constant
// 0.1137 sigma, omega = sqrt(0.1137 sigma / m) = 3770 /s, omega dt = 38 > 2): the explicit
// cohesion force pumps kinetic energy far above the depth of the whole pair potential, the implicit
// solve keeps it below (no pressure here: cohesion alone collapses the cluster).
TEST(SphImplicitSolve, LargeTimeStepStaysBoundedWhereExplicitExplodes) {
  ImplicitForceParams p;
  p.dt = 0.01;
  p.sigma = 1e6;
  p.viscosity = 0;
  p.rest_density = kRho0;
  p.particle_diameter = kD;
  p.rtol = 1e-6;
  p.max_iterations = 500;
  const auto start = lattice<3>({3, 3, 3}, kD, 0.05, 17);
  const int n = int(start.size());
  const double m = kRho0 * kD * kD * kD;
  // Depth of the pair potential: int_0^h r W^st(r) dr times sigma V_max, V_max = m / min(rho) bounded
  // by m / (m W(0)) (a particle alone); summed over every pair.
  CohesionKernel<3> st(kH, kD, 10.0 / 7.0);
  double depth = 0;
  for (int k = 0; k < 20000; ++k) {
    const double r = (k + 0.5) * kH / 20000;
    depth += r * st.value(r) * kH / 20000;
  }
  const double v_max = 1.0 / meniscus::sph::CubicSpline<3>(kH).value(0);
  const double energy_bound = 0.5 * n * (n - 1) * p.sigma * v_max * depth;

  double ke_max[2] = {0, 0};
  for (int implicit = 0; implicit < 2; ++implicit) {
    auto c = make_cloud<3>(start, kRho0, kD * kD * kD, kH);
    ImplicitCohesionViscosity<3> solver(MPI_COMM_SELF);
    std::vector<double> warm(3 * n, 0.0);
    for (int step = 0; step < 40; ++step) {
      compute_density(c, kH);
      auto nb = neighborhood(c, kH);
      auto vw = upload(c);
      vw.warm = to_device(warm, n, 3);
      std::vector<double> vnew;
      if (implicit) {
        solver.solve(nb, p, vw.v, vw.mass, vw.density, vw.phase, BoundarySamples{}, vw.warm);
        vnew = to_host(vw.v);
        warm = to_host(vw.warm);
      } else {
        Kokkos::View<double**> a("a", n, 3);
        ImplicitCohesionViscosity<3>::explicit_acceleration(nb, p, vw.v, vw.mass, vw.density, vw.phase,
                                                            BoundarySamples{}, a);
        const auto ah = to_host(a);
        vnew.resize(3 * n);
        for (int i = 0; i < n; ++i)
          for (int a3 = 0; a3 < 3; ++a3) vnew[3 * i + a3] = c.v[i][a3] + p.dt * ah[3 * i + a3];
      }
      double ke = 0;
      for (int i = 0; i < n; ++i)
        for (int a3 = 0; a3 < 3; ++a3) {
          c.v[i][a3] = vnew[3 * i + a3];
          c.x[i][a3] += p.dt * c.v[i][a3];
          ke += 0.5 * m * c.v[i][a3] * c.v[i][a3];
        }
      if (!std::isfinite(ke)) ke = 1e300;
      ke_max[implicit] = std::max(ke_max[implicit], ke);
    }
  }
  RecordProperty("explicit_ke_over_bound", std::to_string(ke_max[0] / energy_bound));
  RecordProperty("implicit_ke_over_bound", std::to_string(ke_max[1] / energy_bound));
  EXPECT_LT(ke_max[1], energy_bound);
  EXPECT_GT(ke_max[0], 10 * energy_bound);
}

// Mean field (docs/theory-sph-implicit.md): the pair force -sigma V x W^st derives from a pair potential, so separating two
// half-spaces costs 2 gamma per area. Measured with this module's force on a laterally periodic (100)
// cubic lattice (V = d^3, support 2d): the work integral of the force between the halves. The same
// number follows from the lattice sum of the pair potential: 0.027825 sigma (evaluated independently
// by direct summation). The mean-field (Fowler) estimate of a uniform fluid is 0.0413 sigma; a
// lattice interface gives 0.674 of it. A dynamic calibration (Laplace pressure, Rayleigh period)
// needs DFSPH and is left to the SPH integration tests.
TEST(SphImplicitSolve, SurfaceEnergyOfALatticeInterface) {
  const double d = kD, h = kH, sigma = 1.0, m = kRho0 * d * d * d;
  ImplicitForceParams p;
  p.dt = 1e-3;
  p.sigma = sigma;
  p.rest_density = kRho0;
  p.particle_diameter = d;
  const int layers = 3, reach = 2;
  auto force_on_upper = [&](double gap) {  // gap: distance between the facing layers (>= d)
    Cloud<3> c;
    for (int k = 0; k < layers; ++k) c.x.push_back({0, 0, gap + k * d});  // owned column
    c.owned = layers;
    for (int i = -reach; i <= reach; ++i)
      for (int j = -reach; j <= reach; ++j)
        for (int k = 0; k < layers; ++k) {
          if (i != 0 || j != 0) c.x.push_back({i * d, j * d, gap + k * d});  // lateral images
          c.x.push_back({i * d, j * d, -k * d});                               // lower half
        }
    c.v.assign(c.x.size(), Point<3>{});
    c.mass.assign(c.x.size(), m);
    c.density.assign(c.x.size(), kRho0);
    c.phase.assign(c.x.size(), 0);
    auto nb = neighborhood(c, h);
    auto vw = upload(c);
    Kokkos::View<double**> a("a", c.owned, 3);
    ImplicitCohesionViscosity<3>::explicit_acceleration(nb, p, vw.v, vw.mass, vw.density, vw.phase, BoundarySamples{}, a);
    const auto ah = to_host(a);
    double fz = 0;
    for (int k = 0; k < layers; ++k) fz += m * ah[3 * k + 2];
    return fz;
  };
  // Work to pull the halves from contact (gap d) to beyond the support (gap 2d), per column area d^2.
  const int steps = 4000;
  double work = 0;
  for (int s = 0; s < steps; ++s) {
    const double g0 = d + s * d / steps, g1 = g0 + d / steps;
    work -= 0.5 * (force_on_upper(g0) + force_on_upper(g1)) * (g1 - g0);
  }
  const double gamma = work / (d * d) / 2;
  RecordProperty("gamma_over_sigma_lattice100", std::to_string(gamma / sigma));
  EXPECT_NEAR(gamma / sigma, 0.027825, 2e-4 * 0.027825);
  // Mean-field (Fowler) estimate, docs/theory-sph-implicit.md: gamma = pi sigma / (8 V) int_0^h r^5 W^st dr.
  CohesionKernel<3> st(h, d, 10.0 / 7.0);
  double mf = 0;
  for (int k = 0; k < 20000; ++k) {
    const double r = (k + 0.5) * h / 20000;
    mf += std::pow(r, 5) * st.value(r) * h / 20000;
  }
  mf *= M_PI / (8 * d * d * d);
  EXPECT_NEAR(mf, 0.0413, 0.0001);
  EXPECT_NEAR(gamma / (mf * sigma), 0.674, 0.005);
}

// One solver object serves every step although the particle count changes from step to step.
TEST(SphImplicitSolve, SolverIsReusedAcrossParticleCounts) {
  ImplicitCohesionViscosity<3> solver(MPI_COMM_SELF);
  auto p = operator_cloud_params();
  p.rtol = 1e-10;
  for (int n : {6, 5, 7}) {
    auto c = make_cloud<3>(lattice<3>({n, n, n}, kD, 0.1, unsigned(n)), kRho0, kD * kD * kD, kH);
    c.v = random_velocities<3>(c.size(), 1.0, unsigned(n + 1));
    const auto reused = solve(c, p, nullptr, &solver);
    const auto fresh = solve(c, p);
    ASSERT_TRUE(reused.stats.converged);
    EXPECT_LE(diff_norm(reused.v_new, fresh.v_new), 1e-14 * norm(fresh.v_new));
  }
}

// The 2D instantiation (theta = 7/4, 2(delta+2) = 8): symmetric operator with M >= I on random
// vectors, and momentum conservation of the solve.
TEST(SphImplicitSolve, TwoDimensionalSolveIsSymmetricAndConservative) {
  auto c = make_cloud<2>(lattice<2>({30, 30}, kD, 0.1, 31), kRho0, kD * kD, kH);
  c.v = random_velocities<2>(c.size(), 1.0, 32);
  auto p = operator_cloud_params();
  auto nb = neighborhood(c, kH);
  auto vw = upload(c);
  ImplicitCohesionViscosity<2> solver(MPI_COMM_SELF);
  solver.prepare(nb, p, vw.v, vw.mass, vw.density, vw.phase, BoundarySamples{});
  const int n = c.owned;
  std::mt19937 rng(8);
  std::normal_distribution<double> nd;
  std::vector<double> u(2 * n), w(2 * n);
  for (int k = 0; k < 2 * n; ++k) {
    u[k] = nd(rng);
    w[k] = nd(rng);
  }
  auto apply = [&](const std::vector<double>& in) {
    Kokkos::View<double**> y("y", n, 2);
    solver.apply(to_device(in, n, 2), y);
    return to_host(y);
  };
  const auto Mu = apply(u), Mw = apply(w);
  double uMw = 0, wMu = 0, uMu = 0, uu = 0;
  for (int k = 0; k < 2 * n; ++k) {
    uMw += u[k] * Mw[k];
    wMu += w[k] * Mu[k];
    uMu += u[k] * Mu[k];
    uu += u[k] * u[k];
  }
  EXPECT_LE(std::abs(uMw - wMu), 1e-12 * norm(u) * norm(Mw));
  EXPECT_GE(uMu, uu);            // M >= I
  EXPECT_GT(uMu, 1.2 * uu);      // and not close to the identity at these coefficients
  const auto st = solver.solve(nb, p, vw.v, vw.mass, vw.density, vw.phase, BoundarySamples{}, vw.warm);
  ASSERT_TRUE(st.converged);
  const auto dv = to_host(vw.warm);
  double P[2] = {0, 0}, scale = 0;
  for (int i = 0; i < n; ++i) {
    P[0] += c.mass[i] * dv[2 * i];
    P[1] += c.mass[i] * dv[2 * i + 1];
    scale += c.mass[i] * std::hypot(dv[2 * i], dv[2 * i + 1]);
  }
  EXPECT_LE(std::hypot(P[0], P[1]), 1e-8 * scale);
}

// A fluid at rest without cohesion has a zero right-hand side: the solve returns zero velocities
// without iterating (no breakdown of CG on a zero residual).
TEST(SphImplicitSolve, ZeroRightHandSideGivesZeroVelocity) {
  auto c = operator_cloud();
  for (auto& v : c.v) v = {0, 0, 0};
  auto p = operator_cloud_params();
  p.sigma = 0;
  const auto r = solve(c, p);
  EXPECT_TRUE(r.stats.converged);
  EXPECT_EQ(r.stats.iterations, 0);
  for (double v : r.v_new) ASSERT_EQ(v, 0.0);
}

// Delta form (ours): at the paper's tolerance the stopping test is relative to ||v* + b||, so a large
// uniform velocity (which the operator passes through unchanged) loosens the accuracy of dv. The
// delta form solves for dv with a tolerance relative to the impulse and is Galilean invariant at any
// tolerance; both forms agree when solved tightly.
TEST(SphImplicitSolve, DeltaFormKeepsGalileanInvarianceAtPaperTolerance) {
  auto c = operator_cloud();
  auto p = operator_cloud_params();
  const auto tight = solve(c, p);
  p.solve_for_delta = true;
  const auto tight_delta = solve(c, p);
  EXPECT_LE(diff_norm(tight.dv, tight_delta.dv), 1e-9 * norm(tight.dv));

  p.rtol = 1e-3;
  auto moving = c;
  for (auto& v : moving.v) v = {v[0] + 30, v[1] - 20, v[2] + 10};
  const auto delta_rest = solve(c, p);
  const auto delta_moving = solve(moving, p);
  EXPECT_LE(diff_norm(delta_rest.dv, delta_moving.dv), 1e-8 * norm(delta_rest.dv));
  EXPECT_LE(diff_norm(delta_rest.dv, tight.dv), 10 * p.rtol * norm(tight.dv));  // measured 4.4e-4

  p.solve_for_delta = false;
  const auto plain_rest = solve(c, p);
  const auto plain_moving = solve(moving, p);
  const double err_rest = diff_norm(plain_rest.dv, tight.dv) / norm(tight.dv);
  const double err_moving = diff_norm(plain_moving.dv, tight.dv) / norm(tight.dv);
  RecordProperty("dv_error_plain_rest", std::to_string(err_rest));
  RecordProperty("dv_error_plain_moving", std::to_string(err_moving));
  RecordProperty("dv_error_delta", std::to_string(diff_norm(delta_moving.dv, tight.dv) / norm(tight.dv)));
  EXPECT_GT(err_moving, 1.5 * err_rest);  // the paper form loses accuracy in the moving frame (8.7e-4 vs 4.4e-4)
}

TEST(SphImplicitSolve, DivergedSolveRejectsTheStepNamingSolverAndReason) {
  // A divergence tolerance below 1 makes PETSc declare the first iteration diverged
  // (KSP_DIVERGED_DTOL): the implicit surface-tension solve must reject the step, not use the iterate.
  auto c = operator_cloud();
  PetscOptionsSetValue(nullptr, "-sph_st_ksp_divtol", "1e-30");
  std::string message;
  try {
    solve(c, operator_cloud_params());
  } catch (const meniscus::StepRejected& e) {
    message = e.what();
  }
  PetscOptionsClearValue(nullptr, "-sph_st_ksp_divtol");
  EXPECT_NE(message.find("KSP sph_st_: DIVERGED_DTOL"), std::string::npos) << message;
  // Without the option the same solve converges.
  EXPECT_TRUE(solve(c, operator_cloud_params()).stats.converged);
}
