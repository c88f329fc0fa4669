// Ranks without particles: a drop that lies wholly in the top rank's slab (ranks stacked along y)
// must run as on one rank. The empty ranks' speed reduction used to give a NaN time step, and the
// first step then failed with non-finite velocities (the 3D droplet impact at 2 ranks, issue 4).
#include <gtest/gtest.h>

#include <cmath>

#include "core/log.hpp"
#include "methods/mpm/mpm_method.hpp"
#include "scene.hpp"
#include "validation_support.hpp"

using namespace meniscus;

TEST(MpmMethod, RanksWithoutParticlesKeepAFiniteStep) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // The drop fits in the top slab of height 1/size; every other rank holds no particle.
  const double slab = 1.0 / size, centre_y = 1.0 - 0.5 * slab, radius = 0.3 * slab;
  const std::string deck = log::format(R"(
simulation: {dimension: 2, method: mpm, end_time: 1.0}
domain: {lower: [0, 0], upper: [1, 1], cell_size: 0.01, walls: none, ranks: [1, %d], balance: even}
mpm: {gravity: [0, -9.81], surface_tension: {enabled: true, coefficient: 0.1}}
materials: [{name: w, model: fluid, density: 10, bulk_modulus: 100, viscosity: 0.05}]
sources: [{type: sphere, material: w, center: [0.5, %.17g], radius: %.17g, particles_per_cell: 4, velocity: [0.3, 0]}]
)", size, centre_y, radius);
  auto d = test::deck_from_string(deck);
  mpm::MpmMethod<2> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 2});
  for (int s = 0; s < 5; ++s) {
    const double dt = m.stable_dt();
    ASSERT_TRUE(std::isfinite(dt) && dt > 0) << "step " << s << ": dt = " << dt;
    ASSERT_NO_THROW(m.step(dt)) << "step " << s;
  }
  DiagnosticRow row;
  m.diagnostics(row);
  EXPECT_TRUE(std::isfinite(test::column(row, "momentum_x")));
  EXPECT_NEAR(test::column(row, "momentum_x") / test::column(row, "mass"), 0.3, 1e-9) << "no force along x";
}
