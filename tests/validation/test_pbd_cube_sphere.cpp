// Quasi-static cube -> sphere of Xing et al. 2022 (sec. 6.1, "parameter study of iteration number",
// Fig. 9): a cubic droplet in zero gravity, one time step of many constraint iterations, becomes a
// sphere. The paper's constraint-force-mixing values (area 1, density 600, distance 40), particle
// radius r = 0.025 (the paper does not report it; at r = 0.1 the same CFMs let the area constraints
// crush the drop to 1.4 rho0 -- docs/theory-pbd.md, "Cube to sphere"), density constraints that only
// push apart and distance constraints between all neighbours.
// Checked against the sphere of the cube's volume V0 = N (2r)^3 (radius R_eq):
//  - Wadell sphericity pi^(1/3) (6 V)^(2/3) / A of the fan surface through the surface particles
//    (1 for a sphere, 0.806 for the cube) >= 0.95;
//  - fan area against the sphere through the surface particles' centres, 4 pi (R_eq - r)^2;
//  - volume: the gyration volume (the ball with the body's radius of gyration; it is N (2r)^3 within
//    1.1 % for a lattice ball of 912 particles) and the mean density of the particles with no surface
//    particle within h (bulk compression).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "methods/pbd/pbd_xing.hpp"
#include "pbd_shape_metrics.hpp"
#include "scene.hpp"
#include "validation_support.hpp"

using namespace meniscus;

namespace {

struct CubeResult {
  test::PbdShape shape;
  double sphere_area = 0, cube_volume = 0;
};

// A cube of n^3 particles (spacing 2r = 0.05) relaxed by `iterations` constraint iterations of one step.
CubeResult round_cube(int n, int iterations) {
  const double r = 0.025, half = n * r;
  const double box = half + 12 * r;
  char deck[1024];
  std::snprintf(deck, sizeof deck, R"(
simulation: {dimension: 3, method: pbd-xing2022, end_time: 1}
domain: {lower: [%g, %g, %g], upper: [%g, %g, %g], cell_size: 0.05, walls: none}
pbd: {particle_radius: %g, gravity: [0, 0, 0], iterations: %d, reset_iterations: 10, xsph: 0,
      area_cfm: 1, density_cfm: 600, distance_cfm: 40, density_constraint: unilateral, distance_pairs: all}
materials: [{name: liquid}]
sources: [{type: box, material: liquid, lower: [%g, %g, %g], upper: [%g, %g, %g], particles_per_cell: 1}]
)",
                -box, -box, -box, box, box, box, r, iterations, -half, -half, -half, half, half, half);
  auto d = test::deck_from_string(deck);
  pbd::PbdXing m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 3});
  m.step(m.stable_dt());
  CubeResult c;
  c.shape = test::pbd_shape(m);
  c.cube_volume = c.shape.particles * std::pow(2 * r, 3);
  const double req = std::cbrt(3 * c.cube_volume / (4 * M_PI));
  c.sphere_area = 4 * M_PI * (req - r) * (req - r);
  test::print_rank0("PBD cube %d^3 -> sphere, %d iterations: sphericity %.4f (cube 0.806), radius spread %.3f, "
                    "area %.4f = %.4f x sphere, gyration volume %.4f x N(2r)^3, bulk density %.4f rho0, "
                    "%g surface particles",
                    n, iterations, c.shape.sphericity, c.shape.radius_spread, c.shape.area,
                    c.shape.area / c.sphere_area, c.shape.gyration_volume / c.cube_volume, c.shape.interior_density,
                    c.shape.surface);
  return c;
}

}  // namespace

TEST(PbdCubeToSphere, TenCubedRoundsAndKeepsItsBulkDensity) {
  // 1000 particles, 1000 iterations (about 25 s on two threads). Measured: sphericity 0.998, area
  // 0.925 x the sphere's, gyration volume 0.966, bulk density 1.009. The surface layer settles into
  // the hollows of the layer below (nothing resists that: the distance constraints are met there, and
  // a surface particle's density is below rho0); on a drop only 5 spacings in radius this shell loss
  // is 3-4 % of the volume and 7 % of the area. Larger drops lose less (docs/theory-pbd.md).
  const auto c = round_cube(10, 1000);
  EXPECT_GE(c.shape.sphericity, 0.95);
  EXPECT_LT(c.shape.radius_spread, 0.15);  // cube: 0.56 (corners at sqrt(3) x the face centres' radius)
  EXPECT_NEAR(c.shape.area / c.sphere_area, 1.0, 0.10);
  EXPECT_NEAR(c.shape.gyration_volume / c.cube_volume, 1.0, 0.06);
  EXPECT_NEAR(c.shape.interior_density, 1.0, 0.03);
}

TEST(PbdCubeToSphere, LongTwentyCubedMeetsAreaAndVolume) {
  // The paper's experiment size (8000 particles), 2000 iterations (7 min on two loaded threads; 346 s on
  // 2026-11-27 with the filament pass, same numbers).
  // Measured: sphericity 0.975 (still rounding: radius spread 0.21), area 0.989 x the sphere's,
  // gyration volume 1.009, bulk density 1.003.
  const auto c = round_cube(20, 2000);
  EXPECT_GE(c.shape.sphericity, 0.95);
  EXPECT_NEAR(c.shape.area / c.sphere_area, 1.0, 0.05);
  EXPECT_NEAR(c.shape.gyration_volume / c.cube_volume, 1.0, 0.03);
  EXPECT_NEAR(c.shape.interior_density, 1.0, 0.03);
}
