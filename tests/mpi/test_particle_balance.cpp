// Particle-balanced decomposition (domain.balance, particles/balance.hpp): a block of liquid in one
// corner of the box, which the even split of the nodes leaves on one rank, is spread over this job's
// ranks with max/mean particles per rank <= 1.1, and the balanced run gives the same diagnostics as
// one rank to round-off, for MPM and SPH.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "methods/mpm/mpm_method.hpp"
#include "methods/sph/sph_jeske.hpp"
#include "particles/balance.hpp"
#include "scene.hpp"
#include "validation_support.hpp"

using namespace meniscus;

namespace {

// ExaMPM's dam-break block (0.4375 x 0.625 x 0.4375 of a unit box, against the walls, 8 particles per
// cell), at 16^3 cells: 3,920 particles, all in the lower-left corner.
const std::string kMpmCornerBlock = R"(
simulation: {dimension: 3, method: mpm, end_time: 1.0}
domain: {lower: [0, 0, 0], upper: [1, 1, 1], cell_size: 0.0625, walls: slip}
mpm: {cfl: 0.4, dt_max: 1.0e-3, sort_every: 5}
materials: [{name: water, model: fluid, density: 1000, bulk_modulus: 1.0e5, viscosity: 1.0e-3}]
sources: [{type: box, material: water, lower: [0.125, 0.125, 0.125], upper: [0.5625, 0.75, 0.5625], particles_per_cell: 8}]
)";

// A falling, spinning SPH block of 8^3 particles in one corner of the box.
const std::string kSphCornerBlock = R"(
simulation: {dimension: 3, method: sph-jeske2023, end_time: 1.0}
domain: {lower: [0, 0, 0], upper: [0.64, 0.64, 0.64], cell_size: 0.04, walls: slip, wall_cells: 1}
sph: {particle_radius: 0.02, dt: 0.001, st_mode: explicit, surface_tension: 200, viscosity: 0.001, xsph: 0.1,
      mass_volume_factor: 1.0}
materials: [{name: water, density: 1000}]
sources: [{type: box, material: water, lower: [0.04, 0.04, 0.04], upper: [0.36, 0.36, 0.36], particles_per_cell: 1,
           velocity: [0.8, -0.5, 0.3], angular_velocity: 3.0, rotation_center: [0.2, 0.2, 0.2]}]
)";

int world_size() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}
int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

// Every diagnostic but the per-rank counts agrees to `tol` relative (momenta against the mass-velocity
// scale, as they pass through zero).
void expect_same_diagnostics(const DiagnosticRow& mine, const DiagnosticRow& ref, double tol, double momentum_scale) {
  ASSERT_EQ(mine.size(), ref.size());
  for (size_t i = 0; i < mine.size(); ++i) {
    const auto& [name, v] = mine[i];
    ASSERT_EQ(name, ref[i].first);
    if (!test::reproducible_column(name)) continue;
    const double scale = std::max({std::fabs(ref[i].second), std::fabs(v), 1e-30});
    const double floor = name.find("momentum") != std::string::npos ? momentum_scale : 0.0;
    EXPECT_LE(std::fabs(v - ref[i].second), tol * std::max(scale, floor)) << name << ": " << v << " vs " << ref[i].second;
  }
}

}  // namespace

TEST(ParticleBalance, EvenSplitLeavesTheCornerBlockOnOneRank) {
  // The premise of the tests below: without balancing the block is badly distributed.
  if (world_size() == 1) GTEST_SKIP() << "needs several ranks";
  auto d = test::deck_from_string(kMpmCornerBlock, {"domain.balance=even"});
  mpm::MpmMethod<3> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 3});
  const double imbalance = particles::particle_imbalance(m.local_particle_count(), MPI_COMM_WORLD);
  std::printf("[ balance  ] MPM corner block, %d ranks, even split: max/mean %.4f\n", world_size(), imbalance);
  EXPECT_GE(imbalance, 1.5) << "the even split leaves most particles on a few ranks";
}

TEST(ParticleBalance, MpmCornerBlockBalancesAndMatchesOneRank) {
  auto d = test::deck_from_string(kMpmCornerBlock);
  double imbalance = 0;
  auto run = [&](MPI_Comm comm) {
    mpm::MpmMethod<3> m(MethodContext{comm, d.deck.root(), 3});
    const double start = particles::particle_imbalance(m.local_particle_count(), comm);
    if (comm == MPI_COMM_WORLD) imbalance = start;
    for (int s = 0; s < 40; ++s) m.step(m.stable_dt());
    DiagnosticRow row;
    m.diagnostics(row);
    return row;
  };
  const auto [mine, ref] = test::run_here_and_alone(MPI_COMM_WORLD, run);
  EXPECT_LE(imbalance, 1.1) << "max/mean particles per rank at the start";
  if (world_rank() != 0) return;
  std::printf("[ balance  ] MPM corner block, %d ranks: max/mean %.4f at the start, %.4f after 40 steps\n", world_size(),
              imbalance, test::column(mine, "rank_particles_imbalance"));
  EXPECT_GT(test::column(mine, "rank_particles_min"), 0.0);
  expect_same_diagnostics(mine, ref, 1e-10, test::column(ref, "mass") * 1e-3);
}

TEST(ParticleBalance, SphCornerBlockBalancesAndMatchesOneRank) {
  auto d = test::deck_from_string(kSphCornerBlock);
  double imbalance = 0;
  auto run = [&](MPI_Comm comm) {
    sph::SphJeske<3> m(MethodContext{comm, d.deck.root(), 3});
    const double start = particles::particle_imbalance(m.local_particle_count(), comm);
    if (comm == MPI_COMM_WORLD) imbalance = start;
    for (int s = 0; s < 30; ++s) m.step(1e-3);
    DiagnosticRow row;
    m.diagnostics(row);
    return row;
  };
  const auto [mine, ref] = test::run_here_and_alone(MPI_COMM_WORLD, run);
  EXPECT_LE(imbalance, 1.1) << "max/mean particles per rank at the start";
  if (world_rank() != 0) return;
  std::printf("[ balance  ] SPH corner block, %d ranks: max/mean %.4f at the start, %.4f after 30 steps\n", world_size(),
              imbalance, test::column(mine, "rank_particles_imbalance"));
  using test::column;
  EXPECT_GT(column(mine, "rank_particles_min"), 0.0);
  EXPECT_EQ(column(mine, "particles"), column(ref, "particles"));
  // DFSPH stops on a mean error and sums in another order per rank count: agreement to the solver
  // tolerance (as SphRankEquivalence), not bit for bit.
  const double ke = column(ref, "kinetic_energy");
  ASSERT_GT(ke, 0);
  EXPECT_NEAR(column(mine, "kinetic_energy"), ke, 1e-6 * ke);
  const double pscale = std::sqrt(2 * ke * column(ref, "mass"));
  for (const char* c : {"momentum_x", "momentum_y", "momentum_z"}) EXPECT_NEAR(column(mine, c), column(ref, c), 1e-6 * pscale);
  for (const char* c : {"radius_of_gyration", "centroid_x", "centroid_y", "centroid_z"})
    EXPECT_NEAR(column(mine, c), column(ref, c), 1e-8);
}
