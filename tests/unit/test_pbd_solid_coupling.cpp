// Solid coupling of pbd-xing2022 on single particles (methods/pbd/solid_coupling.hpp), values worked out
// by hand for r = 0.1 and a plate z in [0, 0.04] (thinner than a particle's diameter):
//  - a particle coming down from z = 0.15 whose predicted position is at z = -0.05 (through the plate)
//    ends at z = 0.14, r above the face it came through; tested at the predicted position only it
//    ends r below the far face (z = -0.1), and one predicted at z = -0.2 is not moved at all: the
//    thin-wall failure the swept test removes;
//  - one whose predicted position lies inside the plate above its middle is pushed out of the near face
//    by both tests alike; one resting on the plate and sliding sideways is not held back;
//  - adhesion: a particle at phi = r + 0.05 (in the shell r + 2r) is pulled by 0.05 / (1 + eps);
//    one beyond the shell, or closer than r, is not.
#include <gtest/gtest.h>

#include <cmath>

#include "methods/pbd/solid_coupling.hpp"

namespace g = meniscus::geometry;
namespace ph = meniscus::physics;

namespace {
ph::Collider<3> plate() {
  ph::Collider<3> c;
  c.shape = g::box<3>({-1, -1, 0}, {1, 1, 0.04});
  return c;
}
}  // namespace

TEST(PbdSolidCoupling, SweptTestKeepsAParticleOnTheSideItCameFrom) {
  const auto c = plate();
  const double r = 0.1, a[3] = {0.2, 0, 0.15};
  for (double end : {-0.05, -0.2}) {
    double p[3] = {0.25, 0, end};
    EXPECT_TRUE(meniscus::pbd::collide_particle(c, a, p, r, true));
    EXPECT_NEAR(p[2], 0.14, 1e-12);
    EXPECT_NEAR(p[0], 0.25, 1e-12);  // the tangential motion is kept
  }
  double q[3] = {0.25, 0, -0.05};
  EXPECT_TRUE(meniscus::pbd::collide_particle(c, a, q, r, false));
  EXPECT_NEAR(q[2], -0.1, 1e-12);  // pushed out through the far face
  double far[3] = {0.25, 0, -0.2};
  EXPECT_FALSE(meniscus::pbd::collide_particle(c, a, far, r, false));  // not seen at all
}

TEST(PbdSolidCoupling, NearFaceAndSlidingParticlesMoveAsWithoutTheSweep) {
  const auto c = plate();
  const double r = 0.1, a[3] = {0, 0, 0.15};
  double p[3] = {0, 0, 0.03}, q[3] = {0, 0, 0.03};
  EXPECT_TRUE(meniscus::pbd::collide_particle(c, a, p, r, true));
  EXPECT_TRUE(meniscus::pbd::collide_particle(c, a, q, r, false));
  for (int d = 0; d < 3; ++d) EXPECT_EQ(p[d], q[d]);
  EXPECT_NEAR(p[2], 0.14, 1e-12);
  const double rest[3] = {0, 0, 0.14};
  double slide[3] = {0.05, 0, 0.139};
  EXPECT_TRUE(meniscus::pbd::collide_particle(c, rest, slide, r, true));
  EXPECT_NEAR(slide[0], 0.05, 1e-15);
  EXPECT_NEAR(slide[2], 0.14, 1e-12);
}

TEST(PbdSolidCoupling, AdhesionPullsTheShellTowardsContact) {
  const auto c = plate();
  const double r = 0.1;
  double p[3] = {0, 0, 0.04 + r + 0.05};
  meniscus::pbd::adhere_particle(c, p, r, 2 * r, 1.0);
  EXPECT_NEAR(p[2], 0.04 + r + 0.025, 1e-12);
  double below[3] = {0, 0, -r - 0.05};  // the far side adheres too, towards its own face
  meniscus::pbd::adhere_particle(c, below, r, 2 * r, 0.0);
  EXPECT_NEAR(below[2], -r, 1e-12);
  double far[3] = {0, 0, 0.04 + 3.01 * r}, near[3] = {0, 0, 0.04 + 0.9 * r};
  meniscus::pbd::adhere_particle(c, far, r, 2 * r, 0.0);
  meniscus::pbd::adhere_particle(c, near, r, 2 * r, 0.0);
  EXPECT_EQ(far[2], 0.04 + 3.01 * r);
  EXPECT_EQ(near[2], 0.04 + 0.9 * r);
}
