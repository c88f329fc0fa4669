// Two-solve anti-sticking (Ruan et al. 2021 §5.1 and Fig. 8c, 2D, CGS units): a cylinder resting
// in the surface is pulled out of the liquid kinematically at 2 cm/s. With the paper's two solves
// per step the membrane is advected with the velocities of a first solve in which the contact
// vertices are not slaved to the body, so the liquid lets go of a body that leaves it: no contact
// vertex is left when the body's bottom is 2 cells above the level, and no membrane is carried
// higher than 3 cells above it.
// The paper's negative control, one solve per step (advection with the previous step's velocities,
// in which the contact vertices moved with the body), is run and reported but NOT asserted: in this
// implementation it lets go as well (measured: the last contact vertex leaves when the bottom is
// still 3 cells below the level, and the membrane stays within 0.002 cm of it), so the sticking
// artefact of Fig. 8c is not reproduced here. Set MENISCUS_TRACE=1 to print the contact count
// every 10 steps.
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
Detach pull_out(bool two_solve) {
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
  print_rank0("pull-out with %s: %ld contact vertices when the body's bottom passes level + 2 dx; at the end (bottom "
              "%.4f cm) the highest membrane vertex is %.4f cm (level %.3f, level + 3 dx %.4f)",
              two_solve ? "two solves" : "one solve (control)", out.contacts_when_clear, out.end_bottom,
              out.highest_membrane, kLevel, kLevel + 3 * kDx);
  return out;
}

}  // namespace

TEST(MembraneDetachValidation, TwoSolvesLetABodyPulledOutOfTheLiquidGo) {
  const auto two = pull_out(true);
  EXPECT_EQ(two.contacts_when_clear, 0);
  EXPECT_LT(two.highest_membrane, kLevel + 3 * kDx);
  EXPECT_GT(two.end_bottom, kLevel + 6 * kDx - 0.01);  // the pull ran to its end
  const auto one = pull_out(false);  // reported only (see the head of this file)
  EXPECT_GT(one.end_bottom, kLevel + 6 * kDx - 0.01);
}
