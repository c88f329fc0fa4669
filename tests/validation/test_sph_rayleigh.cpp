// SPH (Jeske et al. 2023) surface tension against capillary theory (issue 5):
//  - Rayleigh l = 2 shape oscillation of a free drop, omega^2 = 8 gamma / (rho R^3): the period must
//    scale as sigma^{-1/2} and R^{3/2};
//  - Laplace pressure: the interior pressure of a drop is p(R) = p_c + 2 gamma / R;
//  - the gamma of the two measurements must agree (issue 5: 20 %).
// docs/theory-sph.md ("Calibration sigma -> gamma") has the protocol and the measured numbers, including
// why the criteria as first stated (at a fixed dt; gamma within 20 %) fail for this particle model; the
// Long tests assert them as restated by issue 14 (equal dt/tau_sigma; the measured bracket).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "core/log.hpp"
#include "methods/sph/sph_jeske.hpp"
#include "methods/sph/sph_kernels.hpp"
#include "scene.hpp"
#include "validation_support.hpp"

using namespace meniscus;
using test::column;

namespace {
constexpr double kRho0 = 1000.0;  // kg/m^3

// A zero-g 3D drop of radius R0 seeded on the cubic lattice (spacing d = 2r, V = d^3), relaxed with
// XSPH 0.5 and kinematic viscosity nu (the calibration settings of docs/theory-sph.md).
std::string drop_deck(double sigma, double R0, double r, double nu) {
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

// Centroid of the owned particles of all ranks.
std::array<double, 3> centroid(sph::SphJeske<3>& m) {
  auto& set = m.particles();
  auto x = set.field(m.fields().x);
  const int n = static_cast<int>(set.size());
  double c[4] = {0, 0, 0, static_cast<double>(n)};
  for (int q = 0; q < 3; ++q)
    Kokkos::parallel_reduce(
        "test::centroid", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int i, double& a) { a += x(i, q); }, c[q]);
  MPI_Allreduce(MPI_IN_PLACE, c, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return {c[0] / c[3], c[1] / c[3], c[2] / c[3]};
}

// Shape signal of the axisymmetric l = 2 mode about z: S_zz - (S_xx + S_yy)/2 of the gyration tensor.
double l2_moment(sph::SphJeske<3>& m, const std::array<double, 3>& c) {
  auto& set = m.particles();
  auto x = set.field(m.fields().x);
  const int n = static_cast<int>(set.size());
  const double cx = c[0], cy = c[1], cz = c[2];
  double s[2] = {0, static_cast<double>(n)};
  Kokkos::parallel_reduce(
      "test::l2_moment", Kokkos::RangePolicy<>(0, n),
      KOKKOS_LAMBDA(const int i, double& a) {
        const double dx = x(i, 0) - cx, dy = x(i, 1) - cy, dz = x(i, 2) - cz;
        a += dz * dz - 0.5 * (dx * dx + dy * dy);
      },
      s[0]);
  MPI_Allreduce(MPI_IN_PLACE, s, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return s[0] / s[1];
}

// Mean DFSPH-equivalent pressure (Bender & Koschier 2017) and kinetic pressure rho <|v|^2> / 3 of the particles
// within R/2 of the centroid, summed (with the sample count) into acc[0..2]. The density solve applies
// v_i -= dt sum_j m_j (k_i + k_j) grad W_ij with k = p / rho^2 (stored summed over the step's iterations,
// likewise the divergence solve's), so p_i = (k_i + k^v_i) rho0^2.
void add_interior_pressure(sph::SphJeske<3>& m, const std::array<double, 3>& c, double R, double acc[3]) {
  auto& set = m.particles();
  auto x = set.field(m.fields().x);
  auto v = set.field(m.fields().v);
  auto k = set.field(m.fields().kappa);
  auto kv = set.field(m.fields().kappa_v);
  const int n = static_cast<int>(set.size());
  const double cx = c[0], cy = c[1], cz = c[2], r2max = R * R / 4, rho0 = kRho0;
  double part[3] = {0, 0, 0};
  Kokkos::parallel_reduce(
      "test::interior_pressure", Kokkos::RangePolicy<>(0, n),
      KOKKOS_LAMBDA(const int i, double& p, double& pk, double& cnt) {
        const double dx = x(i, 0) - cx, dy = x(i, 1) - cy, dz = x(i, 2) - cz;
        if (dx * dx + dy * dy + dz * dz < r2max) {
          p += (k(i, 0) + kv(i, 0)) * rho0 * rho0;
          pk += rho0 * (v(i, 0) * v(i, 0) + v(i, 1) * v(i, 1) + v(i, 2) * v(i, 2)) / 3;
          cnt += 1;
        }
      },
      part[0], part[1], part[2]);
  MPI_Allreduce(MPI_IN_PLACE, part, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  for (int q = 0; q < 3; ++q) acc[q] += part[q];
}

// Mechanical (virial, Irving-Kirkwood) pressure of the particles within R/2 of the centroid, added into
// acc[0] (sum over those particles of m_i |v_i|^2 + 1/2 sum_j x_ij . F_ij) and acc[1] (their volume
// sum m_i / rho_i): p = acc[0] / (3 acc[1]). The pair forces are the two that act between particles with
// nu = 0: the DFSPH pressure of the step just taken, F_ij = -m_i m_j (K_i + K_j) grad W_ij with K the
// stiffness summed over the divergence and density iterations (the velocity update of both solves), and
// the cohesion of the paper's eq. 7 at the current positions, F_ij = -sigma (m_ij / rho_ij) x_ij W^st_ij.
// A static drop has p = 2 gamma / R with the mechanical surface tension gamma: the Laplace pressure itself,
// without the differential fit that the DFSPH pressure alone needs. Rebuilds the neighbourhood at the
// current positions (the next step rebuilds it again); one rank only (no ghost stiffness).
void add_virial_pressure(sph::SphJeske<3>& m, const std::array<double, 3>& c, double R, double sigma, double acc[2]) {
  m.update_neighborhood();
  m.compute_density();
  const auto& nb = m.neighborhood();
  ASSERT_EQ(nb.total, nb.owned) << "the virial pressure is measured on one rank";
  auto& set = m.particles();
  auto x = nb.x;
  auto off = nb.offset, idx = nb.index;
  auto rho = m.density();
  auto v = set.field(m.fields().v);
  auto mass = set.field(m.fields().mass);
  auto k = set.field(m.fields().kappa);
  auto kv = set.field(m.fields().kappa_v);
  const sph::CubicSpline<3> w(nb.support);
  const sph::CohesionKernel<3> wst(nb.support, nb.support / 2);
  const double cx = c[0], cy = c[1], cz = c[2], r2max = R * R / 4;
  double part[2] = {0, 0};
  Kokkos::parallel_reduce(
      "test::virial_pressure", Kokkos::RangePolicy<>(0, nb.owned),
      KOKKOS_LAMBDA(const int i, double& s, double& vol) {
        const double dx = x(i, 0) - cx, dy = x(i, 1) - cy, dz = x(i, 2) - cz;
        if (dx * dx + dy * dy + dz * dz >= r2max) return;
        const double mi = mass(i, 0), Ki = k(i, 0) + kv(i, 0);
        double si = mi * (v(i, 0) * v(i, 0) + v(i, 1) * v(i, 1) + v(i, 2) * v(i, 2));
        for (int q = off(i); q < off(i + 1); ++q) {
          const int j = idx(q);
          const double ex = x(i, 0) - x(j, 0), ey = x(i, 1) - x(j, 1), ez = x(i, 2) - x(j, 2);
          const double r = kmath::sqrt(ex * ex + ey * ey + ez * ez);
          const double mj = mass(j, 0), Kj = k(j, 0) + kv(j, 0);
          si += -0.5 * mi * mj * (Ki + Kj) * w.derivative(r) * r;                                  // pressure
          si += -0.5 * sigma * (0.5 * (mi + mj)) / (0.5 * (rho(i) + rho(j))) * r * r * wst.value(r);  // cohesion
        }
        s += si;
        vol += mi / rho(i);
      },
      part[0], part[1]);
  acc[0] += part[0];
  acc[1] += part[1];
}

// Period of a decaying oscillation from the times of its extrema: the signal is smoothed over
// 2 w + 1 samples, local extrema are taken in alternation (max, min, ...), and a new extremum counts only
// if it differs from the previous one by at least `min_swing` (noise of the hot particle system). The
// period is twice the mean spacing of the extrema; -1 when fewer than `needed` extrema were found.
double period_from_extrema(const std::vector<double>& t, const std::vector<double>& y, int w, double min_swing,
                           int needed, int* found) {
  const int n = static_cast<int>(y.size());
  std::vector<double> ys(n);
  for (int i = 0; i < n; ++i) {
    double s = 0;
    int c = 0;
    for (int j = std::max(0, i - w); j <= std::min(n - 1, i + w); ++j, ++c) s += y[j];
    ys[i] = s / c;
  }
  std::vector<double> te, ye;
  for (int i = w + 1; i < n - w - 1; ++i) {
    const bool is_max = ys[i] >= ys[i - 1] && ys[i] > ys[i + 1];
    const bool is_min = ys[i] <= ys[i - 1] && ys[i] < ys[i + 1];
    if (!is_max && !is_min) continue;
    if (ye.empty()) {
      if (!is_max) continue;  // the imposed field first stretches the drop along z
      te.push_back(t[i]);
      ye.push_back(ys[i]);
      continue;
    }
    const bool want_max = ye.size() % 2 == 0;
    if (is_max == want_max && std::fabs(ys[i] - ye.back()) >= min_swing) {
      te.push_back(t[i]);
      ye.push_back(ys[i]);
    } else if (is_max != want_max && (want_max ? ys[i] < ye.back() : ys[i] > ye.back())) {
      // a later, more extreme value of the same kind replaces the previous extremum
      te.back() = t[i];
      ye.back() = ys[i];
    }
  }
  *found = static_cast<int>(te.size());
  if (*found < needed) return -1.0;
  return 2 * (te[needed - 1] - te[0]) / (needed - 1);
}

struct Oscillation {
  double R = 0;                 // equivalent radius (m)
  double period = -1;           // l = 2 period (s), -1: no oscillation found
  int extrema = 0;              // extrema found
  double pressure = 0;          // mean interior DFSPH pressure after `pressure_from` (Pa)
  double kinetic_pressure = 0;  // mean interior rho <|v|^2> / 3 over the same samples (Pa)
  double virial_pressure = 0;   // mean interior mechanical pressure (add_virial_pressure), every 10th step (Pa)
};

// The protocol of docs/theory-sph.md: a lattice drop relaxed `relax_s` with XSPH 0.5 (nu = 0), then XSPH
// off and the l = 2 field v = A (-x, -y, 2z) about the centroid imposed (A = 0.025 of the mean-field
// omega), run `run_s` at the fixed dt, the shape signal sampled every step. The interior pressure is
// averaged from `pressure_from` seconds after the kick on.
Oscillation oscillate(double sigma, double R0, double r, double dt, double relax_s, double run_s,
                      double pressure_from, int needed_extrema = 5) {
  auto d = test::deck_from_string(drop_deck(sigma, R0, r, 0.0));
  sph::SphJeske<3> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 3});
  Oscillation o;
  const double R = o.R = drop_radius(static_cast<double>(m.global_particle_count()), r);
  for (long s = 0; s < std::lround(relax_s / dt); ++s) m.step(dt);
  m.params_for_tests().xsph = 0;
  auto c = centroid(m);
  const double omega_est = std::sqrt(8 * 0.0413 * sigma / (kRho0 * R * R * R));
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
  std::vector<double> ts{0.0}, ys{l2_moment(m, c)};
  double acc[3] = {0, 0, 0}, vir[2] = {0, 0};
  const long steps = std::lround(run_s / dt);
  for (long s = 1; s <= steps; ++s) {
    m.step(dt);
    c = centroid(m);
    ts.push_back(s * dt);
    ys.push_back(l2_moment(m, c));
    if (s * dt >= pressure_from) add_interior_pressure(m, c, R, acc);
    if (s * dt >= pressure_from && s % 10 == 0) add_virial_pressure(m, c, R, sigma, vir);
    if (std::getenv("SPH_RAYLEIGH_TRACE") && s % 20 == 0)
      test::print_rank0("sigma %g R %.4f t %.4f y %.4e", sigma, R, s * dt, ys.back());
  }
  // Smoothing over ~T/40 and a swing of 20 % of the first excursion reject the thermal noise.
  const int w = std::max(1, static_cast<int>(std::lround(2 * M_PI / omega_est / 80 / dt)));
  const double first = *std::max_element(ys.begin(), ys.end()) - ys[0];
  o.period = period_from_extrema(ts, ys, w, 0.2 * first, needed_extrema, &o.extrema);
  o.pressure = acc[2] > 0 ? acc[0] / acc[2] : 0;
  o.kinetic_pressure = acc[2] > 0 ? acc[1] / acc[2] : 0;
  o.virial_pressure = vir[1] > 0 ? vir[0] / (3 * vir[1]) : 0;
  test::print_rank0(
      "drop sigma %g R %.4f dt %g: period %.4f s (%d extrema), interior p %.1f Pa, rho<v^2>/3 %.1f Pa, virial p %.1f Pa",
      sigma, R, dt, o.period, o.extrema, o.pressure, o.kinetic_pressure, o.virial_pressure);
  return o;
}

double rayleigh_gamma(double period, double R) {
  const double omega = 2 * M_PI / period;
  return kRho0 * R * R * R * omega * omega / 8.0;
}
}  // namespace

// ---------------------------------------------------------------------------------------------------
// CI: Laplace pressure of a damped drop (differential form). The interior pressure of a static
// drop is p(R) = p_c + 2 gamma / R, where p_c is the cohesive pressure that holds the surface layer
// (R-independent, about 0.21 sigma / d: ~25 times 2 gamma / R at R = 10 d, so the literal
// p = 2 gamma / R cannot hold). Two radii at the same r give gamma and p_c.
namespace {
struct LaplaceFit {
  double gamma, p_cohesive, p1, p2, R1, R2;
};
LaplaceFit laplace_fit(double p1, double R1, double p2, double R2) {
  LaplaceFit f{0, 0, p1, p2, R1, R2};
  f.gamma = (p1 - p2) / (2 * (1 / R1 - 1 / R2));
  f.p_cohesive = p2 - 2 * f.gamma / R2;
  return f;
}

// Mean interior pressure of a drop damped by nu = 0.01 (0.5 s with XSPH 0.5 from the seeded lattice, dt =
// 1 ms), averaged over the following `average_s` seconds.
double damped_interior_pressure(double sigma, double R0, double r, double average_s, double* radius) {
  auto d = test::deck_from_string(drop_deck(sigma, R0, r, 0.01));
  sph::SphJeske<3> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 3});
  const double R = *radius = drop_radius(static_cast<double>(m.global_particle_count()), r);
  for (int s = 0; s < 500; ++s) m.step(1e-3);
  double acc[3] = {0, 0, 0};
  for (long s = 0; s < std::lround(average_s / 1e-3); ++s) {
    m.step(1e-3);
    add_interior_pressure(m, centroid(m), R, acc);
  }
  return acc[0] / acc[2];
}

// Mean-field (Fowler) estimate for V = d^3 (docs/theory-sph-implicit.md).
constexpr double kMeanFieldGammaPerSigma = 0.0413;
// Cohesion force on a particle of the top layer of a half-space cubic lattice (h = 2d, V = d^3):
// 0.2138 sigma d (docs/theory-sph-implicit.md), spread over the layer's area d^2 per particle.
constexpr double kSurfaceLayerForcePerSigmaD = 0.2138;
}  // namespace

TEST(SphValidation, LaplacePressureJumpGivesTheMeanFieldSurfaceTension) {
  // Drops R = 0.125 and 0.25 m (552 and 4224 particles, r = 0.0125), sigma = 8000, damped (nu = 0.01).
  // Asserted: gamma_L against the mean-field gamma_eff = 0.0413 sigma (docs/theory-sph-implicit.md, V = d^3) within 20 %,
  // and p_c against the surface-layer force. The issue's comparison with the Rayleigh period is the Long
  // test LongRayleighRadiusScalingAndLaplaceGammaFromTheSameDrops.
  const double sigma = 8000, r = 0.0125, d = 2 * r;
  double R1 = 0, R2 = 0;
  const double p1 = damped_interior_pressure(sigma, 0.125, r, 0.3, &R1);
  const double p2 = damped_interior_pressure(sigma, 0.25, r, 0.3, &R2);
  const LaplaceFit f = laplace_fit(p1, R1, p2, R2);
  test::print_rank0("Laplace fit sigma %g: p(%.4f) = %.1f Pa, p(%.4f) = %.1f Pa, gamma = %.4f sigma, p_c = %.4f sigma/d",
                    sigma, R1, p1, R2, p2, f.gamma / sigma, f.p_cohesive * d / sigma);
  const double mean_field = f.gamma / (kMeanFieldGammaPerSigma * sigma);
  const double pc = f.p_cohesive / (kSurfaceLayerForcePerSigmaD * sigma / d);
  EXPECT_NEAR(mean_field, 1.0, 0.2);
  EXPECT_NEAR(pc, 1.0, 0.05);
  test::record_check("sph_laplace_gamma_mean_field", "gamma_Laplace = 0.0413 sigma (mean field)", "20 %",
                     log::format("p(%.4f) = %.0f Pa, p(%.4f) = %.0f Pa: gamma_L = %.4f sigma, ratio %.3f", R1, p1, R2, p2,
                                 f.gamma / sigma, mean_field),
                     std::fabs(mean_field - 1) <= 0.2);
  test::record_check("sph_cohesive_pressure", "p_c = 0.2138 sigma / d (surface-layer cohesion per area)", "5 %",
                     log::format("p_c = %.4f sigma / d", f.p_cohesive * d / sigma), std::fabs(pc - 1) <= 0.05);
}

// ---------------------------------------------------------------------------------------------------
// Long: the three criteria with the protocol of docs/theory-sph.md. All drops at r = 0.0125 m
// (d = 0.025 m), nu = 0. The state of the particle drop (a hot particle liquid that oscillates, or a cold
// cohesive solid with no period) depends on dt / tau_sigma, tau_sigma = sqrt(rho d^3 / sigma) (docs), so
// drops are compared at equal dt / tau_sigma = 1.07 (dt = 1.5 ms at sigma = 8000; T/230 at R = 0.25, so
// dt <= T/200 resolves the oscillation). Measured on this model at a fixed dt instead, T(sigma)/T(4 sigma)
// = 2.27 and gamma_Laplace/gamma_Rayleigh = 1.31: those compare two temperatures, not the capillary law
// (docs/theory-sph.md has the numbers).
namespace {
constexpr double kDt = 1.5e-3, kRadius = 0.0125, kRelax = 0.3;
}  // namespace

TEST(SphValidation, LongRayleighPeriodHalvesWhenSigmaQuadruples) {
  // omega^2 = 8 gamma / (rho R^3), gamma proportional to sigma: T(2000) / T(8000) = 2 (issue 5: +-0.2),
  // R = 0.25, both at dt / tau_sigma = 1.07: dt = 3 ms at sigma = 2000 (and the relaxation doubled), 1.5 ms at
  // 8000. With nu = 0 the scheme has no other time scale, so the ratio is 2 up to solver tolerances: also
  // asserted within 1 % (measured 2.000), which fails if any step adds a time scale of its own (a fixed
  // iteration count that depends on dt, a tolerance in absolute units).
  const Oscillation o1 = oscillate(2000, 0.25, kRadius, 2 * kDt, 2 * kRelax, 2.0, 0.4, 4);
  const Oscillation o4 = oscillate(8000, 0.25, kRadius, kDt, kRelax, 1.0, 0.2, 4);
  EXPECT_GT(o1.period, 0) << "no oscillation at sigma = 2000";
  EXPECT_GT(o4.period, 0) << "no oscillation at sigma = 8000";
  const double ratio = o1.period > 0 && o4.period > 0 ? o1.period / o4.period : -1.0;
  EXPECT_NEAR(ratio, 2.0, 0.2);
  EXPECT_NEAR(ratio, 2.0, 0.02) << "the motion at (sigma, 2 dt) is the motion at (4 sigma, dt) twice as slow";
  test::record_check("sph_rayleigh_sigma_scaling",
                     "T(sigma)/T(4 sigma) = 2 (Rayleigh l = 2) at equal dt/tau_sigma = 1.07", "+-0.2 (and 1 %)",
                     log::format("T(2000; dt = 3 ms) = %.4f s, T(8000; dt = 1.5 ms) = %.4f s, ratio %.4f; gamma_cal = "
                                 "%.4f / %.4f sigma",
                                 o1.period, o4.period, ratio, o1.period > 0 ? rayleigh_gamma(o1.period, o1.R) / 2000 : 0.0,
                                 o4.period > 0 ? rayleigh_gamma(o4.period, o4.R) / 8000 : 0.0),
                     std::fabs(ratio - 2.0) <= 0.02);
}

TEST(SphValidation, LongRayleighRadiusScalingAndLaplaceGammaFromTheSameDrops) {
  // T(2R) / T(R) = 2^{3/2} (issue: +-0.3) for R = 0.25 and 0.5 m at the same d (4224 and 33 552 particles),
  // sigma = 8000; the same two drops give the Laplace gamma from their interior pressures (DFSPH pressure
  // plus the kinetic pressure rho <v^2>/3 of the hot particle system) and from the virial pressure of the
  // R = 0.25 drop, compared with its Rayleigh gamma (below). Both drops share sigma, d and dt, so dt/tau_sigma.
  const double sigma = 8000;
  const Oscillation a = oscillate(sigma, 0.25, kRadius, kDt, kRelax, 1.0, 0.2, 4);
  const Oscillation b = oscillate(sigma, 0.5, kRadius, kDt, kRelax, 2.1, 0.2, 4);
  EXPECT_GT(a.period, 0) << "no oscillation at R = 0.25";
  EXPECT_GT(b.period, 0) << "no oscillation at R = 0.5";
  const double ratio = a.period > 0 && b.period > 0 ? b.period / a.period : -1.0, expected = std::pow(b.R / a.R, 1.5);
  EXPECT_NEAR(ratio, expected, 0.3);
  test::record_check("sph_rayleigh_radius_scaling", "T(2R)/T(R) = 2^{3/2} (Rayleigh l = 2), same d and dt", "+-0.3",
                     log::format("T(%.3f) = %.3f s, T(%.3f) = %.3f s, ratio %.3f (expected %.3f)", a.R, a.period, b.R,
                                 b.period, ratio, expected),
                     std::fabs(ratio - expected) <= 0.3);

  // gamma_Laplace against gamma_Rayleigh, restated: in this model the Laplace gamma is known only to some
  // 30 %, and its two routes bracket the Rayleigh gamma of the same hot drops (docs/theory-sph.md): the
  // two-radius fit of the interior pressure (DFSPH plus kinetic rho <v^2>/3) lies above it (measured 1.31),
  // the mechanical (virial) pressure of the R = 0.25 drop, p = 2 gamma / R with no fit, below it (0.77; its
  // bulk offset of a few % of p_c is 25-50 % of the Laplace pressure at R = 10 d). Asserted: the bracket
  // gamma_virial < gamma_Rayleigh < gamma_Laplace, each route within a factor 1.6 of gamma_Rayleigh, which
  // fails when the pressure, the cohesion or the period regresses.
  const LaplaceFit f = laplace_fit(a.pressure + a.kinetic_pressure, a.R, b.pressure + b.kinetic_pressure, b.R);
  const LaplaceFit fp = laplace_fit(a.pressure, a.R, b.pressure, b.R);
  const double gamma_cal = a.period > 0 ? rayleigh_gamma(a.period, a.R) : 0.0;
  const double agree = gamma_cal > 0 ? f.gamma / gamma_cal : -1.0;
  const double gamma_virial = a.virial_pressure * a.R / 2;
  const double below = gamma_cal > 0 ? gamma_virial / gamma_cal : -1.0;
  EXPECT_GT(agree, 1.0) << "the pressure-fit gamma lies above the Rayleigh gamma (measured 1.31)";
  EXPECT_LE(agree, 1.6);
  EXPECT_LT(below, 1.0) << "the virial gamma lies below the Rayleigh gamma (measured 0.77)";
  EXPECT_GE(below, 1 / 1.6);
  const bool bracket = agree > 1.0 && agree <= 1.6 && below < 1.0 && below >= 1 / 1.6;
  test::record_check("sph_laplace_vs_rayleigh",
                     "gamma_virial < gamma_Rayleigh < gamma_Laplace, each within a factor 1.6 (same drops)",
                     "bracket", log::format("gamma_L = %.4f sigma (DFSPH pressure only %.4f sigma), virial p = %.0f Pa: "
                                            "gamma_virial = %.4f sigma; gamma_cal = %.4f sigma (R = 0.25), %.4f sigma "
                                            "(R = 0.5): ratios %.3f and %.3f",
                                            f.gamma / sigma, fp.gamma / sigma, a.virial_pressure, gamma_virial / sigma,
                                            gamma_cal / sigma,
                                            b.period > 0 ? rayleigh_gamma(b.period, b.R) / sigma : 0.0, agree, below),
                     bracket);
}
