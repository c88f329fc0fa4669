// Archimedes in 3D for the multiphase MPM (Yan et al. 2018, case 2, the ball in water at density
// ratios 1:2 and 1:3): an elastic ball (R = 0.08 m, G = 1e5 Pa) in a 0.6 x 0.24 x 0.36 m pool at the
// CI resolution dx = 0.04 m (2 cells per ball radius, 2 particles per cell and axis), SPH density,
// the force sharing of the ball-in-water scene decks (per_group, read from the decks). The ball
// starts at rest centred on the undisturbed surface; the water seeded inside it is displaced. Measured
// (tests/support/floating_body.hpp), averaged over t in [2, 3] s: the ball's volume fraction below the
// far-field level of the water's mass (water more than 2R from the ball's centre, horizontally),
// against 1/2 and 1/3 within 0.08, and the rms of the ball's vertical centre-of-mass velocity (at rest:
// < 0.05 m/s). Measured numbers and run times: above each test.
//
// History (issue 15). Until now this test used the default shared forces, took the level
// as the top far-field water particle + half a spacing and the fraction as a count of ball particle
// centres below it, and read 1:2 at 0.678 (disabled) and 1:3 at 0.314 (passing). Both were artefacts
// of that measure: the top particle rides 1.5-3 cm above the level of the water's mass (one particle
// spacing is 2 cm), and a count of centres moves in steps of one particle layer (8 layers across the
// ball, about 0.19 of it each). Measured properly, the same shared-force runs float too high: 1:2 at
// 0.389 (centre 0.2528 m, level 0.2408 m), 1:3 at 0.240, both at rest (498 s and 540 s, one thread).
// With per-group forces the 1:2 ball sits at 0.50-0.51 from t = 0.5 s. The 2D disc shows the same
// shared-force bias at 4 and 8 cells per radius; its mechanism is a gap of expanded water
// that shared forces hold open next to the body (S001_Coupling.LongSharedForcesHoldTheWaterOffAFloatingDisc,
// docs/theory-mpm-multiphase.md, Buoyancy). Also tried: R = 0.16 m (4 cells per radius) in a 0.64 x 0.28 x 0.48 m pool is
// violent from the start with either force sharing (the ball 9-10 cm up by 0.2-0.26 s, water thrown
// to 0.53 m); not investigated.
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

test::FloatingSample float_ball(double ratio, const char* scene) {
  const double R = 0.08;
  const std::string deck = log::format(R"(
simulation: {dimension: 3, method: mpm-multiphase, end_time: 10}
domain: {lower: [-0.08, -0.08, -0.08], upper: [0.68, 0.68, 0.44], cell_size: 0.04, walls: slip}
mpm_multiphase: {dt_max: 1.0e-3, cfl: 0.3, fluid_density: sph, force_sharing: %s}
materials:
  - {name: water, model: fluid, density: 1000, sound_speed: 28, alpha_pic: 0.05}
  - {name: ball, model: hypoelastic, density: %.17g, youngs_modulus: 2.6e5, poisson_ratio: 0.3, alpha_pic: 1.0}
sources:
  - {type: box, material: water, lower: [0, 0, 0], upper: [0.6, 0.24, 0.36], particles_per_cell: 8}
  - {type: sphere, material: ball, center: [0.3, 0.24, 0.18], radius: %.17g, particles_per_cell: 8}
)",
                                       test::scene_force_sharing(scene).c_str(), 1000 * ratio, R);
  auto d = test::deck_from_string(deck);
  MultiphaseMpm<3> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 3});
  test::FloatingPool pool;
  pool.floor = 0;
  pool.lower[0] = 0, pool.upper[0] = 0.6;  // x
  pool.lower[1] = 0, pool.upper[1] = 0.36;  // z
  pool.spacing = 0.02;
  pool.far_radius = 2 * R;
  return test::float_body<3>(m, pool, 3.0, 0.25);
}

}  // namespace

// Measured (one process, 2 threads, load 17-20, 2026-11-27, 563 s): 0.5137 submerged, centre 0.2394 m,
// level 0.2409 m, rms 0.0018 m/s.
TEST(S001_Coupling, LongBuoyancy3DHalf) {
  const auto f = float_ball(0.5, "mpm-multiphase-ball-in-water-1to2-3d.yaml");
  test::report_floating("3D 1:2", f);
  EXPECT_NEAR(f.submerged, 0.5, 0.08);
  EXPECT_LT(f.velocity, 0.05);
}

// Measured (one process, 2 threads, load 17-20, 2026-11-27, 602 s): 0.3856 submerged, centre 0.2502 m,
// level 0.2379 m, rms 0.0024 m/s. The ball is still rising slowly in the window (0.43 at 0.8 s, 0.40
// at 2 s): 0.05 deep, inside the 0.08 bound but not by much.
TEST(S001_Coupling, LongBuoyancy3DThird) {
  const auto f = float_ball(1.0 / 3.0, "mpm-multiphase-ball-in-water-1to3-3d.yaml");
  test::report_floating("3D 1:3", f);
  EXPECT_NEAR(f.submerged, 1.0 / 3.0, 0.08);
  EXPECT_LT(f.velocity, 0.05);
}
