// One solve against two solves per step (Ruan et al. 2021 §7.1 and Fig. 8c, 2D, CGS units): a
// cylinder resting in the surface is pulled out of the liquid kinematically at 2 cm/s. Its contact
// vertices move with it (§5.3, step 7: their velocities are the body's). The paper's negative control,
// one solve per step (advection with the previous step's velocities), keeps them on the body: the
// membrane is carried up with it, the sticking artefact of Fig. 8c. That is asserted here.
// The paper's two-solve scheme, which it reports lets the membrane go, is run and reported but NOT
// asserted: in this implementation it sticks as well (measured: 43 contact vertices when the body's
// bottom passes the level + 2 cells, against 41 with one solve; membrane carried to 0.30 cm above
// the level in both). The vertices between the body and the liquid have no fluid-air dual cell, so
// the first solve leaves them at the body's velocity, and on the lower half of a rising disc the
// surface moves outward through the vertices that lag, which the penetration rule projects back
// onto it (docs/theory-membrane.md, "Pulling a body out of the liquid"). Before 2026-11-29 the
// contact vertices of a fixed body were given zero velocity in the three-way solve, which let both
// schemes go for the wrong reason. With a receding contact angle (our addition) the line lets go under
// either scheme (RecedingContactLineLetsThePulledBodyGo, below). Set MENISCUS_TRACE=1 to print the
// contact count every 10 steps.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "membrane_scenes.hpp"
#include "validation_support.hpp"

namespace mm = meniscus::membrane;
using meniscus::test::print_rank0;

namespace {

constexpr double kDx = 0.025, kLevel = 0.4, kLift = 2.0;

struct Detach {
  long contacts_when_clear;  // contact vertices in the step where the lowest body point passes kLevel + 2 dx
  double highest_membrane;   // highest membrane vertex at the end, cm
  double end_bottom;         // lowest point of the body at the end
};

// R = 0.1, rho_s = 3, centre 0.05 cm below the level (the liquid wraps its lower part), lifted
// at once at kLift until its bottom is 6 cells above the level.
Detach pull_out(bool two_solve, double receding_deg = 0) {
  mm::Disc d;
  d.c[0] = 0.5;
  d.c[1] = kLevel - 0.05;
  d.radius = 0.1;
  d.density = 3.0;
  d.rotates = false;
  d.fixed = true;  // kinematic: moves with its velocity whatever the forces
  d.v[1] = kLift;
  auto p = meniscus::test::pool_parameters(0.9, kDx);
  p.two_solve = two_solve;
  p.receding_angle = receding_deg * M_PI / 180;
  auto s = meniscus::test::make_pool_with_bodies(1.0, 0.6, kDx, kLevel, {d}, p, meniscus::test::pool_solve_options());
  Detach out{-1, 0, 0};
  const double dt = 1e-3;
  for (int n = 0; n < 1000; ++n) {
    const auto rep = s.flow->step(dt);
    const auto& b = s.flow->bodies()[0];
    const double bottom = b.c[1] - b.radius;
    if (std::getenv("MENISCUS_TRACE") && n % 10 == 0) {
      auto xm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.flow->membrane().x);
      double top = 0;
      for (long i = 0; i < s.flow->membrane().vertices(); ++i) top = std::max(top, xm(i, 1));
      print_rank0("  step %d bottom %.4f contacts %ld predicted %ld top %.4f", n, bottom, rep.contact_vertices, rep.predicted_contacts, top);
    }
    if (out.contacts_when_clear < 0 && bottom > kLevel + 2 * kDx) out.contacts_when_clear = rep.contact_vertices;
    if (bottom > kLevel + 6 * kDx) break;
  }
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.flow->membrane().x);
  for (long i = 0; i < s.flow->membrane().vertices(); ++i) out.highest_membrane = std::max(out.highest_membrane, x(i, 1));
  out.end_bottom = s.flow->bodies()[0].c[1] - s.flow->bodies()[0].radius;
  print_rank0("pull-out with %s, receding angle %g deg: %ld contact vertices when the body's bottom passes level + 2 dx; at the end (bottom "
              "%.4f cm) the highest membrane vertex is %.4f cm (level %.3f, level + 3 dx %.4f)",
              two_solve ? "two solves" : "one solve (control)", receding_deg, out.contacts_when_clear, out.end_bottom,
              out.highest_membrane, kLevel, kLevel + 3 * kDx);
  return out;
}

}  // namespace

TEST(MembraneDetachValidation, OneSolveControlCarriesTheMembraneUpWithAPulledBody) {
  const auto one = pull_out(false);
  EXPECT_GT(one.end_bottom, kLevel + 6 * kDx - 0.01);  // the pull ran to its end
  EXPECT_GT(one.contacts_when_clear, 10);                // still held by the body clear of the level
  EXPECT_GT(one.highest_membrane, kLevel + 6 * kDx);     // the membrane carried above the level
  const auto two = pull_out(true);                       // reported only (see the head of this file)
  EXPECT_GT(two.end_bottom, kLevel + 6 * kDx - 0.01);
}

// The same pull with a receding contact angle (membrane.receding_angle, our addition; the paper's lines
// stay pinned): a line's end vertex whose angle through the liquid falls below it lets go, one edge per
// step. The digest's criteria for Fig. 8c's release: no contact vertex left when the body's bottom passes
// the level + 2 cells, and no membrane above the level + 3 cells at the end. Measured (two solves; contact
// vertices then, highest membrane at the end, cm): 30 deg 19, 0.5924; 60 deg 15, 0.5512; 90 deg 7,
// 0.5507 (a liquid tether hangs from the body's bottom); 120 deg 3, 0.4463; 150 deg 0, 0.4009; 170 deg 0,
// 0.4006. The release comes from the rule, not from the second solve: the one-solve control lets go
// alike (150 deg: 0 contact vertices, membrane to 0.4030 cm), so the paper's contrast between the two
// schemes is still not reproduced (docs/theory-membrane.md, "Pulling a body out of the liquid").
// MENISCUS_RECEDING sets another angle (degrees).
TEST(MembraneDetachValidation, RecedingContactLineLetsThePulledBodyGo) {
  const double angle = std::atof(meniscus::test::knob("MENISCUS_RECEDING", "150").c_str());
  const auto two = pull_out(true, angle);
  EXPECT_GT(two.end_bottom, kLevel + 6 * kDx - 0.01);
  EXPECT_EQ(two.contacts_when_clear, 0);
  EXPECT_LT(two.highest_membrane, kLevel + 3 * kDx);
  const auto one = pull_out(false, angle);  // reported only
  EXPECT_GT(one.end_bottom, kLevel + 6 * kDx - 0.01);
}
