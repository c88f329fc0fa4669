// The resolution rule `meniscus check` applies to MPM sessile drops (run/contact_angle_resolution.hpp).
#include <gtest/gtest.h>

#include <cmath>

#include "core/log.hpp"
#include "run/contact_angle_resolution.hpp"
#include "run/resource_plan.hpp"
#include "scene.hpp"

using namespace meniscus;

// A cap of 90 deg is a half disc (2D) or a hemisphere (3D) of the same volume; a cap of 60 deg in 2D
// has Rc^2 (pi/3 - sqrt(3)/4) = A, height Rc/2 and contact radius Rc sqrt(3)/2.
TEST(ContactAngleResolution, CapGeometry) {
  const double R = 0.15, A = M_PI * R * R, V = 4.0 / 3.0 * M_PI * R * R * R;
  auto half = run::sessile_cap(A, M_PI / 2, 2);
  EXPECT_NEAR(half.height, R * std::sqrt(2.0), 1e-12);
  EXPECT_NEAR(half.contact_radius, R * std::sqrt(2.0), 1e-12);
  auto hemi = run::sessile_cap(V, M_PI / 2, 3);
  EXPECT_NEAR(hemi.height, R * std::cbrt(2.0), 1e-12);
  const double Rc = std::sqrt(A / (M_PI / 3 - std::sqrt(3.0) / 4));
  auto sixty = run::sessile_cap(A, M_PI / 3, 2);
  EXPECT_NEAR(sixty.height, 0.5 * Rc, 1e-12);
  EXPECT_NEAR(sixty.contact_radius, 0.5 * std::sqrt(3.0) * Rc, 1e-12);
}

namespace {
// `wetting`: the collider's boundary and wetting keys.
std::vector<std::string> warnings_for(double dx, const std::string& wetting, int dim = 2) {
  const std::string deck = dim == 2 ? log::format(R"(
simulation: {dimension: 2, method: mpm, end_time: 1}
domain: {lower: [0, -0.2], upper: [1.6, 0.6], cell_size: %g, walls: none}
mpm: {gravity: [0, 0], surface_tension: {enabled: true, coefficient: 0.1}}
materials: [{name: liquid, model: fluid, density: 10, bulk_modulus: 100, viscosity: 0.2}]
colliders: [{type: half-space, point: [0, 0.16], normal: [0, 1], %s}]
sources: [{type: sphere, material: liquid, center: [0.8, 0.2], radius: 0.15, particles_per_cell: 4}]
)", dx, wetting.c_str())
                                      : log::format(R"(
simulation: {dimension: 3, method: mpm, end_time: 1}
domain: {lower: [0, 0, 0], upper: [1, 1, 0.6], cell_size: %g, walls: none}
mpm: {gravity: [0, 0, 0], surface_tension: {enabled: true, coefficient: 0.1}}
materials: [{name: liquid, model: fluid, density: 10, bulk_modulus: 100, viscosity: 0.2}]
colliders: [{type: half-space, point: [0, 0, 0.16], normal: [0, 0, 1], %s}]
sources: [{type: sphere, material: liquid, center: [0.5, 0.5, 0.2], radius: 0.15, particles_per_cell: 8}]
)", dx, wetting.c_str());
  return run::plan_resources(test::deck_from_string(deck), 1).warnings;
}
}  // namespace

// R = 0.15 at 20 deg: a cap 0.0963 m high, 2.4 cells at dx = 0.04 (warned, with the cell size that
// resolves it, 0.0963 / 3) and 4.8 cells at dx = 0.02 (quiet); k_SL given directly gives the same angle.
TEST(ContactAngleResolution, CheckWarnsForThinCaps) {
  auto coarse = warnings_for(0.04, "boundary: slip-attached, contact_angle: 20");
  ASSERT_EQ(coarse.size(), 1u);
  EXPECT_NE(coarse[0].find("colliders[0]"), std::string::npos) << coarse[0];
  EXPECT_NE(coarse[0].find("2.4 cells high"), std::string::npos) << coarse[0];
  EXPECT_NE(coarse[0].find("cell_size <= 0.0321"), std::string::npos) << coarse[0];
  EXPECT_TRUE(warnings_for(0.02, "boundary: slip-attached, contact_angle: 20").empty());
  EXPECT_EQ(warnings_for(0.04, log::format("boundary: slip-attached, solid_liquid_coefficient: %.17g",
                                           -0.1 * std::cos(20 * M_PI / 180))).size(), 1u);
  // 90 and 160 deg at dx = 0.02: tall caps with 10.6 and 2.6 cells of contact radius; 160 deg at dx =
  // 0.03 has 1.7 cells.
  EXPECT_TRUE(warnings_for(0.02, "boundary: slip-attached, contact_angle: 90").empty());
  EXPECT_TRUE(warnings_for(0.02, "boundary: slip-attached, contact_angle: 160").empty());
  EXPECT_EQ(warnings_for(0.03, "boundary: slip-attached, contact_angle: 160").size(), 1u);
  // No wetting (the default 180 deg): nothing to resolve.
  EXPECT_TRUE(warnings_for(0.04, "boundary: slip").empty());
  // 3D, dx = 0.05: the 20 deg cap of a sphere R = 0.15 is 1.3 cells high, the 160 deg one has 1.0 cell
  // of contact radius.
  EXPECT_EQ(warnings_for(0.05, "boundary: slip-attached, contact_angle: 20", 3).size(), 1u);
  EXPECT_EQ(warnings_for(0.05, "boundary: slip-attached, contact_angle: 160", 3).size(), 1u);
}
