// Archimedes in 3D for the multiphase MPM (Yan et al. 2018, case 2, the ball in water at density
// ratios 1:2 and 1:3): an elastic ball (R = 0.16 m, G = 1e5 Pa) in a 0.64 x 0.28 x 0.48 m pool, dx =
// 0.04 m (4 cells per ball radius), 2 particles per cell and axis, SPH density, per-group forces. The
// ball starts at rest centred on the undisturbed surface; the water seeded inside it is displaced.
// Measured (tests/support/floating_body.hpp), averaged over t in [1.5, 2.5] s: the ball's volume
// fraction below the far-field level of the water's mass (water more than 1.5 R from the ball's centre,
// horizontally), against 1/2 and 1/3 within 0.08, and the rms of the ball's vertical centre-of-mass
// velocity there (at rest: < 0.05 m/s).
//
// Why this resolution and this measure (issue 15, session 13). The earlier version of this test (R =
// 0.08 m, 2 cells per radius, level = the top far-field water particle + half a spacing, fraction =
// ball particle centres below it) read 1:2 at 0.678 and 1:3 at 0.314. Both numbers were artefacts of
// the measure: the top particle rides 1.5-3 cm above the level of the water's mass (one spacing is
// 2 cm), and a count of centres moves in steps of one particle layer (0.19 of the ball per layer). With
// the mass level and the volume fraction the same runs read 0.389 (1:2) and 0.240 (1:3): the ball
// floats too HIGH, by about 0.3 cell. That error comes from the ball's resolution on the grid; the 2D
// disc of S001_Coupling.LongBuoyancy* at 1:2 (shared forces, t in [0.5, 1.5] s) reads 0.21 at 2 cells
// per radius and 0.41 at 4, and per-group forces give 0.47 at 4. Excluded on the way: a void between
// ball and water (the radial water density next to the disc is the bulk's), the fluid-out-of-solid
// pass (the disc run is bitwise the same with it off) and hydrostatic compression (0.4 mm of level).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "core/log.hpp"
#include "methods/mpm_multiphase/multiphase_method.hpp"
#include "floating_body.hpp"
#include "scene.hpp"
#include "validation_support.hpp"

using namespace meniscus;
using mpm_multiphase::MultiphaseMpm;

namespace {

test::FloatingSample float_ball(double ratio) {
  const double R = 0.16;
  const std::string deck = log::format(R"(
simulation: {dimension: 3, method: mpm-multiphase, end_time: 10}
domain: {lower: [-0.08, -0.08, -0.08], upper: [0.72, 0.64, 0.56], cell_size: 0.04, walls: slip}
mpm_multiphase: {dt_max: 1.0e-3, cfl: 0.3, fluid_density: sph, force_sharing: per_group}
materials:
  - {name: water, model: fluid, density: 1000, sound_speed: 28, alpha_pic: 0.05}
  - {name: ball, model: hypoelastic, density: %.17g, youngs_modulus: 2.6e5, poisson_ratio: 0.3, alpha_pic: 1.0}
sources:
  - {type: box, material: water, lower: [0, 0, 0], upper: [0.64, 0.28, 0.48], particles_per_cell: 8}
  - {type: sphere, material: ball, center: [0.32, 0.28, 0.24], radius: %.17g, particles_per_cell: 8}
)",
                                       1000 * ratio, R);
  auto d = test::deck_from_string(deck);
  MultiphaseMpm<3> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 3});
  test::FloatingPool pool;
  pool.floor = 0;
  pool.lower[0] = 0, pool.upper[0] = 0.64;  // x
  pool.lower[1] = 0, pool.upper[1] = 0.48;  // z
  pool.spacing = 0.02;
  pool.far_radius = 1.5 * R;
  return test::float_body<3>(m, pool, 2.5, 0.25);
}

}  // namespace

namespace {
void report(const char* label, const test::FloatingSample& f) {
  test::print_rank0("[buoyancy 3D %s] submerged fraction %.4f (centres below the level %.4f), centre %.4f m, level %.4f m "
                    "(top particle %.4f m), vertical COM velocity rms %.4f m/s",
                    label, f.submerged, f.centres_below, f.centre, f.level, f.top_level, f.velocity);
}
}  // namespace

TEST(S001_Coupling, LongBuoyancy3DHalf) {
  const auto f = float_ball(0.5);
  report("1:2", f);
  EXPECT_NEAR(f.submerged, 0.5, 0.08);
  EXPECT_LT(f.velocity, 0.05);
}

TEST(S001_Coupling, LongBuoyancy3DThird) {
  const auto f = float_ball(1.0 / 3.0);
  report("1:3", f);
  EXPECT_NEAR(f.submerged, 1.0 / 3.0, 0.08);
  EXPECT_LT(f.velocity, 0.05);
}
