// The Cheerios effect (Ruan et al. 2021 Fig. 10a; Vella and Mahadevan 2005, "The Cheerios effect",
// Am. J. Phys. 73), 2D, CGS units: two cylinders denser than water floating side by side depress
// the surface between them less than outside, so each is pushed toward the other. In 2D the
// horizontal force per unit length on each is exactly F = rho g h_m^2 / 2, h_m the depression of
// the surface at the symmetry plane below the zero-pressure level (a horizontal force balance on
// the liquid between the plane and the far field).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

#include "membrane_scenes.hpp"
#include "methods/membrane/membrane_ruan.hpp"
#include "scene.hpp"
#include "validation_support.hpp"

namespace mm = meniscus::membrane;
using meniscus::test::print_rank0;

namespace {

constexpr double kRho = 1.0, kG = 9.8, kDx = 0.025, kLevel = 0.6, kWidth = 2.4;

// Zero-pressure level: mean of y + p / (rho g) over the fluid cells two cells or more below the
// membrane, of the whole pool or of the cell column `column` only (collective). thrust (column only):
// the sum of p dx over the column's fluid cells, the liquid's horizontal push across it.
double zero_pressure_level(mm::MacGrid& grid, double dt, int column = -1, double* thrust = nullptr) {
  const auto g = grid.geometry();
  auto a = grid.field().acquire_local(false);
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
  grid.field().release_local(a);
  double sum[3] = {0, 0, 0};
  for (int j = g.owned.lo[1]; j < g.owned.lo[1] + g.owned.n[1]; ++j)
    for (int i = g.owned.lo[0]; i < g.owned.lo[0] + g.owned.n[0]; ++i) {
      if ((column >= 0 && i != column) || g.cell_type(h, i, j) != mm::kFluid) continue;
      const double p = h(g.local(i, j), mm::kP) / dt;
      sum[2] += p * g.dx;
      if (h(g.local(i, j), mm::kPhi) > -2 * g.dx) continue;
      sum[0] += g.lower[1] + (j + 0.5) * g.dx + p / (kRho * kG);
      sum[1] += 1;
    }
  MPI_Allreduce(MPI_IN_PLACE, sum, 3, MPI_DOUBLE, MPI_SUM, grid.comm());
  if (thrust) *thrust = sum[2];
  return sum[1] > 0 ? sum[0] / sum[1] : 0.0;
}

// The scenes' disc (R = 0.1, rho_s = 3, rotation locked) centred at x, 0.05 cm below the level.
mm::Disc cheerios_disc(double x) {
  mm::Disc d;
  d.radius = 0.1;
  d.density = 3.0;
  d.rotates = false;
  d.c[0] = x;
  d.c[1] = kLevel - 0.05;
  return d;
}

// The scenes' flow: sigma = 0.9, remeshing to dx / 2, settle damping 8 /s until settle_until.
mm::FlowParameters cheerios_parameters(double settle_until, bool normal) {
  mm::FlowParameters p;
  p.sigma = 0.9;
  p.rho = kRho;
  p.gravity[1] = -kG;
  p.remesh_edge = 0.5 * kDx;
  p.settle_damping = 8.0;
  p.settle_until = settle_until;
  p.normal_motion = normal;
  return p;
}

// Membrane height where it crosses x = xs (the first crossing along the chain).
double height_at(mm::MembraneFlow& f, double xs) {
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.membrane().x);
  auto seg = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.membrane().seg);
  for (long e = 0; e < f.membrane().segments(); ++e) {
    const int i = seg(e, 0), j = seg(e, 1);
    if ((x(i, 0) - xs) * (x(j, 0) - xs) > 0 || x(i, 0) == x(j, 0)) continue;
    const double t = (xs - x(i, 0)) / (x(j, 0) - x(i, 0));
    return x(i, 1) + t * (x(j, 1) - x(i, 1));
  }
  return 0.0;
}

}  // namespace

// Two discs R = 0.1 (4 dx), rho_s = 3, centres 0.6 cm apart in a 2.4 x 1.0 cm tank filled to 0.6,
// sigma = 0.9: settle window (damping 8 /s) until 0.6 s, then free until 1.2 s. Checked: the gap
// shrinks by more than a quarter cell after release, the pair stays centred within half a cell,
// and the acceleration right after release (quadratic fit over 0.15 s) lies within 20 % of the
// bracket F / (m + rho A_sub) .. F / m (added mass between none and the submerged area's) with
// F = rho g h_m^2 / 2 from the measured h_m, z_inf averaged over the last 0.05 s of the settle window.
// Measured: h_m = 0.0910 cm below the zero-pressure level 0.6555, F = 0.0406 dyn/cm; gap
// 0.6224 -> 0.4808 cm in 0.6 s (it first widened from 0.6 during the settle window, as the surface
// formed its menisci); acceleration 0.379 cm/s^2 inside the bracket 0.323 .. 0.431 (the force is
// rho g h_m^2 / 2 with an added mass of 0.41 rho A_sub); midpoint within
// 1.9e-4 cm; 372 s at nice 19 on the loaded machine. Before the round-off margin of the first
// solve's contact test (HeldDiscCentredInTheTankStaysMirrorSymmetric): h_m 0.1043 cm, F 0.0533,
// acceleration 0.653 against 0.424 .. 0.566 (15 % above even F / m), midpoint within 0.0033 cm:
// the pair was lopsided. About 80 s of one core (4.5 min on
// the loaded machine). MENISCUS_CHEERIOS_NORMAL=1 runs it with normal vertex motion
// (FlowParameters::normal_motion); measured before that margin: h_m 0.0858 cm, F 0.0361 dyn/cm, gap
// 0.623 -> 0.525 cm, acceleration 0.300 cm/s^2 inside the bracket 0.287 .. 0.383 (passes; 0.24
// before the membrane's tangential velocity was dropped), midpoint within 0.0076 cm.
TEST(MembraneCheeriosValidation, LongTwoFloatingDiscsAttractWithTheCapillaryForce) {
  std::vector<mm::Disc> discs = {cheerios_disc(0.5 * kWidth - 0.3), cheerios_disc(0.5 * kWidth + 0.3)};
  const mm::FlowParameters p = cheerios_parameters(0.6, std::getenv("MENISCUS_CHEERIOS_NORMAL") != nullptr);
  mm::CoupledSolveOptions o;
  o.rtol = 1e-8;
  auto s = meniscus::test::make_pool_with_bodies(kWidth, 1.0, kDx, kLevel, discs, p, o);
  double t = 0, dt = 0, level_sum = 0;
  long level_steps = 0;
  while (t < p.settle_until) {
    dt = s.flow->stable_dt(0.5, 1.0, 2e-3);
    s.flow->step(dt);
    t += dt;
    if (t > p.settle_until - 0.05) {  // z_inf: mean over the last 0.05 s (one step's reading scatters)
      level_sum += zero_pressure_level(*s.grid, dt);
      ++level_steps;
    }
  }
  auto gap = [&] { return s.flow->bodies()[1].c[0] - s.flow->bodies()[0].c[0]; };
  const double level = level_sum / level_steps;
  const double hm = level - height_at(*s.flow, 0.5 * kWidth);
  const double t0 = t, gap0 = gap();
  // Quadratic fit of the half gap over the first 0.15 s: (gap0 - gap) / 2 = v0 tau + a tau^2 / 2.
  double s11 = 0, s12 = 0, s22 = 0, r1 = 0, r2 = 0, worst_mid = 0;
  while (t < 1.2) {
    dt = s.flow->stable_dt(0.5, 1.0, 2e-3);
    s.flow->step(dt);
    t += dt;
    const double tau = t - t0, y = 0.5 * (gap0 - gap());
    if (tau <= 0.15) {
      const double b1 = tau, b2 = 0.5 * tau * tau;
      s11 += b1 * b1;
      s12 += b1 * b2;
      s22 += b2 * b2;
      r1 += b1 * y;
      r2 += b2 * y;
    }
    const double mid = 0.5 * (s.flow->bodies()[0].c[0] + s.flow->bodies()[1].c[0]);
    worst_mid = std::max(worst_mid, std::abs(mid - 0.5 * kWidth));
  }
  const double accel = (s11 * r2 - s12 * r1) / (s11 * s22 - s12 * s12);
  const auto& b = s.flow->bodies()[0];
  const double force = 0.5 * kRho * kG * hm * hm, m = b.mass();
  // Submerged area of the disc below the zero-pressure level (circular segment, or all of it).
  const double r = b.radius, h = std::clamp(level - (b.c[1] - r), 0.0, 2 * r);
  const double a_sub = r * r * std::acos((r - h) / r) - (r - h) * std::sqrt(std::max(0.0, 2 * r * h - h * h));
  const double a_lo = force / (m + kRho * a_sub), a_hi = force / m;
  print_rank0("cheerios: h_m %.4f cm at release (z_inf %.4f), F = rho g h_m^2 / 2 = %.3e dyn/cm; gap %.4f -> %.4f cm "
              "in %.2f s; acceleration after release %.3e cm/s^2 (bracket %.3e .. %.3e); midpoint off by <= %.2e cm",
              hm, level, force, gap0, gap(), t - t0, accel, a_lo, a_hi, worst_mid);
  EXPECT_GT(hm, 0.0);
  EXPECT_LT(gap(), gap0 - 0.25 * kDx);
  EXPECT_LT(worst_mid, 0.5 * kDx);
  EXPECT_GT(accel, 0.8 * a_lo);
  EXPECT_LT(accel, 1.2 * a_hi);
}

namespace {

struct HeldPair {
  double force_left = 0, force_right = 0;  // mean horizontal force on each body over the last window
  double spread = 0;                       // standard error of the left body's mean (block means)
  double hm = 0, level = 0;                // depression at the symmetry plane, zero-pressure level (window means)
  double settle_seconds = 0;
  double vertical = 0;  // mean vertical force of the liquid on the left body
  double hw = 0;        // depression of the surface at the tank wall below the zero-pressure level
  // Zero-pressure levels of the wall column (cell 0) and of the column left of the symmetry plane,
  // and the difference of their thrusts (sum of p dx): the horizontal push on the left half.
  double wall_level = 0, mid_level = 0, thrust_difference = 0;
};


// Two discs R = 0.1, rho_s = 3, held horizontally with centres `separation` apart (vertical motion
// free, rotation locked as in the free test), settled under damping 8 /s until t_end; the force is
// the mean of the last `window` seconds. normal: FlowParameters::normal_motion.
HeldPair held_pair(double separation, double t_end, double window, double dt_max = 2e-3, double dx = kDx,
                   bool normal = false) {
  std::vector<mm::Disc> discs = {cheerios_disc(0.5 * kWidth - 0.5 * separation),
                                 cheerios_disc(0.5 * kWidth + 0.5 * separation)};
  for (auto& d : discs) d.held_x = true;
  mm::FlowParameters p = cheerios_parameters(t_end, normal || std::getenv("MENISCUS_HELD_NORMAL") != nullptr);
  p.remesh_edge = std::getenv("MENISCUS_HELD_NOREMESH") ? 0.0 : 0.5 * dx;
  mm::CoupledSolveOptions o;
  o.rtol = 1e-8;
  auto s = meniscus::test::make_pool_with_bodies(kWidth, 1.0, dx, kLevel, discs, p, o);
  HeldPair out;
  std::vector<double> left;
  double t = 0, dt = 0, right = 0;
  long n = 0;
  while (t < t_end - 1e-12) {
    dt = std::min(s.flow->stable_dt(0.5, 1.0, dt_max), t_end - t);
    const auto report = s.flow->step(dt);
    t += dt;
    if (t >= t_end - window - 0.1 && !s.flow->bodies()[0].held_y)
      for (auto& b : s.flow->bodies()) {  // hold the settled depth too: the staircase of faces stops changing
        b.held_y = true;
        b.v[1] = 0.0;
      }
    if (std::getenv("MENISCUS_HELD_TRACE"))
      print_rank0("trace t %.4f F %.4e %.4e y %.5f %.5f vy %.3e contacts %ld +%ld -%ld splits %ld collapses %ld its %d", t,
                  report.second.held_force[0], report.second.held_force[2], s.flow->bodies()[0].c[1],
                  s.flow->bodies()[1].c[1], s.flow->bodies()[0].v[1], report.contact_vertices, report.contacts_gained,
                  report.contacts_lost, report.splits, report.collapses, report.second.iterations);
    if (t > t_end - window) {
      left.push_back(report.second.held_force[0]);
      right += report.second.held_force[2];
      out.vertical += report.second.held_force[1];
      const double level = zero_pressure_level(*s.grid, dt);
      out.level += level;
      out.hm += level - height_at(*s.flow, 0.5 * kWidth);
      auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.flow->membrane().x);
      out.hw += level - x(0, 1);  // vertex 0: the end on the left wall
      double wall = 0, mid = 0;
      out.wall_level += zero_pressure_level(*s.grid, dt, 0, &wall);
      out.mid_level += zero_pressure_level(*s.grid, dt, static_cast<int>(std::lround(0.5 * kWidth / dx)) - 1, &mid);
      out.thrust_difference += wall - mid;
      ++n;
    }
  }
  for (double f : left) out.force_left += f / n;
  // Standard error of the mean from the means of 8 consecutive blocks (the steps are correlated).
  const size_t blocks = 8, per = left.size() / blocks;
  double sum2 = 0;
  for (size_t b = 0; b < blocks; ++b) {
    double mean = 0;
    for (size_t q = b * per; q < (b + 1) * per; ++q) mean += left[q] / per;
    sum2 += (mean - out.force_left) * (mean - out.force_left);
    if (std::getenv("MENISCUS_HELD_TRACE")) print_rank0("block %zu mean %.4e", b, mean);
  }
  out.spread = std::sqrt(sum2 / (blocks - 1) / blocks);
  out.force_right = right / n;
  out.vertical /= n;
  out.level /= n;
  out.hm /= n;
  for (double* q : {&out.hw, &out.wall_level, &out.mid_level, &out.thrust_difference}) *q /= n;
  out.settle_seconds = t;
  return out;
}

}  // namespace

// T-CHE1, the held-body Cheerios force (Vella and Mahadevan 2005; Ruan et al. 2021 Fig. 10a scene;
// the reaction comes from the held axis's rows of Ruan's Eq. 28, CoupledSolveResult::held_force).
// Two discs are held horizontally at centre distances L = 0.4, 0.6 and 0.9 cm and float freely in
// the vertical. They settle under damping 8 /s until 1.3 s. Then they are held vertically too, so
// that the staircase of fluid-rigid faces stops changing, and the reaction is averaged over
// 1.4-1.8 s.
// Reference: a horizontal force balance in 2D. Take the liquid, membrane and body between the
// symmetry plane (surface level there, tension horizontal, depth h_m below the zero-pressure level
// z_inf) and the tank wall (90 degree contact, tension horizontal, depth h_w). With the liquid at
// rest, the force per unit length is exactly F = rho g (h_m^2 - h_w^2) / 2. The paper's far-field
// reference, rho g h_m^2 / 2, drops the wall's term (docs/theory-membrane.md, "Held Cheerios pair").
// Checked at each L:
//  * F inward, left and right equal and opposite within 1e-6;
//  * F within 10 % of the finite-tank value. The force is a difference of two thrusts over a strip
//    of depth h_m, resolved to within a fraction of a cell at the top: up to dx / (2 h_m);
//  * F within 20 % of rho g h_m^2 / 2 (the bound) at L = 0.4 and 0.6, where h_w^2 is under
//    3 % of h_m^2. At L = 0.9 the wall's term is 16 % of it, and this tank is not the paper's
//    setting;
//  * F decreasing with L.
// Vertex motion is normal (FlowParameters::normal_motion): the paper's motion keeps remeshing
// around bodies at rest (about 550 events per second), and each event jumps the reaction by up to
// 1 dyn/cm.
// Measured (the left and right forces agree to all printed digits):
//
//   L (cm) | F (dyn/cm)          | h_m, h_w (cm)  | F / (rho g h_m^2 / 2) | F / (rho g (h_m^2 - h_w^2) / 2)
//   0.4    | 0.05520 (+-2.3e-4)  | 0.1116, 0.0114 | 0.905                 | 0.915
//   0.6    | 0.03276 (+-1.7e-4)  | 0.0832, 0.0140 | 0.966                 | 0.994
//   0.9    | 0.01040 (+-2.8e-5)  | 0.0522, 0.0207 | 0.779                 | 0.925
//
// The zero-pressure levels of the wall column and the mid column agree within 3e-5 cm: the liquid
// is at rest. Their thrust difference (sum of p dx) is 0.0562, 0.0325 and 0.0107 dyn/cm.
// Resolution, L = 0.6 at dx = 0.05: F = 0.03503, ratios 1.034 and 1.064 (the finite-tank error
// falls from 6.4 % to 0.6 % as dx halves).
// The earlier schedule (mean over 0.5-0.9 s, held vertically from 0.4 s) read 1.57 x
// rho g h_m^2 / 2 at L = 0.6. There the wall and mid column levels were 6.7e-3 cm apart, and the
// liquid was still flowing.
// Runtime: 20 min wall per distance, three in parallel at load 20. The 0.9 s schedule took 53 s of
// CPU, so this one takes about 2 min of one core per distance.
// MENISCUS_HELD_ONLY=0.6 runs one distance, MENISCUS_HELD_DX=0.05 another cell size,
// MENISCUS_HELD_TRACE=1 prints every step.
TEST(MembraneCheeriosValidation, LongHeldDiscsFeelRhoGHm2Over2) {
  const double dx = std::getenv("MENISCUS_HELD_DX") ? std::atof(std::getenv("MENISCUS_HELD_DX")) : kDx;
  double previous = 1e300;
  for (double separation : {0.4, 0.6, 0.9}) {
    if (std::getenv("MENISCUS_HELD_ONLY") && std::atof(std::getenv("MENISCUS_HELD_ONLY")) != separation) continue;
    const HeldPair h = held_pair(separation, 1.8, 0.4, 2e-3, dx, true);
    const double paper = 0.5 * kRho * kG * h.hm * h.hm, tank = paper - 0.5 * kRho * kG * h.hw * h.hw;
    print_rank0("cheerios held L = %.2f cm: F_left %.5e, F_right %.5e dyn/cm (standard error %.1e); h_m %.5f, h_w "
                "%.5f cm (z_inf %.5f) -> rho g h_m^2 / 2 = %.5e (ratio %.4f), rho g (h_m^2 - h_w^2) / 2 = %.5e (ratio "
                "%.4f); zero-pressure levels of the wall and mid columns %.5f, %.5f, their thrust difference %.5e",
                separation, h.force_left, h.force_right, h.spread, h.hm, h.hw, h.level, paper, h.force_left / paper,
                tank, h.force_left / tank, h.wall_level, h.mid_level, h.thrust_difference);
    EXPECT_GT(h.force_left, 0.0);
    EXPECT_NEAR(h.force_left, -h.force_right, 1e-6 * h.force_left);
    EXPECT_NEAR(h.force_left, tank, 0.1 * tank);
    if (separation < 0.8) EXPECT_NEAR(h.force_left, paper, 0.2 * paper);  // wall term h_w^2 / h_m^2 < 3 %
    EXPECT_LT(h.force_left, previous);
    previous = h.force_left;
  }
}

// The reaction of a held body against Archimedes (issue 17: "Archimedes with sigma = 0"; here the
// surface stays flat, so sigma does not act on the body): a disc R = 0.1 held fully under a pool at
// rest feels the vertical force rho g pi R^2 (the weight of the displaced liquid) within 1 % and no
// horizontal force (1e-8 of it; the staircase of faces is off-centre, yet hydrostatic pressure
// gives no net horizontal push). Both come out of the three-way solve's rows of the held axes
// (CoupledSolveResult::held_force), so this checks the reaction the Cheerios test above measures.
// Measured: F_y 0.30643 against 0.30788 dyn/cm (-0.47 %), |F_x| 1.5e-11.
TEST(MembraneCheeriosValidation, HeldSubmergedDiscFeelsArchimedesForce) {
  mm::Disc d;
  d.radius = 0.1;
  d.density = 3.0;
  d.rotates = false;
  d.held_x = d.held_y = true;
  d.c[0] = 0.5 + 0.3 * kDx;  // off the lattice: the staircase of faces is not symmetric in x
  d.c[1] = 0.4;
  mm::FlowParameters p;
  p.sigma = 0.9;
  p.rho = kRho;
  p.gravity[1] = -kG;
  mm::CoupledSolveOptions o;
  o.rtol = 1e-10;
  auto s = meniscus::test::make_pool_with_bodies(1.0, 1.0, kDx, 0.7, {d}, p, o);
  const double archimedes = kRho * kG * M_PI * d.radius * d.radius;
  for (int step = 0; step < 3; ++step) {
    const auto r = s.flow->step(1e-3);
    print_rank0("held submerged disc, step %d: F_x %.3e, F_y %.6e dyn/cm against rho g pi R^2 = %.6e (%.3f %%)", step,
                r.second.held_force[0], r.second.held_force[1], archimedes,
                100 * (r.second.held_force[1] / archimedes - 1));
    EXPECT_NEAR(r.second.held_force[1], archimedes, 0.01 * archimedes);  // measured -0.47 %
    EXPECT_LT(std::abs(r.second.held_force[0]), 1e-8 * archimedes);       // measured 5e-11 relative
  }
}

// The deck key membrane.bodies[N].held (issue 17): the method built from a deck holds the body and
// reports the force along the held axes as the diagnostics columns bodyN_held_fx / held_fy. The
// same submerged disc as above (R = 0.1, 0.3 cm under a pool at rest): F_y = rho g pi R^2 within
// 1 % (the solve's own value is -0.47 %), F_x about 0, and the body stays where it was put.
TEST(MembraneCheeriosValidation, DeckKeyHeldHoldsTheBodyAndReportsItsForce) {
  auto m = meniscus::test::membrane_method(meniscus::test::unit_box_membrane_deck(
      "membrane-held-deck", 0.025,
      "shape: pool, level: 0.7, surface_tension: 0.9, gravity: [0, -9.8], rtol: 1.0e-10, "
      "bodies: [{center: [0.5075, 0.4], radius: 0.1, density: 3.0, rotates: false, held: xy}]"));
  const double archimedes = kRho * kG * M_PI * 0.1 * 0.1;
  for (int step = 0; step < 2; ++step) {
    m->step(1e-3);
    meniscus::DiagnosticRow row;
    m->diagnostics(row);
    const double fx = meniscus::test::column(row, "body0_held_fx"), fy = meniscus::test::column(row, "body0_held_fy");
    print_rank0("deck key held: xy, step %d: body0_held_fx %.3e, body0_held_fy %.6e dyn/cm against %.6e (%.3f %%)", step,
                fx, fy, archimedes, 100 * (fy / archimedes - 1));
    EXPECT_NEAR(fy, archimedes, 0.01 * archimedes);
    EXPECT_LT(std::abs(fx), 1e-8 * archimedes);
    EXPECT_EQ(meniscus::test::column(row, "body0_x"), 0.5075);
    EXPECT_EQ(meniscus::test::column(row, "body0_y"), 0.4);
  }
}

// The held Cheerios scene as a user runs it (inputs/membrane-cheerios-held-2d-ci.yaml, the CI size
// of membrane-cheerios-held-2d.yaml, built by the method from the file, the method's own time step,
// to the deck's end time 0.02 s): the two discs, placed mirror-symmetrically and held in x through
// the deck key held: x, feel horizontal forces (diagnostics columns body0_held_fx, body1_held_fx)
// that are equal and opposite at every step within 1e-6 of a disc's weight (the size of the forces
// the solve balances; at rtol 1e-8 not to round-off), and they stay where they were put in x. The
// static force of the full deck is checked by LongHeldDiscsFeelRhoGHm2Over2.
// Measured: 13 steps, |F_left + F_right| <= 1.9e-7 dyn/cm (2e-7 of the weight) while |F_left| reaches
// 6.0e-3 dyn/cm; 1.2 s of one core (15 s wall at load 20).
// `meniscus run` on the same deck (1 and 2 threads, 1 and 2 ranks) gives the same mirror symmetry:
// |F_left + F_right| <= 1.7e-8 dyn/cm over the 13 steps, F_left = -5.98659e-3 dyn/cm at 0.02 s.
TEST(MembraneCheeriosValidation, CheeriosHeldDeckGivesEqualAndOppositeForces) {
  std::ifstream in(meniscus::test::source_dir() + "/inputs/membrane-cheerios-held-2d-ci.yaml");
  std::stringstream text;
  text << in.rdbuf();
  ASSERT_FALSE(text.str().empty());
  auto m = meniscus::test::membrane_method(text.str());
  double t = 0, worst = 0, largest = 0;
  int steps = 0;
  while (t < 0.02 - 1e-12) {
    const double dt = std::min(m->stable_dt(), 0.02 - t);
    m->step(dt);
    t += dt;
    ++steps;
    meniscus::DiagnosticRow row;
    m->diagnostics(row);
    const double left = meniscus::test::column(row, "body0_held_fx"), right = meniscus::test::column(row, "body1_held_fx");
    worst = std::max(worst, std::abs(left + right));
    largest = std::max(largest, std::abs(left));
    EXPECT_EQ(meniscus::test::column(row, "body0_x"), 0.9);
    EXPECT_EQ(meniscus::test::column(row, "body1_x"), 1.5);
  }
  print_rank0("cheerios held deck (CI): %d steps to %.3f s, |F_left + F_right| <= %.2e dyn/cm, |F_left| up to %.3e "
              "dyn/cm", steps, t, worst, largest);
  EXPECT_GT(steps, 5);
  EXPECT_GT(largest, 0.0);
  // The solve balances forces of the size of a disc's weight (rho_s pi R^2 g = 0.92 dyn/cm): the
  // mirror images agree to the MINRES tolerance (rtol 1e-8) relative to it.
  EXPECT_LT(worst, 1e-6 * 3.0 * M_PI * 0.1 * 0.1 * kG);
}

namespace {

// Mirror asymmetry of the pool state about x = width / 2 (one rank): the largest difference between
// a quantity and its mirror image, for the membrane (positions and velocities; vertex i against
// vertex n-1-i of the open chain), the face velocities, the pressure and the cell types.
struct Asymmetry {
  double membrane_x = 0, membrane_v = 0, face_u = 0, face_v = 0, pressure = 0;
  long cell_types = 0, vertex_count = 0;
};

Asymmetry mirror_asymmetry(mm::MembraneFlow& f, mm::MacGrid& grid, double width) {
  Asymmetry a;
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.membrane().x);
  auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.membrane().v);
  const long n = f.membrane().vertices();
  a.vertex_count = n;
  for (long i = 0; i < n; ++i) {
    const long k = n - 1 - i;
    a.membrane_x = std::max({a.membrane_x, std::abs(x(i, 0) + x(k, 0) - width), std::abs(x(i, 1) - x(k, 1))});
    a.membrane_v = std::max({a.membrane_v, std::abs(v(i, 0) + v(k, 0)), std::abs(v(i, 1) - v(k, 1))});
  }
  const auto g = grid.geometry();
  auto loc = grid.field().acquire_local(false);
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), loc);
  grid.field().release_local(loc);
  const int nx = g.cells[0], ny = g.cells[1];
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const long l = g.local(i, j), r = g.local(nx - 1 - i, j);
      a.cell_types += h(l, mm::kCell) != h(r, mm::kCell);
      if (h(l, mm::kCell) == mm::kFluid) a.pressure = std::max(a.pressure, std::abs(h(l, mm::kP) - h(r, mm::kP)));
      a.face_v = std::max(a.face_v, std::abs(h(l, mm::kV) - h(r, mm::kV)));
      a.face_u = std::max(a.face_u, std::abs(h(g.local(i, j), mm::kU) + h(g.local(nx - i, j), mm::kU)));
    }
  return a;
}

}  // namespace

// A disc held mid-tank (the symmetric scene of the held-Cheerios diagnosis: R = 0.1, rho_s = 3,
// held in x, free in y, on the face x = 1.2 of the 2.4 cm tank, normal vertex motion) stays the
// mirror image of itself about x = 1.2: membrane positions and velocities, face velocities,
// pressure and cell types agree with their mirror images to round-off, and the held reaction F_x,
// zero by symmetry, is round-off. Checked over 40 steps of 2 ms: positions within 1e-10 cm,
// velocities 1e-8 cm/s, F_x 1e-8 dyn/cm (rho g h_m^2 / 2 of the pair at L = 0.6 is about 0.03).
// Measured: 7.6e-13 cm, 6.1e-11 cm/s, |F_x| <= 4.6e-11 (300 steps: 1e-12 cm, |F_x| <= 3e-11; with the
// paper's full vertex motion 7e-9 cm after 300 steps, its remeshing churn amplifying round-off).
// Before, the first solve slaved the vertices whose predicted position was inside the body by
// round-off: the initial membrane wraps the wetted arc with vertices on the circle, and three of
// them on the right and none of their mirror images on the left tested inside. The positions were
// 2.1e-5 cm asymmetric after the second step and 4.3e-3 cm after 23, F_x -3.2e-5 dyn/cm by then:
// the origin of the spurious 0.004 dyn/cm and the lopsided meniscus of the disabled test above.
// MENISCUS_MIRROR_STEPS=n runs n steps, MENISCUS_MIRROR_PAPER=1 the paper's vertex motion.
// About 4 s of one core.
TEST(MembraneCheeriosValidation, HeldDiscCentredInTheTankStaysMirrorSymmetric) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size > 1) GTEST_SKIP() << "one-rank check (the mirror image is read from one rank's grid)";
  std::vector<mm::Disc> discs = {cheerios_disc(0.5 * kWidth)};
  discs[0].held_x = true;
  const mm::FlowParameters p = cheerios_parameters(1.0, std::getenv("MENISCUS_MIRROR_PAPER") == nullptr);
  mm::CoupledSolveOptions o;
  o.rtol = 1e-10;
  auto s = meniscus::test::make_pool_with_bodies(kWidth, 1.0, kDx, kLevel, discs, p, o);
  const int steps = std::getenv("MENISCUS_MIRROR_STEPS") ? std::atoi(std::getenv("MENISCUS_MIRROR_STEPS")) : 40;
  Asymmetry worst;
  double worst_force = 0;
  for (int step = 1; step <= steps; ++step) {
    const auto r = s.flow->step(2e-3);
    const Asymmetry a = mirror_asymmetry(*s.flow, *s.grid, kWidth);
    worst.membrane_x = std::max(worst.membrane_x, a.membrane_x);
    worst.membrane_v = std::max(worst.membrane_v, a.membrane_v);
    worst.face_u = std::max({worst.face_u, a.face_u, a.face_v});
    worst.pressure = std::max(worst.pressure, a.pressure);
    worst.cell_types = std::max(worst.cell_types, a.cell_types);
    worst_force = std::max(worst_force, std::abs(r.second.held_force[0]));
  }
  print_rank0("held disc mid-tank, %d steps: mirror asymmetry of membrane positions %.2e cm, velocities %.2e cm/s, face "
              "velocities %.2e cm/s, p-hat %.2e, cell types %ld; |F_x| <= %.2e dyn/cm",
              steps, worst.membrane_x, worst.membrane_v, worst.face_u, worst.pressure, worst.cell_types, worst_force);
  EXPECT_LT(worst.membrane_x, 1e-10);
  EXPECT_LT(worst.membrane_v, 1e-8);
  EXPECT_LT(worst.face_u, 1e-8);
  EXPECT_EQ(worst.cell_types, 0);
  EXPECT_LT(worst_force, 1e-8);
}
