// Explicit MPM against analytic and published numbers: hydrostatic pressure, the axial vibration
// period of a free elastic bar, and the Martin & Moyce (1952) dam-break front.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "methods/mpm/mpm_method.hpp"
#include "core/log.hpp"
#include "run/deck_schema.hpp"
#include "scene.hpp"
#include "validation_support.hpp"

using namespace meniscus;

namespace {
template <int Dim>
void run_until(mpm::MpmMethod<Dim>& m, double& t, double t_end, const std::function<void(double)>& each = {}) {
  while (t < t_end * (1 - 1e-12)) {
    double dt = std::min(m.stable_dt(), t_end - t);
    // As the driver does (src/run/simulation.cpp): a rejected implicit step is retried with dt/2.
    for (int attempt = 0;; ++attempt) {
      try {
        m.step(dt);
        break;
      } catch (const StepRejected&) {
        if (attempt >= 20) throw;
        dt *= 0.5;
      }
    }
    t += dt;
    if (each) each(t);
  }
}
}  // namespace

// A water column at rest: p = rho g depth (Pascal). Tolerance 5 % over depth bins away from the
// free surface and the floor.
TEST(MPMValidation, HydrostaticColumnPressure) {
  auto d = run::load_deck(test::source_dir() + "/inputs/hydrostatic-column-2d.yaml", {});
  const auto water = d.deck.root().list("materials")[0];
  const auto src = d.deck.root().list("sources")[0];
  const double rho = water.real("density"), K = water.real("bulk_modulus"), gamma = water.real("tait_gamma");
  const double g = -d.deck.root().section("mpm").vector("gravity")[1];
  const double dx = d.deck.root().section("domain").real("cell_size");
  const double H = src.vector("upper")[1] - src.vector("lower")[1];
  mpm::MpmMethod<2> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 2});
  double t = 0;
  run_until(m, t, 1.5);
  // Average the pressure over the last 0.3 s to remove the residual sloshing.
  const int nbins = 8;
  std::vector<double> psum(nbins, 0), dsum(nbins, 0), cnt(nbins, 0);
  double surface = 0;
  int samples = 0;
  double vrms = 0;
  run_until(m, t, 1.8, [&](double) {
    if (++samples % 10) return;
    auto& set = m.particles();
    auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().x));
    auto J = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().J));
    auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().v));
    double top = 0;
    for (size_t p = 0; p < set.size(); ++p) top = std::max(top, x(p, 1));
    MPI_Allreduce(MPI_IN_PLACE, &top, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    top += 0.25 * dx;  // particle centres sit half a lattice spacing (dx/4 at 4 per cell) below the surface
    surface = top;
    const double floor = src.vector("lower")[1];
    for (size_t p = 0; p < set.size(); ++p) {
      const double depth = top - x(p, 1);
      const double pr = K / gamma * (std::pow(J(p, 0), -gamma) - 1);
      const int b = static_cast<int>((x(p, 1) - floor) / (top - floor) * nbins);
      if (b < 0 || b >= nbins) continue;
      psum[b] += pr;
      dsum[b] += depth;
      cnt[b] += 1;
      vrms += v(p, 0) * v(p, 0) + v(p, 1) * v(p, 1);
    }
  });
  MPI_Allreduce(MPI_IN_PLACE, psum.data(), nbins, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, dsum.data(), nbins, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, cnt.data(), nbins, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &vrms, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double total = 0;
  for (double c : cnt) total += c;
  vrms = std::sqrt(vrms / total);
  EXPECT_LT(vrms, 0.02) << "the column has settled";
  EXPECT_NEAR(surface, src.vector("lower")[1] + H, 0.02 * H) << "the column keeps its height";
  test::SeriesCsv csv("hydrostatic_column", "depth_m,pressure_pa,reference_pa");
  // Skip the bins touching the floor (wall layer) and the free surface.
  double worst = 0;
  for (int b = 1; b < nbins - 1; ++b) {
    const double depth = dsum[b] / cnt[b], p = psum[b] / cnt[b], ref = rho * g * depth;
    csv.row(depth, p, ref);
    worst = std::max(worst, std::fabs(p - ref) / ref);
    EXPECT_NEAR(p, ref, 0.05 * ref) << "bin " << b << " at depth " << depth;
  }
  test::record_check("hydrostatic_column", "p = rho g depth (Pascal)", "5 % per depth bin",
                     log::format("worst bin %.2f %%, rms speed %.1e m/s", 100 * worst, vrms), worst <= 0.05,
                     "hydrostatic_column.png");
}

// Free-free axial vibration of a thin bar (nu = 0, so the strip's wave speed is sqrt(E/rho)): the
// halves start moving apart, and every mode of the 1D wave equation has period 2L/c, so the bar's
// length is periodic with T = 2L/c exactly. Tolerance 5 %.
TEST(MPMValidation, ElasticBarVibrationPeriod) {
  auto d = run::load_deck(test::source_dir() + "/inputs/elastic-bar-2d.yaml", {});
  const auto bar = d.deck.root().list("materials")[0];
  const auto halves = d.deck.root().list("sources");
  const double L = halves[1].vector("upper")[0] - halves[0].vector("lower")[0];
  const double E = bar.real("youngs_modulus"), rho = bar.real("density");
  const double c = std::sqrt(E / rho), T = 2 * L / c;
  mpm::MpmMethod<2> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 2});
  std::vector<double> ts, ls;
  test::SeriesCsv csv("elastic_bar", "time_s,length_m");
  double t = 0;
  run_until(m, t, 3.2 * T, [&](double now) {
    DiagnosticRow row;
    m.diagnostics(row);
    ts.push_back(now);
    ls.push_back(test::column(row, "extent_x"));
    csv.row(now, ls.back());
  });
  // Period from the upward crossings of the mean length.
  double mean = 0;
  for (double l : ls) mean += l;
  mean /= ls.size();
  std::vector<double> ups;
  for (size_t i = 1; i < ls.size(); ++i)
    if (ls[i - 1] < mean && ls[i] >= mean)
      ups.push_back(ts[i - 1] + (mean - ls[i - 1]) / (ls[i] - ls[i - 1]) * (ts[i] - ts[i - 1]));
  ASSERT_GE(ups.size(), 3u) << "at least two full periods";
  const double period = (ups.back() - ups.front()) / (ups.size() - 1);
  EXPECT_NEAR(period, T, 0.05 * T) << "measured " << period << " s, theory " << T << " s";
  test::record_check("elastic_bar", log::format("T = 2L/sqrt(E/rho) = %.4g s", T), "5 %",
                     log::format("T = %.4g s (%+.2f %%)", period, 100 * (period - T) / T),
                     std::fabs(period - T) <= 0.05 * T, "elastic_bar.png");
}

// A 2D drop with surface tension (explicit, resampled surface particles) oscillates with Rayleigh's
// period T = 2 pi / sqrt(6 k / (rho R^3)) (2D, inviscid, mode 2: omega^2 = (n^3 - n) k / (rho R^3), Rayleigh 1879, "On the capillary phenomena of jets").
// Tolerance 5 %; the union-of-spheres surface sits slightly outside the particles, so the
// simulated drop is a little larger and slower.
namespace {
// Mode-2 period of inputs/oscillating-drop-2d.yaml at cell size dx (explicit) and sampling seed, from
// the zero crossings of the second-moment difference over 2.2 periods; T is Rayleigh's. The CSV is
// written when `series` is set.
struct DropPeriod {
  double period = 0, T = 0;
  size_t crossings = 0;
};
// Mode-2 signal of a 2D drop: the difference of the central second moments, sum (x - xc)^2 - (y - yc)^2
// over particles divided by their count. Unlike the extents it averages over every particle, so the
// lattice of particle centres (a step of dx/2 in extent) does not add noise once backward Euler has
// damped the mode to a few per cent of R.
double second_moment_difference(mpm::MpmMethod<2>& m) {
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.particles().field(m.fields().x));
  double s[5] = {0, 0, 0, 0, static_cast<double>(x.extent(0))};
  for (size_t p = 0; p < x.extent(0); ++p) {
    s[0] += x(p, 0);
    s[1] += x(p, 1);
    s[2] += x(p, 0) * x(p, 0);
    s[3] += x(p, 1) * x(p, 1);
  }
  MPI_Allreduce(MPI_IN_PLACE, s, 5, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  const double cx = s[0] / s[4], cy = s[1] / s[4];
  return (s[2] / s[4] - cx * cx) - (s[3] / s[4] - cy * cy);
}

DropPeriod explicit_drop_period(double dx, const char* series, int seed = 20210801) {
  auto d = run::load_deck(test::source_dir() + "/inputs/oscillating-drop-2d.yaml",
                          {log::format("domain.cell_size=%.17g", dx), log::format("mpm.surface_tension.seed=%d", seed)});
  const auto src = d.deck.root().list("sources")[0];
  const auto liquid = d.deck.root().list("materials")[0];
  const double k = d.deck.root().section("mpm").section("surface_tension").real("coefficient");
  const double R = std::sqrt(src.vector("radii")[0] * src.vector("radii")[1]);
  const double rho = liquid.real("density");
  DropPeriod out;
  out.T = 2 * M_PI / std::sqrt(6 * k / (rho * R * R * R));
  mpm::MpmMethod<2> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 2});
  std::unique_ptr<test::SeriesCsv> csv;
  if (series) csv = std::make_unique<test::SeriesCsv>(series, "time_s,second_moment_difference_m2");
  std::vector<double> ts, es;
  double t = 0;
  run_until(m, t, 2.2 * out.T, [&](double now) {
    ts.push_back(now);
    es.push_back(second_moment_difference(m));
    if (csv) csv->row(now, es.back());
  });
  const auto osc = test::oscillation(ts, es);
  out.period = osc.period;
  out.crossings = osc.zeros.size();
  return out;
}
}  // namespace

TEST(SurfaceTensionValidation, RayleighPeriod2D) {
  const auto r = explicit_drop_period(0.01, "rayleigh_drop_2d");
  ASSERT_GE(r.crossings, 3u) << "the drop oscillates";
  const double period = r.period, T = r.T;
  EXPECT_NEAR(period, T, 0.05 * T) << "measured " << period << " s, Rayleigh " << T << " s";
  test::record_check("rayleigh_drop_2d", log::format("Rayleigh 2D mode-2 period %.4g s", T), "5 %",
                     log::format("T = %.4g s (%+.1f %%)", period, 100 * (period - T) / T),
                     std::fabs(period - T) <= 0.05 * T, "rayleigh_drop_2d.png");
}

// Issue 4: the period error decreases when dx is halved, from 0.01 to 0.005 (R = 20 -> 40 cells).
// Each error is the mean over two sampling seeds: the random surface samples move a single period by
// about 0.1 %, and the error falls by about 0.4 % over this halving (+1.65 % -> +1.28 %); from dx = 0.02
// to 0.01 it falls by only about 0.1 % (+1.77 % -> +1.65 %), within that noise.
TEST(SurfaceTensionValidation, RayleighPeriodErrorDecreasesWithDx2D) {
  double error[2] = {0, 0};
  const double dxs[2] = {0.01, 0.005};
  std::string measured;
  for (int i = 0; i < 2; ++i) {
    for (int seed : {1, 2}) {
      const auto r = explicit_drop_period(dxs[i], nullptr, seed);
      ASSERT_GE(r.crossings, 3u);
      error[i] += 0.5 * (r.period - r.T) / r.T;
      measured += log::format("%s%+.2f %%", measured.empty() ? "" : (seed == 1 ? " -> " : ", "), 100 * (r.period - r.T) / r.T);
    }
  }
  test::print_rank0("Rayleigh 2D period error: %+.2f %% at dx = 0.01, %+.2f %% at dx = 0.005 (%s)", 100 * error[0],
                    100 * error[1], measured.c_str());
  EXPECT_LT(std::fabs(error[1]), std::fabs(error[0])) << measured;
  test::record_check("rayleigh_drop_2d_dx",
                     "Rayleigh 2D period error at dx = 0.01 and 0.005 (R = 20 and 40 cells), two seeds each",
                     "decreases when dx halves",
                     log::format("%+.2f %% -> %+.2f %% (%s)", 100 * error[0], 100 * error[1], measured.c_str()),
                     std::fabs(error[1]) < std::fabs(error[0]));
}

// Laplace pressure of a 2D drop at rest under surface tension: the mean pressure inside is k/R
// (Young-Laplace, 2D) within 10 %, and p R is the same within 5 % for three radii. R is the radius of
// the liquid, sqrt(V / pi) of its volume sum(V_p J_p). The pressure must also be within 10 % of k/R_eff
// with R_eff the radius of the resampled surface, which sits r_ls - spacing/2 = (0.73 - 0.25) dx
// outside the outermost particle centres (particles fill dx/2 squares about their centres): the two radii bracket the
// surface's effective position.
namespace {
void laplace_pressure_2d(const std::string& integrator_lines, const std::string& record) {
  const double k = 0.1, K = 100, gamma = 7;
  std::vector<double> pR;
  test::SeriesCsv csv("laplace_pressure_2d", "radius_volume_m,radius_surface_m,pressure_pa,k_over_radius_volume_pa");
  std::string measured;
  bool ok = true;
  for (double R : {0.15, 0.2, 0.25}) {
    const std::string deck = log::format(R"(
simulation: {dimension: 2, method: mpm, end_time: 10}
domain: {lower: [0, 0], upper: [1, 1], cell_size: 0.01, walls: none}
mpm:
  gravity: [0, 0]
  surface_tension: {enabled: true, coefficient: %g}
%s
materials: [{name: liquid, model: fluid, density: 10, bulk_modulus: %g, viscosity: 0.05}]
sources: [{type: sphere, material: liquid, center: [0.5, 0.5], radius: %g, particles_per_cell: 4}]
)", k, integrator_lines.c_str(), K, R);
    auto d = test::deck_from_string(deck);
    mpm::MpmMethod<2> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 2});
    double t = 0;
    run_until(m, t, 1.5);
    // Mean pressure of the particles well inside (more than 3 cells from the surface), averaged
    // over the last 0.5 s with a Hann window to remove the remaining breathing (test::hann_mean).
    std::vector<double> times, pressures, volumes;
    int calls = 0;
    run_until(m, t, 2.0, [&](double now) {
      if (++calls % 10) return;
      auto& set = m.particles();
      auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().x));
      auto J = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().J));
      double s[2] = {0, 0};
      for (size_t p = 0; p < set.size(); ++p) {
        if (std::hypot(x(p, 0) - 0.5, x(p, 1) - 0.5) > R - 0.03) continue;
        s[0] += K / gamma * (std::pow(J(p, 0), -gamma) - 1);
        s[1] += 1;
      }
      MPI_Allreduce(MPI_IN_PLACE, s, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      DiagnosticRow row;
      m.diagnostics(row);
      times.push_back(now);
      pressures.push_back(s[0] / s[1]);
      volumes.push_back(test::column(row, "volume"));
    });
    const double p = test::hann_mean(times, pressures), R_volume = std::sqrt(test::hann_mean(times, volumes) / M_PI),
                 R_eff = R + (0.73 - 0.25) * 0.01;
    csv.row(R_volume, R_eff, p, k / R_volume);
    test::print_rank0("R = %g: p = %.5f Pa; p R_volume / k = %.4f (R_volume %.5f), p R_eff / k = %.4f", R, p,
                      p * R_volume / k, R_volume, p * R_eff / k);
    EXPECT_NEAR(p, k / R_volume, 0.1 * k / R_volume) << "R = " << R;
    EXPECT_NEAR(p, k / R_eff, 0.1 * k / R_eff) << "R = " << R << " (radius of the sampled surface)";
    ok = ok && std::fabs(p * R_volume / k - 1) <= 0.1 && std::fabs(p * R_eff / k - 1) <= 0.1;
    pR.push_back(p * R_volume);
    measured += log::format("%sp R / k = %.3f (R_eff: %.3f)", measured.empty() ? "" : ", ", p * R_volume / k, p * R_eff / k);
  }
  const double lo = *std::min_element(pR.begin(), pR.end()), hi = *std::max_element(pR.begin(), pR.end());
  EXPECT_LT((hi - lo) / lo, 0.05) << "p R is constant";
  ok = ok && (hi - lo) / lo < 0.05;
  test::record_check(record,
                     "p = k/R inside a 2D drop (R of the liquid's volume; also R_eff of the sampled surface); "
                     "p R constant over R = 0.15, 0.2, 0.25",
                     "10 % (p), 5 % (spread of p R)",
                     measured + log::format("; spread of p R %.1f %%", 100 * (hi - lo) / lo), ok);
}
}  // namespace

TEST(SurfaceTensionValidation, LaplacePressure2D) { laplace_pressure_2d("", "laplace_pressure_2d"); }

// The same equilibrium with the backward-Euler integrator at steps of about 1.8 dt_capillary (10 ms).
TEST(SurfaceTensionImplicitValidation, LongLaplacePressure2D) {
  laplace_pressure_2d("  integrator: implicit\n  dt_max: 0.01\n  cfl: 1.0", "laplace_pressure_2d_implicit");
}


namespace {
// The implicit oscillating drop (inputs/oscillating-drop-2d-implicit.yaml) with steps of
// `multiple` x dt_capillary: the measured mode-2 period, the smallest dt/dt_cap of the run, and the
// largest kinetic energy relative to the explicit run's (spurious energy shows there first).
struct ImplicitDrop {
  double period = 0, T = 0, min_ratio = 1e300, max_ke = 0;
  bool oscillates = false;
};
ImplicitDrop implicit_drop(double multiple, double t_end_periods) {
  const double dt_cap = std::sqrt(10 * 1e-6 / (M_PI * 0.1));
  auto d = run::load_deck(test::source_dir() + "/inputs/oscillating-drop-2d-implicit.yaml",
                          {log::format("mpm.dt_max=%.17g", multiple * dt_cap)});
  const auto src = d.deck.root().list("sources")[0];
  const double k = d.deck.root().section("mpm").section("surface_tension").real("coefficient");
  const double R = std::sqrt(src.vector("radii")[0] * src.vector("radii")[1]), rho = 10;
  ImplicitDrop out;
  out.T = 2 * M_PI / std::sqrt(6 * k / (rho * R * R * R));
  mpm::MpmMethod<2> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 2});
  std::vector<double> ts, es, ms;
  test::SeriesCsv csv(log::format("rayleigh_drop_2d_implicit_x%g", multiple),
                      "time_s,extent_x_minus_extent_y_m,second_moment_difference_m2,dt_over_dt_capillary");
  double t = 0;
  run_until(m, t, t_end_periods * out.T, [&](double now) {
    DiagnosticRow row;
    m.diagnostics(row);
    ts.push_back(now);
    es.push_back(test::column(row, "extent_x") - test::column(row, "extent_y"));
    ms.push_back(second_moment_difference(m));
    const double ratio = test::column(row, "dt_over_dt_capillary");
    if (now < t_end_periods * out.T * (1 - 1e-9)) out.min_ratio = std::min(out.min_ratio, ratio);  // not the clipped last step
    out.max_ke = std::max(out.max_ke, test::column(row, "kinetic_energy"));
    csv.row(now, es.back(), ms.back(), ratio);
  });
  // Zero crossings of the second-moment signal (see second_moment_difference).
  const auto osc = test::oscillation(ts, ms);
  out.oscillates = osc.zeros.size() >= 3;
  out.period = osc.period;
  return out;
}
}  // namespace

// Issue 4: the implicit drop runs stably at dt >= 20 dt_capillary and keeps Rayleigh's period within
// 10 %. Long (several minutes on 2 cores); measured numbers go to the validation record.
TEST(SurfaceTensionImplicitValidation, LongRayleighPeriodAtLargeSteps2D) {
  const auto r = implicit_drop(21.0, 2.2);
  test::record_check("rayleigh_drop_2d_implicit",
                     log::format("implicit, dt_max = 21 dt_cap: Rayleigh period %.4g s, every step >= 20 dt_cap", r.T),
                     "10 %", log::format("T = %.4g s, smallest dt/dt_cap %.2f, max KE %.2e J", r.period, r.min_ratio, r.max_ke),
                     r.oscillates && std::fabs(r.period - r.T) <= 0.1 * r.T && r.min_ratio >= 20);
  EXPECT_GE(r.min_ratio, 20.0) << "the run keeps steps of at least 20 dt_capillary";
  ASSERT_TRUE(r.oscillates);
  EXPECT_NEAR(r.period, r.T, 0.1 * r.T);
}

// Backward Euler and the explicit update agree when dt is small (their difference is O(dt) per unit
// time): the implicit drop at dt = 0.5 ms (0.09 dt_capillary) against the explicit one over 0.1 s
// (200 steps, a sixth of the first quarter period). The contraction of extent_x - extent_y over that
// time within 10 %, kinetic energy within 15 % (backward Euler damps), surface energy within 1e-3.
TEST(SurfaceTensionImplicitValidation, MatchesExplicitAtSmallSteps2D) {
  DiagnosticRow rows[2];
  double start[2] = {0, 0};
  for (int implicit = 0; implicit < 2; ++implicit) {
    auto d = run::load_deck(test::source_dir() + "/inputs/oscillating-drop-2d-implicit.yaml",
                            {std::string("mpm.integrator=") + (implicit ? "implicit" : "explicit")});
    mpm::MpmMethod<2> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 2});
    DiagnosticRow r0;
    m.diagnostics(r0);
    start[implicit] = test::column(r0, "extent_x") - test::column(r0, "extent_y");
    for (int s = 0; s < 200; ++s) m.step(5e-4);
    m.diagnostics(rows[implicit]);
  }
  auto rel = [&](const char* key) {
    const double a = test::column(rows[0], key), b = test::column(rows[1], key);
    return std::fabs(a - b) / std::fabs(a);
  };
  double change[2];
  for (int i = 0; i < 2; ++i) change[i] = test::column(rows[i], "extent_x") - test::column(rows[i], "extent_y") - start[i];
  const double dchange = std::fabs(change[1] - change[0]) / std::fabs(change[0]);
  EXPECT_LT(change[0], -1e-3) << "the explicit drop contracts along x";
  EXPECT_LT(dchange, 0.10) << "explicit " << change[0] << ", implicit " << change[1];
  EXPECT_LT(rel("kinetic_energy"), 0.15);
  EXPECT_LT(rel("surface_energy"), 1e-3);
  EXPECT_GE(test::column(rows[1], "newton_iterations"), 1);
  test::record_check("implicit_vs_explicit_small_dt", "implicit and explicit drop after 200 steps of 0.5 ms",
                     "contraction 10 %, KE 15 %, surface energy 1e-3",
                     log::format("contraction %.4f vs %.4f m (%.1f %%), KE %.1f %%, surface energy %.1e", change[1],
                                 change[0], 100 * dchange, 100 * rel("kinetic_energy"), rel("surface_energy")),
                     dchange < 0.1 && rel("kinetic_energy") < 0.15 && rel("surface_energy") < 1e-3);
}

