// A collider with a prescribed translation, end to end (deck keys -> grid update): a water column
// resting on a floor that rises at V for a time window. A constant-velocity floor is a Galilean frame:
// the column rides along at rest relative to it, up to the sound waves the sudden start sends through
// it. Its mean velocity (momentum / mass) swings between 0 and 2V with period 4H/c around the mean V,
// so the lift over the window is V * (window) to within V H / c. When the floor stops, the slip floor
// lets go (it only resists approach) and the column flies on: in free flight momentum / mass falls
// at exactly g. Before the window nothing moves.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/log.hpp"
#include "methods/mpm/mpm_method.hpp"
#include "scene.hpp"
#include "validation_support.hpp"

using namespace meniscus;

namespace {
const char* kRisingFloor = R"(
simulation: {dimension: 2, method: mpm, end_time: 1.0}
domain: {lower: [0, 0], upper: [0.1, 0.2], cell_size: 0.0025, walls: slip, wall_cells: 2}
mpm: {cfl: 0.4, gravity: [0, -9.81]}
materials:
  - {name: water, model: fluid, density: 1000, bulk_modulus: 2.0e5, viscosity: 1.0e-3}
sources:
  - {type: box, material: water, lower: [0.005, 0.02], upper: [0.095, 0.07], particles_per_cell: 4, hydrostatic: true}
colliders:
  # The floor face starts at y = 0.02 (under the column) and rises 0.05 m at 0.5 m/s.
  - {type: half-space, point: [0, 0.02], normal: [0, 1], boundary: slip, translation: [0, 0.5],
     translation_start: 0.05, translation_end: 0.15}
)";
}  // namespace

TEST(MovingColliderValidation, RisingFloorCarriesAHydrostaticColumn) {
  const double V = 0.5, t0 = 0.05, t1 = 0.15, t_end = 0.2;
  auto d = test::deck_from_string(kRisingFloor);
  mpm::MpmMethod<2> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 2});
  DiagnosticRow r0;
  m.diagnostics(r0);
  const double y0 = test::column(r0, "centroid_y"), mass = test::column(r0, "mass");
  double t = 0, mean_v_moving = 0, moving_time = 0, y_at_t0 = 0, y_at_t1 = 0, vy = 0;
  auto advance_to = [&](double t_stop, bool moving) {
    while (t < t_stop - 1e-12) {
      const double dt = std::min(m.stable_dt(), t_stop - t);
      m.step(dt);
      t += dt;
      DiagnosticRow row;
      m.diagnostics(row);
      vy = test::column(row, "momentum_y") / mass;
      if (moving) {
        mean_v_moving += vy * dt;
        moving_time += dt;
      }
    }
    DiagnosticRow row;
    m.diagnostics(row);
    return test::column(row, "centroid_y");
  };
  y_at_t0 = advance_to(t0, false);
  y_at_t1 = advance_to(t1, true);
  mean_v_moving /= moving_time;
  advance_to(t1 + 0.02, false);
  const double v_a = vy;
  advance_to(t_end, false);
  const double v_b = vy;

  // At rest before the floor moves (hydrostatic start: only the weak-compression settling).
  EXPECT_NEAR(y_at_t0, y0, 2e-4) << "the column moved before the floor did";
  // Carried by V (t1 - t0) = 0.05 m, to within the acoustic swing V H / c (3.5 % here).
  const double H = 0.05, c = std::sqrt(2.0e5 / 1000), lift = y_at_t1 - y_at_t0, swing = V * H / c;
  EXPECT_NEAR(lift, V * (t1 - t0), swing);
  EXPECT_NEAR(mean_v_moving, V, swing / (t1 - t0));
  // Released and in free flight: still rising, decelerating at g (side walls are slip, the floor
  // is left behind).
  EXPECT_GT(v_a, 0.0) << "the column was not thrown upwards when the floor stopped";
  EXPECT_NEAR(v_a - v_b, 9.81 * (t_end - t1 - 0.02), 1e-3 * 9.81 * (t_end - t1 - 0.02));
  test::record_check("moving_collider", "rising floor (Galilean frame): column lifted by V * window, then free flight",
                     "V H / c (3.5 %) of the 0.05 m lift; free-flight deceleration g to 0.1 %",
                     log::format("lift %.4f m (%.1f %%), deceleration %.3f m/s^2", lift,
                                 100 * (lift - V * (t1 - t0)) / (V * (t1 - t0)), (v_a - v_b) / (t_end - t1 - 0.02)),
                     std::fabs(lift - V * (t1 - t0)) <= swing);
}
