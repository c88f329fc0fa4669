// A particle source shaped by a watertight OBJ mesh (inputs/meshes/torus.obj, written by
// scripts/make-mesh.py): the seeded volume matches the torus, and the seeding does not depend on how
// many ranks share the domain (same count, same global ids, unique across ranks).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "geometry/triangle_mesh.hpp"
#include "methods/mpm/mpm_method.hpp"
#include "scene.hpp"

using namespace meniscus;

namespace {

constexpr double kMajor = 0.2, kMinor = 0.08;  // the radii scripts/make-mesh.py writes
constexpr double kDx = 0.01;
constexpr int kPerCell = 8;  // lattice spacing dx / 2

std::string torus_path() { return test::source_dir() + "/inputs/meshes/torus.obj"; }

// The torus (axis along z, centred at the origin) moved to the middle of a domain that holds it with
// room to spare; no walls, no gravity: nothing but the seeding matters.
std::string torus_deck() {
  return R"(
simulation: {dimension: 3, method: mpm, end_time: 1.0}
domain: {lower: [0, 0, 0], upper: [0.72, 0.72, 0.32], cell_size: )" +
         std::to_string(kDx) + R"(, walls: none}
mpm: {gravity: [0, 0, 0]}
materials: [{name: water, model: fluid, density: 1000, bulk_modulus: 1.0e5}]
sources:
  - {type: mesh, material: water, file: ")" +
         torus_path() + R"(", translate: [0.36, 0.36, 0.16], particles_per_cell: )" + std::to_string(kPerCell) +
         R"(}
)";
}

// All global ids of this rank's particles.
std::vector<int64_t> local_ids(mpm::MpmMethod<3>& m) {
  auto& set = m.particles();
  auto ids = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.id());
  return std::vector<int64_t>(ids.data(), ids.data() + set.size());
}

// Every rank's ids, concatenated on rank 0 of `comm` (empty elsewhere).
std::vector<int64_t> gather_ids(const std::vector<int64_t>& mine, MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int n = static_cast<int>(mine.size());
  std::vector<int> counts(size), displs(size);
  MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
  std::vector<int64_t> all;
  if (rank == 0) {
    int total = 0;
    for (int r = 0; r < size; ++r) {
      displs[r] = total;
      total += counts[r];
    }
    all.resize(total);
  }
  MPI_Gatherv(mine.data(), n, MPI_INT64_T, all.data(), counts.data(), displs.data(), MPI_INT64_T, 0, comm);
  return all;
}

}  // namespace

TEST(MeshSource, SeededVolumeMatchesTheTorus) {
  auto d = test::deck_from_string(torus_deck());
  mpm::MpmMethod<3> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 3});
  const long n = m.global_particle_count();
  const double cell = kDx * kDx * kDx / kPerCell;
  const double seeded = n * cell;
  const double smooth = 2.0 * M_PI * M_PI * kMajor * kMinor * kMinor;
  const auto mesh = geometry::load_obj(torus_path(), "test", "torus");
  const double polygonal = geometry::signed_volume(mesh);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0)
    std::printf("[ mesh     ] %ld particles, seeded volume %.6e m^3; OBJ %.6e (%+.3f %%); 2 pi^2 R r^2 %.6e (%+.3f %%)\n",
                n, seeded, polygonal, 100 * (seeded / polygonal - 1), smooth, 100 * (seeded / smooth - 1));
  ASSERT_GT(n, 0);
  EXPECT_GT(polygonal, 0.0);
  // The OBJ is inscribed in the smooth torus: a little smaller, by about 2 % at 40 x 20 segments.
  EXPECT_LT(polygonal, smooth);
  EXPECT_LT(std::fabs(seeded - smooth) / smooth, 0.03);
  EXPECT_LT(std::fabs(seeded - polygonal) / polygonal, 0.02);
  // Every particle carries the volume of its lattice cell, and the mass follows from it.
  DiagnosticRow row;
  m.diagnostics(row);
  for (const auto& [name, value] : row) {
    if (name == "mass") EXPECT_NEAR(value, 1000.0 * seeded, 1e-9 * 1000.0 * seeded);
  }
}

TEST(MeshSource, SeedingDoesNotDependOnTheRankCount) {
  auto d = test::deck_from_string(torus_deck());
  mpm::MpmMethod<3> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 3});
  const long n = m.global_particle_count();
  const std::vector<int64_t> mine = local_ids(m);
  EXPECT_EQ(static_cast<long>(mine.size()), static_cast<long>(m.particles().size()));
  std::vector<int64_t> all = gather_ids(mine, MPI_COMM_WORLD);

  // The one-rank reference, built inside this job on rank 0 alone.
  MPI_Comm solo = test::rank0_comm(MPI_COMM_WORLD);
  if (solo != MPI_COMM_NULL) {
    mpm::MpmMethod<3> ref(MethodContext{solo, d.deck.root(), 3});
    const long n_ref = ref.global_particle_count();
    std::vector<int64_t> ref_ids = local_ids(ref);
    MPI_Comm_free(&solo);

    EXPECT_EQ(n, n_ref);
    ASSERT_EQ(static_cast<long>(all.size()), n);
    std::sort(all.begin(), all.end());
    std::sort(ref_ids.begin(), ref_ids.end());
    EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end()) << "a global id occurs on two ranks";
    EXPECT_EQ(std::adjacent_find(ref_ids.begin(), ref_ids.end()), ref_ids.end()) << "a global id occurs twice";
    EXPECT_TRUE(all == ref_ids) << "the ids differ from the one-rank run";
    EXPECT_GE(all.front(), 0);
  }
  // Every rank agrees on the total; with several ranks each holds a share of the torus.
  long n_max = 0, n_min = 0;
  MPI_Allreduce(&n, &n_max, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(&n, &n_min, 1, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
  EXPECT_EQ(n_max, n_min);
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size > 1) {
    EXPECT_LT(static_cast<long>(mine.size()), n);
  }
}
