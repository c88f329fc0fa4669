// 3D rigid bodies in the three-way coupling of Ruan et al. 2021 (§4.3, Eqs. 26-29), against
// Archimedes with sigma = 0 (the digest's T-ARC; the paper's sphere of density 0.4 floats in its
// Fig. 3): a sphere of density 0.5 settles with half of its volume below the far-field level.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "membrane3d_scenes.hpp"
#include "validation_support.hpp"

namespace mm = meniscus::membrane;
using meniscus::test::far_level3;
using meniscus::test::print_rank0;

namespace {
// Fraction of the sphere's volume below the plane z = level (a spherical cap of height h:
// pi h^2 (3R - h) / 3).
double submerged_fraction3(const mm::RigidBody3& b, double level) {
  const double r = b.radius, h = std::clamp(level - (b.c[2] - r), 0.0, 2 * r);
  return M_PI * h * h * (3 * r - h) / 3 / (4.0 / 3.0 * M_PI * r * r * r);
}

struct FloatResult {
  double fraction, speed, cx, cy, volume_change;
};

// T-ARC in 3D: a sphere R = 0.25 of density 0.5 in a pool of depth 0.5 in the unit box, released
// 0.04 cm above its equilibrium depth, sigma = 0, settle damping `zeta` (which does not move the
// equilibrium), `steps` steps of dt.
FloatResult float_sphere(int cells, int steps, double dt, double zeta) {
  auto s = meniscus::test::settle_in_pool3(cells, 0.5, meniscus::test::sphere3({0.5, 0.5, 0.54}, 0.25, 0.5), steps, dt,
                                           zeta, [](const char* f, auto... a) { print_rank0(f, a...); });
  const double v0 = s.flow->target_volume();
  const auto& b = s.flow->bodies()[0];
  const double level = far_level3(*s.flow, 0.35), frac = submerged_fraction3(b, level);
  const FloatResult out{frac, std::hypot(b.v[0], b.v[1], b.v[2]), b.c[0], b.c[1], s.flow->volume() / v0 - 1};
  print_rank0("archimedes 3D (%d^3 cells): rho_s 0.5, centre z %.4f, far level %.4f, submerged fraction %.4f (target "
              "0.5, error %.2f %%), |v| %.2e cm/s, |omega| %.2e, volume change %.2e",
              cells, b.c[2], level, frac, 100 * std::abs(frac / 0.5 - 1), out.speed,
              std::hypot(b.omega[0], b.omega[1], b.omega[2]), out.volume_change);
  return out;
}

void expect_floats_half_submerged(const FloatResult& r, double tolerance) {
  EXPECT_NEAR(r.fraction, 0.5, tolerance);
  EXPECT_LT(r.speed, 0.05);  // settled
  EXPECT_NEAR(r.cx, 0.5, 0.01);
  EXPECT_NEAR(r.cy, 0.5, 0.01);
  EXPECT_LT(std::abs(r.volume_change), 5e-3);
}
}  // namespace

// CI grid: 12^3 cells (the sphere spans 3 cells of radius), dt 4e-3, 75 steps (0.3 s, settle damping
// 20 /s): submerged volume fraction 0.5 within 0.025 (5 %, the 2D test's tolerance).
TEST(Membrane3DBodiesValidation, ArchimedesSphereFloatsWithHalfItsVolumeSubmerged) {
  expect_floats_half_submerged(float_sphere(12, 75, 4e-3, 20.0), 0.025);
}

// 16^3 cells (4 cells of radius), dt 2e-3, 150 steps, damping 25 /s: measured 0.4942 (1.2 % low);
// within 0.01 (2 %, the digest's T-ARC tolerance 0.50 +- 0.02 halved).
TEST(Membrane3DBodiesValidation, LongArchimedesSphereAtFourCellsOfRadius) {
  expect_floats_half_submerged(float_sphere(16, 150, 2e-3, 25.0), 0.01);
}
