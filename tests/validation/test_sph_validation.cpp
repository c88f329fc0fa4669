// SPH (seed 002) against analytic references that hold whatever the internal forces do: a free drop
// under gravity moves its centre of mass on the ballistic parabola, and a rotating drop in zero
// gravity keeps its linear and angular momentum (pressure, cohesion and Weiler viscosity are central
// pair forces). Long: the zero-g cube with explicit surface tension at small sigma (paper E1 setting).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "core/log.hpp"
#include "methods/sph/sph_jeske.hpp"
#include "scene.hpp"
#include "validation_support.hpp"

using namespace meniscus;
using test::column;

namespace {
std::string drop_deck(const std::string& gravity, const std::string& extra) {
  return R"(
simulation: {dimension: 3, method: sph-jeske2023, end_time: 10.0}
domain: {lower: [-2, -2, -2], upper: [2, 2, 2], cell_size: 0.04, walls: none}
sph: {particle_radius: 0.02, gravity: )" + gravity + R"(, dt: 0.001, st_mode: explicit, surface_tension: 300,
      viscosity: 0.01, mass_volume_factor: 1.0}
materials: [{name: water, density: 1000}]
sources: [{type: sphere, material: water, center: [0.02, 0.02, 0.02], radius: 0.17, particles_per_cell: 1)" +
         extra + "}]\n";
}
}  // namespace

TEST(SphValidation, FreeDropFollowsTheBallisticParabola) {
  auto d = test::deck_from_string(drop_deck("[0, -9.81, 0]", ", velocity: [0.5, 1.0, -0.3], angular_velocity: 4.0, rotation_center: [0.02, 0.02, 0.02]"));
  sph::SphJeske<3> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 3});
  DiagnosticRow r0, r1;
  m.diagnostics(r0);
  const int steps = 150;
  const double dt = 1e-3, t = steps * dt;
  for (int s = 0; s < steps; ++s) m.step(dt);
  m.diagnostics(r1);
  // Symplectic Euler with constant g: x_n = x_0 + v_0 t + g dt^2 n(n+1)/2 for the centre of mass.
  const double drop = 9.81 * dt * dt * steps * (steps + 1) / 2.0;
  // The lattice's centre is not exactly the rotation centre: take the initial mean velocity from the momentum.
  const double M = column(r0, "mass");
  const double ex = column(r0, "centroid_x") + column(r0, "momentum_x") / M * t,
               ey = column(r0, "centroid_y") + column(r0, "momentum_y") / M * t - drop,
               ez = column(r0, "centroid_z") + column(r0, "momentum_z") / M * t;
  const double err = std::sqrt(std::pow(column(r1, "centroid_x") - ex, 2) + std::pow(column(r1, "centroid_y") - ey, 2) +
                               std::pow(column(r1, "centroid_z") - ez, 2));
  const double path = std::sqrt(0.25 + 1.0 + 0.09) * t + drop;
  EXPECT_EQ(column(r1, "components"), 1);
  EXPECT_LT(err, 1e-10 * path);
  test::record_check("sph_free_drop_centroid", "ballistic parabola of the centre of mass", "1e-10 of the path",
                     log::format("%.2e", err / path), err < 1e-10 * path);
}

TEST(SphValidation, RotatingDropKeepsLinearAndAngularMomentum) {
  auto d = test::deck_from_string(drop_deck("[0, 0, 0]", ", velocity: [0.2, 0, 0], angular_velocity: 6.0, rotation_center: [0.02, 0.02, 0.02]"));
  sph::SphJeske<3> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 3});
  DiagnosticRow r0, r1;
  m.diagnostics(r0);
  for (int s = 0; s < 200; ++s) m.step(1e-3);
  m.diagnostics(r1);
  const double L0 = column(r0, "angular_momentum_z"), p0 = column(r0, "momentum_x");
  ASSERT_GT(std::fabs(L0), 0);
  double dL = 0;
  for (const char* c : {"angular_momentum_x", "angular_momentum_y", "angular_momentum_z"})
    dL = std::max(dL, std::fabs(column(r1, c) - column(r0, c)));
  double dp = 0;
  for (const char* c : {"momentum_x", "momentum_y", "momentum_z"}) dp = std::max(dp, std::fabs(column(r1, c) - column(r0, c)));
  EXPECT_LT(dL, 1e-10 * std::fabs(L0));
  EXPECT_LT(dp, 1e-10 * std::fabs(p0));
  // Viscosity and the one-sided pressure can only take energy out of a rigid rotation (no source).
  EXPECT_LT(column(r1, "kinetic_energy"), column(r0, "kinetic_energy") * (1 + 1e-9));
  test::record_check("sph_rotating_drop_momenta", "conservation of linear and angular momentum", "1e-10 relative",
                     log::format("dL/L = %.2e, dp/p = %.2e", dL / std::fabs(L0), dp / std::fabs(p0)),
                     dL < 1e-10 * std::fabs(L0) && dp < 1e-10 * std::fabs(p0));
}

TEST(SphValidation, LongExplicitZeroGravityCubeAtSmallSigma) {
  // Paper E1 with the explicit variant at a sigma where it should be stable: 9^3 particles, r = 0.02,
  // sigma = 500 N/m (gamma_eff ~ 21 N/m, Rayleigh period ~ 1.7 s), dt = 0.25 ms, XSPH 0.5, 1.5 s.
  // Reference: a uniform ball of the same volume has R_g = sqrt(3/5) R_eq; the cube starts at 1.035.
  auto d = test::deck_from_string(R"(
simulation: {dimension: 3, method: sph-jeske2023, end_time: 10.0}
domain: {lower: [-1, -1, -1], upper: [1, 1, 1], cell_size: 0.04, walls: none}
sph: {particle_radius: 0.02, gravity: [0, 0, 0], dt: 0.00025, st_mode: explicit, surface_tension: 500, xsph: 0.5,
      mass_volume_factor: 1.0}
materials: [{name: water, density: 1000}]
sources: [{type: box, material: water, lower: [-0.18, -0.18, -0.18], upper: [0.18, 0.18, 0.18], particles_per_cell: 1}]
)");
  sph::SphJeske<3> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 3});
  DiagnosticRow r;
  for (int s = 0; s < 6000; ++s) m.step(2.5e-4);
  m.diagnostics(r);
  const double rg = column(r, "rg_over_ball");
  EXPECT_EQ(column(r, "components"), 1);
  EXPECT_GT(column(r, "sphericity"), 0.95);
  EXPECT_NEAR(rg, 1.0, 0.03);
  test::record_check("sph_explicit_cube_small_sigma", "R_g of a uniform ball (sqrt(3/5) R_eq)", "3 %",
                     log::format("R_g / ball = %.4f, components %g", rg, column(r, "components")),
                     std::fabs(rg - 1.0) <= 0.03 && column(r, "components") == 1);
}

namespace {
// Paper E1 at CI size: 9^3 particles (r = 0.02, V = 0.8 d^3), sigma = 70 000 N/m, dt = 1 ms, XSPH 0.5.
std::string cube_deck(const std::string& mode) {
  return R"(
simulation: {dimension: 3, method: sph-jeske2023, end_time: 10.0}
domain: {lower: [-1.2, -1.2, -1.2], upper: [1.2, 1.2, 1.2], cell_size: 0.08, walls: none}
sph: {particle_radius: 0.02, gravity: [0, 0, 0], dt: 0.001, st_mode: )" + mode + R"(, surface_tension: 70000,
      xsph: 0.5, mass_volume_factor: 0.8}
materials: [{name: water, density: 1000}]
sources: [{type: box, material: water, lower: [-0.18, -0.18, -0.18], upper: [0.18, 0.18, 0.18], particles_per_cell: 8}]
)";
}
}  // namespace

TEST(SphValidation, ImplicitZeroGravityCubeBecomesOneSphereWhereExplicitFails) {
  // Acceptance (issue 5): one component, sphericity >= 0.95, R_g within 3 % of the uniform ball's
  // sqrt(3/5) R_eq, at a sigma and dt where the explicit variant throws particles off.
  auto di = test::deck_from_string(cube_deck("implicit"));
  sph::SphJeske<3> imp(MethodContext{MPI_COMM_WORLD, di.deck.root(), 3});
  const double n0 = static_cast<double>(imp.global_particle_count());
  int worst_cg = 0;
  bool converged = true;
  for (int s = 0; s < 300; ++s) {
    imp.step(1e-3);
    worst_cg = std::max(worst_cg, imp.last_step().st_iterations);
    converged = converged && imp.last_step().st_converged;
  }
  DiagnosticRow r;
  imp.diagnostics(r);
  const double rg = column(r, "rg_over_ball"), sph = column(r, "sphericity");
  EXPECT_EQ(column(r, "particles"), n0);
  EXPECT_EQ(column(r, "components"), 1);
  EXPECT_GE(sph, 0.95);
  EXPECT_NEAR(rg, 1.0, 0.03);
  EXPECT_TRUE(converged);
  EXPECT_LT(worst_cg, 100);
  test::record_check("sph_implicit_cube_sphere", "one sphere: R_g = sqrt(3/5) R_eq, sphericity >= 0.95",
                     "3 %, one component", log::format("R_g / ball = %.4f, sphericity %.3f, components %g, max CG %d", rg,
                                                       sph, column(r, "components"), worst_cg),
                     std::fabs(rg - 1) <= 0.03 && sph >= 0.95 && column(r, "components") == 1);

  // Negative control: the explicit cohesion at the same sigma and dt sheds particles within 0.1 s.
  auto de = test::deck_from_string(cube_deck("explicit"));
  sph::SphJeske<3> exp(MethodContext{MPI_COMM_WORLD, de.deck.root(), 3});
  double worst_components = 1;
  for (int s = 1; s <= 100; ++s) {
    exp.step(1e-3);
    if (s % 25) continue;
    DiagnosticRow re;
    exp.diagnostics(re);
    worst_components = std::max(worst_components, column(re, "components"));
  }
  EXPECT_GT(worst_components, 1);
  test::record_check("sph_explicit_cube_fails", "explicit cohesion at sigma = 70000, dt = 1 ms breaks up", "> 1 component",
                     log::format("%g components", worst_components), worst_components > 1);
}

namespace {
// A zero-g 3D drop of radius R0 seeded on the cubic lattice (spacing d = 2r, V = d^3) at the digest's
// P1 settings; xsph and nu are the relaxation's values.
std::string rayleigh_drop_deck(double sigma, double R0, double r, double nu) {
  const double L = 2 * R0 + 0.5;
  return log::format(R"(
simulation: {dimension: 3, method: sph-jeske2023, end_time: 100.0}
domain: {lower: [%g, %g, %g], upper: [%g, %g, %g], cell_size: %g, walls: none}
sph: {particle_radius: %g, gravity: [0, 0, 0], dt: 0.001, st_mode: implicit, xsph: 0.5, surface_tension: %g,
      viscosity: %g, mass_volume_factor: 1.0}
materials: [{name: water, density: 1000}]
sources: [{type: sphere, material: water, center: [0, 0, 0], radius: %g, particles_per_cell: 8}]
)", -L, -L, -L, L, L, L, 4 * r, r, sigma, nu, R0);
}

// Equivalent radius of N particles of volume d^3.
double drop_radius(double n, double r) { return std::cbrt(3.0 * n * std::pow(2 * r, 3) / (4.0 * M_PI)); }

// Period of the l = 2 shape oscillation (digest P1): the seeded lattice is first relaxed for 0.3 s with
// XSPH 0.5 (it carries surface energy that would otherwise swamp the mode), then XSPH is switched off and
// the l = 2 velocity field v = A (-x, -y, 2z) about the centroid is imposed (A = 0.025 of the mean-field
// omega; time step dt, relaxation relax_s). The signal y = S_zz - (S_xx + S_yy)/2 of the gyration tensor leaves its relaxed value y0 at
// t = 0 and returns to it at T/2 and T; the period is the second return time (-1: no second return).
double rayleigh_period(double sigma, double R0, double r, double* radius, double dt = 1e-3, double relax_s = 0.3) {
  auto d = test::deck_from_string(rayleigh_drop_deck(sigma, R0, r, 0.0));
  sph::SphJeske<3> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 3});
  const double R = *radius = drop_radius(static_cast<double>(m.global_particle_count()), r);
  for (int s = 0; s < std::lround(relax_s / dt); ++s) m.step(dt);
  m.params_for_tests().xsph = 0;
  auto moment = [&](DiagnosticRow& row) {
    row.clear();
    m.diagnostics(row);
    return column(row, "gyration_zz") - 0.5 * (column(row, "gyration_xx") + column(row, "gyration_yy"));
  };
  DiagnosticRow row;
  const double y0 = moment(row);
  const double c[3] = {column(row, "centroid_x"), column(row, "centroid_y"), column(row, "centroid_z")};
  const double omega_est = std::sqrt(8 * 0.0413 * sigma / (1000 * R * R * R));
  const double A = 0.025 * omega_est;
  {
    auto& set = m.particles();
    auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().x));
    auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().v));
    for (size_t i = 0; i < set.size(); ++i) {
      v(i, 0) = -A * (x(i, 0) - c[0]);
      v(i, 1) = -A * (x(i, 1) - c[1]);
      v(i, 2) = 2 * A * (x(i, 2) - c[2]);
    }
    Kokkos::deep_copy(set.field(m.fields().v), v);
  }
  std::vector<double> returns;
  double prev = 0, tprev = 0;
  const int steps = static_cast<int>(std::lround(2.5 * 2 * M_PI / omega_est / dt));
  for (int s = 1; s <= steps && returns.size() < 2; ++s) {
    m.step(dt);
    if (s % 2) continue;
    const double y = moment(row) - y0, t = s * dt;
    if (std::getenv("SPH_RAYLEIGH_TRACE") && s % 20 == 0)
      std::printf("sigma %g R %g t %.3f y %.3e ke %.3e\n", sigma, R, t, y, column(row, "kinetic_energy"));
    if (s > 2 && prev * y < 0) returns.push_back(tprev + (t - tprev) * prev / (prev - y));
    prev = y;
    tprev = t;
  }
  return returns.size() == 2 ? returns[1] : -1.0;
}

// Mean DFSPH-equivalent pressure (digest 4.5, P2) of the particles within R/2 of the centroid of a
// static drop damped by nu = 0.01 (0.5 s with XSPH 0.5 from the seeded lattice), averaged over the
// following `average_s` seconds. The density solve applies v_i -= dt sum_j m_j (k_i + k_j) grad W_ij
// with k = p / rho^2 (stored summed over the step's iterations, likewise the divergence solve's), so
// p_i = (k_i + k^v_i) rho0^2.
double interior_pressure(double sigma, double R0, double r, double average_s, double* radius) {
  auto d = test::deck_from_string(rayleigh_drop_deck(sigma, R0, r, 0.01));
  sph::SphJeske<3> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 3});
  const double R = *radius = drop_radius(static_cast<double>(m.global_particle_count()), r);
  for (int s = 0; s < 500; ++s) m.step(1e-3);
  const double rho0 = 1000.0;
  double sum[2] = {0, 0};  // pressure sum, samples
  const int steps = static_cast<int>(std::lround(average_s / 1e-3));
  for (int s = 0; s < steps; ++s) {
    m.step(1e-3);
    auto& set = m.particles();
    const int n = static_cast<int>(set.size());
    auto x = set.field(m.fields().x);
    auto k = set.field(m.fields().kappa);
    auto kv = set.field(m.fields().kappa_v);
    double c[4] = {0, 0, 0, static_cast<double>(n)};
    for (int q = 0; q < 3; ++q) {
      double cq = 0;
      Kokkos::parallel_reduce(
          "test::centroid", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int i, double& a) { a += x(i, q); }, cq);
      c[q] = cq;
    }
    MPI_Allreduce(MPI_IN_PLACE, c, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    const double cx = c[0] / c[3], cy = c[1] / c[3], cz = c[2] / c[3], r2max = R * R / 4;
    double part[2] = {0, 0};
    Kokkos::parallel_reduce(
        "test::interior_pressure", Kokkos::RangePolicy<>(0, n),
        KOKKOS_LAMBDA(const int i, double& p, double& cnt) {
          const double dx = x(i, 0) - cx, dy = x(i, 1) - cy, dz = x(i, 2) - cz;
          if (dx * dx + dy * dy + dz * dz < r2max) {
            p += (k(i, 0) + kv(i, 0)) * rho0 * rho0;
            cnt += 1;
          }
        },
        part[0], part[1]);
    MPI_Allreduce(MPI_IN_PLACE, part, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    sum[0] += part[0];
    sum[1] += part[1];
    if (std::getenv("SPH_RAYLEIGH_TRACE") && s % 50 == 0)
      std::printf("R %.4f t %.3f p %.1f\n", R, 0.5 + (s + 1) * 1e-3, part[0] / part[1]);
  }
  return sum[0] / sum[1];
}
}  // namespace

TEST(SphValidation, LongRayleighPeriodHalvesWhenSigmaQuadruples) {
  // omega^2 = 8 gamma / (rho R^3) with gamma proportional to sigma: T(sigma) / T(4 sigma) = 2 (digest
  // P1 pair 2000 / 8000, R = 0.25 m, r = 0.0125 m). Absolute scale: the digest's mean-field
  // gamma_eff = 0.0413 sigma (V = d^3), within 30 %.
  double R = 0;
  const double t1 = rayleigh_period(2000, 0.25, 0.0125, &R);
  const double t4 = rayleigh_period(8000, 0.25, 0.0125, &R);
  // Known to fail (docs/theory-sph.md, calibration): at sigma = 2000 the drop deforms for a quarter
  // period and then stays deformed (the cold particle arrangement does not yield).
  EXPECT_GT(t1, 0) << "the drop did not return to its relaxed shape at sigma = 2000";
  EXPECT_GT(t4, 0) << "the drop did not return to its relaxed shape at sigma = 8000";
  const double ratio = t1 > 0 && t4 > 0 ? t1 / t4 : -1.0;
  const double omega = t4 > 0 ? 2 * M_PI / t4 : 0.0;
  const double gamma_cal = 1000.0 * R * R * R * omega * omega / 8.0;
  EXPECT_NEAR(ratio, 2.0, 0.2);
  EXPECT_NEAR(gamma_cal / 8000.0, 0.0413, 0.3 * 0.0413);
  test::record_check("sph_rayleigh_sigma_scaling", "T(sigma)/T(4 sigma) = 2 (Rayleigh l = 2)", "+-0.2",
                     log::format("T(2000) = %.3f s, T(8000) = %.3f s, ratio %.3f", t1, t4, ratio),
                     std::fabs(ratio - 2.0) <= 0.2);
  test::record_check("sph_rayleigh_gamma_calibration", "gamma_eff = 0.0413 sigma (mean field, V = d^3)", "30 %",
                     log::format("gamma_cal = %.4f sigma at sigma = 8000 (R = %.4f m)", gamma_cal / 8000.0, R),
                     std::fabs(gamma_cal / 8000.0 - 0.0413) <= 0.3 * 0.0413);
}

TEST(SphValidation, LongRayleighPeriodScalesWithRadiusToTheThreeHalves) {
  // T proportional to R^{3/2}: T(0.5) / T(0.25) = 2^{3/2} = 2.83 (issue 5: +-0.3), sigma = 8000, at a
  // fixed particle count (4224; r = 0.0125 and 0.025): the 33 k particles of R = 0.5 at r = 0.0125 do not
  // fit a test. Known to fail (docs/theory-sph.md): the larger drop stays deformed.
  double R1 = 0, R2 = 0;
  const double t1 = rayleigh_period(8000, 0.25, 0.0125, &R1);
  const double t2 = rayleigh_period(8000, 0.5, 0.025, &R2);
  EXPECT_GT(t1, 0) << "the drop R = 0.25 did not return to its relaxed shape";
  EXPECT_GT(t2, 0) << "the drop R = 0.5 did not return to its relaxed shape";
  const double ratio = t1 > 0 && t2 > 0 ? t2 / t1 : -1.0, expected = std::pow(R2 / R1, 1.5);
  EXPECT_NEAR(ratio, expected, 0.3);
  test::record_check("sph_rayleigh_radius_scaling", "T(2R)/T(R) = 2^{3/2} (Rayleigh l = 2)", "+-0.3",
                     log::format("T(%.3f) = %.3f s, T(%.3f) = %.3f s, ratio %.3f (expected %.3f)", R1, t1, R2, t2,
                                 ratio, expected),
                     std::fabs(ratio - expected) <= 0.3);
}

namespace {
// Laplace measurement of gamma (digest P2, differential form): the interior pressure of a static drop is
// p(R) = p_c + 2 gamma / R, where p_c is the cohesive pressure that holds the surface layer (R-independent,
// about 0.21 sigma / d: ~25 times 2 gamma / R at R = 10 d, so the digest's literal p = 2 gamma / R cannot
// hold). Two radii at the same r give gamma = (p1 - p2) / (2 (1/R1 - 1/R2)) and p_c.
struct LaplaceFit {
  double gamma, p_cohesive, p1, p2, R1, R2;
};
LaplaceFit laplace_fit(double sigma, double average_s) {
  LaplaceFit f{};
  f.p1 = interior_pressure(sigma, 0.125, 0.0125, average_s, &f.R1);
  f.p2 = interior_pressure(sigma, 0.25, 0.0125, average_s, &f.R2);
  f.gamma = (f.p1 - f.p2) / (2 * (1 / f.R1 - 1 / f.R2));
  f.p_cohesive = f.p2 - 2 * f.gamma / f.R2;
  std::printf("Laplace fit sigma %g: p(%.4f) = %.1f Pa, p(%.4f) = %.1f Pa, gamma = %.4f sigma, p_c = %.4f sigma/d\n", sigma,
              f.R1, f.p1, f.R2, f.p2, f.gamma / sigma, f.p_cohesive * 2 * 0.0125 / sigma);
  return f;
}
// gamma_cal / sigma from the Rayleigh period at sigma = 8000, R = 0.25, r = 0.0125 (test
// LongRayleighPeriodHalvesWhenSigmaQuadruples, docs/theory-sph.md): the calibration digest P2 checks.
constexpr double kRayleighGammaPerSigma = 0.0505;
// Digest 4.11 mean-field estimate for V = d^3.
constexpr double kMeanFieldGammaPerSigma = 0.0413;
// Cohesion force on a particle of the top layer of a half-space cubic lattice (h = 2d, V = d^3):
// 0.2138 sigma d (digest 4.11), spread over the layer's area d^2 per particle.
constexpr double kSurfaceLayerForcePerSigmaD = 0.2138;
}  // namespace

TEST(SphValidation, LaplacePressureJumpGivesTheMeanFieldSurfaceTension) {
  // Drops R = 0.125 and 0.25 m (552 and 4224 particles, r = 0.0125), sigma = 8000, damped (nu = 0.01).
  const double sigma = 8000, d = 0.025;
  const LaplaceFit f = laplace_fit(sigma, 0.3);
  // Asserted: gamma_L against the digest's mean-field gamma_eff = 0.0413 sigma (4.11, V = d^3) within the
  // issue's 20 %, and p_c against the surface-layer force. Recorded only (asserted in the Long test
  // below): the issue's comparison with the Rayleigh calibration, which this branch does not meet.
  const double mean_field = f.gamma / (kMeanFieldGammaPerSigma * sigma);
  const double ratio = f.gamma / (kRayleighGammaPerSigma * sigma);
  const double pc = f.p_cohesive / (kSurfaceLayerForcePerSigmaD * sigma / d);
  EXPECT_NEAR(mean_field, 1.0, 0.2);
  EXPECT_NEAR(pc, 1.0, 0.05);
  test::record_check("sph_laplace_gamma_mean_field", "gamma_Laplace = 0.0413 sigma (digest 4.11 mean field)", "20 %",
                     log::format("p(%.4f) = %.0f Pa, p(%.4f) = %.0f Pa: gamma_L = %.4f sigma, ratio %.3f", f.R1, f.p1,
                                 f.R2, f.p2, f.gamma / sigma, mean_field),
                     std::fabs(mean_field - 1) <= 0.2);
  test::record_check("sph_laplace_gamma_vs_rayleigh", "gamma_Laplace / gamma_Rayleigh (0.0505 sigma) in [0.8, 1.25]",
                     "20 %", log::format("ratio %.3f", ratio), ratio >= 0.8 && ratio <= 1.25);
  test::record_check("sph_cohesive_pressure", "p_c = 0.2138 sigma / d (surface-layer cohesion per area)", "5 %",
                     log::format("p_c = %.4f sigma / d", f.p_cohesive * d / sigma), std::fabs(pc - 1) <= 0.05);
}

TEST(SphValidation, LongLaplaceAndRayleighGammaAgreeAtTwoSigmas) {
  // Both measurements live, at sigma = 2000 and 8000 (issue 5: within 20 %). The Rayleigh period at
  // sigma = 2000 is known not to exist (docs/theory-sph.md); the Laplace gamma is reported for both.
  for (double sigma : {8000.0, 2000.0}) {
    const LaplaceFit f = laplace_fit(sigma, 0.3);
    double R = 0;
    const double T = rayleigh_period(sigma, 0.25, 0.0125, &R);
    const double omega = T > 0 ? 2 * M_PI / T : 0.0;
    const double gamma_cal = 1000.0 * R * R * R * omega * omega / 8.0;
    const double ratio = gamma_cal > 0 ? f.gamma / gamma_cal : -1.0;
    EXPECT_GT(T, 0) << "no Rayleigh period at sigma = " << sigma;
    EXPECT_GE(ratio, 0.8) << "sigma = " << sigma;
    EXPECT_LE(ratio, 1.25) << "sigma = " << sigma;
    test::record_check(log::format("sph_laplace_vs_rayleigh_%g", sigma), "gamma_Laplace / gamma_Rayleigh in [0.8, 1.25]",
                       "20 %",
                       log::format("gamma_L = %.4f sigma, gamma_cal = %.4f sigma (T = %.3f s), p_c = %.4f sigma / d",
                                   f.gamma / sigma, gamma_cal / sigma, T, f.p_cohesive * 0.025 / sigma),
                       ratio >= 0.8 && ratio <= 1.25);
  }
}

TEST(SphValidation, LongRayleighPeriodScalesExactlyWhenDtScalesWithThePeriod) {
  // The cause of the failed sigma scaling (docs/theory-sph.md): with nu = 0 the scheme has no time scale
  // other than sqrt(rho d^3 / sigma), so sigma -> 4 sigma with dt -> dt / 2 (and the relaxation time
  // halved) must reproduce the same motion twice as fast: T(2000; dt = 2 ms) / T(8000; dt = 1 ms) = 2 up
  // to solver tolerances. At a fixed dt the response depends on dt / T and the ratio is not 2.
  double R = 0;
  const double t1 = rayleigh_period(2000, 0.25, 0.0125, &R, 2e-3, 0.6);
  const double t4 = rayleigh_period(8000, 0.25, 0.0125, &R, 1e-3, 0.3);
  const double ratio = t1 > 0 && t4 > 0 ? t1 / t4 : -1.0;
  EXPECT_NEAR(ratio, 2.0, 0.02);
  test::record_check("sph_rayleigh_dimensional_scaling", "T(sigma, 2 dt)/T(4 sigma, dt) = 2 (dimensional analysis)",
                     "1 %", log::format("T = %.4f s and %.4f s, ratio %.4f", t1, t4, ratio),
                     std::fabs(ratio - 2.0) <= 0.02);
}
