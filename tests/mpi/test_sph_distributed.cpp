// SPH across ranks: the cell-list neighbourhood over owned + ghost rows equals a brute-force search
// over all particles of all ranks; the warm-start fields follow their particle through migration
// and sorting; and 50 steps give the same diagnostics on this job's ranks as on one rank.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "methods/sph/sph_jeske.hpp"
#include "scene.hpp"
#include "validation_support.hpp"

using namespace meniscus;

namespace {
// A fluid block dropping into a box (gravity, walls, explicit cohesion and viscosity, XSPH): particles
// cross rank boundaries within a few dozen steps.
const std::string kDropScene = R"(
simulation: {dimension: 3, method: sph-jeske2023, end_time: 1.0}
domain: {lower: [0, 0, 0], upper: [0.64, 0.64, 0.64], cell_size: 0.04, walls: slip, wall_cells: 1}
sph: {particle_radius: 0.02, dt: 0.001, st_mode: explicit, surface_tension: 200, viscosity: 0.001, xsph: 0.1,
      mass_volume_factor: 1.0}
materials: [{name: water, density: 1000}]
sources: [{type: box, material: water, lower: [0.16, 0.2, 0.16], upper: [0.48, 0.52, 0.48], particles_per_cell: 1,
           velocity: [0.8, -0.5, 0.3], angular_velocity: 3.0, rotation_center: [0.32, 0.36, 0.32]}]
)";

std::vector<double> gather_positions(const sph::SphJeske<3>& m, MPI_Comm comm) {
  auto& set = const_cast<sph::SphJeske<3>&>(m).particles();
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().x));
  std::vector<double> mine(3 * set.size());
  for (size_t i = 0; i < set.size(); ++i)
    for (int d = 0; d < 3; ++d) mine[3 * i + d] = x(i, d);
  int size = 1;
  MPI_Comm_size(comm, &size);
  int n = static_cast<int>(mine.size());
  std::vector<int> counts(size), displs(size, 0);
  MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
  for (int r = 1; r < size; ++r) displs[r] = displs[r - 1] + counts[r - 1];
  std::vector<double> all(displs[size - 1] + counts[size - 1]);
  MPI_Allgatherv(mine.data(), n, MPI_DOUBLE, all.data(), counts.data(), displs.data(), MPI_DOUBLE, comm);
  return all;
}
}  // namespace

TEST(SphDistributed, NeighbourhoodIncludingGhostsEqualsBruteForce) {
  auto d = test::deck_from_string(kDropScene);
  sph::SphJeske<3> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 3});
  for (int s = 0; s < 15; ++s) m.step(1e-3);  // particles off the lattice, some across rank faces
  m.update_neighborhood();
  const auto& nb = m.neighborhood();
  const auto all = gather_positions(m, MPI_COMM_WORLD);
  const int nall = static_cast<int>(all.size() / 3);
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), nb.x);
  auto off = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), nb.offset);
  auto idx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), nb.index);
  const double h = nb.support;
  long mismatches = 0, ghost_links = 0;
  for (int i = 0; i < nb.owned; ++i) {
    std::vector<double> mine, ref;
    for (int k = off(i); k < off(i + 1); ++k) {
      const int j = idx(k);
      ghost_links += j >= nb.owned ? 1 : 0;
      double r2 = 0;
      for (int c = 0; c < 3; ++c) r2 += (x(i, c) - x(j, c)) * (x(i, c) - x(j, c));
      mine.push_back(r2);
    }
    for (int j = 0; j < nall; ++j) {
      double r2 = 0;
      for (int c = 0; c < 3; ++c) r2 += (x(i, c) - all[3 * j + c]) * (x(i, c) - all[3 * j + c]);
      if (r2 < h * h && r2 > 0) ref.push_back(r2);
    }
    std::sort(mine.begin(), mine.end());
    std::sort(ref.begin(), ref.end());
    if (mine != ref) ++mismatches;
  }
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Allreduce(MPI_IN_PLACE, &mismatches, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &ghost_links, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(mismatches, 0);
  if (size > 1) EXPECT_GT(ghost_links, 0);
}

TEST(SphDistributed, WarmStartFieldsFollowTheirParticle) {  // warm starts: Jeske et al. 2023, Eq. 20
  auto d = test::deck_from_string(kDropScene);
  sph::SphJeske<3> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 3});
  auto& set = m.particles();
  auto tag = [](int64_t id, int c) { return 1e-3 * static_cast<double>(id) + 0.25 * c; };
  auto write_tags = [&] {
    auto id = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.id());
    auto dv = Kokkos::create_mirror_view(set.field(m.fields().dv_prev));
    for (size_t i = 0; i < set.size(); ++i)
      for (int c = 0; c < 3; ++c) dv(i, c) = tag(id(i), c);
    Kokkos::deep_copy(set.field(m.fields().dv_prev), dv);
  };
  write_tags();
  long crossed = 0;
  std::vector<int64_t> before;
  {
    auto id = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.id());
    for (size_t i = 0; i < set.size(); ++i) before.push_back(id(i));
  }
  // Explicit mode never writes dv_prev, so the tags must survive 40 steps of migration and sorting.
  for (int s = 0; s < 40; ++s) m.step(1e-3);
  auto id = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.id());
  auto dv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().dv_prev));
  long wrong = 0;
  std::sort(before.begin(), before.end());
  for (size_t i = 0; i < set.size(); ++i) {
    for (int c = 0; c < 3; ++c) wrong += dv(i, c) == tag(id(i), c) ? 0 : 1;
    crossed += std::binary_search(before.begin(), before.end(), id(i)) ? 0 : 1;
  }
  MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &crossed, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(wrong, 0);
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size > 1) EXPECT_GT(crossed, 0) << "no particle changed rank: the test did not exercise migration";
}

namespace {
// The diagnostics row of the drop scene (with `overrides`) after `steps` steps of 1 ms on every rank and
// on rank 0 alone.
std::pair<DiagnosticRow, DiagnosticRow> rows_here_and_alone(const std::vector<std::string>& overrides, int steps) {
  auto d = test::deck_from_string(kDropScene, overrides);
  auto run = [&](MPI_Comm comm) {
    sph::SphJeske<3> m(MethodContext{comm, d.deck.root(), 3});
    for (int s = 0; s < steps; ++s) m.step(1e-3);
    DiagnosticRow row;
    m.diagnostics(row);
    return row;
  };
  return test::run_here_and_alone(MPI_COMM_WORLD, run);
}
}  // namespace

class SphRankEquivalence : public ::testing::TestWithParam<const char*> {};

TEST_P(SphRankEquivalence, FiftyStepsMatchOneRank) {
  // Explicit forces, and the implicit solve with adhesion to the box faces (CG tolerance tightened so
  // that the comparison tests the distribution, not the Krylov stopping point).
  const std::string mode = GetParam();
  const auto [mine, ref] =
      rows_here_and_alone({"sph.st_mode=" + mode, "sph.st_tolerance=1e-10", "sph.wall_adhesion=300"}, 50);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) return;
  using test::column;
  EXPECT_EQ(column(mine, "particles"), column(ref, "particles"));
  EXPECT_EQ(column(mine, "components"), column(ref, "components"));
  if (mode == "implicit") EXPECT_GT(column(ref, "cg_iterations"), 0.0);
  const double ke = column(ref, "kinetic_energy");
  ASSERT_GT(ke, 0);
  // DFSPH stops on a mean error and sums in a different order per rank count: agreement to the
  // solver tolerance, not bit for bit.
  EXPECT_NEAR(column(mine, "kinetic_energy"), ke, 1e-6 * ke);
  const double pscale = std::sqrt(2 * ke * column(ref, "mass"));
  for (const char* c : {"momentum_x", "momentum_y", "momentum_z"}) EXPECT_NEAR(column(mine, c), column(ref, c), 1e-6 * pscale);
  for (const char* c : {"radius_of_gyration", "centroid_x", "centroid_y", "centroid_z"})
    EXPECT_NEAR(column(mine, c), column(ref, c), 1e-8);
  EXPECT_NEAR(column(mine, "surface_energy_proxy"), column(ref, "surface_energy_proxy"),
              1e-6 * column(ref, "surface_energy_proxy"));
}

// At step 0 the particles are the same at every rank count, so the whole row is the same bits: the
// conservation sums (mass, kinetic energy, momenta, angular momenta) and the shape measures (centroid,
// gyration tensor, sphericity, rg_over_ball, surface-energy proxy) are reproducible_sum's
// (core/reproducible_sum.hpp, Demmel & Nguyen 2013), not a plain parallel_reduce + MPI_Allreduce.
// With plain sums momentum_z read 9.8303999999999938 against ...9139 on one rank.
TEST(SphDistributed, StepZeroDiagnosticsAreTheSameBitsAtEveryRankCount) {
  const auto [mine, ref] = rows_here_and_alone({}, 0);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) return;
  ASSERT_GT(test::column(ref, "kinetic_energy"), 0.0);
  ASSERT_GT(test::column(ref, "surface_energy_proxy"), 0.0);
  EXPECT_GT(test::expect_same_bits(mine, ref), 25);
}

INSTANTIATE_TEST_SUITE_P(SphDistributed, SphRankEquivalence, ::testing::Values("explicit", "implicit"));

TEST(SphDistributed, EmitterDeliversWholeLayersWithRankIndependentIds) {
  // A disc of radius 0.1 m (d = 0.04; lattice points offset by half a spacing, (a+1/2)^2 + (b+1/2)^2 <=
  // (0.1/0.04)^2 = 6.25: 16 of them) emits one layer every d/|u| = 10 ms at 4 m/s along +x; in 50 steps
  // of 1 ms layers leave at t = 0, 10, 20, 30, 40 ms: 5 x 16 particles. The liquid in the nozzle (the
  // first support radius, 0.08 m, downstream of the disc) keeps u exactly; cohesion between it and the
  // free jet head only brakes the head (no gravity, no walls), so the momentum lies between the
  // nozzle's share and the emitted 80 m u, and it is the same on any number of ranks. A one-particle
  // source far away is the deck's required source.
  const std::string yaml = R"(
simulation: {dimension: 3, method: sph-jeske2023, end_time: 1.0}
domain: {lower: [-0.8, -0.8, -0.8], upper: [0.8, 0.8, 0.8], cell_size: 0.04, walls: none}
sph: {particle_radius: 0.02, gravity: [0, 0, 0], dt: 0.001, st_mode: explicit, surface_tension: 100, mass_volume_factor: 1.0,
      emitters: [{center: [-0.5, 0.01, 0.003], velocity: [4, 0, 0], radius: 0.1, material: water}]}
materials: [{name: water, density: 1000}]
sources: [{type: box, material: water, lower: [0.6, 0.6, 0.6], upper: [0.64, 0.64, 0.64], particles_per_cell: 1}]
)";
  struct Result {
    double particles = 0, momentum = 0, slowest = 0;
    long id_sum = 0;
  };
  auto [here, alone] = test::run_here_and_alone(MPI_COMM_WORLD, [&](MPI_Comm comm) {
    auto d = test::deck_from_string(yaml);
    sph::SphJeske<3> m(MethodContext{comm, d.deck.root(), 3});
    for (int s = 0; s < 50; ++s) m.step(1e-3);
    DiagnosticRow row;
    m.diagnostics(row);
    Result r;
    r.particles = test::column(row, "particles");
    r.momentum = test::column(row, "momentum_x");
    auto ids = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.particles().id());
    auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.particles().field(m.fields().v));
    auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.particles().field(m.fields().x));
    r.slowest = 1e300;
    for (size_t i = 0; i < m.particles().size(); ++i) {
      r.id_sum += ids(i);
      if (x(i, 0) < 0) r.slowest = std::min(r.slowest, v(i, 0));  // the jet, not the far source particle
    }
    MPI_Allreduce(MPI_IN_PLACE, &r.id_sum, 1, MPI_LONG, MPI_SUM, comm);
    MPI_Allreduce(MPI_IN_PLACE, &r.slowest, 1, MPI_DOUBLE, MPI_MIN, comm);
    return r;
  });
  const double mass1 = 1000 * 0.04 * 0.04 * 0.04;
  EXPECT_EQ(here.particles, 1 + 5 * 16);
  // Ids: the source's particle, then 0..79 in the emitters' global order, whatever the rank count.
  EXPECT_EQ(here.id_sum, 0 + (1 + 80) * 80 / 2);
  EXPECT_LE(here.momentum, 80 * mass1 * 4.0 * (1 + 1e-12));
  EXPECT_GT(here.momentum, 0.97 * 80 * mass1 * 4.0);
  EXPECT_GT(here.slowest, 0.0);  // nothing moves against the jet
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    EXPECT_EQ(alone.particles, here.particles);
    EXPECT_EQ(alone.id_sum, here.id_sum);
    EXPECT_NEAR(alone.momentum, here.momentum, 1e-10 * here.momentum);
  }
}
