// Physics of the multiphase MPM (Yan et al. 2018) against analytic values, 2D CI sizes (cells twice
// the paper-scale decks'): the hydrostatic pressure of a settled water column (SPH density + Tait
// law), the period of the fundamental compression wave in a laterally confined hypoelastic column,
// and the anti-penetration contact keeping falling water out of an elastic slab (beta = 1) where
// switching it off lets the water through (beta = 0, negative control).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "methods/mpm_multiphase/multiphase_method.hpp"
#include "scene.hpp"
#include "validation_support.hpp"

using namespace meniscus;
using mpm_multiphase::MultiphaseMpm;

namespace {

template <class M>
void run_until(M& m, double& t, double end) {
  while (t < end - 1e-12) {
    const double dt = std::min(m.stable_dt(), end - t);
    m.step(dt);
    t += dt;
  }
}

}  // namespace

// DISABLED: does not hold yet. Measured on this branch (2D, dx = 0.02): after the 1 s PIC phase the
// interior bins read 8-12 % below rho g d (about rho g (d - 0.015)) with the column compressed to
// 0.3817 m (4.5 %) although the largest density ratio is 1.03; after 0.25 s at 5 % PIC the particles
// clump (max pressure ~27 kPa against 3.9 kPa hydrostatic, rms velocity 0.066 m/s) and the bins read
// 46 % low. With a 1.25 dx support the SPH sum sees ~19 neighbours, so its value depends on the local
// packing, not only on the number density; the calibration only fixes the square rest lattice. With
// 16 particles per cell (~75 neighbours) it still reads 43 % low after the 5 % PIC phase: the bottom
// rows stand about 0.75 dx off the floor's wall plane and carry 8-28 kPa, because their SPH sums lack
// the neighbours below the wall and they are squeezed until the sum recovers. A wall term completing
// the rest lattice behind planar walls was tried and made the column unstable (not kept). Run
// with --gtest_also_run_disabled_tests (MENISCUS_VERBOSE=1 prints the profile).
TEST(S001_Fluid, DISABLED_Hydrostatic) {
  // Water column H = 0.4 m in a 0.2 m wide box (digest 6.2, 2D): settle 1 s with pure PIC to damp the
  // start-up wave, then 0.25 s with the paper's 5 % PIC. Reference p = rho g d (3924 Pa at the bottom).
  const double dx = 0.02, H = 0.4, floor_y = 2 * dx, g = 9.81, rho0 = 1000;
  auto deck = [&](double alpha) {
    return R"(
simulation: {dimension: 2, method: mpm-multiphase, end_time: 10}
domain: {lower: [0, 0], upper: [0.28, 0.6], cell_size: 0.02, walls: slip}
mpm_multiphase: {dt_max: 1.0e-3}
materials: [{name: water, model: fluid, density: 1000, sound_speed: 28, alpha_pic: )" +
           std::to_string(alpha) + R"(}]
sources: [{type: box, material: water, lower: [0.04, 0.04], upper: [0.24, 0.44]}]
)";
  };
  auto d = test::deck_from_string(deck(1.0));
  MultiphaseMpm<2> settle(MethodContext{MPI_COMM_WORLD, d.deck.root(), 2});
  double t = 0;
  for (int k = 1; k <= 10; ++k) {
    run_until(settle, t, 0.1 * k);
    if (std::getenv("MENISCUS_VERBOSE")) {
      DiagnosticRow row;
      settle.diagnostics(row);
      test::print_rank0("  settle t %.2f ke %.4e max p %.1f max rho %.5f", t, test::column(row, "kinetic_energy"),
                        test::column(row, "max_pressure"), test::column(row, "max_density_ratio"));
    }
  }
  // Continue from the settled state with alpha_pic = 0.05: copy the particles into a 5 % PIC run.
  auto d2 = test::deck_from_string(deck(0.05));
  MultiphaseMpm<2> m(MethodContext{MPI_COMM_WORLD, d2.deck.root(), 2});
  {
    auto& a = settle.particles();
    auto& b = m.particles();
    ASSERT_EQ(a.size(), b.size());
    for (const auto& info : a.field_info()) Kokkos::deep_copy(b.field(info.name), a.field(info.name));
    Kokkos::deep_copy(b.id(), a.id());
    Kokkos::deep_copy(b.material(), a.material());
  }
  run_until(m, t, 1.25);
  auto& mm = m;
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mm.particles().field(mm.fields().x));
  auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mm.particles().field(mm.fields().v));
  auto p = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mm.particles().field(mm.fields().pressure));
  const size_t n = mm.particles().size();
  double top = 0, v2 = 0;
  for (size_t i = 0; i < n; ++i) {
    top = std::max(top, x(i, 1));
    v2 += v(i, 0) * v(i, 0) + v(i, 1) * v(i, 1);
  }
  const double spacing = dx / 2, surface = top + spacing / 2, height = surface - floor_y;
  const double vrms = std::sqrt(v2 / n);
  // Depth bins of 0.02 m for d in [3 dx, H - 3 dx].
  const int bins = static_cast<int>(std::lround((H - 6 * dx) / 0.02));
  std::vector<double> psum(bins, 0), dsum(bins, 0);
  std::vector<int> count(bins, 0);
  for (size_t i = 0; i < n; ++i) {
    const double depth = surface - x(i, 1);
    // The SPH sum lacks neighbours within its support of the side walls as at the free surface
    // (Yan et al. 2018 note the loss of pressure accuracy at boundaries): measure 3 dx inside.
    if (x(i, 0) < 0.04 + 3 * dx || x(i, 0) > 0.24 - 3 * dx) continue;
    const int b = static_cast<int>(std::floor((depth - 3 * dx) / 0.02));
    if (b < 0 || b >= bins) continue;
    psum[b] += p(i, 0);
    dsum[b] += depth;
    ++count[b];
  }
  double worst = 0;
  for (int b = 0; b < bins; ++b) {
    ASSERT_GT(count[b], 0);
    const double pm = psum[b] / count[b], dm = dsum[b] / count[b], ref = rho0 * g * dm;
    worst = std::max(worst, std::fabs(pm - ref) / ref);
    if (std::getenv("MENISCUS_VERBOSE")) test::print_rank0("  depth %.3f p %.1f ref %.1f n %d", dm, pm, ref, count[b]);
  }
  test::print_rank0("[hydrostatic] worst bin error %.4f of rho g d, height %.4f m, rms velocity %.4f m/s", worst,
                    height, vrms);
  EXPECT_LT(worst, 0.05);
  EXPECT_LT(vrms, 0.02);
  EXPECT_NEAR(height, H, 0.01 * H);
}

TEST(S001_Solid, ColumnWavePeriod) {
  // Confined hypoelastic column (digest 6.4): L = 0.5, lateral walls holding the normal velocity both
  // ways (uniaxial strain), sticky bottom, free top, v_y = v0 sin(pi y / 2L). Reference period
  // T = 4L/c with c = sqrt((K + 4/3 G)/rho) = 18.7 m/s: T = 0.107 s.
  const double L = 0.5, dx = 0.0125, y0 = 2 * dx, v0 = 0.01, rho = 1000;
  const char* deck = R"(
simulation: {dimension: 2, method: mpm-multiphase, end_time: 10}
domain: {lower: [0, 0], upper: [0.1, 0.6], cell_size: 0.0125, walls: none}
mpm_multiphase: {gravity: [0, 0]}
materials: [{name: rod, model: hypoelastic, density: 1000, youngs_modulus: 2.6e5, poisson_ratio: 0.3}]
sources: [{type: box, material: rod, lower: [0.025, 0.025], upper: [0.075, 0.525]}]
colliders:
  - {type: half-space, point: [0.025, 0], normal: [1, 0], boundary: slip-attached}
  - {type: half-space, point: [0.075, 0], normal: [-1, 0], boundary: slip-attached}
  - {type: half-space, point: [0, 0.025], normal: [0, 1], boundary: sticky}
)";
  auto d = test::deck_from_string(deck);
  MultiphaseMpm<2> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 2});
  auto& set = m.particles();
  {
    auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().x));
    auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().v));
    for (size_t i = 0; i < set.size(); ++i) {
      v(i, 0) = 0;
      v(i, 1) = v0 * std::sin(M_PI * (x(i, 1) - y0) / (2 * L));
    }
    Kokkos::deep_copy(set.field(m.fields().v), v);
  }
  const auto& table = m.table();
  const double K = table.materials[0].bulk, G = table.materials[0].shear;
  const double c = std::sqrt((K + 4.0 / 3.0 * G) / rho), T = 4 * L / c;
  // Top-end displacement: mean height of the particles in the top cell, minus its start.
  auto top_mean = [&]() {
    auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().x));
    double s = 0;
    long k = 0;
    for (size_t i = 0; i < set.size(); ++i)
      if (x(i, 1) > y0 + L - dx) {
        s += x(i, 1);
        ++k;
      }
    return s / k;
  };
  const double start = top_mean();
  std::vector<double> ts, us;
  double t = 0;
  while (t < 3.3 * T) {
    const double dt = std::min(m.stable_dt(), 2e-4);
    m.step(dt);
    t += dt;
    ts.push_back(t);
    us.push_back(top_mean() - start);
  }
  const auto osc = test::oscillation(ts, us);
  test::print_rank0("[column wave] period %.5f s vs 4L/c = %.5f s (error %.4f), %zu zero crossings", osc.period, T,
                    osc.period / T - 1, osc.zeros.size());
  EXPECT_NEAR(T, 0.107, 0.001);
  ASSERT_GE(osc.zeros.size(), 5u);
  EXPECT_NEAR(osc.period / T, 1.0, 0.03);
}

namespace {
// Water block 0.2 x 0.1 dropped from 0.2 m above an elastic slab 0.4 x 0.05 (rho 3000, G = 1e6) on the
// floor (digest 6.7, 2D). Returns the largest fraction of water particles inside the slab (within
// 0.3 dx of a slab particle) over frames of 0.01 s.
double penetration(double beta) {
  const std::string deck = R"(
simulation: {dimension: 2, method: mpm-multiphase, end_time: 10}
domain: {lower: [0, 0], upper: [0.6, 0.6], cell_size: 0.02, walls: slip}
mpm_multiphase: {beta_fluid_solid: )" + std::to_string(beta) + R"(}
materials:
  - {name: water, model: fluid, density: 1000}
  - {name: slab, model: hypoelastic, density: 3000, youngs_modulus: 2.6e6, poisson_ratio: 0.3}
sources:
  - {type: box, material: water, lower: [0.2, 0.29], upper: [0.4, 0.39]}
  - {type: box, material: slab, lower: [0.1, 0.04], upper: [0.5, 0.09]}
)";
  auto d = test::deck_from_string(deck);
  MultiphaseMpm<2> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 2});
  auto& set = m.particles();
  double t = 0, worst = 0;
  const double r2 = 0.3 * 0.02 * 0.3 * 0.02;
  for (int frame = 1; frame <= 40; ++frame) {
    run_until(m, t, 0.01 * frame);
    auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().x));
    auto mat = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.material());
    std::vector<size_t> solid, fluid;
    for (size_t i = 0; i < set.size(); ++i) (mat(i) == 1 ? solid : fluid).push_back(i);
    long inside = 0;
    for (size_t f : fluid)
      for (size_t s : solid) {
        const double dxp = x(f, 0) - x(s, 0), dyp = x(f, 1) - x(s, 1);
        if (dxp * dxp + dyp * dyp < r2) {
          ++inside;
          break;
        }
      }
    worst = std::max(worst, static_cast<double>(inside) / fluid.size());
  }
  return worst;
}
}  // namespace

TEST(S001_Coupling, NoPenetration) {
  const double with = penetration(1.0), without = penetration(0.0);
  test::print_rank0("[no penetration] worst fraction of water inside the slab: %.4f (beta 1), %.4f (beta 0)", with,
                    without);
  EXPECT_LT(with, 0.005);
  EXPECT_GT(without, 0.05);
}

namespace {
// A 2D elastic disc (R = 0.08 m, G = 1e5 Pa) of density ratio `ratio` to water, released at rest with
// its centre 0.02 m above the surface of a pool 0.6 m wide filled to 0.25 m (digest 6.6, 2D). Returns
// the mean over t in [end - 1, end] of the fraction of the disc's particles below the far-field water
// level, and the rms of the disc's vertical centre-of-mass velocity over that window.
struct Floating {
  double submerged = 0, vrms = 0;
};
Floating float_disc(double ratio, double end) {
  const double dx = 0.02;
  const std::string deck = R"(
simulation: {dimension: 2, method: mpm-multiphase, end_time: 10}
domain: {lower: [0, 0], upper: [0.68, 0.6], cell_size: 0.02, walls: slip}
materials:
  - {name: water, model: fluid, density: 1000, sound_speed: 28}
  - {name: ball, model: hypoelastic, density: )" + std::to_string(1000 * ratio) +
                           R"(, youngs_modulus: 2.6e5, poisson_ratio: 0.3}
sources:
  - {type: box, material: water, lower: [0.04, 0.04], upper: [0.64, 0.29]}
  - {type: sphere, material: ball, center: [0.34, 0.31], radius: 0.08}
)";
  auto d = test::deck_from_string(deck);
  MultiphaseMpm<2> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 2});
  auto& set = m.particles();
  double t = 0, sum = 0, v2 = 0;
  int samples = 0;
  for (int frame = 1; 0.02 * frame <= end + 1e-9; ++frame) {
    run_until(m, t, 0.02 * frame);
    if (t < end - 1.0 - 1e-9) continue;
    auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().x));
    auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().v));
    auto mat = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.material());
    double bx = 0, by = 0, bv = 0;
    long nb = 0;
    for (size_t i = 0; i < set.size(); ++i)
      if (mat(i) == 1) {
        bx += x(i, 0);
        by += x(i, 1);
        bv += v(i, 1);
        ++nb;
      }
    bx /= nb;
    bv /= nb;
    double level = 0;
    for (size_t i = 0; i < set.size(); ++i)
      if (mat(i) == 0 && std::fabs(x(i, 0) - bx) > 0.16) level = std::max(level, x(i, 1));
    level += dx / 4;  // the top particle row sits half a spacing below the surface
    long below = 0;
    for (size_t i = 0; i < set.size(); ++i)
      if (mat(i) == 1 && x(i, 1) < level) ++below;
    sum += static_cast<double>(below) / nb;
    v2 += bv * bv;
    ++samples;
  }
  return {sum / samples, std::sqrt(v2 / samples)};
}
}  // namespace

// DISABLED: does not hold yet. Measured on this branch (2D, dx = 0.02, t in [2, 3] s, 166 s on the
// loaded machine): 0.786 of the disc below the far-field level (reference 0.5) and a vertical COM
// velocity rms of 0.12 m/s. The disc sinks too deep for the same reason the hydrostatic column reads
// low: the SPH-density pressure of the water falls short of rho g d (S001_Fluid.DISABLED_Hydrostatic).
TEST(S001_Coupling, DISABLED_LongBuoyancyHalf) {
  // Archimedes: a disc of half the water's density floats with half its area submerged.
  const auto f = float_disc(0.5, 3.0);
  test::print_rank0("[buoyancy 1:2] submerged fraction %.4f (reference 0.5), vertical COM velocity rms %.4f m/s",
                    f.submerged, f.vrms);
  EXPECT_NEAR(f.submerged, 0.5, 0.08);
  EXPECT_LT(f.vrms, 0.05);
}
