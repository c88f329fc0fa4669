// Physics checks of the 3D liquid-membrane step (Ruan et al. 2021, phase 1 without bodies) against
// analytic values: hydrostatic rest of a pool and the Laplace pressure 2 sigma / R of a drop.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "membrane3d_scenes.hpp"
#include "membrane_translation.hpp"
#include "methods/membrane/triangle_remesh.hpp"
#include "validation_support.hpp"

namespace mm = meniscus::membrane;
using meniscus::test::print_rank0;

// A flat pool (level 0.3 dx above the faces z = 8 dx, so the ghost-fluid fraction of the surface
// dual cells is 0.8) with gravity and surface tension stays at rest and its pressure is
// hydrostatic, p = rho g (level - z): the surface dual cells' liquid weight is exactly what the
// pressure below them carries when alpha_f is the ghost-fluid fraction (Ruan 2021 §4.3, mass M).
TEST(Membrane3DValidation, HydrostaticPoolStaysAtRest) {
  const int cells = 12;
  const double dx = 1.0 / cells, level = 0.5 + 0.3 * dx;
  mm::Flow3Parameters p;
  p.rho = 1.0;
  p.sigma = 72.0;
  p.gravity[2] = -980.0;
  mm::CoupledSolveOptions o;
  o.rtol = 1e-10;
  auto s = meniscus::test::make_pool3(cells, level, p, o);
  const double v0 = s.flow->volume(), dt = 2e-3;
  mm::Step3Report r;
  for (int n = 0; n < 10; ++n) r = s.flow->step(dt);
  const auto speeds = meniscus::test::max_speeds3(s);
  const double drift = std::abs(r.volume - v0) / v0;
  // Hydrostatic pressure at the centres of the cells below the surface layer.
  const double z = 0.5 - 2.5 * dx;  // centre of the cells k = 3 below the surface cells k = 5
  const double p_num = mm::mean_fluid_pressure_3d(*s.grid, dt, [&](const double* x) { return std::abs(x[2] - z) < 1e-9; });
  const double p_ref = p.rho * 980.0 * (level - z);
  print_rank0("3D hydrostatic pool (12^3, 10 steps): max |u| %.3e cm/s, max |v_membrane| %.3e cm/s, volume drift %.2e, "
              "p(z = %.4f) %.4f vs rho g (level - z) %.4f (%.2e), MINRES %d its, %ld fluid-air faces\n",
              speeds[0], speeds[1], drift, z, p_num, p_ref, std::abs(p_num / p_ref - 1), r.second.iterations,
              r.second.fluid_air_faces);
  // Bound: 1e-6 of the speed g dt = 1.96 cm/s that one unbalanced step would give.
  EXPECT_LT(speeds[0], 1e-6 * 980.0 * dt);
  EXPECT_LT(speeds[1], 1e-6 * 980.0 * dt);
  EXPECT_LT(drift, 5e-3);
  EXPECT_NEAR(p_num / p_ref, 1.0, 1e-6);
}

namespace {
// A water-like drop in zero gravity (sigma = 0.9 dyn/cm, rho = 1 g/cm^3), as inputs/membrane-drop-3d.yaml.
mm::Flow3Parameters drop_parameters(bool normal_motion) {
  mm::Flow3Parameters p;
  p.rho = 1.0;
  p.sigma = 0.9;
  p.gravity[2] = 0.0;
  p.normal_motion = normal_motion;
  return p;
}
}  // namespace

// Laplace's law in 3D: inside a spherical membrane drop in zero gravity the pressure is 2 sigma / R
// (the capillary force of Eqs. 9-10 balanced by the pressure through W^T, with K_c implicit). The
// first step from rest is the static balance. With the paper's vertex motion spurious currents then
// grow about linearly (the discrete capillary force is not a discrete gradient, the liquid is
// inviscid, and tangential vertex velocities accumulate: 0.38 cm/s in the liquid after 10 steps)
// and the interior pressure moves by a few per cent when cells change type, so the test asserts the
// first step and the mean over 10 steps. With normal-only vertex motion (membrane.normal_motion) the
// currents stay at 0.075 cm/s and the pressure steady; that run asserts its last step.
TEST(Membrane3DValidation, DropLaplacePressureIsTwoSigmaOverRadius) {
  const int cells = 16, steps = 10;
  const double r0 = 0.3, dt = 4e-3;
  for (bool normal : {false, true}) {
    const mm::Flow3Parameters p = drop_parameters(normal);
    mm::CoupledSolveOptions o;
    o.rtol = 1e-8;
    auto s = meniscus::test::make_drop3(cells, r0, p, 0.0, o);
    const double v0 = s.flow->volume();
    const double p_ref = 2 * p.sigma / std::cbrt(3 * v0 / (4 * M_PI));  // R of the discrete drop's volume
    auto interior = [&](const double* x) { return std::hypot(x[0] - 0.5, x[1] - 0.5, x[2] - 0.5) < r0 - 2.0 / cells; };
    mm::Step3Report r;
    double p_in = 0, p_first = 0, p_sum = 0, p_lo = 1e300, p_hi = -1e300;
    for (int n = 0; n < steps; ++n) {
      r = s.flow->step(dt);
      p_in = mm::mean_fluid_pressure_3d(*s.grid, dt, interior);
      if (n == 0) p_first = p_in;
      p_sum += p_in;
      p_lo = std::min(p_lo, p_in);
      p_hi = std::max(p_hi, p_in);
    }
    const double p_mean = p_sum / steps;
    const auto speeds = meniscus::test::max_speeds3(s);
    print_rank0("3D Laplace drop (%s motion; 16^3, R = 0.3, %ld vertices, %d steps of %.0e s): 2 sigma / R %.4f; p_in "
                "first step %.4f (%+.2f %%), last %.4f (%+.2f %%), mean %.4f (%+.2f %%), range %.4f .. %.4f; volume "
                "drift %.2e; spurious |u| %.3f, |v| %.3f cm/s; MINRES %d its; %ld of %ld velocity unknowns in no W row\n",
                normal ? "normal" : "paper's", s.flow->membrane().vertices(), steps, dt, p_ref, p_first,
                100 * (p_first / p_ref - 1), p_in, 100 * (p_in / p_ref - 1), p_mean, 100 * (p_mean / p_ref - 1), p_lo,
                p_hi, std::abs(r.volume / v0 - 1), speeds[0], speeds[1], r.second.iterations,
                r.second.uncoupled_components, 3 * s.flow->membrane().vertices());
    EXPECT_NEAR(p_first / p_ref, 1.0, 0.05);
    EXPECT_NEAR(p_mean / p_ref, 1.0, 0.05);
    if (normal) {
      EXPECT_NEAR(p_in / p_ref, 1.0, 0.05);
      EXPECT_LT(speeds[0], 0.2);  // the paper's motion: 0.38 cm/s and growing
    }
    EXPECT_LT(std::abs(r.volume / v0 - 1), 5e-3);
  }
}

// Rayleigh's l = 2 oscillation of a 3D drop (Lamb 1932 §275): omega^2 = l (l-1) (l+2) sigma / (rho
// R^3), T0 = 2 pi / omega = 0.385 s for R = 0.3, sigma = 0.9, rho = 1. The membrane's mass rho h per
// area adds inertia. Per unit area the liquid of mode l moves like a mass rho R / l, so with
// normal-only vertex motion (membrane.normal_motion, used here: with the paper's motion the spurious
// currents swamp the 0.5 cm/s of the mode) T = T0 sqrt(1 + l h / R); a membrane also following the
// liquid's tangential surface velocity would add (l + 1) / l of that again, T0 sqrt(1 + (2l + 1) h / R)
// (derived here as in the 2D test; the paper gives no formula). The period is twice the time between
// the first two zero crossings of the l = 2 amplitude.
TEST(Membrane3DValidation, LongRayleighPeriodIsTheMembraneCorrectedLambPeriod) {
  const int cells = 16, l = 2;
  const double r0 = 0.3, a0 = 0.1, dt = 4e-3;
  const mm::Flow3Parameters p = drop_parameters(true);
  mm::CoupledSolveOptions o;
  o.rtol = 1e-8;
  auto s = meniscus::test::make_drop3(cells, r0, p, a0, o);
  const double h = 0.5 / cells;
  const double t0 = 2 * M_PI / std::sqrt(l * (l - 1) * (l + 2) * p.sigma / (p.rho * r0 * r0 * r0));
  const double t_normal = t0 * std::sqrt(1 + l * h / r0), t_tangential = t0 * std::sqrt(1 + (2 * l + 1) * h / r0);
  double a_prev = mm::l2_amplitude(s.flow->membrane(), {0.5, 0.5, 0.5});
  std::vector<double> crossings;
  double t = 0;
  while (crossings.size() < 2 && t < 2 * t_tangential) {
    s.flow->step(dt);
    t += dt;
    const double a = mm::l2_amplitude(s.flow->membrane(), {0.5, 0.5, 0.5});
    if ((a < 0) != (a_prev < 0)) crossings.push_back(t - dt * a / (a - a_prev));  // linear interpolation
    a_prev = a;
  }
  ASSERT_EQ(crossings.size(), 2u) << "the l = 2 amplitude did not cross zero twice by t = " << t;
  const double period = 2 * (crossings[1] - crossings[0]);
  print_rank0("3D Rayleigh l = 2 (16^3, R = 0.3, a = 0.1, h = 0.5 dx, normal motion): period %.4f s; Lamb T0 %.4f, "
              "membrane-corrected %.4f (normal) .. %.4f (tangential too); crossings at %.4f, %.4f s\n",
              period, t0, t_normal, t_tangential, crossings[0], crossings[1]);
  EXPECT_NEAR(period / t_normal, 1.0, 0.10);
}

// Semi-Lagrangian advection (Eq. 32, the u.grad u term): a drop translating at a uniform velocity U
// in zero gravity is an exact solution of the inviscid equations, so it keeps U and its shape.
// Faces that turn liquid as the drop moves must get U from the extension into the air and the
// back-trace; without the extension (0 layers, the negative control) they enter the solve at rest
// and the drop slows down.
namespace {
struct TranslationCase {
  int cells, steps;
  double r0;
  std::array<double, 3> u;
  double sigma;
  int layers;
};
struct TranslationResult {
  double dv, du, drift, sphericity, speed, travel;
};
TranslationResult translate_drop(const TranslationCase& c) {
  const double r0 = c.r0, dt = 4e-3;
  mm::Flow3Parameters p = drop_parameters(false);
  p.sigma = c.sigma;
  p.extrapolation_layers = c.layers;
  mm::CoupledSolveOptions o;
  o.rtol = 1e-10;
  auto s = meniscus::test::make_drop3(c.cells, r0, p, 0.0, o);
  meniscus::test::set_uniform_velocity(*s.grid, s.flow->membrane(), c.u.data());
  const double v0 = s.flow->volume();
  const auto start = meniscus::test::drop_motion(*s.grid, s.flow->membrane(), c.u.data(), r0);
  mm::Step3Report rep;
  for (int n = 0; n < c.steps; ++n) rep = s.flow->step(dt);
  const auto end = meniscus::test::drop_motion(*s.grid, s.flow->membrane(), c.u.data(), r0);
  TranslationResult m{0, 0, 0, end.sphericity, std::hypot(c.u[0], c.u[1], c.u[2]), 0};
  m.travel = m.speed * c.steps * dt;
  for (int d = 0; d < 3; ++d) {
    m.drift = std::max(m.drift, std::abs(end.centre[d] - start.centre[d] - c.u[d] * c.steps * dt));
    m.dv = std::max(m.dv, std::abs(end.velocity[d] - c.u[d]));
    m.du = std::max(m.du, std::abs(end.liquid[d] - c.u[d]));
  }
  print_rank0("3D drop (%d^3, R = %.2f, sigma %.1f, U = (%g, %g, %g) cm/s, %d steps of %.0e s, %d extension layers): "
              "mean membrane velocity off by %.2e cm/s, mean liquid face velocity by %.2e cm/s, largest face deviation "
              "%.2e cm/s; centre off U t by %.2e cm (travel %.3f cm); sphericity %.2e; volume drift %.2e\n",
              c.cells, c.r0, c.sigma, c.u[0], c.u[1], c.u[2], c.steps, dt, c.layers, m.dv, m.du, end.face_spread, m.drift,
              m.travel, m.sphericity, std::abs(rep.volume / v0 - 1));
  return m;
}
}  // namespace

// Without surface tension the step keeps U to round-off at 16^3 (R = 0.25, 20 steps: 5e-11 cm/s,
// shape 4e-10); the negative control lost 0.42 of 1.87 cm/s there. CI size: 12^3, R = 0.2 (2.4
// cells), 10 steps: measured 5.2e-11 cm/s (membrane mean), 4.4e-11 (liquid mean), shape 2.3e-10,
// centre 3e-13 cm; 1e-8 relative is asserted. (With wall faces beside air seeding the extension
// with zero velocity this case gave 2.5e-7 cm/s and shape 1.8e-6: the test below.) The control
// loses 0.19 of 1.87 cm/s.
TEST(Membrane3DValidation, TranslatingDropKeepsItsVelocityAndShape) {
  const std::array<double, 3> u = {1.5, 1.0, -0.5};
  const TranslationResult exact = translate_drop({12, 10, 0.2, u, 0.0, 4});
  EXPECT_LT(exact.dv, 1e-8 * exact.speed);
  EXPECT_LT(exact.du, 1e-8 * exact.speed);
  EXPECT_LT(exact.drift, 1e-8 * exact.travel);
  EXPECT_LT(exact.sphericity, 1e-8);
  const TranslationResult control = translate_drop({12, 10, 0.2, u, 0.0, 0});
  EXPECT_GT(control.dv, 0.05 * control.speed) << "the negative control kept its velocity";
}

// A drop translating toward three walls (12^3, R = 0.2, U = (6, 4, -3) cm/s, 10 steps: it ends 0.7
// cells from the x wall, 1.7 and 2.2 from the y and z walls). The liquid never touches them, so it
// keeps U to round-off: 1.6e-10 cm/s measured. When the extension into the air took every wall face
// as a known zero velocity, the air faces between the drop and the wall got the mean of 0 and the
// liquid's velocity, and the drop slowed by 3.5e-2 cm/s.
TEST(Membrane3DValidation, TranslatingDropApproachingAWallKeepsItsVelocity) {
  const TranslationResult r = translate_drop({12, 10, 0.2, {6.0, 4.0, -3.0}, 0.0, 4});
  EXPECT_LT(r.dv, 1e-8 * r.speed);
  EXPECT_LT(r.du, 1e-8 * r.speed);
  EXPECT_LT(r.sphericity, 1e-8);
}

// With sigma = 0.9 the paper's vertex motion has spurious currents (Laplace test above), and a
// moving staircase of cell types feeds them more than a resting one: measured (16^3, 20 steps, U =
// (1.5, 1, -0.5) cm/s) largest face deviation 0.69 against 0.16 cm/s at rest, sphericity 4.7 %
// against 2.4 %, the mean membrane velocity 1.4 % of U off it and the centre 0.4 % of the travel off
// U t. Asserted with margins (2 %, 1 %, 3x the resting drop's sphericity).
TEST(Membrane3DValidation, LongTranslatingDropWithTensionStaysCloseToTheRestingDrop) {
  const std::array<double, 3> u = {1.5, 1.0, -0.5}, rest = {0, 0, 0};
  const TranslationResult moving = translate_drop({16, 20, 0.25, u, 0.9, 4});
  const TranslationResult resting = translate_drop({16, 20, 0.25, rest, 0.9, 4});
  EXPECT_LT(moving.dv, 0.02 * moving.speed);
  EXPECT_LT(moving.du, 0.02 * moving.speed);
  EXPECT_LT(moving.drift, 0.01 * moving.travel);
  EXPECT_LT(moving.sphericity, 3 * resting.sphericity);
  EXPECT_LT(resting.dv, 1e-8);  // the resting drop stays symmetric
}

namespace {
struct MeshQuality {
  double min_angle_deg, shortest, longest;  // edges over the remesher's target L0
};
MeshQuality mesh_quality(const mm::TriangleMembrane& m, double L0) {
  const auto mesh = mm::to_triangle_mesh(m);
  MeshQuality q{mm::min_triangle_angle_deg(mesh), 1e300, 0};
  for (const auto& t : mesh.triangles)
    for (int c = 0; c < 3; ++c) {
      const auto& a = mesh.vertices[t[c]];
      const auto& b = mesh.vertices[t[(c + 1) % 3]];
      const double len = std::hypot(b[0] - a[0], b[1] - a[1], b[2] - a[2]) / L0;
      q.shortest = std::min(q.shortest, len);
      q.longest = std::max(q.longest, len);
    }
  return q;
}
}  // namespace

namespace {
// A Rayleigh drop (R = 0.3, l = 2 amplitude a) stepped with remeshing in the 3D step: the worst mesh
// the steps leave, the operations, the volume drift and the remesher's share of the step time.
struct RemeshRun {
  MeshQuality worst{180, 1e300, 0}, start{};
  long splits = 0, collapses = 0, flips = 0, smoothed = 0, vertices = 0;
  double L0 = 0, drift = 0, a_min = 1e300, remesh_share = 0, speeds[2] = {0, 0};
};
RemeshRun remeshed_rayleigh_drop(int cells, bool normal, bool smoothing, double a, double edge, int steps) {
  const double r0 = 0.3, dt = 4e-3;
  mm::Flow3Parameters p = drop_parameters(normal);
  p.remesh = true;
  p.remesh_edge = edge;
  p.remesh_smoothing = smoothing;
  mm::CoupledSolveOptions o;
  o.rtol = 1e-8;
  auto s = meniscus::test::make_drop3(cells, r0, p, a, o);
  const double v0 = s.flow->volume();
  RemeshRun out;
  out.L0 = s.flow->remesh_edge();
  out.start = mesh_quality(s.flow->membrane(), out.L0);
  for (int n = 0; n < steps; ++n) {
    const mm::Step3Report r = s.flow->step(dt);
    out.splits += r.splits;
    out.collapses += r.collapses;
    out.flips += r.flips;
    out.smoothed += r.smoothed;
    const MeshQuality q = mesh_quality(s.flow->membrane(), out.L0);
    out.worst.min_angle_deg = std::min(out.worst.min_angle_deg, q.min_angle_deg);
    out.worst.shortest = std::min(out.worst.shortest, q.shortest);
    out.worst.longest = std::max(out.worst.longest, q.longest);
    out.drift = std::max(out.drift, std::abs(r.volume / v0 - 1));
    out.a_min = std::min(out.a_min, mm::l2_amplitude(s.flow->membrane(), {0.5, 0.5, 0.5}));
  }
  const auto speeds = meniscus::test::max_speeds3(s);
  out.speeds[0] = speeds[0];
  out.speeds[1] = speeds[1];
  out.vertices = s.flow->membrane().vertices();
  const auto& tm = s.flow->timers();
  double total = 0;
  for (const char* stage : {"solve1", "advection", "remesh", "classify", "solve2"}) total += tm.total(stage);
  out.remesh_share = total > 0 ? tm.total("remesh") / total : 0.0;
  print_rank0("3D remeshed Rayleigh drop (%s motion, smoothing %s; %d^3, R = 0.3, a = %.1f, %d steps of 4 ms): L0 "
              "%.4f; %ld splits, %ld collapses, %ld flips, %ld smoothing moves; smallest angle %.1f deg (start %.1f), "
              "edges %.3f .. %.3f L0 (start %.3f .. %.3f); largest volume drift %.2e; l = 2 amplitude down to %.3f; "
              "%ld vertices; |u| %.3f, |v| %.3f cm/s; remesh %.1f %% of the step time\n",
              normal ? "normal" : "paper's", smoothing ? "on" : "off", cells, a, steps, out.L0, out.splits,
              out.collapses, out.flips, out.smoothed, out.worst.min_angle_deg, out.start.min_angle_deg,
              out.worst.shortest, out.worst.longest, out.start.shortest, out.start.longest, out.drift, out.a_min,
              out.vertices, out.speeds[0], out.speeds[1], 100 * out.remesh_share);
  return out;
}
}  // namespace

// Remeshing in the 3D step (split / collapse / flip / tangential smoothing, Ruan 2021 §5.3 Stage 6)
// over the first half period of the l = 2 Rayleigh oscillation (16^3, R = 0.3, 50 steps of 4 ms).
//  * Normal-only vertex motion with a = 0.3: the mode stretches the triangles by +-30 %, which
//    stays inside [0.5, 1.5] L0 of the initial mean edge (measured: no operation at all), so the
//    target is L0 = 0.03 cm, 0.65 of the initial mean edge: the remesher refines the drop in the
//    first steps and then follows the oscillation. Measured: 1003 splits, 12 collapses, 844 flips,
//    642 -> 1633 vertices; smallest angle 30.4 deg, edges 0.501 .. 1.500 L0 (without smoothing:
//    24.9 deg, 0.435 .. 1.5 L0).
//  * The paper's vertex motion with a = 0.1: its tangential velocities carry vertices along the
//    membrane. Measured: smallest angle 36.3 deg, edges 0.656 .. 1.359 L0, volume drift 1.2e-11,
//    remeshing 1.2 % of the step time (without smoothing: 1232 splits, 1161 collapses and 3013
//    flips left slivers of 1.9 deg and edges down to 0.146 L0).
// Asserted for both: angles >= 20 deg, edges in [0.4, 1.5] L0 (a ratio of at most 3.75), volume.
TEST(Membrane3DValidation, LongRemeshingKeepsQualityOverARayleighOscillation) {
  for (bool normal : {true, false}) {
    const RemeshRun r = remeshed_rayleigh_drop(16, normal, true, normal ? 0.3 : 0.1, normal ? 0.03 : 0.0, 50);
    EXPECT_GT(r.splits + r.collapses, 0);
    EXPECT_LT(r.drift, 5e-3);
    EXPECT_LE(r.worst.longest, 1.5 + 1e-9);
    EXPECT_GE(r.worst.min_angle_deg, 20.0);
    EXPECT_GE(r.worst.shortest, 0.4);
  }
}

// CI size of the test above with the paper's vertex motion (12^3, R = 0.3, a = 0.1, 25 steps): the
// tangential smoothing keeps the smallest angle at 36.5 deg (edges 0.599 .. 1.5 L0, remeshing 2.8 %
// of the step); the negative control without it falls to 6.1 deg (edges down to 0.147 L0).
// Asserted: >= 15 deg with smoothing, < 15 deg without.
TEST(Membrane3DValidation, RemeshingWithThePapersVertexMotionKeepsAnglesAbove15Degrees) {
  const RemeshRun smooth = remeshed_rayleigh_drop(12, false, true, 0.1, 0.0, 25);
  const RemeshRun plain = remeshed_rayleigh_drop(12, false, false, 0.1, 0.0, 25);
  EXPECT_GE(smooth.worst.min_angle_deg, 15.0);
  EXPECT_LT(plain.worst.min_angle_deg, 15.0);
}
