// Position-based fluids of Xing et al. 2022 (density constraints with CFM and unilateral distance
// constraints, sec. 3.1 and 3.4; Algorithm 1) on a free droplet, against analytic values:
//  - at rest in zero gravity the interior keeps the rest density rho0 and, since every constraint
//    correction is a sum of equal and opposite pair terms, the centre of mass stays at the origin;
//  - thrown under gravity the centre of mass follows the discrete ballistic trajectory of the time
//    integrator (symplectic Euler: z_n = z0 + n dt w0 - g dt^2 n (n + 1) / 2) to round-off, while
//    the internal constraints (density, distance and area: each a sum of terms whose gradients add
//    up to zero) keep the droplet together.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "methods/pbd/pbd_xing.hpp"
#include "scene.hpp"
#include "validation_support.hpp"

using namespace meniscus;

namespace {
// A lattice sphere of radius 1 (552 particles, spacing 0.2, the paper's re-implementation units).
const std::string kDroplet = R"(
simulation: {dimension: 3, method: pbd-xing2022, end_time: 10.0}
domain: {lower: [-2, -2, -2], upper: [2, 2, 2], cell_size: 0.2, walls: none}
pbd: {particle_radius: 0.1, gravity: [0, 0, 0], iterations: 100, xsph: 0}
materials: [{name: liquid}]
sources: [{type: sphere, material: liquid, center: [0, 0, 0], radius: 1.0, particles_per_cell: 1}]
)";
}  // namespace

TEST(PbdDroplet, DropletReleasedAtRestKeepsRestDensityAndItsCentre) {
  // The PBF core alone (no area constraints): only the density and distance constraints act.
  auto d = test::deck_from_string(kDroplet, {"pbd.area_constraints=false"});
  pbd::PbdXing m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 3});
  for (int s = 0; s < 30; ++s) m.step(m.stable_dt());
  DiagnosticRow row;
  m.diagnostics(row);
  auto& set = m.particles();
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().x));
  auto rho = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.density());
  double sums[2] = {0, 0};  // interior (further than h = 0.6 inside the initial radius) density sum, count
  for (size_t i = 0; i < set.size(); ++i) {
    const double r = std::sqrt(x(i, 0) * x(i, 0) + x(i, 1) * x(i, 1) + x(i, 2) * x(i, 2));
    if (r < 1.0 - 0.6) {
      sums[0] += rho(i);
      sums[1] += 1;
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  ASSERT_GT(sums[1], 10);
  const double rho_in = sums[0] / sums[1];
  const double c = std::max({std::fabs(test::column(row, "center_x")), std::fabs(test::column(row, "center_y")),
                             std::fabs(test::column(row, "center_z"))});
  test::print_rank0("PBD droplet released at rest, after 1 s: interior density %.5f rho0 (%g particles), centre offset %.3g, "
                    "max speed %.3g",
                    rho_in, sums[1], c, test::column(row, "max_speed"));
  EXPECT_EQ(test::column(row, "particles"), 552);
  EXPECT_NEAR(rho_in, 1.0, 0.01);
  EXPECT_LT(c, 1e-12);
}

TEST(PbdDroplet, ThrownDropletCentreFollowsTheBallisticTrajectory) {
  auto d = test::deck_from_string(kDroplet, {"pbd.gravity=[0, 0, -9.8]", "sources.0.velocity=[0.6, 0, 3]",
                                             "pbd.iterations=30"});
  pbd::PbdXing m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 3});
  const double dt = m.stable_dt(), g = 9.8, w0 = 3.0, u0 = 0.6;
  const int n = 24;
  for (int s = 0; s < n; ++s) m.step(dt);
  DiagnosticRow row;
  m.diagnostics(row);
  const double z = -g * dt * dt * n * (n + 1) / 2 + n * dt * w0;
  const double xc = n * dt * u0;
  test::print_rank0("PBD thrown droplet after %d steps: centre (%.12f, %.12f), discrete ballistic (%.12f, %.12f)", n,
                    test::column(row, "center_x"), test::column(row, "center_z"), xc, z);
  EXPECT_NEAR(test::column(row, "center_x"), xc, 1e-12);
  EXPECT_NEAR(test::column(row, "center_z"), z, 1e-12);
  EXPECT_GT(std::fabs(z - (w0 * n * dt - 0.5 * g * n * n * dt * dt)), 1e-3);  // the discrete, not the continuous, law
  EXPECT_EQ(test::column(row, "particles"), 552);
}
