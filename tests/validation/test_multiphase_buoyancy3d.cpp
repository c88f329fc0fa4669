// Archimedes in 3D for the multiphase MPM (Yan et al. 2018, case 2, the ball in water at density
// ratios 1:2 and 1:3): an elastic ball (R = 0.08 m, G = 1e5 Pa) in a 0.6 x 0.24 x 0.36 m pool at the
// CI resolution dx = 0.04 m (2 cells per ball radius, 2 particles per cell and axis), SPH density,
// the force sharing and wall images of the ball-in-water scene decks (per_group, sph_wall_images: true,
// read from the decks). The ball
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
#include <vector>

#include "core/log.hpp"
#include "methods/mpm_multiphase/multiphase_method.hpp"
#include "run/deck_schema.hpp"
#include "floating_body.hpp"
#include "scene.hpp"
#include "validation_support.hpp"

using namespace meniscus;
using mpm_multiphase::MultiphaseMpm;

namespace {

// The ball of density `ratio` x water's released at rest centred on the undisturbed surface (or at
// height `centre_y`) of a pool
// `width` x 0.24 x `width` m (0: the 0.6 x 0.24 x 0.36 m pool of the Long tests), the ball's centre a
// cell-centre on the grid as in that pool; `measure(m, pool)` runs it and returns the reading.
template <class Measure>
auto with_ball(double ratio, const char* scene, double width, double dx, double centre_y, Measure measure,
               double separation = 0) {
  const double R = 0.08;
  const double wx = width > 0 ? width : 0.6, wz = width > 0 ? width : 0.36;
  const std::string deck = log::format(R"(
simulation: {dimension: 3, method: mpm-multiphase, end_time: 10}
domain: {lower: [%.17g, %.17g, %.17g], upper: [%.17g, 0.68, %.17g], cell_size: %.17g, walls: slip}
mpm_multiphase: {dt_max: 1.0e-3, cfl: 0.3, fluid_density: sph, force_sharing: %s, sph_wall_images: %s, contact_separation: %.17g}
materials:
  - {name: water, model: fluid, density: 1000, sound_speed: 28, alpha_pic: 0.05}
  - {name: ball, model: hypoelastic, density: %.17g, youngs_modulus: 2.6e5, poisson_ratio: 0.3, alpha_pic: 1.0}
sources:
  - {type: box, material: water, lower: [0, 0, 0], upper: [%.17g, 0.24, %.17g], particles_per_cell: 8}
  - {type: sphere, material: ball, center: [%.17g, %.17g, %.17g], radius: %.17g, particles_per_cell: 8}
)",
                                       -2 * dx, -2 * dx, -2 * dx, wx + 2 * dx, wz + 2 * dx, dx, test::scene_force_sharing(scene).c_str(),
                                       test::scene_settings(scene).sph_wall_images ? "true" : "false",
                                       separation, 1000 * ratio, wx,
                                       wz, wx / 2, centre_y, wz / 2, R);
  auto d = test::deck_from_string(deck);
  MultiphaseMpm<3> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 3});
  test::FloatingPool pool;
  pool.floor = 0;
  pool.lower[0] = 0, pool.upper[0] = wx;  // x
  pool.lower[1] = 0, pool.upper[1] = wz;  // z
  pool.spacing = dx / 2;  // 2 particles per cell and axis
  pool.far_radius = 2 * R;
  pool.body_radius = R;
  return measure(m, pool);
}

// Runs to `end` s and returns the means over the last `window` s.
test::FloatingSample float_ball(double ratio, const char* scene, double width = 0, double end = 3.0,
                                double window = 1.0, double dx = 0.04, double centre_y = 0.24) {
  return with_ball(ratio, scene, width, dx, centre_y, [&](MultiphaseMpm<3>& m, const test::FloatingPool& pool) {
    return test::float_body<3>(m, pool, end, 0.25, window);
  });
}

// The same ball in the CI pool (0.44 x 0.24 x 0.44 m, dx = 0.04 m) run until it rests: the least-squares
// drift of its centre over the last 0.5 s below kRestDrift (test::float_body_to_rest), at most 4.5 s.
// kRestDrift = 1 mm/s moves the ball's submerged fraction by pi R^2 / V = 9.4 per metre, i.e. by less
// than 0.01 per second, an eighth of the criterion's 0.08; measured approach times are about 1 s (the
// 1:3 ball's drift fell from 6 to 3.6 mm/s between 0.55 and 0.75 s), so what is left to come at that
// drift is about 1 mm, 0.01 of the fraction. At most 4.5 s (a slower approach is still read at rest).
constexpr double kRestDrift = 1e-3;
test::RestingSample rest_ball(double ratio, const char* scene, double centre_y = 0.24, double separation = 0) {
  return with_ball(
      ratio, scene, 0.44, 0.04, centre_y,
      [&](MultiphaseMpm<3>& m, const test::FloatingPool& pool) {
        return test::float_body_to_rest<3>(m, pool, 0.5, kRestDrift, 4.5, true);
      },
      separation);
}

}  // namespace

// With the wall images (one thread, 38 s, 2026-11-29): 0.4781 below the far-field count level (its water
// counted by the part of each rest box outside the near field; 0.4359 counted by centres, which the
// near field's circle on the lattice biased 5 mm low: tests/support/floating_body.hpp), 0.4691 below the
// far-field surface, 0.4708 below the local level; centre 0.2421 m, rms 0.0006 m/s. Without them
// (counted by centres):
// Measured (one process, 2 threads, load 17-20, 2026-11-27, 563 s): 0.5137 submerged, centre 0.2394 m,
// level 0.2409 m, rms 0.0018 m/s.
TEST(S001_Coupling, LongBuoyancy3DHalf) {
  const auto f = float_ball(0.5, "mpm-multiphase-ball-in-water-1to2-3d.yaml");
  test::report_floating("3D 1:2", f);
  EXPECT_NEAR(f.submerged, 0.5, 0.08);
  EXPECT_LT(f.velocity, 0.05);
}

// With the wall images (one thread, 45 s, 2026-11-29): 0.3615 below the far-field count level (boxes
// shared as above; 0.3475 counted by centres), 0.3285 below the far-field surface, 0.3558 below the
// local level; centre 0.2528 m, rms 0.0011 m/s. Without them (counted by centres):
// Measured (one process, 2 threads, load 17-20, 2026-11-27, 602 s): 0.3856 submerged, centre 0.2502 m,
// level 0.2379 m, rms 0.0024 m/s. The ball is still rising slowly in the window (0.43 at 0.8 s, 0.40
// at 2 s): 0.05 deep, inside the 0.08 bound but not by much.
TEST(S001_Coupling, LongBuoyancy3DThird) {
  const auto f = float_ball(1.0 / 3.0, "mpm-multiphase-ball-in-water-1to3-3d.yaml");
  test::report_floating("3D 1:3", f);
  EXPECT_NEAR(f.submerged, 1.0 / 3.0, 0.08);
  EXPECT_LT(f.velocity, 0.05);
}

// Archimedes in 3D against the local surface beside the ball (FloatingSample::local_level: the water
// columns 1 spacing to 2R from the ball's axis, their particles' rest volume by area weights over their
// cross-section), at the CI resolution (2 cells per ball radius) in a 0.44 x 0.24 x 0.44 m pool, both
// balls released centred on the surface, with the scene decks' settings (per-group forces, the walls'
// mirror images in the SPH sum), each read once it rests (rest_ball: the least-squares drift of its
// centre over the last 0.5 s below 1 mm/s, checked every 0.24 s from 0.72 s on).
// Until now the reading was the mean over the fixed window [0.5, 1.0] s, where the 1:3 ball was still
// rising (drift 3.6 mm/s): 0.4079 against the 0.4133 bound. With the grid-averaged SPH density
// (mpm_multiphase.sph_grid_average, the default since 2026-11-29; 41 s, one thread): 1:2 at rest by
// 0.96 s (drift +0.43 mm/s) 0.4949 below the local level (0.2397 m), 0.4924 below the far-field surface,
// rms 0.021 m/s; 1:3 at rest by 1.68 s (drift +0.87 mm/s), 0.3779 below the local level (0.2383 m),
// 0.3708 below the far-field surface, rms 0.0044 m/s. (With the averaged density's surface threshold at
// 0.97 instead of 0.9 the 1:3 ball crept up at 1-3 mm/s until 3.1 s; the bound on the time stays 4.5 s.)
// Before, with the particles' own SPH densities (one thread, load 10-15, 55 CPU-s and 189 s for both runs):
//   1:2: at rest by 0.96 s (drift +0.67 mm/s): 0.4907 below the local level (0.2400 m), 0.4801 below
//        the far-field surface (0.2389 m); centre 0.2410 m, rms 0.014 m/s.
//   1:3: at rest by 2.40 s (drift +0.95 mm/s; 6.8, 3.6, 1.6, 1.2 mm/s at 0.72, 0.96, 1.92, 2.16 s):
//        0.3708 below the local level (0.2393 m), 0.3384 below the far-field surface (0.2358 m); centre
//        0.2532 m, rms 0.0011 m/s.
// Without the wall images (Yan et al. 2018's SPH sum, eq. 17, as printed) the [0.5, 1] s means read
// 0.5757 and 0.4815 below the local level, centres 0.2360 and 0.2442 m: the water resting on the five
// walls reads 860-900 kg/m^3 with its Tait pressure clamped to zero (0.78 of the rest density at rest),
// the second layer carries its weight, and the crowding this leaves beside and under the ball held the
// ball deep (docs/theory-mpm-multiphase.md, Buoyancy).
// Asserted: the criterion (1/2 and 1/3 within 0.08 below the local level) at rest (drift below
// 1 mm/s, and the rms of the centre's velocity over the window below 0.05 m/s), the 1:3 ball at least
// 5 mm above the 1:2 ball (measured 12.2 mm, Archimedes 18.1 mm), and the ring within 5 mm of the
// far-field surface (measured 1.1 and 3.5 mm). The far-field level of the water's mass (particle count)
// reads below the ring: the near field holds more particles than its rest volume (near-field void
// -0.28 and -0.08 of the ball), so that count is not used here.
TEST(S001_Coupling, Buoyancy3DAgainstTheLocalLevel) {
  const auto rest_half = rest_ball(0.5, "mpm-multiphase-ball-in-water-1to2-3d.yaml");
  const auto rest_third = rest_ball(1.0 / 3.0, "mpm-multiphase-ball-in-water-1to3-3d.yaml");
  const auto &half = rest_half.mean, &third = rest_third.mean;
  test::report_floating("3D 1:2 CI", half);
  test::report_floating("3D 1:3 CI", third);
  test::print_rank0("[buoyancy 3D CI] at rest: 1:2 drift %+.5f m/s by %.2f s, 1:3 drift %+.5f m/s by %.2f s",
              rest_half.drift, rest_half.time, rest_third.drift, rest_third.time);
  EXPECT_LT(std::fabs(rest_half.drift), kRestDrift);
  EXPECT_LT(std::fabs(rest_third.drift), kRestDrift);
  EXPECT_LT(half.velocity, 0.05);
  EXPECT_LT(third.velocity, 0.05);
  EXPECT_GT(third.centre - half.centre, 0.005);
  EXPECT_LT(std::fabs(half.local_level - half.surface), 0.005);
  EXPECT_LT(std::fabs(third.local_level - third.surface), 0.005);
  EXPECT_NEAR(half.local_submerged, 0.5, 0.08);
  EXPECT_NEAR(third.local_submerged, 1.0 / 3.0, 0.08);
}

// The same two balls with the ball-in-water decks' position-based contact detection
// (mpm_multiphase.contact_separation 0.85; docs/theory-mpm-multiphase.md, "Contact across a gap"): the
// detection lets a dropped ball close the gap the paper's rule holds open (LongDroppedBallsFloatByArchimedes)
// and must not let a ball resting at the surface sink through. It sits a little deeper than with the
// paper's rule, the water's particles closer to the ball's. Measured 2026-11-29 (one thread, 27 s): 1:2 at
// rest by 0.72 s, 0.5638 below the local level (0.5493 below the far-field surface); 1:3 at rest by
// 1.92 s, 0.4086 (0.3766). At 1.0 cell: 0.5175 and 0.3851. Asserted: the criterion against the local
// level, at rest, the 1:3 ball above the 1:2 ball.
TEST(S001_Coupling, Buoyancy3DWithThePositionDetection) {
  const auto rest_half = rest_ball(0.5, "mpm-multiphase-ball-in-water-1to2-3d.yaml", 0.24, 0.85);
  const auto rest_third = rest_ball(1.0 / 3.0, "mpm-multiphase-ball-in-water-1to3-3d.yaml", 0.24, 0.85);
  const auto &half = rest_half.mean, &third = rest_third.mean;
  test::report_floating("3D 1:2 CI, position detection", half);
  test::report_floating("3D 1:3 CI, position detection", third);
  EXPECT_LT(std::fabs(rest_half.drift), kRestDrift);
  EXPECT_LT(std::fabs(rest_third.drift), kRestDrift);
  EXPECT_LT(half.velocity, 0.05);
  EXPECT_LT(third.velocity, 0.05);
  EXPECT_GT(third.centre - half.centre, 0.005);
  EXPECT_NEAR(half.local_submerged, 0.5, 0.08);
  EXPECT_NEAR(third.local_submerged, 1.0 / 3.0, 0.08);
}

// The same against the local level at twice the resolution (dx = 0.02 m, 4 cells per ball radius,
// 0.42 x 0.24 x 0.42 m pool so that the ball's axis is a cell centre), means over t in [0.5, 1.0] s.
// Asserted: the issue's criterion (1/2 and 1/3 within 0.08 against the local level), at rest. At this
// resolution the area-weighted ring level stands 1.9 mm (1:2) and 1.8 mm (1:3) above the far-field
// level of the water's mass (4.7 and 3.9 mm below it without the wall images).
// Measured: in each test.
// 1:2 with the wall images (231 s, one thread, load 4): 0.4990 below the local level (0.2403 m), 0.4872
// below the far-field surface (0.2390 m), far-field count level 0.4815 (0.2384 m), local top 0.4952;
// centre 0.2404 m, rms 0.019 m/s. Without them (295 s, 2 threads, load 8): 0.4841 below the local
// level by area weights (0.2375 m; the held-column count read 0.5217, 0.2415 m); far-field count level
// 0.5292 (0.2422 m), local top 0.4865; centre 0.2392 m, rms 0.005 m/s.
TEST(S001_Coupling, LongBuoyancy3DHalfAgainstTheLocalLevelFine) {
  const auto f = float_ball(0.5, "mpm-multiphase-ball-in-water-1to2-3d.yaml", 0.42, 1.0, 0.5, 0.02);
  test::report_floating("3D 1:2 fine", f);
  EXPECT_NEAR(f.local_submerged, 0.5, 0.08);
  EXPECT_LT(f.velocity, 0.05);
}

// 1:3 with the wall images (309 s, one thread, load 4-9): 0.3699 below the local level (0.2392 m),
// 0.3505 below the far-field surface (0.2370 m), far-field count level 0.3545 (0.2374 m), local top
// 0.3666; centre 0.2531 m, 13.1 mm above the start where Archimedes asks 18.1 mm; rms 0.013 m/s.
// Without them (252 s; 508 s at load 8): 0.3517 below the local level by area weights (0.2362 m; the
// held-column count read 0.3971, 0.2413 m); far-field count level 0.3863 (0.2401 m), local top 0.3526;
// centre 0.2521 m, 12.1 mm above the start; rms 0.007 m/s.
TEST(S001_Coupling, LongBuoyancy3DThirdAgainstTheLocalLevelFine) {
  const auto f = float_ball(1.0 / 3.0, "mpm-multiphase-ball-in-water-1to3-3d.yaml", 0.42, 1.0, 0.5, 0.02);
  test::report_floating("3D 1:3 fine", f);
  EXPECT_NEAR(f.local_submerged, 1.0 / 3.0, 0.08);
  EXPECT_LT(f.velocity, 0.05);
}


// A density ratio that no scene deck has (2:3, two thirds submerged), CI resolution and pool of
// Buoyancy3DAgainstTheLocalLevel, released twice: centred on the surface (1.8 cm above its Archimedes
// depth) and 1.7 cm below that depth (centre 0.2054 m; the water seeded inside the ball is displaced).
// Fraction below the far-field surface, means over t in [0.5, 1.0] s. Measured (meniscus run of the
// same set-up, snapshots at 0.5, 0.75, 1 s): from above 0.563, 0.562, 0.564, at rest from 0.25 s
// (centre 0.2341-0.2338 m, where Archimedes asks 0.2227 m); from below 0.689, 0.685, 0.681, still
// rising slowly. The water under the ball stopped from above holds +199 Pa over hydrostatic
// (docs/theory-mpm-multiphase.md, "What holds the 3D ball off Archimedes"): at this resolution the
// equilibrium is a band, wide on the sinking side. Measured cause (same page, "The lattice hypothesis
// tested"): not a rearrangement barrier of the 2-particle lattice (c0 halved: 0.546; 3 particles per
// cell and axis: 0.535, higher still) but volumetric locking of the per-particle Tait pressures: with
// the fluid's volume ratio averaged over the grid (fluid_density: volume) the ball sinks to 0.657, at
// dx = 0.02 m to 0.61-0.63. The pressure now takes the grid average of the particles' SPH density
// ratios (mpm_multiphase.sph_grid_average, as the volume density averages J): from above 0.5991, from
// below 0.7077 below the far-field surface (local level 0.5932, 0.7139; rms 0.012 and 0.008 m/s;
// 2026-11-29, 28 s): the band now holds 2/3 inside it. Asserted: the criterion (2/3 within 0.08) from
// both sides, at rest, and the ball from above not past 2/3 nor the one from below under it. Two 1 s
// runs: a long test.
TEST(S001_Coupling, LongBuoyancy3DTwoThirdsFromAboveAndBelow) {
  const auto above = float_ball(2.0 / 3.0, "mpm-multiphase-ball-in-water-1to2-3d.yaml", 0.44, 1.0, 0.5);
  const auto below = float_ball(2.0 / 3.0, "mpm-multiphase-ball-in-water-1to2-3d.yaml", 0.44, 1.0, 0.5, 0.04, 0.2054);
  test::report_floating("3D 2:3 from above", above);
  test::report_floating("3D 2:3 from below", below);
  EXPECT_LT(above.velocity, 0.05);
  EXPECT_LT(below.velocity, 0.05);
  EXPECT_NEAR(below.surface_submerged, 2.0 / 3.0, 0.08);
  EXPECT_NEAR(above.surface_submerged, 2.0 / 3.0, 0.08);
  EXPECT_LT(above.surface_submerged, 2.0 / 3.0);
  EXPECT_GT(below.surface_submerged, 2.0 / 3.0);
}

// The ball-in-water scenes (Yan et al. 2018, case 2, Fig. 5) with the paper's contact rule: the CI decks
// inputs/mpm-multiphase-ball-in-water-1to{1,2,3}-3d-ci.yaml with contact_separation 0, each ball (R = 0.08 m, 2 cells per
// radius) entering the 0.24 m pool at 1 m/s, run for 2 s. Depth = far-field surface minus the ball's
// centre. The paper: the 1:1 ball sinks deep and is covered, 1:2 bounces and ends partly immersed, 1:3
// drifts on the surface. Asserted: the 1:1 ball goes deeper than the 1:2 ball, and the paper's order, 1:2
// deeper than 1:3 (with the paper's rule the 1:1 ball also rests on the gap, its centre above the surface:
// the digest's Neutral holds with the decks' position detection, LongDroppedBallsFloatByArchimedes).
// Measured 2026-11-29 (357 s for the three, one thread): deepest centre below the surface 1:1 -0.018 m
// (0.331 of it below the surface at 2 s; 0.036 m and 0.81 while the 1:1 decks used the volume ratio for
// the fluid density), 1:2 -0.049 m, 1:3 -0.063 m. At this
// resolution the dropped light balls stop on the surface: 0.104 (1:2) and 0.035 (1:3) of their volume
// below it at 2 s, sinking at 2-3 mm/s, where a ball seeded at the surface settles to 0.49 and 0.37
// (Buoyancy3DAgainstTheLocalLevel). Not the PIC blend's damping (1:2 with a 1 % share for the water:
// 0.096 at 1 s, bouncing round it) nor the time step (1.7e-4 s: 0.097); 0.043 with the particles' own
// SPH densities, 0.188 with the volume ratio (whose pool swells by 2 cm meanwhile), 0.26 at 4 cells per
// radius (at rest from 0.2 s). The contact reaches across a gap: the ball rests on grid nodes that both
// groups' stencils reach while no water particle is within the SPH support (1.25 cells) of a ball particle;
// with the contact gated by volume overlap (contact_fill) it goes in (below). docs/theory-mpm-multiphase.md,
// "Contact across a gap".
namespace {
struct Plunge {
  double deepest = -1e300;  // largest depth of the centre below the far-field surface (m)
  test::FloatingSample last;
  // Over the samples (every 0.02 s) after `window_from`: the mean fraction below the far-field surface
  // and the rms of the ball's vertical centre-of-mass velocity.
  double window_submerged = 0, window_velocity = 0;
};
Plunge plunge(const char* deck, const std::vector<std::string>& sets = {}, double end = 2.0, double window_from = 1e300) {
  auto d = run::load_deck(test::source_dir() + "/inputs/" + deck, sets);
  MultiphaseMpm<3> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 3});
  test::FloatingPool pool;
  pool.floor = 0;
  pool.lower[0] = 0, pool.upper[0] = 0.6;  // x
  pool.lower[1] = 0, pool.upper[1] = 0.36;  // z
  pool.spacing = d.deck.root().section("domain").real("cell_size") / 2;  // 2 particles per cell and axis
  pool.far_radius = 0.16;
  Plunge p;
  double t = 0;
  int window = 0;
  for (int k = 1; k <= static_cast<int>(std::lround(end / 0.02)); ++k) {
    test::advance_floating<3>(m, t, 0.02 * k);
    p.last = test::sample_floating<3>(m, pool);
    p.deepest = std::max(p.deepest, p.last.surface - p.last.centre);
    if (t > window_from + 1e-9) {
      ++window;
      p.window_submerged += p.last.surface_submerged;
      p.window_velocity += p.last.velocity * p.last.velocity;
    }
    if (k % 10 == 0)
      test::print_rank0("[%s] t = %.2f s: centre %.4f m, surface %.4f m, depth %.4f m, submerged %.3f, v %.3f m/s", deck, t,
                        p.last.centre, p.last.surface, p.last.surface - p.last.centre, p.last.surface_submerged,
                        p.last.velocity);
  }
  if (window > 0) {
    p.window_submerged /= window;
    p.window_velocity = std::sqrt(p.window_velocity / window);
  }
  return p;
}
}  // namespace

TEST(S001_Coupling, LongBallsDroppedIntoWaterSinkByTheirDensity) {
  const std::vector<std::string> paper = {"mpm_multiphase.contact_separation=0"};
  const auto one = plunge("mpm-multiphase-ball-in-water-1to1-3d-ci.yaml", paper);
  const auto half = plunge("mpm-multiphase-ball-in-water-1to2-3d-ci.yaml", paper);
  const auto third = plunge("mpm-multiphase-ball-in-water-1to3-3d-ci.yaml", paper);
  test::print_rank0("[balls dropped into water] deepest centre below the surface: 1:1 %.4f m, 1:2 %.4f m, 1:3 %.4f m; at 2 s "
                    "1:1 depth %.4f m, submerged 1:1 %.3f, 1:2 %.3f, 1:3 %.3f",
                    one.deepest, half.deepest, third.deepest, one.last.surface - one.last.centre,
                    one.last.surface_submerged, half.last.surface_submerged, third.last.surface_submerged);
  EXPECT_GT(one.deepest, half.deepest + 0.02);
  EXPECT_GT(half.deepest, third.deepest);
  // The gap: with the contact only where the two groups' volumes fill 0.9 of a cell
  // (mpm_multiphase.contact_fill) the 1:2 ball goes in: 0.347 of it below the surface at 2 s, still
  // sinking at 4 mm/s (0.30 at 1 s, 0.36 at 2.4 s; 0.95 reads the same within 0.02).
  const auto filled = plunge("mpm-multiphase-ball-in-water-1to2-3d-ci.yaml",
                             {"mpm_multiphase.contact_separation=0", "mpm_multiphase.contact_fill=0.9"});
  test::print_rank0("[balls dropped into water] 1:2 with contact_fill 0.9: %.3f below the surface at 2 s (%.3f without)",
                    filled.last.surface_submerged, half.last.surface_submerged);
  EXPECT_GT(filled.last.surface_submerged, 0.3);
  EXPECT_GT(filled.last.surface_submerged, half.last.surface_submerged + 0.15);
}


// The digest's Buoyancy{Half,Third} and Neutral on the ball-in-water scenes as shipped (the CI decks,
// which detect contact by position: mpm_multiphase.contact_separation 0.85, docs/theory-mpm-multiphase.md,
// "Contact across a gap"): each ball enters the pool at 1 m/s and runs 4 s; the fraction below the
// far-field surface is averaged over t in [3, 4] s. Asserted: 1/2 and 1/3 within 0.08, the rms of the
// vertical centre-of-mass velocity over the window below 0.05 m/s, and the digest's Neutral: the 1:1
// ball's centre under the surface at 4 s and its deepest point 2 cm below the 1:2 ball's. Measured 2026-11-29 (one thread, 466 s for
// the three): over [3, 4] s 1:2 0.4866 (rms 0.0010 m/s; 0.428, 0.481, 0.489 at 2, 3, 4 s), 1:3 0.3450
// (rms 0.0006 m/s; 0.325, 0.343, 0.347); 1:1 (since its decks share the SPH density of the others) 0.916
// under water over [3, 4] s, at rest, its centre 0.053 m under the surface (deepest 0.054 m).
// With the paper's rule the same balls stop on the gap at 0.10 and 0.035 (LongBallsDroppedIntoWaterSinkByTheirDensity).
TEST(S001_Coupling, LongDroppedBallsFloatByArchimedes) {
  const auto half = plunge("mpm-multiphase-ball-in-water-1to2-3d-ci.yaml", {}, 4.0, 3.0);
  const auto third = plunge("mpm-multiphase-ball-in-water-1to3-3d-ci.yaml", {}, 4.0, 3.0);
  const auto one = plunge("mpm-multiphase-ball-in-water-1to1-3d-ci.yaml", {}, 4.0, 3.0);
  test::print_rank0("[dropped balls, position detection] over [3, 4] s below the far-field surface: 1:2 %.4f (rms %.4f m/s), "
                    "1:3 %.4f (rms %.4f m/s), 1:1 %.4f; depth of the centre at 4 s: 1:1 %.4f m, 1:2 %.4f m",
                    half.window_submerged, half.window_velocity, third.window_submerged, third.window_velocity,
                    one.window_submerged, one.last.surface - one.last.centre, half.last.surface - half.last.centre);
  EXPECT_NEAR(half.window_submerged, 0.5, 0.08);
  EXPECT_NEAR(third.window_submerged, 1.0 / 3.0, 0.08);
  EXPECT_LT(half.window_velocity, 0.05);
  EXPECT_LT(third.window_velocity, 0.05);
  EXPECT_GT(one.last.surface - one.last.centre, 0.0);
  EXPECT_GT(one.deepest, half.deepest + 0.02);
}


// The 1:2 CI deck at twice its resolution (dx = 0.02 m, 4 cells per ball radius; the domain moved so
// that the walls stand where they do at the CI size), with the deck's position-based detection: the
// separation is in cells, so the same 0.85 should hold here. Fraction below the far-field surface
// averaged over [1.0, 1.6] s. Measured 2026-11-29 (2 threads, 705 s): 0.4745, rms 0.0023 m/s; 0.493,
// 0.513, 0.478, 0.481, 0.486, 0.468 at 0.2, 0.4, 0.6, 0.8, 1.0, 1.6 s (with the paper's rule this ball
// stops at 0.26, at rest from 0.2 s:
// docs/theory-mpm-multiphase.md, "Contact across a gap"). Asserted: 1/2 within 0.08, at rest.
TEST(S001_Coupling, LongDroppedBallFloatsByArchimedesAtFourCellsPerRadius) {
  const auto p = plunge("mpm-multiphase-ball-in-water-1to2-3d-ci.yaml",
                        {"domain.cell_size=0.02", "domain.lower=[-0.04,-0.04,-0.04]", "domain.upper=[0.64,0.68,0.40]"},
                        1.6, 1.0);
  test::print_rank0("[dropped 1:2 ball, dx = 0.02, position detection] over [1.0, 1.6] s: %.4f below the far-field "
                    "surface, rms %.4f m/s",
                    p.window_submerged, p.window_velocity);
  EXPECT_NEAR(p.window_submerged, 0.5, 0.08);
  EXPECT_LT(p.window_velocity, 0.05);
}

