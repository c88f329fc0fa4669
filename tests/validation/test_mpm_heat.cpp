// The MPM heat solve (Chen et al. 2021, Sec. 4.3.2) against analytic solutions, with frozen mechanics
// (g = 0, material at rest):
//  - Robin disc (Sec. 6.2 of the paper, the series variant): a disc of radius R at T0 in ambient T-bar
//    with h (T - T-bar) on its surface. The mean excess decays as
//      sum_n 4 Bi^2 / (beta_n^2 (beta_n^2 + Bi^2)) exp(-beta_n^2 kappa t / R^2),  beta J1(beta) = Bi J0(beta),
//    which for R = 0.15, K = 0.01, h = 0.1, rho = c_p = 1 (Bi = 1.5) is 0.6055, 0.3775, 0.1470, 0.0223
//    at t = 0.5, 1, 2, 4 s (Carslaw and Jaeger 1959, Sec. 7.6).
//  - Two insulated discs (h = 0) with linear profiles: each keeps its mean (280 K, 310 K) and becomes
//    uniform (the linear mode decays at kappa (1.8412/R)^2).
//  - Uniform flux b into a disc: d(mean T)/dt = b 2 pi R / (rho c_p pi R^2) (energy balance; b = 0.625
//    gives the 8.33 K/s of the paper's rotating-flux scene, whose arc carries the same total power).
//  - 1D conduction from a temperature step: T = T_mid + dT/2 erf((x - x0) / (2 sqrt(kappa t))).
//  - Conservative transfer with h = b = H = 0: sum m c_p T is constant to the solver tolerance.
#include <gtest/gtest.h>

#include <cmath>

#include "core/log.hpp"
#include "methods/mpm/mpm_method.hpp"
#include "scene.hpp"
#include "validation_support.hpp"

using namespace meniscus;

namespace {

// Measured numbers go to stdout on rank 0 (the library log is quiet in tests).
struct Sample {
  double mean = 0, std = 0, energy = 0;  // energy: sum m c_p T (c_p = 1)
};

// Statistics of the particles' temperature, over those with x < split (side 0) or >= split (side 1).
Sample measure(mpm::MpmMethod<2>& m, int side = -1, double split = 0.5) {
  auto& set = m.particles();
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().x));
  auto T = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.temperature_field()));
  auto mass = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().mass));
  double s[4] = {0, 0, 0, 0};  // mass, m T, m T^2, count
  for (size_t p = 0; p < set.size(); ++p) {
    if (side == 0 && x(p, 0) >= split) continue;
    if (side == 1 && x(p, 0) < split) continue;
    s[0] += mass(p, 0);
    s[1] += mass(p, 0) * T(p, 0);
    s[2] += mass(p, 0) * T(p, 0) * T(p, 0);
  }
  MPI_Allreduce(MPI_IN_PLACE, s, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  Sample out;
  out.mean = s[1] / s[0];
  out.std = std::sqrt(std::max(s[2] / s[0] - out.mean * out.mean, 0.0));
  out.energy = s[1];
  return out;
}

void advance(mpm::MpmMethod<2>& m, double& t, double t_end) {
  while (t < t_end * (1 - 1e-12)) {
    const double dt = std::min(m.stable_dt(), t_end - t);
    m.step(dt);
    t += dt;
  }
}

// A frozen disc scene: stiff-enough solid at rest, no gravity, implicit mechanics so that the heat
// equation sets the step. Surface samples (surface tension with k = 0) carry the Robin terms.
std::string disc_deck(double dx, double dt, const std::string& heat, const std::string& sources, double width = 0.5) {
  return log::format(R"(
simulation: {dimension: 2, method: mpm, end_time: 100}
domain: {lower: [0, 0], upper: [%g, 0.5], cell_size: %.17g, walls: none}
mpm:
  gravity: [0, 0]
  integrator: implicit
  dt_max: %g
  surface_tension: {enabled: true, coefficient: 0, placement: stratified}
  heat: {enabled: true, %s}
materials: [{name: wax, model: fixed-corotated, density: 1, youngs_modulus: 100, poisson_ratio: 0.3,
             thermal_conductivity: 0.01, heat_capacity: 1}]
sources:
%s
)",
                     width, dx, dt, heat.c_str(), sources.c_str());
}

const std::string kOneDisc = "  - {type: sphere, material: wax, center: [0.25, 0.25], radius: 0.15, temperature: 325}";

double robin_ratio(const Sample& s) { return (s.mean - 295.0) / 30.0; }

void robin_series(const std::string& transfer, const std::vector<double>& times, const std::vector<double>& expected,
                  double tol, double dx) {
  auto d = test::deck_from_string(disc_deck(
      dx, 0.01, "ambient_temperature: 295, transfer_coefficient: 0.1, thermal_transfer: " + transfer, kOneDisc));
  mpm::MpmMethod<2> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 2});
  double t = 0;
  for (size_t k = 0; k < times.size(); ++k) {
    advance(m, t, times[k]);
    const double r = robin_ratio(measure(m));
    test::print_rank0("Robin disc (%s): t = %g s, mean-excess ratio %.4f (series %.4f), %d CG iterations", transfer.c_str(),
              t, r, expected[k], m.last_heat_solve().iterations);
    EXPECT_NEAR(r, expected[k], tol) << "t = " << t;
  }
}

}  // namespace

// The Robin and flux terms are integrated at each sample's boundary point with its boundary measure
// (mpm_heat_boundary.cpp), not at the sample half a cell outside as in the paper's discretization, which
// read too low a surface temperature and kept +0.045 of the mean excess at t = 0.5 s at this resolution
// (R = 19 dx). Measured now, t = 0.5, 1, 2, 4 s: paper -0.0034, -0.0038, -0.0028, -0.0008; conservative
// -0.0022, -0.0024, -0.0018, -0.0005. Tolerances: the series' +-0.03 (paper) and +-0.01 (conservative).
TEST(MpmHeatValidation, RobinDiscSeries) {
  robin_series("paper", {0.5, 1, 2, 4}, {0.6055, 0.3775, 0.1470, 0.0223}, 0.03, 1.0 / 128);
}

TEST(MpmHeatValidation, RobinDiscSeriesConservative) {
  robin_series("conservative", {0.5, 1, 2, 4}, {0.6055, 0.3775, 0.1470, 0.0223}, 0.01, 1.0 / 128);
}

namespace {
struct FluxResult {
  double rate = 0, contour_rate = 0;  // measured dT/dt; b |boundary| / sum m c_p
};
FluxResult flux_rate(const std::string& transfer, double dx = 1.0 / 128) {
  auto d = test::deck_from_string(
      disc_deck(dx, 0.01, "boundary_flux: 0.625, thermal_transfer: " + transfer,
                "  - {type: sphere, material: wax, center: [0.25, 0.25], radius: 0.15, temperature: 295}"));
  mpm::MpmMethod<2> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 2});
  double t = 0;
  advance(m, t, 0.1);
  const double T0 = measure(m).mean;
  advance(m, t, 0.5);
  const Sample end = measure(m);
  FluxResult out;
  out.rate = (end.mean - T0) / 0.4;
  // The power the flux brings is b times the samples' boundary measure (the sampled contour, which lies
  // half a cell outside the particles, mapped onto the material boundary: mpm_heat_boundary.cpp).
  const auto area = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.surface_samples().area);
  double contour = 0, mass = end.energy / end.mean;
  for (size_t r = 0; r < area.extent(0); ++r) contour += std::hypot(area(r, 0), area(r, 1));
  MPI_Allreduce(MPI_IN_PLACE, &contour, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  const double measure = m.last_heat_solve().boundary_measure;
  out.contour_rate = 0.625 * measure / mass;
  test::print_rank0("flux energy balance (%s, dx = 1/%g): dT/dt = %.4f K/s (8.333 expected; b |boundary| / sum m c_p = %.4f; "
         "|boundary| / 2 pi R = %.4f, sampled contour / 2 pi R = %.4f)",
         transfer.c_str(), 1 / dx, out.rate, out.contour_rate, measure / (2 * M_PI * 0.15), contour / (2 * M_PI * 0.15));
  return out;
}
}  // namespace

constexpr double kFluxRate = 0.625 * 2 / 0.15;  // b 2 pi R / (rho c_p pi R^2) = 8.33 K/s

// The paper's transfer is not conservative; with the boundary heat put where the particles read it back
// it brings +1.2 % (it lost 9 % with the heat put at the samples, on nodes no particle reads).
TEST(MpmHeatValidation, FluxEnergyBalance) { EXPECT_NEAR(flux_rate("paper").rate, kFluxRate, 0.03 * kFluxRate); }

// The conservative transfer keeps every joule the samples bring in: the rate matches b times the samples'
// boundary measure to round-off, and that measure is 2 pi R within 1 % (measured +0.6 %; the sampled
// contour itself is 3.9 % longer).
TEST(MpmHeatValidation, FluxEnergyBalanceConservative) {
  const auto f = flux_rate("conservative");
  EXPECT_NEAR(f.rate, f.contour_rate, 1e-6 * f.contour_rate);
  EXPECT_NEAR(f.rate, kFluxRate, 0.01 * kFluxRate);
}

// Resolution study (R = 38 dx): the paper's transfer's flux error and the Robin series at all four times.
TEST(MpmHeatValidation, LongFineResolution) {
  EXPECT_NEAR(flux_rate("paper", 1.0 / 256).rate, kFluxRate, 0.03 * kFluxRate);
  robin_series("conservative", {0.5, 1, 2, 4}, {0.6055, 0.3775, 0.1470, 0.0223}, 0.01, 1.0 / 256);
}

// 1D conduction from a step, with the explicit integrator and no surface samples (insulated ends):
// a bar of 300 K | 400 K; T = 350 + 50 erf((x - 0.5) / (2 sqrt(kappa t))), kappa = K / (rho c_p) = 0.01.
TEST(MpmHeatValidation, StepConductionErf) {
  auto d = test::deck_from_string(R"(
simulation: {dimension: 2, method: mpm, end_time: 100}
domain: {lower: [0, 0], upper: [1, 0.25], cell_size: 0.015625, walls: none}
mpm:
  gravity: [0, 0]
  dt_max: 0.005
  heat: {enabled: true}
materials: [{name: bar, model: fixed-corotated, density: 1, youngs_modulus: 10, poisson_ratio: 0.3,
             thermal_conductivity: 0.01, heat_capacity: 1}]
sources:
  - {type: box, material: bar, lower: [0.05, 0.0625], upper: [0.5, 0.1875], temperature: 300}
  - {type: box, material: bar, lower: [0.5, 0.0625], upper: [0.95, 0.1875], temperature: 400}
)");
  mpm::MpmMethod<2> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 2});
  ASSERT_FALSE(m.implicit());
  double t = 0;
  for (double t_end : {0.5, 1.0}) {
    advance(m, t, t_end);
    auto& set = m.particles();
    auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().x));
    auto T = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.temperature_field()));
    double worst = 0;
    for (size_t p = 0; p < set.size(); ++p) {
      const double exact = 350 + 50 * std::erf((x(p, 0) - 0.5) / (2 * std::sqrt(0.01 * t)));
      worst = std::max(worst, std::fabs(T(p, 0) - exact));
    }
    MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    test::print_rank0("step conduction: t = %g s, max |T - erf profile| = %.3f K (jump 100 K)", t, worst);
    EXPECT_LT(worst, 2.0) << "t = " << t;
  }
}

namespace {
// The two discs of the paper's Sec. 6.2 (Fig. 9), frozen, with h = 0: linear profiles 265..295 K and
// 295..325 K across each disc (100 K/m), K = 0.0025.
const std::string kTwoDiscs =
    "  - {type: sphere, material: wax, center: [0.3, 0.25], radius: 0.15, temperature: 250, temperature_gradient: [100, 0]}\n"
    "  - {type: sphere, material: wax, center: [0.7, 0.25], radius: 0.15, temperature: 240, temperature_gradient: [100, 0]}";

std::string two_disc_deck(const std::string& heat, double dt) {
  std::string deck = disc_deck(1.0 / 64, dt, heat, kTwoDiscs, 1.0);
  deck.replace(deck.find("thermal_conductivity: 0.01"), 26, "thermal_conductivity: 0.0025");
  return deck;
}
}  // namespace

TEST(MpmHeatValidation, TwoDiscsInsulated) {
  auto d = test::deck_from_string(two_disc_deck("thermal_transfer: paper", 0.05));
  mpm::MpmMethod<2> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 2});
  double t = 0, worst[2] = {0, 0};
  for (int k = 1; k <= 12; ++k) {
    advance(m, t, k);
    for (int side = 0; side < 2; ++side) {
      const double mean = measure(m, side).mean, target = side == 0 ? 280 : 310;
      worst[side] = std::max(worst[side], std::fabs(mean - target));
      EXPECT_NEAR(mean, target, 0.3) << "disc " << side << ", t = " << t;
    }
  }
  const double s0 = measure(m, 0).std, s1 = measure(m, 1).std;
  test::print_rank0("two discs, h = 0: largest mean drift %.4f K / %.4f K; std at t = %g s: %.4f K / %.4f K", worst[0], worst[1], t,
         s0, s1);
  EXPECT_LT(s0, 0.2);
  EXPECT_LT(s1, 0.2);
}

// Conservative transfer, h = b = H = 0: sum m c_p T changes only by the solver residual (tolerance
// 1e-13 here); the paper's transfer, on the same scene, does not conserve it. The weak nodes (filled
// fraction below 1e-4) are out of the matrix in both runs; the check needs them present, since their
// couplings moved onto their neighbours' diagonals must keep the conduction columns summing to zero.
TEST(MpmHeatValidation, ConservativeTransferConservesHeat) {
  double drift[2];
  int k = 0;
  for (const char* transfer : {"conservative", "paper"}) {
    auto d = test::deck_from_string(two_disc_deck(std::string("tolerance: 1e-13, thermal_transfer: ") + transfer, 0.05));
    mpm::MpmMethod<2> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 2});
    const double e0 = measure(m).energy;
    double t = 0;
    advance(m, t, 1.0);
    EXPECT_GT(m.last_heat_solve().weak_nodes, 0) << transfer;
    test::print_rank0("%s transfer: %ld weak nodes at the last step", transfer, m.last_heat_solve().weak_nodes);
    drift[k++] = std::fabs(measure(m).energy / e0 - 1);
  }
  test::print_rank0("sum m c_p T after 20 steps: relative drift %.3e (conservative), %.3e (paper)", drift[0], drift[1]);
  EXPECT_LT(drift[0], 1e-12);
  EXPECT_GT(drift[1], 1e-9);  // the check can tell the two transfers apart
}

// One-phase Stefan problem (Carslaw and Jaeger 1959, Sec. 11.2): a solid bar at T_melt, its left end held
// at T_melt + dT by a reservoir of huge heat capacity; the melt front is at s(t) = 2 lambda sqrt(kappa t)
// with lambda e^{lambda^2} erf(lambda) = St / sqrt(pi), St = c_p dT / L. Enthalpy method (L > 0); the
// front is the bar's liquid volume over its cross-section. Implicit mechanics, g = 0.
namespace {
double stefan_lambda(double st) {
  double lo = 1e-6, hi = 3;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (mid * std::exp(mid * mid) * std::erf(mid) < st / std::sqrt(M_PI) ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

void stefan(double st, const std::vector<double>& times) {
  const double L = 10, dT = st * L, kappa = 0.01, x0 = 0.2, y0 = 0.03125, y1 = 0.09375;
  auto d = test::deck_from_string(log::format(R"(
simulation: {dimension: 2, method: mpm, end_time: 100}
domain: {lower: [0, 0], upper: [1, 0.125], cell_size: 0.0078125, walls: none}
mpm:
  gravity: [0, 0]
  integrator: implicit
  dt_max: 0.01
  heat: {enabled: true}
materials:
  - {name: reservoir, model: fixed-corotated, density: 1, youngs_modulus: 100, thermal_conductivity: 0.01,
     heat_capacity: 1.0e6}
  - {name: wax, model: fixed-corotated, density: 1, youngs_modulus: 100, thermal_conductivity: 0.01, heat_capacity: 1,
     melting_temperature: 300, latent_heat: %g, phase_partner: melt}
  - {name: melt, model: fluid, density: 1, bulk_modulus: 100, thermal_conductivity: 0.01, heat_capacity: 1,
     melting_temperature: 300, latent_heat: %g, phase_partner: wax}
sources:
  - {type: box, material: reservoir, lower: [0.05, %g], upper: [%g, %g], temperature: %g}
  - {type: box, material: wax, lower: [%g, %g], upper: [0.95, %g], temperature: 300}
)",
                                              L, L, y0, x0, y1, 300 + dT, x0, y0, y1));
  mpm::MpmMethod<2> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 2});
  const double lambda = stefan_lambda(st);
  double t = 0;
  for (double t_end : times) {
    advance(m, t, t_end);
    auto& set = m.particles();
    auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().x));
    auto phi = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.liquid_fraction_field()));
    auto vol = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().volume));
    auto T = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.temperature_field()));
    auto mat = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.material());
    double liquid = 0, mushy_T = 0, mushy = 0;
    long melted = 0, wrong_phase = 0;
    for (size_t p = 0; p < set.size(); ++p) {
      if (x(p, 0) < x0) continue;
      // Material 2 (melt) exactly where the liquid fraction reached 1; the rest is still wax.
      melted += mat(p) == 2 ? 1 : 0;
      wrong_phase += (mat(p) == 2) != (phi(p, 0) >= 1) ? 1 : 0;
      liquid += phi(p, 0) * vol(p, 0);
      if (phi(p, 0) > 0.05 && phi(p, 0) < 0.95) {
        mushy_T = std::max(mushy_T, std::fabs(T(p, 0) - 300));
        mushy += 1;
      }
    }
    MPI_Allreduce(MPI_IN_PLACE, &liquid, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &mushy_T, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &melted, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &wrong_phase, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    EXPECT_GT(melted, 0);
    EXPECT_EQ(wrong_phase, 0);
    const double front = liquid / (y1 - y0), exact = 2 * lambda * std::sqrt(kappa * t);
    test::print_rank0("Stefan St = %g: t = %g s, front %.5f m, 2 lambda sqrt(kappa t) = %.5f m (lambda %.4f), error %.2f %%; "
           "melting particles within %.2e K of T_melt",
           st, t, front, exact, lambda, 100 * (front / exact - 1), mushy_T);
    EXPECT_NEAR(front, exact, 0.05 * exact) << "St = " << st << ", t = " << t;
    EXPECT_LT(mushy_T, 1e-9);  // the temperature stalls at T_melt while the latent heat is absorbed
  }
}
}  // namespace

TEST(MpmHeatValidation, StefanMeltFront) {
  stefan(1.0, {0.25, 0.5});
  stefan(0.1, {1.5, 3.0});
}

// Collider temperatures (Dirichlet and insulated walls of the heat solve): a slab 0 <= xi <= L = 0.5 m at
// T0 = 300 K between a collider held at Th = 400 K (xi < 0) and an insulated collider (xi > L). The grid
// nodes inside the hot collider are fixed; the insulated one adds nothing (natural condition). Exact
// solution (Carslaw and Jaeger 1959, Sec. 3.3):
//   T = Th + (T0 - Th) sum_n 4 / ((2n+1) pi) sin((2n+1) pi xi / (2L)) exp(-((2n+1) pi / (2L))^2 kappa t).
// Checked at t = 0.5 s and 2 s over every particle, within 2 % of the jump (measured 1.28 K, 0.58 K); the
// slab's mean rise must equal the exact (Th - T0) (1 - sum_n 8 / ((2n+1) pi)^2 exp(...)) within 3 %
// (measured +2.1 %, +1.0 %: the fixed node at the slab's edge heats the first half cell at once).
TEST(MpmHeatValidation, ColliderTemperatureSlab) {
  constexpr double dx = 1.0 / 64, x0 = 6 * dx, L = 0.5, T0 = 300, Th = 400, kappa = 0.01;
  auto d = test::deck_from_string(log::format(R"(
simulation: {dimension: 2, method: mpm, end_time: 100}
domain: {lower: [0, 0], upper: [1, 0.25], cell_size: %.17g, walls: none}
mpm:
  gravity: [0, 0]
  dt_max: 0.005
  heat: {enabled: true}
materials: [{name: bar, model: fixed-corotated, density: 1, youngs_modulus: 10, poisson_ratio: 0.3,
             thermal_conductivity: 0.01, heat_capacity: 1}]
colliders:
  - {type: half-space, point: [%.17g, 0], normal: [1, 0], temperature: %g}
  - {type: half-space, point: [%.17g, 0], normal: [-1, 0]}
sources:
  - {type: box, material: bar, lower: [%.17g, 0.0625], upper: [%.17g, 0.1875], temperature: %g}
)",
                                              dx, x0, Th, x0 + L, x0, x0 + L, T0));
  mpm::MpmMethod<2> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 2});
  const double e0 = measure(m).energy;
  double t = 0;
  for (double t_end : {0.5, 2.0}) {
    advance(m, t, t_end);
    auto& set = m.particles();
    auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().x));
    auto T = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.temperature_field()));
    auto series = [&](double xi) {
      double s = 0;
      for (int n = 0; n < 200; ++n) {
        const double k = (2 * n + 1) * M_PI / (2 * L);
        s += 4 / ((2 * n + 1) * M_PI) * std::sin(k * xi) * std::exp(-k * k * kappa * t);
      }
      return Th + (T0 - Th) * s;
    };
    double worst = 0;
    for (size_t p = 0; p < set.size(); ++p) worst = std::max(worst, std::fabs(T(p, 0) - series(x(p, 0) - x0)));
    MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double gained = 0;  // exact heat taken in per unit cross-section, over the slab's mean rise
    for (int n = 0; n < 200; ++n) {
      const double k = (2 * n + 1) * M_PI / (2 * L);
      gained += 8 / ((2 * n + 1) * (2 * n + 1) * M_PI * M_PI) * std::exp(-k * k * kappa * t);
    }
    const double rise_exact = (Th - T0) * (1 - gained);
    const Sample s = measure(m);
    const double rise = (s.energy - e0) / (s.energy / s.mean);
    test::print_rank0("collider temperature slab: t = %g s, max |T - series| = %.3f K (jump 100 K); mean rise %.3f K "
           "(exact %.3f K)",
           t, worst, rise, rise_exact);
    EXPECT_LT(worst, 2.0) << "t = " << t;
    EXPECT_NEAR(rise, rise_exact, 0.03 * rise_exact) << "t = " << t;
  }
}

// Rotating heat flux (Chen et al. 2021, Sec. 6.2, Fig. 10): b = 5 W/m on an arc of width pi/4 of the disc's
// boundary (R = 0.15 m, K = 0.01, rho = c_p = 1), the arc turning at 2 pi rad/s. With h = 0 the global
// balance gives d(mean T)/dt = b (pi/4) R / (rho c_p pi R^2) = 8.33 K/s, measured over one full turn
// (0.1 .. 1.1 s) so that the arc has swept the whole contour once: within 1 % with the conservative
// transfer (measured +0.5 %; the rate is b times the arc's boundary measure, mpm_heat_boundary.cpp; with
// the sampled arc length it was +3.6 %), 3 % with the paper's (measured +1.0 %; it was -9.1 %).
namespace {
constexpr double kArcRate = 5 * (M_PI / 4) * 0.15 / (M_PI * 0.15 * 0.15);  // 8.33 K/s

std::string arc_heat(const std::string& transfer, double h) {
  return log::format("boundary_flux: 5, transfer_coefficient: %g, ambient_temperature: 295, thermal_transfer: %s, "
                     "flux_region: {shape: arc, center: [0.25, 0.25], width: 45, angular_velocity: %.17g}",
                     h, transfer.c_str(), 2 * M_PI);
}

double arc_rate(const std::string& transfer) {
  auto d = test::deck_from_string(disc_deck(1.0 / 128, 0.01, arc_heat(transfer, 0),
                                            "  - {type: sphere, material: wax, center: [0.25, 0.25], radius: 0.15, "
                                            "temperature: 295}"));
  mpm::MpmMethod<2> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 2});
  double t = 0;
  advance(m, t, 0.1);
  const double T0 = measure(m).mean;
  advance(m, t, 1.1);
  const double rate = (measure(m).mean - T0) / 1.0;
  test::print_rank0("rotating flux arc (%s, h = 0): d(mean T)/dt = %.4f K/s over one turn (8.333 expected)", transfer.c_str(), rate);
  return rate;
}
}  // namespace

TEST(MpmHeatValidation, RotatingFluxArcEnergyBalance) {
  EXPECT_NEAR(arc_rate("paper"), kArcRate, 0.03 * kArcRate);
  EXPECT_NEAR(arc_rate("conservative"), kArcRate, 0.01 * kArcRate);
}

// The same arc with h = 0.1 (the paper's simulation A): at the periodic steady state the Robin loss over
// the contour balances the arc's power, oint h (T - T-bar) ds = b L_arc, so the perimeter-averaged excess
// is b (L_arc / L) / h = 5 / 8 / 0.1 = 6.25 K (the relaxation rate of the mean is 2 h / (rho c_p R) =
// 1.3 /s: steady after 6 s). Measured on the outermost ring of particles (within dx/2 of the largest
// radius), averaged over the turn 6 .. 7 s; within 15 %.
TEST(MpmHeatValidation, LongRotatingFluxSteadyState) {
  auto d = test::deck_from_string(disc_deck(1.0 / 128, 0.01, arc_heat("conservative", 0.1),
                                            "  - {type: sphere, material: wax, center: [0.25, 0.25], radius: 0.15, "
                                            "temperature: 295}"));
  mpm::MpmMethod<2> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 2});
  double t = 0;
  advance(m, t, 6.0);
  double sum = 0;
  int count = 0;
  for (int k = 1; k <= 20; ++k) {
    advance(m, t, 6.0 + 0.05 * k);
    auto& set = m.particles();
    auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().x));
    auto T = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.temperature_field()));
    double rmax = 0;
    for (size_t p = 0; p < set.size(); ++p) rmax = std::max(rmax, std::hypot(x(p, 0) - 0.25, x(p, 1) - 0.25));
    MPI_Allreduce(MPI_IN_PLACE, &rmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double s[2] = {0, 0};
    for (size_t p = 0; p < set.size(); ++p)
      if (std::hypot(x(p, 0) - 0.25, x(p, 1) - 0.25) > rmax - 0.5 / 128) {
        s[0] += T(p, 0) - 295;
        s[1] += 1;
      }
    MPI_Allreduce(MPI_IN_PLACE, s, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    sum += s[0] / s[1];
    ++count;
  }
  const double excess = sum / count;
  test::print_rank0("rotating flux arc, h = 0.1: perimeter-averaged excess %.4f K over 6..7 s (6.25 K expected)", excess);
  EXPECT_NEAR(excess, 6.25, 0.15 * 6.25);
}
