// 3D surface tension with explicit MPM (Chen et al. 2021): the Laplace pressure 2k/R inside a spherical drop
// at rest, and Rayleigh's mode-2 oscillation period of a slightly prolate drop.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/log.hpp"
#include "methods/mpm/mpm_method.hpp"
#include "run/deck_schema.hpp"
#include "scene.hpp"
#include "validation_support.hpp"

using namespace meniscus;

namespace {

// Explicit steps at the method's stable dt until t_end; `each` sees the time after every step.
void advance(mpm::MpmMethod<3>& m, double& t, double t_end, const std::function<void(double)>& each = {}) {
  while (t < t_end * (1 - 1e-12)) {
    const double dt = std::min(m.stable_dt(), t_end - t);
    m.step(dt);
    t += dt;
    if (each) each(t);
  }
}

// The radius of the resampled surface of a drop whose particles fill a sphere of radius R: the
// union-of-spheres level set (r_ls = 0.867 dx in 3D) sits r_ls - spacing/2 outside the outermost
// particle centres, with spacing dx/2 at 8 particles per cell (particles fill dx/2 cubes about their centres; the
// 2D test LaplacePressure2D uses the same rule with r_ls = 0.73 dx).
double sampled_radius(double R, double dx) { return R + (0.867 - 0.25) * dx; }

struct LaplaceSphere {
  double p = 0;       // mean pressure of the particles more than 3 cells inside, time-averaged [Pa]
  double R_eff = 0;   // sampled_radius() [m]
  double R_area = 0;  // sqrt(A / 4 pi) of the measured surface area A of the samples [m]
  double R_volume = 0;  // radius of the liquid, (3 V / 4 pi)^(1/3) of its volume sum(V_p J_p) [m]
};

// A sphere of liquid (rho = 10, K = 100 Pa, Tait gamma 7, mu = 0.05 Pa s) with k = 0.1 N/m in zero
// gravity settles to rest; its pressure is averaged over [t_settle, t_settle + t_avg].
LaplaceSphere laplace_sphere(double R, double dx, double k, double t_settle, double t_avg) {
  const double K = 100, gamma = 7;
  const std::string deck = log::format(R"(
simulation: {dimension: 3, method: mpm, end_time: 10}
domain: {lower: [0, 0, 0], upper: [1, 1, 1], cell_size: %.17g, walls: none}
mpm:
  gravity: [0, 0, 0]
  surface_tension: {enabled: true, coefficient: %g}
materials: [{name: liquid, model: fluid, density: 10, bulk_modulus: %g, viscosity: 0.05}]
sources: [{type: sphere, material: liquid, center: [0.5, 0.5, 0.5], radius: %.17g, particles_per_cell: 8}]
)", dx, k, K, R);
  auto d = test::deck_from_string(deck);
  mpm::MpmMethod<3> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 2});
  auto interior_pressure = [&]() {
    auto& set = m.particles();
    auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().x));
    auto J = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().J));
    double s[2] = {0, 0};
    for (size_t p = 0; p < set.size(); ++p) {
      const double r = std::sqrt(std::pow(x(p, 0) - 0.5, 2) + std::pow(x(p, 1) - 0.5, 2) + std::pow(x(p, 2) - 0.5, 2));
      if (r > R - 3 * dx) continue;
      s[0] += K / gamma * (std::pow(J(p, 0), -gamma) - 1);
      s[1] += 1;
    }
    MPI_Allreduce(MPI_IN_PLACE, s, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return s[0] / s[1];
  };
  double t = 0;
  advance(m, t, t_settle);
  LaplaceSphere out;
  std::vector<double> times, pressures, areas, volumes;
  int calls = 0;
  advance(m, t, t_settle + t_avg, [&](double now) {
    if (++calls % 10) return;
    DiagnosticRow row;
    m.diagnostics(row);
    times.push_back(now);
    pressures.push_back(interior_pressure());
    areas.push_back(test::column(row, "surface_area"));
    volumes.push_back(test::column(row, "volume"));
  });
  // Hann-window means: the drop breathes about the equilibrium (test::hann_mean).
  out.p = test::hann_mean(times, pressures);
  out.R_eff = sampled_radius(R, dx);
  out.R_area = std::sqrt(test::hann_mean(times, areas) / (4 * M_PI));
  out.R_volume = std::cbrt(3 * test::hann_mean(times, volumes) / (4 * M_PI));
  return out;
}

// Mean interior pressure within 10 % of 2k/R at each radius, for R the radius of the liquid's volume
// and for R_eff the radius of the sampled surface, and p R constant within 5 % (issue 4), as in 2D.
void check_laplace_3d(const std::vector<double>& radii, double dx, double t_settle, double t_avg, const std::string& record) {
  const double k = 0.1;
  std::vector<double> pR;
  test::SeriesCsv csv(record, "radius_volume_m,radius_surface_m,radius_from_area_m,pressure_pa,two_k_over_radius_volume_pa");
  std::string measured;
  bool ok = true;
  for (double R : radii) {
    const auto r = laplace_sphere(R, dx, k, t_settle, t_avg);
    const double ref = 2 * k / r.R_volume, ref_eff = 2 * k / r.R_eff;
    csv.row(r.R_volume, r.R_eff, r.R_area, r.p, ref);
    test::print_rank0("R = %g, dx = %.4g: p = %.5f Pa; 2k/R_volume = %.5f Pa (%+.2f %%, R_volume %.5f), 2k/R_eff %+.2f %% (R_eff %.5f), "
                      "2k/R_area %+.2f %% (R_area %.5f)",
                      R, dx, r.p, ref, 100 * (r.p - ref) / ref, r.R_volume, 100 * (r.p - ref_eff) / ref_eff, r.R_eff,
                      100 * (r.p * r.R_area / (2 * k) - 1), r.R_area);
    EXPECT_NEAR(r.p, ref, 0.1 * ref) << "R = " << R;
    EXPECT_NEAR(r.p, ref_eff, 0.1 * ref_eff) << "R = " << R << " (radius of the sampled surface)";
    ok = ok && std::fabs(r.p - ref) <= 0.1 * ref && std::fabs(r.p - ref_eff) <= 0.1 * ref_eff;
    pR.push_back(r.p * r.R_volume);
    measured += log::format("%sR = %g: p R / 2k = %.3f (R_eff: %.3f)", measured.empty() ? "" : ", ", R,
                            r.p * r.R_volume / (2 * k), r.p * r.R_eff / (2 * k));
  }
  std::string reference = "p = 2k/R inside a 3D drop (R of the liquid's volume; also R_eff of the sampled surface)";
  if (pR.size() > 1) {
    const double lo = *std::min_element(pR.begin(), pR.end()), hi = *std::max_element(pR.begin(), pR.end());
    EXPECT_LT((hi - lo) / lo, 0.05) << "p R is constant";
    ok = ok && (hi - lo) / lo < 0.05;
    measured += log::format("; spread of p R %.2f %%", 100 * (hi - lo) / lo);
    reference += "; p R constant over three radii";
  }
  test::record_check(record, reference + log::format(", dx = %.4g", dx), pR.size() > 1 ? "10 % (p), 5 % (spread of p R)" : "10 % (p)",
                     measured, ok);
}

}  // namespace

// Issue 4: Laplace pressure in a 3D drop at dx = 1/63 (R = 9.5, 12.6 and 15.9 cells): 2k/R within
// 10 % at each radius, p R constant within 5 %. The drop breathes (period about 0.25 s at R = 0.2) and
// the breathing decays slowly, so the pressure is a Hann-window mean over 1 s (about four periods)
// after 0.5 s. Long: 1500 explicit steps per radius (about 8 minutes for the three radii on 2 cores).
// Measured (docs/theory-mpm-surface-tension.md): 4.9-6.3 % below 2k/R and within 1.1 % of 2k/R_eff;
// p R constant within 1.5 %.
TEST(SurfaceTensionValidation, LongLaplacePressure3D) {
  check_laplace_3d({0.15, 0.2, 0.25}, 1.0 / 63, 0.5, 1.0, "laplace_pressure_3d");
}

// Rayleigh's mode-2 period of a 3D drop, T = 2 pi / sqrt(8 k / (rho R^3)) = 1.291 s (inviscid, in
// vacuum; Lamb 1932, Sec. 275), for inputs/mpm-oscillating-drop-3d.yaml (R = 0.15 m,
// 5 % prolate, dx = 1/63). Tolerance 10 % (discretisation error of the resampled surface at this dx). Long: about 9000 steps
// (11 minutes on 2 cores); measured T = 1.276 s (-1.2 %; +6.0 % before the samples carried the
// contour's full area).
TEST(SurfaceTensionValidation, LongRayleighPeriod3D) {
  auto d = run::load_deck(test::source_dir() + "/inputs/mpm-oscillating-drop-3d.yaml", {});
  const auto src = d.deck.root().list("sources")[0];
  const auto radii = src.vector("radii");
  const double R = std::cbrt(radii[0] * radii[1] * radii[2]);
  const double k = d.deck.root().section("mpm").section("surface_tension").real("coefficient");
  const double rho = d.deck.root().list("materials")[0].real("density");
  const double T = 2 * M_PI / std::sqrt(8 * k / (rho * R * R * R));
  mpm::MpmMethod<3> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 2});
  test::SeriesCsv csv("rayleigh_drop_3d", "time_s,extent_x_minus_mean_yz_m");
  std::vector<double> ts, es;
  double t = 0;
  advance(m, t, 2.2 * T, [&](double now) {
    DiagnosticRow row;
    m.diagnostics(row);
    ts.push_back(now);
    // The drop is prolate along x and axisymmetric about it: x against the mean of y and z.
    es.push_back(test::column(row, "extent_x") - 0.5 * (test::column(row, "extent_y") + test::column(row, "extent_z")));
    csv.row(now, es.back());
  });
  const auto osc = test::oscillation(ts, es);
  ASSERT_GE(osc.zeros.size(), 3u) << "the drop oscillates";
  const double period = osc.period;
  test::print_rank0("3D drop: T = %.4f s, Rayleigh %.4f s (%+.2f %%), %zu zero crossings", period, T,
                    100 * (period - T) / T, osc.zeros.size());
  EXPECT_NEAR(period, T, 0.1 * T) << "measured " << period << " s, Rayleigh " << T << " s";
  test::record_check("rayleigh_drop_3d", log::format("Rayleigh 3D mode-2 period %.4g s, dx = 1/63", T), "10 %",
                     log::format("T = %.4g s (%+.1f %%)", period, 100 * (period - T) / T),
                     std::fabs(period - T) <= 0.1 * T);
}

