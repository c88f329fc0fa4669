// Surfactant weakening in 3D (the digest's T-SURF, 3D form; Ruan et al. 2021 Fig. 13 shows it with a
// cherry in water and milk): a sphere of radius 0.25 cm and density 2.8 on water (rho 1, g 980 cm/s^2)
// floats with sigma = 72.8 dyn/cm and sinks with sigma = 46 (milk). The largest weight a non-wetting
// sphere can hang from a meniscus gives the limits 3.19 and 2.44 g/cm^3 (the digest's R4 in 3D).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "methods/membrane/membrane_ruan_3d.hpp"
#include "scene.hpp"
#include "validation_support.hpp"

namespace mm = meniscus::membrane;
using meniscus::test::print_rank0;

namespace {

struct Sinking {
  double lowest = 1e300;   // lowest centre height (cm)
  double rise = -1e300;    // largest upward velocity after the first 20 ms (cm/s)
};

// The sphere placed at rest with its lowest 0.02 cm wet on a pool 0.8 cm deep (a 2 x 2 x 1.5 cm tank of
// cells of `dx`), `zeta` the settle window's damping (1/s, over the whole run; 0: none), run to t_end.
Sinking sphere_on_pool(double sigma, double dx, double zeta, double t_end) {
  const std::string yaml =
      "simulation: {dimension: 3, method: membrane-ruan2021, end_time: 1.0, name: membrane3d-surfactant}\n"
      "domain: {lower: [0, 0, 0], upper: [2, 2, 1.5], cell_size: " + std::to_string(dx) + "}\n"
      "membrane: {density: 1.0, surface_tension: " + std::to_string(sigma) + ", gravity: [0, 0, -980], shape: pool,\n"
      "           level: 0.8, rtol: 1.0e-6, dt_max: 2.0e-3, settle_damping: " + std::to_string(zeta) + ", settle_until: 10,\n"
      "           bodies: [{shape: sphere, center: [1.0, 1.0, 1.03], radius: 0.25, density: 2.8, rotates: false}]}\n";
  auto d = meniscus::test::deck_from_string(yaml);
  mm::MembraneRuan3 m(meniscus::MethodContext{MPI_COMM_WORLD, d.deck.root(), 3});
  Sinking s;
  meniscus::test::step_method_to(m, t_end, [&](double t, int steps) {
    const mm::RigidBody3& b = m.flow().bodies()[0];
    s.lowest = std::min(s.lowest, b.c[2]);
    if (t > 0.02) s.rise = std::max(s.rise, b.v[2]);
    if (steps % 10 == 0) print_rank0("sphere, sigma %.1f: t %.3f z %.4f v_z %+.3f cm/s", sigma, t, b.c[2], b.v[2]);
  });
  return s;
}

}  // namespace

// Cells of 0.1 cm (the sphere 2.5 cells in radius) with a settle window of 40 /s (velocities damped; static
// equilibria unchanged), 0.2 s: with sigma = 72.8 the sphere stops with its top at about the level and turns
// back up (lowest centre 0.5527 cm, then rising at up to +0.54 cm/s); with sigma = 46 it keeps sinking and
// reaches the floor (lowest centre 0.2513 cm; it never turns up: largest v_z after 20 ms -1.25 cm/s). Released
// at rest without the window both sink to the floor within 0.08 s at this size: the fall's momentum carries the
// sphere past its static balance (measured).
// The membrane never tears, so "floats" is read as turning back up above the floor and "sinks" as reaching
// it (within 0.1 cm). About 4.6 minutes of one core.
TEST(Membrane3DSurfactantValidation, LongSphereFloatsOnWaterAndSinksInMilk) {
  const Sinking water = sphere_on_pool(72.8, 0.1, 40.0, 0.2);
  const Sinking milk = sphere_on_pool(46.0, 0.1, 40.0, 0.2);
  print_rank0("sphere R 0.25 density 2.8: water lowest centre %.4f cm, largest later v_z %+.3f; milk lowest %.4f cm, "
              "largest later v_z %+.3f (floor contact at 0.25 cm)",
              water.lowest, water.rise, milk.lowest, milk.rise);
  EXPECT_GT(water.rise, 0.0);
  EXPECT_GT(water.lowest, 0.45);
  EXPECT_LT(milk.lowest, 0.35);
}
