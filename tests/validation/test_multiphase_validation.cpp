// Physics of the multiphase MPM (Yan et al. 2018) against analytic values, 2D CI sizes (cells twice
// the paper-scale decks'): the hydrostatic pressure of a settled water column (SPH density + Tait
// law), the period of the fundamental compression wave in a laterally confined hypoelastic column,
// and the anti-penetration contact keeping falling water out of an elastic slab (beta = 1) where
// switching it off lets the water through (beta = 0, negative control).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "core/log.hpp"
#include "methods/mpm_multiphase/multiphase_method.hpp"
#include "floating_body.hpp"
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

namespace {
// Pressure profile of a settled water column (H = 0.4 m, floor plane at 2 dx; particles within 3 dx
// of the side walls excluded), averaged over frames: mean particle pressure in 0.02 m depth bins for
// d in [3 dx, H - 3 dx] against rho g d and against the weight of the water above, the column height
// and the particles' rms velocity. Averaging over frames removes the undamped acoustic mode of the
// weakly compressible column (period 4H/c0 = 0.057 s).
template <int Dim>
class ColumnProfile {
 public:
  // The column's cross-section is [x0, x1] along every horizontal axis (a square in 3D).
  ColumnProfile(double dx, double H, double floor_y, double x0, double x1)
      : dx_(dx), H_(H), floor_(floor_y), x0_(x0), x1_(x1), bins_(static_cast<int>(std::lround((H - 6 * dx) / 0.02))),
        p_(bins_, 0), d_(bins_, 0), w_(bins_, 0), n_(bins_, 0) {}

  void add(MultiphaseMpm<Dim>& m) {
    const double g = 9.81;
    auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.particles().field(m.fields().x));
    auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.particles().field(m.fields().v));
    auto p = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.particles().field(m.fields().pressure));
    auto mass = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.particles().field(m.fields().mass));
    const size_t n = m.particles().size();
    // Particles by height, with the mass above each one (suffix sums).
    std::vector<size_t> order(n);
    for (size_t i = 0; i < n; ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t i, size_t j) { return x(i, 1) < x(j, 1); });
    std::vector<double> ys(n), above(n + 1, 0.0);
    double v2 = 0;
    for (size_t k = 0; k < n; ++k) ys[k] = x(order[k], 1);
    for (size_t k = n; k-- > 0;) above[k] = above[k + 1] + mass(order[k], 0);
    for (size_t i = 0; i < n; ++i)
      for (int d = 0; d < Dim; ++d) v2 += v(i, d) * v(i, d);
    // The surface: the 99th percentile height (a lone splashed particle does not move it) plus half a
    // particle spacing.
    const double spacing = dx_ / 2, surface = ys[static_cast<size_t>(0.99 * (n - 1))] + spacing / 2;
    height_ += surface - floor_;
    v2_ += v2 / n;
    ++frames_;
    double area = 1;
    for (int d = 1; d < Dim; ++d) area *= x1_ - x0_;
    // Weight of the water above a height y per unit width (2D) or area (3D), each particle's mass
    // spread uniformly over its own slab [y_j - s/2, y_j + s/2]: hydrostatics is p(y) = this weight,
    // whatever the packing.
    auto weight_above = [&](double y) {
      const size_t full = std::lower_bound(ys.begin(), ys.end(), y + spacing / 2) - ys.begin();
      double w = above[full];
      for (size_t k = std::lower_bound(ys.begin(), ys.end(), y - spacing / 2) - ys.begin(); k < full; ++k)
        w += mass(order[k], 0) * std::clamp((ys[k] + spacing / 2 - y) / spacing, 0.0, 1.0);
      return g * w / area;
    };
    for (size_t i = 0; i < n; ++i) {
      // Yan et al. 2018 (section 7) note the loss of pressure accuracy at boundaries: 3 dx inside the
      // side walls.
      bool inside = true;
      for (int d = 0; d < Dim; ++d)
        if (d != 1 && (x(i, d) < x0_ + 3 * dx_ || x(i, d) > x1_ - 3 * dx_)) inside = false;
      if (!inside) continue;
      const double depth = surface - x(i, 1);
      const int b = static_cast<int>(std::floor((depth - 3 * dx_) / 0.02));
      if (b < 0 || b >= bins_) continue;
      p_[b] += p(i, 0);
      d_[b] += depth;
      w_[b] += weight_above(x(i, 1));
      ++n_[b];
    }
  }

  struct Result {
    double worst = 0, worst_weight = 0, height = 0, vrms = 0;
  };
  Result result(const char* label) const {
    const double g = 9.81, rho0 = 1000;
    Result r;
    r.height = height_ / frames_;
    r.vrms = std::sqrt(v2_ / frames_);
    for (int b = 0; b < bins_; ++b) {
      if (n_[b] == 0) {
        r.worst = r.worst_weight = 1e300;
        continue;
      }
      const double pm = p_[b] / n_[b], ref = rho0 * g * d_[b] / n_[b], weight = w_[b] / n_[b];
      r.worst = std::max(r.worst, std::fabs(pm - ref) / ref);
      r.worst_weight = std::max(r.worst_weight, std::fabs(pm - weight) / weight);
      if (std::getenv("MENISCUS_VERBOSE"))
        test::print_rank0("  %s depth %.3f p %.1f rho g d %.1f weight above %.1f", label, d_[b] / n_[b], pm, ref,
                          weight);
    }
    test::print_rank0("[hydrostatic] %s: worst bin error %.4f of rho g d, %.4f of the weight above, height %.4f m, "
                      "rms velocity %.4f m/s (%d frames)",
                      label, r.worst, r.worst_weight, r.height, r.vrms, frames_);
    return r;
  }

 private:
  double dx_, H_, floor_, x0_, x1_;
  int bins_;
  std::vector<double> p_, d_, w_;
  std::vector<long> n_;
  double height_ = 0, v2_ = 0;
  int frames_ = 0;
};
}  // namespace

namespace {
// Water column H = 0.4 m in a 0.2 m wide box (Yan et al. 2018 fluid model, 2D, dx = 0.02): settle
// 1 s with pure PIC to damp the start-up wave, then 0.25 s with the paper's 5 % PIC; both profiles
// are averaged over the last 0.12 s of their phase (about two acoustic periods). Reference
// p = rho g d (3924 Pa at the bottom). `density` is the deck's fluid_density: the SPH sum of the
// paper (eq. 17, with the walls' mirror images as the scene decks have them) or the tracked volume
// ratio.
template <int Dim>
void settled_column(const char* density) {
  const double dx = 0.02, H = 0.4, floor_y = 2 * dx, w = 0.2 + 4 * dx;
  auto deck = [&](double alpha) {
    if (Dim == 2)
      return log::format(R"(
simulation: {dimension: 2, method: mpm-multiphase, end_time: 10}
domain: {lower: [0, 0], upper: [%.17g, 0.6], cell_size: %.17g, walls: slip}
mpm_multiphase: {dt_max: 1.0e-3, fluid_density: %s}
materials: [{name: water, model: fluid, density: 1000, sound_speed: 28, alpha_pic: %.17g}]
sources: [{type: box, material: water, lower: [%.17g, %.17g], upper: [%.17g, %.17g]}]
)",
                         w, dx, density, alpha, 2 * dx, 2 * dx, 0.2 + 2 * dx, 0.4 + 2 * dx);
    return log::format(R"(
simulation: {dimension: 3, method: mpm-multiphase, end_time: 10}
domain: {lower: [0, 0, 0], upper: [%.17g, 0.6, %.17g], cell_size: %.17g, walls: slip}
mpm_multiphase: {dt_max: 1.0e-3, fluid_density: %s}
materials: [{name: water, model: fluid, density: 1000, sound_speed: 28, alpha_pic: %.17g}]
sources: [{type: box, material: water, lower: [%.17g, %.17g, %.17g], upper: [%.17g, %.17g, %.17g], particles_per_cell: 8}]
)",
                       w, w, dx, density, alpha, 2 * dx, 2 * dx, 2 * dx, 0.2 + 2 * dx, 0.4 + 2 * dx, 0.2 + 2 * dx);
  };
  auto d = test::deck_from_string(deck(1.0));
  MultiphaseMpm<Dim> settle(MethodContext{MPI_COMM_WORLD, d.deck.root(), Dim});
  ColumnProfile<Dim> pic(dx, H, floor_y, 2 * dx, 0.2 + 2 * dx), flip(dx, H, floor_y, 2 * dx, 0.2 + 2 * dx);
  double t = 0;
  for (int k = 1; k <= 200; ++k) {
    run_until(settle, t, 0.005 * k);
    if (k > 176) pic.add(settle);
  }
  const auto settled = pic.result("after 1 s of PIC");
  // Continue from the settled state with alpha_pic = 0.05: copy the particles into a 5 % PIC run.
  auto d2 = test::deck_from_string(deck(0.05));
  MultiphaseMpm<Dim> m(MethodContext{MPI_COMM_WORLD, d2.deck.root(), Dim});
  {
    auto& a = settle.particles();
    auto& b = m.particles();
    ASSERT_EQ(a.size(), b.size());
    for (const auto& info : a.field_info()) Kokkos::deep_copy(b.field(info.name), a.field(info.name));
    Kokkos::deep_copy(b.id(), a.id());
    Kokkos::deep_copy(b.material(), a.material());
  }
  for (int k = 201; k <= 250; ++k) {
    run_until(m, t, 0.005 * k);
    if (k > 226) flip.add(m);
  }
  const auto f = flip.result("after 0.25 s at 5 % PIC");
  // Measured (2026-11-29), after 0.25 s at 5 % PIC: SPH density (grid-averaged, the default) 0.69 %
  // against the weight above and 0.48 % against rho g d (2.1 % and 1.9 % with the particles' own SPH
  // densities, sph_grid_average: false); 3D (LongHydrostatic3D) 0.73 % and 0.58 %. Volume ratio: 2.0 %
  // against the weight above (worst in the deepest bin), 8.8 % against rho g d: its top row stands
  // 6 mm above the surface that the weight above implies (the 99th-percentile height reads that row),
  // so rho g d is asserted at 10 % there. Column height 0.3989 m (SPH) and 0.4000 m (volume), rms
  // velocity 0.003-0.004 m/s. Before the box's upper walls were placed on their grid nodes (see
  // physics/collider_deck.cpp) the water drifted into the upper side wall and piled up there: the
  // volume-ratio column stood 1.6 % short with 0.025 m/s of noise, and the SPH column lost its lattice
  // from the bottom up and stood 5-22 % tall with 15-25 % low pressures.
  EXPECT_LT(settled.worst_weight, 0.05);
  EXPECT_LT(f.worst_weight, 0.05);
  EXPECT_LT(f.worst, std::string(density) == "sph" ? 0.05 : 0.10);
  EXPECT_LT(f.vrms, 0.02);
  EXPECT_NEAR(f.height, H, 0.01 * H);
}
}  // namespace

TEST(S001_Fluid, Hydrostatic) { settled_column<2>("sph"); }

TEST(S001_Fluid, HydrostaticVolumeRatio) { settled_column<2>("volume"); }

TEST(S001_Fluid, LongHydrostatic3D) { settled_column<3>("sph"); }

// Yan et al. 2018, Fig. 2: MPM keeps an elastic cube's shape where SPH's tensile instability would not.
// The cube of the paper's figure (0.2 m, rho 1000, E = 2.6e6 Pa so G = 1e6 Pa, nu = 0.3) resting on a slip
// floor under gravity for 1 s, h = 0.02: 2D (a square, CI) and 3D (long). Asserted: after removing the
// rigid motion (mean displacement) no particle moved more than h/4, the nearest-neighbour distance stays
// above 0.35 h (no clumping), and the top sags by that of a column free at its sides under its own
// weight within 30 %: rho g H^2 / 2E in 3D (0.075 mm), rho g H^2 (1 - nu^2) / 2E in plane strain (0.069 mm).
// Measured 2026-11-29: top sag 0.062 mm (2D) and 0.066 mm (3D, 8000 particles, 34 s) at 1 s; the largest
// non-rigid displacement 5.7e-5 and 6.2e-5 m; nearest neighbours 0.0100 m in both.
template <int Dim>
void cube_at_rest() {
  const double h = 0.02;
  const char* deck2 = R"(
simulation: {dimension: 2, method: mpm-multiphase, end_time: 10}
domain: {lower: [0, 0], upper: [0.5, 0.5], cell_size: 0.02, walls: slip}
materials: [{name: cube, model: hypoelastic, density: 1000, youngs_modulus: 2.6e6, poisson_ratio: 0.3, alpha_pic: 1.0}]
sources: [{type: box, material: cube, lower: [0.15, 0.04], upper: [0.35, 0.24]}]
)";
  const char* deck3 = R"(
simulation: {dimension: 3, method: mpm-multiphase, end_time: 10}
domain: {lower: [0, 0, 0], upper: [0.5, 0.5, 0.5], cell_size: 0.02, walls: slip}
materials: [{name: cube, model: hypoelastic, density: 1000, youngs_modulus: 2.6e6, poisson_ratio: 0.3, alpha_pic: 1.0}]
sources: [{type: box, material: cube, lower: [0.15, 0.04, 0.15], upper: [0.35, 0.24, 0.35], particles_per_cell: 8}]
)";
  auto d = test::deck_from_string(Dim == 2 ? deck2 : deck3);
  MultiphaseMpm<Dim> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), Dim});
  auto positions = [&]() {
    auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.particles().field(m.fields().x));
    auto id = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.particles().id());
    std::vector<std::array<double, Dim>> out(m.particles().size());
    for (size_t i = 0; i < out.size(); ++i)
      for (int c = 0; c < Dim; ++c) out[static_cast<size_t>(id(i))][c] = x(i, c);
    return out;
  };
  auto distance = [](const std::array<double, Dim>& a, const std::array<double, Dim>& b, const double* shift) {
    double s = 0;
    for (int c = 0; c < Dim; ++c) s += (a[c] - b[c] - shift[c]) * (a[c] - b[c] - shift[c]);
    return std::sqrt(s);
  };
  const auto start = positions();
  double t = 0;
  run_until(m, t, 1.0);
  const auto end = positions();
  ASSERT_EQ(start.size(), end.size());
  const size_t n = start.size();
  double mean[3] = {0, 0, 0}, zero[3] = {0, 0, 0}, top0 = -1e300, top1 = -1e300;
  for (size_t i = 0; i < n; ++i)
    for (int c = 0; c < Dim; ++c) mean[c] += (end[i][c] - start[i][c]) / n;
  double worst = 0, nearest = 1e300;
  for (size_t i = 0; i < n; ++i) {
    worst = std::max(worst, distance(end[i], start[i], mean));
    top0 = std::max(top0, start[i][1]);
    top1 = std::max(top1, end[i][1]);
    for (size_t j = i + 1; j < n; ++j) nearest = std::min(nearest, distance(end[i], end[j], zero));
  }
  const double plane = Dim == 2 ? 1 - 0.3 * 0.3 : 1.0;
  const double sag = top0 - top1, expected = 1000 * 9.81 * 0.2 * 0.2 * plane / (2 * 2.6e6);
  test::print_rank0("[cube at rest, %dD] %zu particles: largest non-rigid displacement %.3e m (bound %.3e), nearest "
                    "neighbours %.4f m (bound %.4f), top sag %.3e m (free column under its weight: %.3e)",
                    Dim, n, worst, 0.25 * h, nearest, 0.35 * h, sag, expected);
  EXPECT_LT(worst, 0.25 * h);
  EXPECT_GT(nearest, 0.35 * h);
  EXPECT_NEAR(sag, expected, 0.3 * expected);
}

TEST(S001_Solid, CubeKeepsItsShapeAtRest) { cube_at_rest<2>(); }

TEST(S001_Solid, LongCubeKeepsItsShapeAtRest3D) { cube_at_rest<3>(); }

TEST(S001_Solid, ColumnWavePeriod) {
  // Confined hypoelastic column (the Jaumann-rate solid of Yan et al. 2018, sec. 3.2, as a 1D wave):
  // L = 0.5, lateral walls holding the normal velocity both ways (uniaxial strain), sticky bottom,
  // free top, v_y = v0 sin(pi y / 2L). Reference period
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
// Fraction of the particles of materials other than `solid` that lie within `reach` of a particle of
// `solid` (fluid inside the solid body).
template <class M>
double fraction_inside(M& m, int solid, double reach) {
  auto& set = m.particles();
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().x));
  auto mat = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.material());
  std::vector<size_t> solids, fluid;
  for (size_t i = 0; i < set.size(); ++i) (mat(i) == solid ? solids : fluid).push_back(i);
  long inside = 0;
  for (size_t f : fluid)
    for (size_t s : solids) {
      const double dxp = x(f, 0) - x(s, 0), dyp = x(f, 1) - x(s, 1);
      if (dxp * dxp + dyp * dyp < reach * reach) {
        ++inside;
        break;
      }
    }
  return fluid.empty() ? 0.0 : static_cast<double>(inside) / fluid.size();
}

// Water block 0.2 x 0.1 dropped from 0.2 m above an elastic slab 0.4 x 0.05 (rho 3000, G = 1e6) on the
// floor (anti-penetration, Yan et al. 2018, sec. 4.1, in 2D). Returns the largest fraction of water
// particles inside the slab (within 0.3 dx of a slab particle) over frames of 0.01 s. `separation`: the
// position-based contact detection (mpm_multiphase.contact_separation; 0, the paper's rule).
double penetration(double beta, double separation = 0) {
  const std::string deck = R"(
simulation: {dimension: 2, method: mpm-multiphase, end_time: 10}
domain: {lower: [0, 0], upper: [0.6, 0.6], cell_size: 0.02, walls: slip}
mpm_multiphase: {beta_fluid_solid: )" + std::to_string(beta) + ", contact_separation: " + std::to_string(separation) + R"(}
materials:
  - {name: water, model: fluid, density: 1000}
  - {name: slab, model: hypoelastic, density: 3000, youngs_modulus: 2.6e6, poisson_ratio: 0.3}
sources:
  - {type: box, material: water, lower: [0.2, 0.29], upper: [0.4, 0.39]}
  - {type: box, material: slab, lower: [0.1, 0.04], upper: [0.5, 0.09]}
)";
  auto d = test::deck_from_string(deck);
  MultiphaseMpm<2> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 2});
  double t = 0, worst = 0;
  for (int frame = 1; frame <= 40; ++frame) {
    run_until(m, t, 0.01 * frame);
    worst = std::max(worst, fraction_inside(m, 1, 0.3 * 0.02));
  }
  return worst;
}
}  // namespace

// Also with the position-based detection of the ball-in-water decks (contact_separation 0.85 cells):
// measured 0.0000 at 0.85 and 1.0, 0.07 at 0.75, 0.18 at 0.6 (2026-11-29): below about 0.8 cells the
// detection waits until the lattices overlap.
TEST(S001_Coupling, NoPenetration) {
  const double with = penetration(1.0), without = penetration(0.0), detected = penetration(1.0, 0.85);
  test::print_rank0("[no penetration] worst fraction of water inside the slab: %.4f (beta 1), %.4f (beta 0), %.4f (beta 1, "
                    "position detection at 0.85 cells)", with, without, detected);
  EXPECT_LT(with, 0.005);
  EXPECT_GT(without, 0.05);
  EXPECT_LT(detected, 0.005);
}

namespace {
// A 2D elastic disc (R = 0.08 m, G = 1e5 Pa) of density ratio `ratio` to water, released at rest with
// its centre 0.02 m above the surface of a pool 0.6 m wide filled to 0.25 m (the ball-in-water scene of
// Yan et al. 2018, section 6, in 2D); the water seeded inside its lower part is displaced. Returns
// the means over t in [end - 1, end] of tests/support/floating_body.hpp: the disc's area fraction below
// the far-field level of the water's mass (more than 2R from the disc's centre) and the rms of its
// vertical centre-of-mass velocity.
// `sharing`: the force sharing (default: the scene deck's); the SPH wall images are the scene deck's; the
// contact detection is the paper's (knob MENISCUS_CONTACT_SEPARATION: the position-based detection's
// separation in cells, docs/theory-mpm-multiphase.md, "Detection by position"). Without
// `body` the pool alone, at rest.
std::unique_ptr<MultiphaseMpm<2>> disc_pool(double ratio, std::string sharing, bool body, test::FloatingPool& pool) {
  const std::string scene = "mpm-multiphase-ball-in-water-1to2-3d.yaml";
  if (sharing.empty()) sharing = test::scene_force_sharing(scene);
  const std::string images = test::scene_settings(scene).sph_wall_images ? "true" : "false";
  std::string deck = R"(
simulation: {dimension: 2, method: mpm-multiphase, end_time: 10}
domain: {lower: [0, 0], upper: [0.68, 0.6], cell_size: 0.02, walls: slip}
mpm_multiphase: {fluid_density: sph, force_sharing: )" + sharing + ", sph_wall_images: " + images + ", contact_separation: " + test::knob("MENISCUS_CONTACT_SEPARATION", "0") + R"(}
materials:
  - {name: water, model: fluid, density: 1000, sound_speed: 28}
  - {name: ball, model: hypoelastic, density: )" + std::to_string(1000 * ratio) +
                     R"(, youngs_modulus: 2.6e5, poisson_ratio: 0.3}
sources:
  - {type: box, material: water, lower: [0.04, 0.04], upper: [0.64, 0.29]}
)";
  if (body) deck += "  - {type: sphere, material: ball, center: [0.34, 0.31], radius: 0.08}\n";
  auto d = test::deck_from_string(deck);
  pool.floor = 0.04;  // the slip walls stand two cells inside the domain
  pool.lower[0] = 0.04, pool.upper[0] = 0.64;
  pool.spacing = 0.01;  // 2 particles per cell and axis
  pool.far_radius = 0.16;
  pool.body_radius = 0.08;
  return std::make_unique<MultiphaseMpm<2>>(MethodContext{MPI_COMM_WORLD, d.deck.root(), 2});
}

test::FloatingSample float_disc(double ratio, double end, std::string sharing = "") {
  test::FloatingPool pool;
  auto m = disc_pool(ratio, sharing, true, pool);
  return test::float_body<2>(*m, pool, end, 0.25);
}

}  // namespace

// The disc's area fraction below the far-field free surface (tests/support/floating_body.hpp), t in
// [2, 3] s, with the force sharing of the ball-in-water scene decks (per_group, read from the decks;
// LongSharedForcesHoldTheWaterOffAFloatingDisc below shows why not shared). Measured numbers: in each test.
// Asserted: that fraction within 0.08 of the density ratio, the disc at rest, and Archimedes with the
// near-field void counted as displaced volume (submerged + void = ratio within 0.03). The fraction used
// to be taken below the level of the water's mass (particle count), which moves by 0.36 mm per
// particle crossing the far-field boundary and read 2-3 mm above the surface here (PoolHoldsItsLevel);
// against it the same runs read 0.4889, 0.3451 and 0.6821.
// History of this measurement:
//  * first: the disc floated too low (1:2 0.654, 1:3 0.471) because (a) water seeded inside the
//    disc stayed trapped between its rows (the method now removes fluid seeded inside a solid,
//    keep_fluid_inside_solids: false) and (b) with fluid_density: volume the pressure does not see the
//    particle packing and voids open in the pool; the paper's SPH density (eq. 17) closes them.
//  * then: the level used to be the top far-field water particle + half a spacing, which rides
//    0.5-1 spacing above the level of the water's mass, and the fraction a count of particle centres,
//    which moves in steps of one particle layer. That measure read 1:2 at 0.500. Measured properly, the
//    disc with the default shared forces floats too high: 1:2 at 0.41 (t in [0.5, 1.5] s) at 4 cells per
//    radius, and still 0.42 at 8 cells per radius (dx = 0.01), so the bias is not resolution alone; at
//    2 cells per radius it is 0.21. Per-group forces give 0.47 at 4 cells per radius (1:3 0.350), so
//    these tests use them.
//  * then: the shared-force bias is a gap between disc and water (LongSharedForcesHoldTheWaterOffAFloatingDisc).
//  * then: the SPH wall images (the scene decks' sph_wall_images, now the default) leave the disc where
//    it was, but the pool's lattice shears instead of trading particles across the near field's edge
//    (docs/theory-mpm-multiphase.md, "What the 2D disc's void check read with the images"), and the
//    void counted by particle centres read -0.053 at 1:2 (crowding). The void now shares each water
//    box between near and far field by the part of it inside.
TEST(S001_Coupling, LongBuoyancyHalf) {
  // Archimedes: a disc of half the water's density floats with half its area submerged.
  // Measured without the wall images (one thread, nice 19, load 11, 154 s): 0.4714 submerged, void
  // 0.0310 (sum 0.5024), rms 0.0005 m/s. With them (one thread, load 16, 82 s): 0.4769 submerged, void
  // 0.0200 (sum 0.4969; counted by particle centres the void read -0.053 to -0.034), rms 0.0003 m/s.
  const auto f = float_disc(0.5, 3.0);
  test::report_floating("2D 1:2", f);
  EXPECT_NEAR(f.surface_submerged, 0.5, 0.08);
  EXPECT_NEAR(f.surface_submerged + f.surface_void, 0.5, 0.03);
  EXPECT_LT(f.velocity, 0.05);
}

TEST(S001_Coupling, LongBuoyancyThird) {
  // Archimedes: a disc of a third of the water's density floats with a third of its area submerged.
  // Measured without the wall images (one thread, nice 19, load 11, 144 s): 0.3289 submerged, void
  // 0.0138 (sum 0.3427), rms 0.0004 m/s. With them (one thread, load 16): 0.3317 submerged, void 0.0020
  // (sum 0.3337), rms 0.0009 m/s.
  const auto f = float_disc(1.0 / 3.0, 3.0);
  test::report_floating("2D 1:3", f);
  EXPECT_NEAR(f.surface_submerged, 1.0 / 3.0, 0.08);
  EXPECT_NEAR(f.surface_submerged + f.surface_void, 1.0 / 3.0, 0.03);
  EXPECT_LT(f.velocity, 0.05);
}

TEST(S001_Coupling, LongBuoyancySevenTenths) {
  // The same law at a ratio the 1:2 and 1:3 scenes do not show: 70 % of the area submerged.
  // Measured without the wall images (one thread, nice 19, load 11, 156 s): 0.6563 submerged, void
  // 0.0548 (sum 0.7111), rms 0.0005 m/s. With them (one thread, load 16): 0.6615 submerged, void 0.0452
  // (sum 0.7067), rms 0.0007 m/s.
  const auto f = float_disc(0.7, 3.0);
  test::report_floating("2D 7:10", f);
  EXPECT_NEAR(f.surface_submerged, 0.7, 0.08);
  EXPECT_NEAR(f.surface_submerged + f.surface_void, 0.7, 0.03);
  EXPECT_LT(f.velocity, 0.05);
}

// Why shared forces float a body high (docs/theory-mpm-multiphase.md, Buoyancy). With force_sharing:
// shared every group at a node gets the summed force over the summed mass, so fluid and solid at a
// shared node cannot accelerate relative to each other, and the fluid's pressure reaches the solid
// through any node both groups' stencils touch, up to a cell apart. Water that was pushed off the
// disc as it entered stays off: the layer next to it is expanded (number density low, Tait pressure
// clamped to zero) and nothing closes the gap, while the next layer's pressure still holds the disc up
// across it. The gap is displaced volume the disc does not occupy, so the disc floats higher by it.
// Per-group forces let the water's own pressure push its boundary layer into the gap until the contact
// stops it at the disc. Measure (tests/support/floating_body.hpp, means over t in [0.5, 1.5] s): the
// submerged fraction and the near-field void (volume below the level that neither water nor disc
// fills, over the disc's volume); 1:2 disc, 4 cells per radius. Asserted: shared forces hold a void
// open that per-group forces do not, the disc floats higher with them, and submerged + void is 1/2
// (Archimedes with the void counted as displaced volume) within 0.05 for both.
// Measured without the wall images (one thread, load 12, 105 s): shared submerged 0.4083, void 0.0667
// (sum 0.475); per group 0.4677, void 0.0004 (sum 0.468). Against the far-field surface instead of the
// count level (94 s): shared 0.4155 + 0.0679, per group 0.4709 - 0.0003. Asserted against the surface,
// as the buoyancy tests above: with the wall images (the default) no water particle crosses the near
// field's edge at 1:2 with per-group forces, so the count level by particle centres stayed at its start
// (0.2900 m, 5 mm below the surface) and per group read 0.4373 + 0.0129 against it. Counted by the part
// of each rest box outside the near field (tests/support/floating_body.hpp) the level follows the
// surface (2026-11-29: 0.2953 m against 0.2948 m; per group 0.4781 + 0.0221, shared 0.4338 + 0.0810).
// With the images against the surface
// (one thread, load 16): shared 0.4293 + void 0.0783 (sum 0.508), per group 0.4739 + 0.0192 (0.493). At t = 1 s (shared | per group): the water within two spacings of
// the submerged disc at rho/rho0 0.92 | 0.98 and pressure 0 | 696 Pa (hydrostatic 456 | 586 Pa); no
// water centre closer than one particle spacing to a disc particle | 6 of 38.
TEST(S001_Coupling, LongSharedForcesHoldTheWaterOffAFloatingDisc) {
  const auto shared = float_disc(0.5, 1.5, "shared");
  const auto per_group = float_disc(0.5, 1.5, "per_group");
  test::report_floating("2D 1:2 shared", shared);
  test::report_floating("2D 1:2 per group", per_group);
  EXPECT_GT(shared.surface_void, per_group.surface_void + 0.03);            // shared forces hold a gap open...
  EXPECT_LT(shared.surface_submerged, per_group.surface_submerged - 0.03);  // ...and the disc floats high...
  EXPECT_NEAR(shared.surface_submerged + shared.surface_void, 0.5, 0.05);   // ...by about that gap
  EXPECT_NEAR(per_group.surface_submerged + per_group.surface_void, 0.5, 0.05);
}

// The far-field water level holds, with and without the floating 1:2 disc (the pool of the buoyancy
// tests above: 0.6 m wide, filled to 0.25 m, SPH density, the scene decks' force sharing). The level
// is the far-field free surface (tests/support/floating_body.hpp: mean over 1-spacing columns more than
// 2R from the disc's centre of the top water particle + half a spacing), sampled every 0.05 s over
// t in [0.6, 1.0] s, once the entry wave has passed. Asserted: its mean within 2 mm (0.8 % of the
// depth, a fifth of a particle spacing) of the level that the rest volumes give (water, plus half the
// disc for Archimedes), and its spread over the window below 1 mm.
// The level of the water's mass (far-field particle count x rest volume / far-field floor length,
// FloatingSample::level) read as a creep here, 0.2921 -> 0.2971 m over 1.5 s with the disc: it counts
// particles, and each one that crosses the far-field boundary moves it by s^2 / 0.28 m = 0.36 mm.
// Measured over 3 s (docs/theory-mpm-multiphase.md, "The far-field level"): with the disc 22
// particles leave the near field by 1.6 s (count level 0.2979 m) and 4 come back by 2 s (0.2964 m),
// while the surface holds 0.2940 +- 0.0005 m from 0.6 s to 3 s and the water's SPH volume sum V = m/rho
// falls by 0.2 %; the pool alone shifts 4 particles from the middle to the sides (count level
// 0.2900 -> 0.2921 m), its surface holds 0.2894 +- 0.0004 m. So the water does not grow: the count
// measure moves with how its particles share columns. The test can fail: with fluid_density: volume
// (the voids of the docs' Buoyancy section) the disc scene's surface rises 0.2974 -> 0.2997 m between
// 0.7 and 1.0 s, outside both bounds.
// Measured without the wall images (one thread, loaded machine, 43 s for both runs): no body 0.28962 m
// (spread 0.38 mm) against 0.29000; with the disc 0.29417 m (spread 0.56 mm) against 0.29533. With them
// (the default; 64 s at load 16): no body 0.28987 m (spread 0.47 mm), with the disc 0.29451 m (spread
// 0.79 mm); the count level by particle centres stayed at 0.29000 m in both (no particle crosses the
// far-field boundary), and with each rest box shared by its part outside the near field it reads
// 0.29000 m alone and 0.29475-0.29548 m with the disc (2026-11-29).
TEST(S001_Fluid, PoolHoldsItsLevel) {
  for (const bool body : {false, true}) {
    test::FloatingPool pool;
    auto m = disc_pool(0.5, "", body, pool);
    // Rest-volume level: water particles (and half the disc's) over the floor length.
    long water = 0, disc = 0;
    {
      auto mat = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m->particles().material());
      for (size_t i = 0; i < m->particles().size(); ++i) (mat(i) == pool.body ? disc : water) += 1;
    }
    const double box = pool.spacing * pool.spacing;
    const double expected = pool.floor + (water + 0.5 * disc) * box / (pool.upper[0] - pool.lower[0]);
    double t = 0, sum = 0, lo = 1e300, hi = -1e300, level_lo = 1e300, level_hi = -1e300;
    int samples = 0;
    for (int k = 1; k <= 20; ++k) {
      run_until(*m, t, 0.05 * k);
      if (k < 12) continue;
      const auto s = test::sample_floating<2>(*m, pool);
      sum += s.surface;
      lo = std::min(lo, s.surface), hi = std::max(hi, s.surface);
      level_lo = std::min(level_lo, s.level), level_hi = std::max(level_hi, s.level);
      ++samples;
    }
    const double mean = sum / samples;
    test::print_rank0("[pool level] %s: far-field surface %.5f m (spread %.5f m) against %.5f m from the rest "
                      "volumes; count level %.5f to %.5f m",
                      body ? "with the 1:2 disc" : "no body", mean, hi - lo, expected, level_lo, level_hi);
    EXPECT_NEAR(mean, expected, 0.002);
    EXPECT_LT(hi - lo, 0.001);
  }
}

namespace {
// Two miscible species in one group, at rest, g = 0, in a 1.0 x 0.1 box (2D, dx = 0.02): species a
// fills x < 0.5, species b the rest. Runs to `end` and returns the model.
std::unique_ptr<MultiphaseMpm<2>> diffusion_box(double rho_b, double end, std::vector<double>& v_start) {
  const double dx = 0.02;
  const std::string deck = log::format(R"(
simulation: {dimension: 2, method: mpm-multiphase, end_time: 100}
domain: {lower: [0, 0], upper: [%.17g, %.17g], cell_size: %.17g, walls: slip}
mpm_multiphase: {gravity: [0, 0], dt_max: 0.01, diffusivity: 3.0e-4}
materials:
  - {name: a, model: fluid, density: 1000, sound_speed: 1, group: 0}
  - {name: b, model: fluid, density: %.17g, sound_speed: 1, group: 0}
sources:
  - {type: box, material: a, lower: [%.17g, %.17g], upper: [%.17g, %.17g]}
  - {type: box, material: b, lower: [%.17g, %.17g], upper: [%.17g, %.17g]}
)",
                                       1.0 + 4 * dx, 0.1 + 4 * dx, dx, rho_b, 2 * dx, 2 * dx, 0.5 + 2 * dx,
                                       0.1 + 2 * dx, 0.5 + 2 * dx, 2 * dx, 1.0 + 2 * dx, 0.1 + 2 * dx);
  auto d = test::deck_from_string(deck);
  auto m = std::make_unique<MultiphaseMpm<2>>(MethodContext{MPI_COMM_WORLD, d.deck.root(), 2});
  v_start = m->species_volumes();
  double t = 0;
  run_until(*m, t, end);
  return m;
}
}  // namespace

TEST(S001_MultiFluid, DiffusionErf) {
  // D alpha/Dt = k_d laplacian(alpha) from a step at x0 = 0.5 (Yan et al. 2018, eq. 27, with the
  // conservative weak-form operator): alpha(x, t) = erfc((x - x0) / (2 sqrt(k_d t))) / 2 at t = 10 s
  // (diffusion length 5.5 cm, far from the end walls). Particle values binned over 2 dx.
  const double dx = 0.02, kd = 3e-4, T = 10, x0 = 0.5 + 2 * dx;
  std::vector<double> v0;
  auto m = diffusion_box(1000, T, v0);
  const auto v1 = m->species_volumes();
  auto& set = m->particles();
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m->fields().x));
  auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m->fields().fractions));
  const int bins = 25;
  std::vector<double> sa(bins, 0), sx(bins, 0);
  std::vector<int> cnt(bins, 0);
  double amin = 1, amax = 0;
  for (size_t i = 0; i < set.size(); ++i) {
    const int b = std::min(bins - 1, static_cast<int>((x(i, 0) - 2 * dx) / (2 * dx)));
    sa[b] += a(i, 0);
    sx[b] += x(i, 0);
    ++cnt[b];
    amin = std::min(amin, a(i, 0));
    amax = std::max(amax, a(i, 0));
  }
  double worst = 0;
  for (int b = 0; b < bins; ++b) {
    ASSERT_GT(cnt[b], 0);
    const double xm = sx[b] / cnt[b], ref = 0.5 * std::erfc((xm - x0) / (2 * std::sqrt(kd * T)));
    worst = std::max(worst, std::fabs(sa[b] / cnt[b] - ref));
  }
  const double drift = std::fabs(v1[0] - v0[0]) / v0[0];
  test::print_rank0("[diffusion erf] L-inf error %.4f over 2 dx bins at t = 10 s; species volume drift %.2e; "
                    "alpha in [%.2e, %.6f]",
                    worst, drift, amin, amax);
  EXPECT_LT(worst, 0.03);
  EXPECT_LT(drift, 1e-12);
  EXPECT_LT(std::fabs(v1[1] - v0[1]) / v0[1], 1e-12);
}

TEST(S001_MultiFluid, MassFollowsFractions) {
  // Species of rest densities 1000 and 3000: every particle's mass is V0 sum_k alpha^k rho_bar^k
  // (Yan et al. 2018, section 4.2) and the total mass, sum_k rho_bar^k sum_j V0_j alpha_j^k, is
  // conserved with the species volumes.
  std::vector<double> v0;
  auto m = diffusion_box(3000, 1.0, v0);
  auto& set = m->particles();
  auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m->fields().fractions));
  auto mass = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m->fields().mass));
  auto vol = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m->fields().volume));
  double total = 0, worst = 0, mixed = 0;
  for (size_t i = 0; i < set.size(); ++i) {
    const double expect = vol(i, 0) * (1000 * a(i, 0) + 3000 * a(i, 1));
    worst = std::max(worst, std::fabs(mass(i, 0) - expect) / expect);
    total += mass(i, 0);
    mixed = std::max(mixed, std::min(a(i, 0), a(i, 1)));
  }
  MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  const double total0 = 1000 * v0[0] + 3000 * v0[1];
  test::print_rank0("[miscible mass] particle mass vs V0 sum alpha rho: %.2e; total mass drift %.2e; most mixed "
                    "particle %.3f",
                    worst, std::fabs(total - total0) / total0, mixed);
  EXPECT_LT(worst, 1e-14);
  EXPECT_LT(std::fabs(total - total0) / total0, 1e-12);
  EXPECT_GT(mixed, 0.1);  // the species did mix
}

namespace {
// Fluid and solid lattices of equal density seeded on the same sites of a 0.1 x 0.1 box (2D), so that
// every node holds both with solid mass fraction phi_s = 1/2; motion frozen (only the dissolution
// stage runs), no diffusion, kappa = 1 1/s, C_s = 0.5, dt = 1e-3 (Yan et al. 2018, eqs. 29-32).
std::unique_ptr<MultiphaseMpm<2>> dissolution_lattice(const char* mode, double water_density = 1000) {
  const std::string deck = log::format(R"(
simulation: {dimension: 2, method: mpm-multiphase, end_time: 10}
domain: {lower: [0, 0], upper: [0.18, 0.18], cell_size: 0.02, walls: slip}
mpm_multiphase: {gravity: [0, 0], dissolve_solid: sugar, dissolve_into: water, saturation: 0.5,
                 dissolution_rate: 1.0, dissolution: %s, keep_fluid_inside_solids: true}
materials:
  - {name: water, model: fluid, density: %.17g}
  - {name: sugar, model: hypoelastic, density: 1000, youngs_modulus: 1.0e5}
sources:
  - {type: box, material: water, lower: [0.04, 0.04], upper: [0.14, 0.14]}
  - {type: box, material: sugar, lower: [0.04, 0.04], upper: [0.14, 0.14]}
)",
                                       mode, water_density);
  auto d = test::deck_from_string(deck);
  return std::make_unique<MultiphaseMpm<2>>(MethodContext{MPI_COMM_WORLD, d.deck.root(), 2});
}

// Runs the dissolution stage until the fluid concentration passes 0.4; returns the worst deviations
// of the fluid C and of the solid fraction from the closed forms, and the relative drift of
// sum V0 alpha^s.
struct RateLaw {
  double fluid = 0, solid = 0, drift = 0;
  int steps = 0;
};
RateLaw rate_law(const char* mode) {
  auto m = dissolution_lattice(mode);
  const double cs = 0.5, kappa = 1, dt = 1e-3, phi = 0.5;
  const double v0 = m->species_volumes()[1];
  RateLaw r;
  double cn = 0;
  for (int step = 1; cn < 0.4; ++step) {
    m->dissolve(dt);
    cn = cs - cs * std::pow(1 - phi * kappa * dt, step);  // C^0 = 0
    auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m->particles().field(m->fields().fractions));
    auto mat = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m->particles().material());
    for (size_t i = 0; i < m->particles().size(); ++i) {
      if (mat(i) == 0) r.fluid = std::max(r.fluid, std::fabs(a(i, 1) - cn));
      else r.solid = std::max(r.solid, std::fabs(a(i, 1) - (1 - cn)));  // loses what the fluid gains
    }
    r.steps = step;
  }
  r.drift = std::fabs(m->species_volumes()[1] - v0) / v0;
  EXPECT_EQ(m->relabelled(), 0);  // the solid fraction stays above C_s (1 - C > 0.5)
  return r;
}
}  // namespace

TEST(S001_Dissolution, RateLaw) {
  // Noyes-Whitney on the grid: C^n = C_s - (C_s - C^0)(1 - phi_s kappa dt)^n on every fluid particle,
  // the solid particles losing the same fraction; the conservative mode keeps sum V0 alpha^s.
  for (const char* mode : {"paper", "conservative"}) {
    const auto r = rate_law(mode);
    test::print_rank0("[dissolution %s] %d steps to C = 0.4: fluid C off the closed form by %.2e, solid fraction by "
                      "%.2e; sum V alpha^s drift %.2e",
                      mode, r.steps, r.fluid, r.solid, r.drift);
    EXPECT_LT(r.fluid, 1e-10);
    EXPECT_LT(r.solid, 1e-10);
    if (std::string(mode) == "conservative") EXPECT_LT(r.drift, 1e-12);
  }
}

TEST(S001_Dissolution, SaturatedSolidBecomesFluid) {
  // Water three times denser than the solid. Eq. (32) on the uniform lattice is a scalar recurrence:
  // with node masses m_f = V0 (1000 C + 3000 (1 - C)) and m_s = V0 (1000 a + 3000 (1 - a)) (mass
  // follows the fractions), phi_s = m_s/(m_s + m_f), dC = kappa (C_s - C) dt, the fluid gains
  // phi_s dC and the solid fraction a loses (1 - phi_s) dC. Every solid particle is relabelled as
  // water at the first step where a <= C_s = 0.5, keeping its dissolved fraction.
  auto m = dissolution_lattice("paper", 3000);
  const double dt = 1e-3;
  int expect = 0;
  {
    double c = 0, a = 1;
    for (int n = 1; expect == 0; ++n) {
      const double mf = 1000 * c + 3000 * (1 - c), ms = 1000 * a + 3000 * (1 - a), phi = ms / (ms + mf);
      const double dc = (0.5 - c) * dt;
      c += phi * dc;
      a -= (1 - phi) * dc;
      if (a <= 0.5) expect = n;
    }
  }
  long solids = 0;
  {
    auto mat = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m->particles().material());
    for (size_t i = 0; i < m->particles().size(); ++i) solids += mat(i) == 1;
  }
  int step = 0;
  while (m->relabelled() == 0 && step < 2 * expect) {
    m->dissolve(dt);
    ++step;
  }
  auto mat = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m->particles().material());
  auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m->particles().field(m->fields().fractions));
  long water = 0;
  double amax = 0;
  for (size_t i = 0; i < m->particles().size(); ++i) {
    water += mat(i) == 0;
    amax = std::max(amax, a(i, 1));
  }
  test::print_rank0("[dissolution relabel] %ld of %ld solid particles relabelled at step %d (recurrence: %d); "
                    "largest alpha^s %.4f",
                    m->relabelled(), solids, step, expect, amax);
  EXPECT_EQ(step, expect);
  EXPECT_EQ(m->relabelled(), solids);
  EXPECT_EQ(water, static_cast<long>(m->particles().size()));
  EXPECT_LE(amax, 0.5 + 1e-12);
}

// Two immiscible fluids, each its own group (Yan et al. 2018, section 4.2: fluid-fluid anti-penetration,
// beta = 0.3), in a 0.4 m wide, 0.4 m deep pool (2D, dx = 0.02, slip walls), the interface at mid-depth
// with a one-cell step: on the left half of the box the upper fluid reaches one cell further down.
// `heavy_on_top`: the denser fluid (rho 2000) is the upper one (Rayleigh-Taylor unstable); otherwise it
// is the lower one and the step is mirrored (stable stratification, same perturbation). `disc`: an
// elastic disc (material 2, rho 1500, R = 0.05 m, E = 2.6e6 Pa) released at rest with its centre
// 0.12 m above the mid-plane, in the upper fluid (that fluid seeded inside it is displaced); `gravity`
// off: no gravity and no walls (the disc then moves down at 1 m/s).
// Study knob MENISCUS_LAYERS_EXTRA: more mpm_multiphase keys, e.g. ", contact_separation: 0.85".
namespace {
constexpr double kLayerDx = 0.02, kLayerWidth = 0.4, kLayerDepth = 0.4, kLayerLo = 2 * kLayerDx;
constexpr double kLayerMid = kLayerLo + 0.5 * kLayerDepth;

std::unique_ptr<MultiphaseMpm<2>> two_layers(bool heavy_on_top, const std::string& contact, bool disc = false,
                                             bool gravity = true) {
  const double dx = kLayerDx, width = kLayerWidth, lo = kLayerLo, mid = kLayerMid, hi = lo + kLayerDepth;
  auto box = [](const char* material, double x0, double y0, double x1, double y1) {
    return log::format("  - {type: box, material: %s, lower: [%.17g, %.17g], upper: [%.17g, %.17g]}\n", material, x0,
                       y0, x1, y1);
  };
  const char* upper = heavy_on_top ? "heavy" : "light";
  const char* lower = heavy_on_top ? "light" : "heavy";
  const std::string sources = box(upper, lo, mid, lo + width, hi) + box(upper, lo, mid - dx, lo + 0.5 * width, mid) +
                              box(lower, lo, lo, lo + width, mid - dx) +
                              box(lower, lo + 0.5 * width, mid - dx, lo + width, mid) +
                              (disc ? log::format("  - {type: sphere, material: ball, center: [%.17g, %.17g], radius: 0.05, "
                                                  "velocity: [0, %g]}\n",
                                                  lo + 0.5 * width, mid + 0.07, gravity ? 0.0 : -1.0)
                                    : std::string());
  const std::string deck = log::format(R"(
simulation: {dimension: 2, method: mpm-multiphase, end_time: 100}
domain: {lower: [0, 0], upper: [%.17g, %.17g], cell_size: %.17g, walls: %s}
mpm_multiphase: {contact_mode: %s, force_sharing: fluids%s}
materials:
  - {name: light, model: fluid, density: 1000, sound_speed: 28}
  - {name: heavy, model: fluid, density: 2000, sound_speed: 28}
  - {name: ball, model: hypoelastic, density: 1800, youngs_modulus: 2.6e6, poisson_ratio: 0.3}
sources:
%s)",
                                       width + 2 * lo, hi + lo + 0.1, dx, gravity ? "slip" : "none", contact.c_str(),
                                       (std::string(gravity ? "" : ", gravity: [0, 0]") +
                                        test::knob("MENISCUS_LAYERS_EXTRA", "")).c_str(),
                                       sources.c_str());
  auto d = test::deck_from_string(deck);
  return std::make_unique<MultiphaseMpm<2>>(MethodContext{MPI_COMM_WORLD, d.deck.root(), 2});
}

struct LayerStats {
  double heavy_cy = 0, light_cy = 0;  // centres of mass (height), m
  double crossed = 0;  // area of the upper fluid below the mid-plane, m^2 (the one-cell step: 0.004)
};
LayerStats layer_stats(MultiphaseMpm<2>& m, bool heavy_on_top) {
  auto& set = m.particles();
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().x));
  auto vol = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().volume));
  auto mat = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.material());
  double sums[5] = {};  // heavy y, heavy count, light y, light count, crossed area
  for (size_t i = 0; i < set.size(); ++i) {
    if (mat(i) > 1) continue;  // a solid body: neither fluid
    const bool heavy = mat(i) == 1;
    sums[heavy ? 0 : 2] += x(i, 1);
    sums[heavy ? 1 : 3] += 1;
    if (heavy == heavy_on_top && x(i, 1) < kLayerMid) sums[4] += vol(i, 0);
  }
  MPI_Allreduce(MPI_IN_PLACE, sums, 5, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return {sums[0] / sums[1], sums[2] / sums[3], sums[4]};
}

// Mean interface thickness of the two fluids, in cells: the particles are binned on the grid's cells
// (4 particles per cell at rest); M cells hold particles of both fluids, and L is the number of cell
// edges between a cell with only heavy and a cell with only light particles plus half the edges
// between a pure cell and a mixed one (the interface length in cells). M / L is about 1 for an interface
// one cell thick at any orientation (a sharp interface cuts about one cell per cell of its length) and
// about w for fluids mixed over a band w cells wide.
double interface_cells(MultiphaseMpm<2>& m) {
  auto& set = m.particles();
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().x));
  auto mat = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.material());
  const int nx = static_cast<int>(kLayerWidth / kLayerDx + 0.5), ny = static_cast<int>(kLayerDepth / kLayerDx + 0.5) + 2;
  std::vector<double> counts(2 * nx * ny, 0.0);  // light, heavy per cell
  for (size_t i = 0; i < set.size(); ++i) {
    if (mat(i) > 1) continue;  // a solid body: neither fluid
    const int cx = std::min(nx - 1, std::max(0, static_cast<int>((x(i, 0) - kLayerLo) / kLayerDx)));
    const int cy = std::min(ny - 1, std::max(0, static_cast<int>((x(i, 1) - kLayerLo) / kLayerDx)));
    counts[2 * (cy * nx + cx) + (mat(i) == 1 ? 1 : 0)] += 1;
  }
  MPI_Allreduce(MPI_IN_PLACE, counts.data(), static_cast<int>(counts.size()), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  // 0 empty, 1 light only, 2 heavy only, 3 mixed
  auto kind = [&](int cx, int cy) {
    const double l = counts[2 * (cy * nx + cx)], h = counts[2 * (cy * nx + cx) + 1];
    return (l > 0 ? 1 : 0) + (h > 0 ? 2 : 0);
  };
  double mixed = 0, edges = 0;
  for (int cy = 0; cy < ny; ++cy)
    for (int cx = 0; cx < nx; ++cx) {
      const int k = kind(cx, cy);
      if (k == 3) mixed += 1;
      const int nb[2][2] = {{cx + 1, cy}, {cx, cy + 1}};
      for (const auto& n : nb) {
        if (n[0] >= nx || n[1] >= ny) continue;
        const int j = kind(n[0], n[1]);
        if ((k == 1 && j == 2) || (k == 2 && j == 1)) edges += 1;
        if ((k == 3 && (j == 1 || j == 2)) || (j == 3 && (k == 1 || k == 2))) edges += 0.5;
      }
    }
  return edges > 0 ? mixed / edges : 0.0;
}
}  // namespace

// Rayleigh-Taylor instability of the perturbed layers (Yan et al. 2018, section 4.2, immiscible
// fluids with contact on). Linear theory for two inviscid layers of depth h = 0.2 m in a box of width
// W = 0.4 m with slip walls (Chandrasekhar 1961, ch. X): the step's fundamental cos(pi x / W) grows as
// exp(sigma t), sigma^2 = g k (rho_h - rho_l) / (rho_h coth(k h) + rho_l coth(k h)), k = pi / W, which
// is 4.85 1/s here (the deep-layer value sqrt(A k g), A = 1/3, is 5.07 1/s). Measured on this scene
// (dx = 0.02, 5 % PIC): the heavy area below the mid-plane grows from 0.0040 m^2 by exp(2.2 t) between
// 0.4 and 1.0 s (0.0077 -> 0.0290 m^2), the heavy centre of mass passes below the light one between
// 1.3 and 1.4 s (with contact_mode none: 1.1-1.2 s); the growth is about half of inviscid theory, as
// the FLIP/PIC blend and the one-cell perturbation damp it (not measured separately). The mirrored,
// stable stratification keeps its one-cell step (crossed area 0.0025-0.0040 m^2) and its order.
// About 19 s of CPU.
// Asserted: the unstable layers overturn by 1.6 s, their growth rate lies between a quarter of the
// inviscid rate and the inviscid rate itself (numerical dissipation can only slow it), and the stable
// layers never have more than 1.5 times the initial crossed area.
TEST(S001_MultiFluid, RayleighTaylorOverturns) {
  const double g = 9.81, k = 3.14159265358979323846 / kLayerWidth, h = 0.5 * kLayerDepth;
  const double sigma = std::sqrt(g * k * 1000.0 / (3000.0 / std::tanh(k * h)));
  const double end = 1.6, frame_dt = 0.1;
  std::vector<LayerStats> unstable, stable;
  for (bool heavy_on_top : {true, false}) {
    auto m = two_layers(heavy_on_top, "pairwise");
    auto& frames = heavy_on_top ? unstable : stable;
    double t = 0;
    for (int f = 0; f * frame_dt <= end + 1e-9; ++f) {
      run_until(*m, t, f * frame_dt);
      frames.push_back(layer_stats(*m, heavy_on_top));
      test::print_rank0("[Rayleigh-Taylor %s] t = %.1f s: heavy centre %.4f m, light centre %.4f m, crossed area %.5f m^2",
                        heavy_on_top ? "unstable" : "stable", t, frames.back().heavy_cy, frames.back().light_cy,
                        frames.back().crossed);
    }
  }
  const double growth = std::log(unstable[10].crossed / unstable[4].crossed) / 0.6;
  double crossing = -1, stable_max = 0;
  for (size_t f = 0; f < unstable.size(); ++f)
    if (crossing < 0 && unstable[f].heavy_cy < unstable[f].light_cy) crossing = f * frame_dt;
  for (const auto& s : stable) stable_max = std::max(stable_max, s.crossed);
  test::print_rank0("[Rayleigh-Taylor] growth rate %.2f 1/s (inviscid theory %.2f), overturned by %.1f s, stable "
                    "crossed area at most %.5f m^2 (initial %.5f)",
                    growth, sigma, crossing, stable_max, stable[0].crossed);
  EXPECT_NEAR(unstable[0].crossed, 0.5 * kLayerWidth * kLayerDx, 1e-9);  // the one-cell step
  EXPECT_GT(crossing, 0) << "the heavy layer did not sink below the light one by " << end << " s";
  EXPECT_GT(growth, 0.25 * sigma);
  EXPECT_LT(growth, sigma);
  EXPECT_LT(stable_max, 1.5 * stable[0].crossed);
  EXPECT_LT(stable.back().heavy_cy, stable.back().light_cy - 0.15);
}

// Immiscible fluids stay sharp (Yan et al. 2018, section 4.2: separate groups with anti-penetration
// keep immiscible fluids apart). The Rayleigh-Taylor layers above are stirred through the overturn;
// the interface thickness (interface_cells) is sampled every 0.1 s up to 1.6 s. Measured: with
// pairwise contact at most 0.82 cells (0 at the start: the interface lies on cell edges); with
// contact_mode none the groups interpenetrate, up to 3.12 cells (at 1.0 s). Asserted: with contact the
// thickness stays within 1.5 cells (the criterion of 4 cells is met with margin); without contact it
// exceeds 2 cells (negative control). About 20 s of CPU.
TEST(S001_MultiFluid, ImmiscibleInterfaceStaysSharp) {
  double widest[2] = {0, 0};
  const char* modes[2] = {"pairwise", "none"};
  for (int c = 0; c < 2; ++c) {
    auto m = two_layers(true, modes[c]);
    double t = 0;
    for (int f = 1; f <= 16; ++f) {
      run_until(*m, t, 0.1 * f);
      widest[c] = std::max(widest[c], interface_cells(*m));
    }
    test::print_rank0("[immiscible interface, contact %s] thickest interface %.2f cells over 1.6 s", modes[c],
                      widest[c]);
  }
  EXPECT_LE(widest[0], 1.5);
  EXPECT_LE(widest[0], 4.0);  // the criterion itself
  EXPECT_GT(widest[1], 2.0);
}

// Two immiscible fluids and a solid in one scene (Yan et al. 2018, sections 4.1-4.2: fluid-fluid and
// fluid-solid anti-penetration together), with force_sharing: fluids (the two fluid groups share their
// internal forces, the disc keeps its own). The stable layers of two_layers (light 1000 over heavy 2000
// kg/m^3) and an elastic disc of 1800 kg/m^3 (R = 0.05 m, 2.5 cells) released with its centre 0.07 m
// above the interface: it sinks through the light fluid into the heavy one, where Archimedes would hold
// it 0.8 submerged in the heavy fluid (centre about 0.03 m below the interface). Sampled every 0.05 s to
// 0.8 s: fluid particles inside the disc (centre closer than R - s/2 to the disc's centre of mass, s the
// particle spacing: the disc is nearly rigid, strains about 1e-3), fluid particles within 0.3 dx of a
// disc particle (NoPenetration's measure, which also counts fluid pressed against the surface), the
// interface thickness between the fluids (interface_cells, disc particles left out) and the disc's
// centre. A second run without gravity or walls (disc at -1 m/s into the resting layers) checks that the
// three groups' momentum is conserved while both contact kinds act.
// Measured (dx = 0.02, 2 particles per cell and axis): no fluid particle inside the disc; within 0.3 dx
// of a disc particle at most 0.53 % (8 particles, at 0.55-0.6 s as the disc enters the heavy fluid); interface at most
// 0.57 cells; the disc's centre 0.3082 m at 0.05 s, 0.2607 m at 0.8 s (its bottom 0.029 m into the heavy
// fluid, still settling: the 5 % PIC blend damps it); zero-gravity drift 5.5e-16. About 35 s of CPU.
// Asserted: no fluid inside the disc (< 0.5 %, the issue's criterion), the contact measure below 1 %, the
// interface at most 4 cells thick (the issue's 4h), the disc's bottom at least half a cell into the
// heavy fluid and its centre above the interface minus R (sinking, not sunk through), and the
// zero-gravity momentum drift below 1e-12 of sum m |v|.
TEST(S001_MultiFluid, TwoFluidsAndASolidStayApartUnderFluidsSharing) {
  constexpr double kR = 0.05, kSpacing = 0.5 * kLayerDx;
  auto disc_centre = [](MultiphaseMpm<2>& m, double* c) {
    auto& set = m.particles();
    auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().x));
    auto mat = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.material());
    double s[3] = {0, 0, 0};
    for (size_t i = 0; i < set.size(); ++i)
      if (mat(i) == 2) s[0] += x(i, 0), s[1] += x(i, 1), s[2] += 1;
    MPI_Allreduce(MPI_IN_PLACE, s, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    c[0] = s[0] / s[2];
    c[1] = s[1] / s[2];
  };
  // Fraction of fluid particles closer than R - s/2 to the disc's centre.
  auto inside_disc = [&](MultiphaseMpm<2>& m) {
    double c[2];
    disc_centre(m, c);
    auto& set = m.particles();
    auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().x));
    auto mat = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.material());
    double n[2] = {0, 0};
    const double r = kR - 0.5 * kSpacing;
    for (size_t i = 0; i < set.size(); ++i) {
      if (mat(i) == 2) continue;
      n[1] += 1;
      if ((x(i, 0) - c[0]) * (x(i, 0) - c[0]) + (x(i, 1) - c[1]) * (x(i, 1) - c[1]) < r * r) n[0] += 1;
    }
    MPI_Allreduce(MPI_IN_PLACE, n, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return n[0] / n[1];
  };
  auto m = two_layers(false, "pairwise", true);
  double t = 0, worst_inside = 0, worst_touching = 0, widest = 0, c[2];
  disc_centre(*m, c);
  const double start = c[1];
  for (int f = 1; f <= 16; ++f) {
    run_until(*m, t, 0.05 * f);
    const double inside = inside_disc(*m), touching = fraction_inside(*m, 2, 0.3 * kLayerDx), width = interface_cells(*m);
    worst_inside = std::max(worst_inside, inside);
    worst_touching = std::max(worst_touching, touching);
    widest = std::max(widest, width);
    disc_centre(*m, c);
    test::print_rank0("[two fluids + solid] t = %.2f s: disc centre %.4f m (interface %.2f m), fluid inside the disc "
                      "%.4f, within 0.3 dx of it %.4f, interface %.2f cells",
                      t, c[1], kLayerMid, inside, touching, width);
  }
  EXPECT_NEAR(start, kLayerMid + 0.07, 0.01);
  EXPECT_LT(worst_inside, 0.005);
  EXPECT_LT(worst_touching, 0.01);
  EXPECT_LE(widest, 4.0);
  EXPECT_LT(c[1] - kR, kLayerMid - 0.5 * kLayerDx);
  EXPECT_GT(c[1], kLayerMid - kR);

  auto z = two_layers(false, "pairwise", true, false);
  std::vector<double> mass, p0, p;
  z->group_totals(mass, p0);
  double scale = 0;
  for (double v : mass) scale += v * 1.0;  // |v| <= 1 m/s
  double drift = 0, impulses = 0;
  t = 0;
  for (int k = 0; k < 400; ++k) {
    const double dt = z->stable_dt();
    z->step(dt);
    t += dt;
    DiagnosticRow row;
    z->diagnostics(row);
    for (auto& [key, v] : row)
      if (key == "contact_impulses") impulses += v;
    z->group_totals(mass, p);
    for (int dd = 0; dd < 2; ++dd) {
      double q = 0, q0 = 0;
      for (size_t g = 0; g < mass.size(); ++g) q += p[g * 2 + dd], q0 += p0[g * 2 + dd];
      drift = std::max(drift, std::fabs(q - q0) / scale);
    }
  }
  disc_centre(*z, c);
  test::print_rank0("[two fluids + solid, no gravity] %.3f s: momentum drift %.3e of sum m|v|, %g contact impulses, "
                    "disc centre %.4f m",
                    t, drift, impulses, c[1]);
  EXPECT_GT(impulses, 0);
  EXPECT_LT(drift, 1e-12);
}
