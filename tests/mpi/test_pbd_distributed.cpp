// The position-based method (Xing et al. 2022) across ranks: 50 steps of a spinning block thrown
// through a box under gravity (particles cross rank faces, land on the floor, the Jacobi sweeps read
// ghost positions and multipliers) give the same particles, by id, on this job's ranks as on one rank.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "methods/pbd/pbd_xing.hpp"
#include "particles/balance.hpp"
#include "scene.hpp"
#include "validation_support.hpp"

using namespace meniscus;

namespace {
const std::string kThrownBlock = R"(
simulation: {dimension: 3, method: pbd-xing2022, end_time: 10.0}
domain: {lower: [0, 0, 0], upper: [4.8, 3.2, 3.2], cell_size: 0.2, walls: slip, wall_cells: 1}
pbd: {particle_radius: 0.1, gravity: [0, 0, -4], iterations: 20, xsph: 0.02}
materials: [{name: liquid}]
sources: [{type: box, material: liquid, lower: [0.8, 1.0, 1.0], upper: [2.0, 2.2, 2.2], particles_per_cell: 1,
           velocity: [1.5, -0.3, 0.2], angular_velocity: 1.0, rotation_center: [1.4, 1.6, 1.6]}]
)";

struct Snapshot {
  std::map<long, std::array<double, 6>> by_id;  // position, velocity
  DiagnosticRow diag;
};

Snapshot gather(pbd::PbdXing& m, MPI_Comm comm) {
  auto& set = m.particles();
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().x));
  auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().v));
  auto id = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.id());
  std::vector<double> mine;
  for (size_t i = 0; i < set.size(); ++i) {
    mine.push_back(static_cast<double>(id(i)));
    for (int d = 0; d < 3; ++d) mine.push_back(x(i, d));
    for (int d = 0; d < 3; ++d) mine.push_back(v(i, d));
  }
  int size = 1;
  MPI_Comm_size(comm, &size);
  int n = static_cast<int>(mine.size());
  std::vector<int> counts(size), displs(size, 0);
  MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
  for (int r = 1; r < size; ++r) displs[r] = displs[r - 1] + counts[r - 1];
  std::vector<double> all(displs[size - 1] + counts[size - 1]);
  MPI_Allgatherv(mine.data(), n, MPI_DOUBLE, all.data(), counts.data(), displs.data(), MPI_DOUBLE, comm);
  Snapshot s;
  for (size_t k = 0; k + 7 <= all.size(); k += 7)
    s.by_id[static_cast<long>(all[k])] = {all[k + 1], all[k + 2], all[k + 3], all[k + 4], all[k + 5], all[k + 6]};
  m.diagnostics(s.diag);
  return s;
}

// This job's particles against the one-rank run's, matched by id.
struct Comparison {
  size_t here = 0, alone = 0;  // particles in this job's run and in the one-rank run
  long missing = 0;       // particles of the one-rank run not found in this job's
  double dx = 0, dv = 0;  // largest position and velocity component differences
  double vmax = 0;        // largest velocity component of the one-rank run
  double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {-1e300, -1e300, -1e300};  // one-rank run's bounding box
};

Comparison compare(const Snapshot& mine, const Snapshot& ref) {
  Comparison c;
  c.here = mine.by_id.size();
  c.alone = ref.by_id.size();
  for (const auto& [id, a] : ref.by_id) {
    for (int k = 0; k < 3; ++k) {
      c.lo[k] = std::min(c.lo[k], a[k]);
      c.hi[k] = std::max(c.hi[k], a[k]);
      c.vmax = std::max(c.vmax, std::fabs(a[3 + k]));
    }
    auto it = mine.by_id.find(id);
    if (it == mine.by_id.end()) {
      ++c.missing;
      continue;
    }
    for (int k = 0; k < 3; ++k) {
      c.dx = std::max(c.dx, std::fabs(it->second[k] - a[k]));
      c.dv = std::max(c.dv, std::fabs(it->second[3 + k] - a[3 + k]));
    }
  }
  return c;
}

// Bit for bit: `count` particles in both runs, every particle of the one-rank run here, at the same
// position and velocity.
void expect_identical(const Comparison& c, size_t count) {
  EXPECT_EQ(c.alone, count) << "particles in the one-rank run";
  EXPECT_EQ(c.here, count) << "particles in this job's run";
  EXPECT_EQ(c.missing, 0) << "particles of the one-rank run missing";
  EXPECT_EQ(c.dx, 0.0) << "largest position difference";
  EXPECT_EQ(c.dv, 0.0) << "largest velocity difference";
}
}  // namespace

TEST(PbdDistributed, FiftyStepsMatchOneRankBitForBit) {
  auto d = test::deck_from_string(kThrownBlock);
  long crossed_total = 0;
  auto run = [&](MPI_Comm comm) {
    pbd::PbdXing m(MethodContext{comm, d.deck.root(), 3});
    std::vector<long> start;
    {
      auto id = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.particles().id());
      for (size_t i = 0; i < m.particles().size(); ++i) start.push_back(id(i));
      std::sort(start.begin(), start.end());
    }
    for (int s = 0; s < 50; ++s) m.step(m.stable_dt());
    auto id = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.particles().id());
    long crossed = 0;
    for (size_t i = 0; i < m.particles().size(); ++i) crossed += std::binary_search(start.begin(), start.end(), id(i)) ? 0 : 1;
    MPI_Allreduce(MPI_IN_PLACE, &crossed, 1, MPI_LONG, MPI_SUM, comm);
    if (crossed_total == 0) crossed_total = crossed;
    return gather(m, comm);
  };
  const auto [mine, ref] = test::run_here_and_alone(MPI_COMM_WORLD, run);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size > 1) EXPECT_GT(crossed_total, 0) << "no particle changed rank: the test did not exercise migration";
  if (rank != 0) return;
  const auto c = compare(mine, ref);
  ASSERT_GT(c.vmax, 0.1);  // the block is still moving: the comparison is not between two resting states
  // The sweeps gather per particle over neighbour rows ordered by global id, so every sum runs in the
  // same order on any rank count: the result is bit-identical, not only equal to round-off. (With
  // rows in storage order the difference starts at 1e-15 and grows about tenfold every 7 steps through
  // the min() of the distance constraints and the wall contacts, to 1e-6 after 50 steps.)
  expect_identical(c, 216u);
  using test::column;
  EXPECT_GT(column(ref.diag, "collider_projections"), 0);  // the block reached the floor
  // The particles being the same bits, so is the diagnostics row: its sums are reproducible_sum's
  // (core/reproducible_sum.hpp, Demmel & Nguyen 2013). With plain parallel_reduce + MPI_Allreduce sums
  // they agreed to round-off only.
  EXPECT_GT(column(ref.diag, "volume"), 0.0);
  EXPECT_GT(column(ref.diag, "surface_area"), 0.0);
  EXPECT_GE(test::expect_same_bits(mine.diag, ref.diag), 15);
}

namespace {
// A block in the first third of a long box: split evenly along x, the first rank holds most of the
// particles; domain.balance = particles (the default) cuts where they split evenly, as far as blocks
// of at least two kernel supports (the local meshes' halo) allow.
const std::string kBlockAtOneEnd = R"(
simulation: {dimension: 3, method: pbd-xing2022, end_time: 10.0}
domain: {lower: [0, 0, 0], upper: [9.6, 2.4, 2.4], cell_size: 0.2, walls: slip, wall_cells: 1, ranks: [0, 1, 1]}
pbd: {particle_radius: 0.1, gravity: [0, 0, -4], iterations: 20, xsph: 0.02}
materials: [{name: liquid}]
sources: [{type: box, material: liquid, lower: [0.4, 0.6, 0.6], upper: [3.2, 1.8, 1.8], particles_per_cell: 1,
           velocity: [0.5, 0, 0]}]
)";
}  // namespace

TEST(PbdDistributed, BalancedStartUpCutsMatchOneRankBitForBit) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  auto balanced = test::deck_from_string(kBlockAtOneEnd);
  auto even = test::deck_from_string(kBlockAtOneEnd, {"domain.balance=even"});
  auto imbalance = [](const run::LoadedDeck& d, MPI_Comm comm) {
    pbd::PbdXing m(MethodContext{comm, d.deck.root(), 3});
    return particles::particle_imbalance(static_cast<long>(m.particles().size()), comm);
  };
  const double load_even = imbalance(even, MPI_COMM_WORLD), load_balanced = imbalance(balanced, MPI_COMM_WORLD);
  test::print_rank0("PBD block at one end of the box, %d ranks along x: max/mean particles per rank %.3f with "
                    "domain.balance even, %.3f with particles", size, load_even, load_balanced);
  if (size == 2) {
    EXPECT_NEAR(load_even, 2.0, 1e-12);  // every particle on the first rank
    EXPECT_LT(load_balanced, 1.15);  // 14 columns of particles cut at a node plane: 8 / 7 = 1.143 measured
  }
  if (size == 4) {
    EXPECT_GT(load_even, 2.8);  // 10 of 14 columns on the first rank: 2.86
    EXPECT_LT(load_balanced, load_even - 0.5);  // blocks at least 8 nodes (two supports + two) wide
  }
  // The run meshes with the lifted-angle Delaunay test (the colliding-droplet decks' setting), so that
  // its fans, like the tangent-plane ones of FiftyStepsMatchOneRankBitForBit, are checked across ranks.
  auto lifted = test::deck_from_string(kBlockAtOneEnd, {"pbd.delaunay_angles=lifted"});
  auto run = [&](MPI_Comm comm) {
    pbd::PbdXing m(MethodContext{comm, lifted.deck.root(), 3});
    for (int s = 0; s < 20; ++s) m.step(m.stable_dt());
    return gather(m, comm);
  };
  const auto [mine, ref] = test::run_here_and_alone(MPI_COMM_WORLD, run);
  if (rank != 0) return;
  const auto c = compare(mine, ref);
  expect_identical(c, 504u);
  EXPECT_GE(test::expect_same_bits(mine.diag, ref.diag), 15);  // the row too (reproducible_sum)
}

TEST(PbdDistributed, ShellSourcesSeedTheSameFilmOnAnyRankCount) {
  // The catenoid film and its rings (shell sources): every rank samples the same surface and keeps
  // the points in its block, so the particles, by id, do not depend on the rank count.
  const std::string deck = R"(
simulation: {dimension: 3, method: pbd-xing2022, end_time: 1.0}
domain: {lower: [-0.8, -0.8, -0.4], upper: [0.8, 0.8, 0.4], cell_size: 0.05, walls: none}
pbd: {particle_radius: 0.025, gravity: [0, 0, 0]}
materials: [{name: film}, {name: ring, kinematic: true}]
sources:
  - {type: shell, material: film, center: [0, 0, 0], radius_start: 0.5, z_start: -0.075, radius_end: 0.5,
     z_end: 0.075, layers: 2, particles_per_cell: 1}
  - {type: shell, material: ring, center: [0, 0, 0], radius_start: 0.5, z_start: 0.125, radius_end: 0.5,
     z_end: 0.175, layers: 2, particles_per_cell: 1, velocity: [0, 0, 0.0375]}
)";
  auto d = test::deck_from_string(deck);
  auto run = [&](MPI_Comm comm) {
    pbd::PbdXing m(MethodContext{comm, d.deck.root(), 3});
    return gather(m, comm);
  };
  const auto [mine, ref] = test::run_here_and_alone(MPI_COMM_WORLD, run);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) return;
  // Film: 4 rows of 60 + 66 points; rings: 2 rows of 126.
  const auto c = compare(mine, ref);
  expect_identical(c, 4u * 126 + 2u * 126);
}

namespace {
// A jet from an inflow disc (pbd.emitters) thrown diagonally through the box: the emitted layers, their
// ids and the held nozzle rows must not depend on the rank count. The disc sits just short of the box's
// mid-planes (x = 2.4, y = z = 1.6) and the liquid spreads across them (the area constraints hold it in
// a lump about the nozzle: at r = 0.1 and area CFM 1 the jet itself does not get far), so it lies on
// more than one rank whichever axes the ranks split.
const std::string kJet = R"(
simulation: {dimension: 3, method: pbd-xing2022, end_time: 10.0}
domain: {lower: [0, 0, 0], upper: [4.8, 3.2, 3.2], cell_size: 0.2, walls: slip, wall_cells: 1, balance: even}
pbd: {particle_radius: 0.1, gravity: [0, 0, -1], iterations: 20, xsph: 0.02,
      emitters: [{center: [2.0, 1.3, 1.3], velocity: [2, 1.5, 1.5], radius: 0.4, material: liquid}]}
materials: [{name: liquid}]
sources: [{type: box, material: liquid, lower: [3.4, 1.0, 0.2], upper: [4.4, 2.2, 0.6], particles_per_cell: 1}]
)";
}  // namespace

TEST(PbdDistributed, EmittedJetMatchesOneRankBitForBit) {
  auto d = test::deck_from_string(kJet);
  long emitted = 0;
  int ranks_with_jet = 0;
  auto run = [&](MPI_Comm comm) {
    pbd::PbdXing m(MethodContext{comm, d.deck.root(), 3});
    const long seeded = m.global_particle_count();
    for (int s = 0; s < 30; ++s) m.step(m.stable_dt());
    emitted = m.emitted();
    auto id = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.particles().id());
    int mine = 0, holding = 0, csize = 1, wsize = 1;
    for (size_t i = 0; i < m.particles().size(); ++i) mine = id(i) >= seeded ? 1 : mine;
    MPI_Allreduce(&mine, &holding, 1, MPI_INT, MPI_SUM, comm);
    MPI_Comm_size(comm, &csize);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (csize == wsize) ranks_with_jet = holding;  // this job's ranks (the first run)
    return gather(m, comm);
  };
  const auto [mine, ref] = test::run_here_and_alone(MPI_COMM_WORLD, run);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size > 1) EXPECT_GE(ranks_with_jet, 2) << "the jet stayed on one rank: no rank face was crossed";
  if (rank != 0) return;
  // 12 points per layer (radius 2 spacings), a layer every d / |u| = 0.0686 s: 15 layers by t = 29/30 s.
  EXPECT_EQ(emitted, 15 * 12);
  const auto c = compare(mine, ref);
  EXPECT_GT(c.hi[0], 2.6);  // the liquid has left the nozzle
  expect_identical(c, c.alone);
}

namespace {
// The thrown block (216 particles, r = 0.1) driven at 6 PU/s (0.2 = 2r per step) down onto a plate 0.04
// thick (0.4 r) that sticks (adhesion CFM 30): the swept collision test and the adhesion constraints
// act on particles on both sides of the rank faces.
const std::string kStickyPlate = R"(
simulation: {dimension: 3, method: pbd-xing2022, end_time: 10.0}
domain: {lower: [0, 0, 0], upper: [4.8, 3.2, 3.2], cell_size: 0.2, walls: slip, wall_cells: 1}
pbd: {particle_radius: 0.1, gravity: [0, 0, -4], iterations: 20, xsph: 0.02, adhesion: true, adhesion_cfm: 30}
materials: [{name: liquid}]
colliders: [{type: box, lower: [-1, -1, 0.6], upper: [6, 4, 0.64], boundary: slip}]
sources: [{type: box, material: liquid, lower: [1.8, 1.0, 1.0], upper: [3.0, 2.2, 2.2], particles_per_cell: 1,
           velocity: [1.0, 0, -6]}]
)";

// `steps` steps of a deck on this job's ranks and on one rank: both snapshots (complete on rank 0).
std::pair<Snapshot, Snapshot> steps_here_and_alone(const std::string& yaml, int steps) {
  auto d = test::deck_from_string(yaml);
  auto run = [&](MPI_Comm comm) {
    pbd::PbdXing m(MethodContext{comm, d.deck.root(), 3});
    for (int s = 0; s < steps; ++s) m.step(m.stable_dt());
    return gather(m, comm);
  };
  return test::run_here_and_alone(MPI_COMM_WORLD, run);
}

int rank_here() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}
}  // namespace

TEST(PbdDistributed, AdhesiveThinPlateMatchesOneRankBitForBit) {
  const auto [mine, ref] = steps_here_and_alone(kStickyPlate, 30);
  if (rank_here() != 0) return;
  const auto c = compare(mine, ref);
  EXPECT_GT(test::column(ref.diag, "collider_projections"), 0);  // the block reached the plate
  EXPECT_GT(c.lo[2], 0.64);  // and nothing went through it
  expect_identical(c, 216u);
}

namespace {
// Two slabs (6 x 6 x 2 particles, r = 0.1) sliding along x on the two sides of a plate 0.4 r thick across
// the whole box, across the rank faces; their facing layers are 0.44 apart, closer than h = 0.6, and
// pbd.split_pairs_by_solids removes the pairs through the plate on every rank alike.
const std::string kSplitByPlate = R"(
simulation: {dimension: 3, method: pbd-xing2022, end_time: 10.0}
domain: {lower: [0, 0, 0], upper: [4.8, 3.2, 3.2], cell_size: 0.2, walls: slip, wall_cells: 1}
pbd: {particle_radius: 0.1, gravity: [0, 0, 0], iterations: 20, xsph: 0.02, split_pairs_by_solids: true}
materials: [{name: liquid}]
colliders: [{type: box, lower: [-1, -1, 1.58], upper: [6, 4, 1.62], boundary: slip}]
sources:
  - {type: box, material: liquid, lower: [1.4, 1.0, 1.08], upper: [2.6, 2.2, 1.48], particles_per_cell: 1,
     velocity: [1.0, 0.2, 0]}
  - {type: box, material: liquid, lower: [1.4, 1.0, 1.72], upper: [2.6, 2.2, 2.12], particles_per_cell: 1,
     velocity: [1.0, 0.2, 0]}
)";
}  // namespace

TEST(PbdDistributed, PairsSplitByAThinPlateMatchOneRankBitForBit) {
  const auto [mine, ref] = steps_here_and_alone(kSplitByPlate, 20);
  if (rank_here() != 0) return;
  const auto c = compare(mine, ref);
  EXPECT_GT(c.vmax, 0.5);  // still sliding
  expect_identical(c, 144u);
}
