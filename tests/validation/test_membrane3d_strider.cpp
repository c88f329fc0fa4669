// The articulated water strider in 3D (Ruan et al. 2021 §7, Fig. 14), in the reduced form of the 2D robot
// (RigidBody3::root): a hull floating free without turning carries two legs, kinematic links that row
// along a prescribed stroke; only the hull's six velocities are unknowns of the three-way solve. CGS:
// water rho 1, sigma 72.8 dyn/cm, g 980 cm/s^2.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "membrane3d_scenes.hpp"
#include "methods/membrane/membrane_ruan_3d.hpp"
#include "scene.hpp"
#include "validation_support.hpp"

namespace mm = meniscus::membrane;
using meniscus::test::print_rank0;

namespace {

// A hull sphere R = 0.1 at `c` (not turning) and two feet r = 0.05 at y -/+ 0.25 from it, rowing on
// (-0.06 cos th, -/+0.25, 0.06 + 0.04 sin th) at f Hz, all of density rho.
std::vector<mm::RigidBody3> robot3(const std::array<double, 3>& c, double f, double rho) {
  std::vector<mm::RigidBody3> bodies(3);
  bodies[0] = meniscus::test::sphere3(c, 0.1, rho);
  bodies[0].rotates = false;
  for (int k = 1; k < 3; ++k) {
    mm::RigidBody3& foot = bodies[k];
    foot = meniscus::test::sphere3({0, 0, 0}, 0.05, rho);
    foot.root = 0;
    foot.stroke_centre[1] = k == 1 ? -0.25 : 0.25;
    foot.stroke_centre[2] = 0.06;
    foot.stroke_amplitude[0] = 0.06;
    foot.stroke_amplitude[2] = 0.04;
    foot.stroke_frequency = f;
  }
  mm::attach_links(bodies, 0.0);
  return bodies;
}

// The hull's x displacement after `t_end` of inputs/membrane-strider-3d-ci.yaml with the overrides `sets`,
// run with the method's own step; its lateral drift and the lowest hull height on the way are returned too.
struct Slide {
  double dx = 0, dy = 0, lowest = 1e300;
};
Slide strider_slide(double t_end, const std::vector<std::string>& sets) {
  auto d = meniscus::run::load_deck(meniscus::test::source_dir() + "/inputs/membrane-strider-3d-ci.yaml", sets);
  mm::MembraneRuan3 m(meniscus::MethodContext{MPI_COMM_WORLD, d.deck.root(), 3});
  const mm::RigidBody3 start = m.flow().bodies()[0];
  Slide s;
  meniscus::test::step_method_to(m, t_end, [&](double t, int steps) {
    const mm::RigidBody3& hull = m.flow().bodies()[0];
    s.lowest = std::min(s.lowest, hull.c[2]);
    if (steps % 25 == 0)
      print_rank0("strider t %.3f: hull x %+.5f, y %+.5f, z %.5f cm, v_x %+.3f cm/s", t, hull.c[0] - start.c[0],
                  hull.c[1] - start.c[1], hull.c[2], hull.v[0]);
  });
  s.dx = m.flow().bodies()[0].c[0] - start.c[0];
  s.dy = m.flow().bodies()[0].c[1] - start.c[1];
  return s;
}

}  // namespace

// The articulated body's own dynamics (nothing touches it): the 3D robot hangs in the air above a pool
// without gravity, its feet rowing. The momentum of hull and feet, M v_hull + sum_k m_k (v_hull + v_kin,k),
// must stay at its initial 0 on every axis (the stroke's fictitious force on the hull, composite_mass and
// attach_links), each foot must sit at the hull's centre plus its stroke offset, and the hull must keep its
// orientation. Checked to 1e-12 over a quarter stroke (16 steps of 1/256 s).
TEST(Membrane3DStriderValidation, RowingInTheAirKeepsTheRobotsMomentum) {
  auto bodies = robot3({0.5, 0.5, 0.75}, 4.0, 1.1);
  mm::Flow3Parameters p;
  p.sigma = 72.8;
  p.gravity[2] = 0.0;
  double total = 0;
  for (const auto& b : bodies) total += b.mass();
  for (int d = 0; d < 3; ++d)  // start with zero momentum
    bodies[0].v[d] = -(bodies[1].mass() * bodies[1].v_kin[d] + bodies[2].mass() * bodies[2].v_kin[d]) / total;
  auto s = meniscus::test::make_pool3(16, 0.3, p, {}, MPI_COMM_WORLD, bodies);
  double worst = 0, worst_offset = 0, travel = 0, turn = 0;
  const double x0 = s.flow->bodies()[0].c[0];
  for (int step = 1; step <= 16; ++step) {
    const auto r = s.flow->step(1.0 / 256);
    EXPECT_EQ(r.contact_vertices, 0);
    const auto& b = s.flow->bodies();
    for (int d = 0; d < 3; ++d) {
      double momentum = 0;
      for (int k = 0; k < 3; ++k) momentum += b[k].mass() * (k == 0 ? b[0].v[d] : b[0].v[d] + b[k].v_kin[d]);
      worst = std::max(worst, std::abs(momentum));
      turn = std::max(turn, std::abs(b[0].omega[d]));
    }
    const double th = 2 * M_PI * 4.0 * step / 256.0;
    for (int k = 1; k < 3; ++k) {
      const double off[3] = {-0.06 * std::cos(th), b[k].stroke_centre[1], 0.06 + 0.04 * std::sin(th)};
      for (int d = 0; d < 3; ++d) worst_offset = std::max(worst_offset, std::abs(b[k].c[d] - b[0].c[d] - off[d]));
    }
    travel = b[0].c[0] - x0;
  }
  print_rank0("3D robot in the air: |momentum| <= %.2e g cm/s, foot offsets off by <= %.2e cm, |omega| <= %.1e, "
              "hull moved %+.5f cm",
              worst, worst_offset, turn, travel);
  EXPECT_LT(worst, 1e-12);
  EXPECT_LT(worst_offset, 1e-12);
  EXPECT_EQ(turn, 0.0);
  EXPECT_GT(std::abs(travel), 1e-4);  // the hull does recoil
}

// The strider of inputs/membrane-strider-3d-ci.yaml rows one stroke (0.25 s at 4 Hz): its feet sweep
// backward while low, pressing the surface, and return while high, so the hull ends ahead (+x). The
// mirrored stroke (a_x < 0: sweeping forward while low) is the control: it must end behind, so the
// motion comes from the stroke's direction, not from a drift of the scheme. Measured: +0.0424 and
// -0.0720 cm (the two are not mirror images: the sheet's triangulation and the remeshing are not
// symmetric in x, and the net advance is a small difference of the hull's swings within the stroke, about
// 0.1 cm each way); after two strokes +0.1077 and -0.1899 cm. About 2 x 60 s on two threads.
TEST(Membrane3DStriderValidation, StriderRowsForwardAndTheMirroredStrokeBackward) {
  const Slide ahead = strider_slide(0.25, {});
  const Slide behind = strider_slide(0.25, {"membrane.bodies[1].stroke_amplitude=[-0.3, 0, 0.15]",
                                            "membrane.bodies[2].stroke_amplitude=[-0.3, 0, 0.15]"});
  print_rank0("strider, one stroke: hull moved %+.5f cm (lateral %+.5f), mirrored stroke %+.5f cm (lateral %+.5f); "
              "lowest hull centre %.4f / %.4f cm",
              ahead.dx, ahead.dy, behind.dx, behind.dy, ahead.lowest, behind.lowest);
  EXPECT_GT(ahead.dx, 0.02);
  EXPECT_LT(behind.dx, -0.02);
  EXPECT_LT(std::abs(ahead.dy), 0.02);
  EXPECT_GT(ahead.lowest, 0.9);  // afloat: the hull's centre stays near the level (1.0 cm)
}

// Two strokes of the same strider under four settings: as shipped, sigma = 25 dyn/cm, normal motion of the
// membrane vertices, and 1.5-ms steps. Each ends ahead. Measured (cm after two strokes): +0.1077,
// +0.1820, +0.1152, +0.0985 (docs/theory-membrane.md, "The strider"). About 8 minutes on two threads.
TEST(Membrane3DStriderValidation, LongStriderRowsForwardAcrossSettings) {
  const std::vector<std::vector<std::string>> settings = {
      {}, {"membrane.surface_tension=25"}, {"membrane.normal_motion=true"}, {"membrane.dt_max=1.5e-3"}};
  for (const auto& sets : settings) {
    const Slide s = strider_slide(0.5, sets);
    print_rank0("strider, two strokes, %s: hull moved %+.5f cm (lateral %+.5f)", sets.empty() ? "as shipped" : sets[0].c_str(),
                s.dx, s.dy);
    EXPECT_GT(s.dx, 0.05) << (sets.empty() ? "as shipped" : sets[0]);
    EXPECT_GT(s.lowest, 0.9);
  }
}
