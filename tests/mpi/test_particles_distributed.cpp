// Migration never loses or duplicates a particle; halo plans deliver exactly the particles within
// the interaction width of each rank's region (checked against a brute-force all-gather).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "core/mpi_gather.hpp"
#include "grid/decomposition.hpp"
#include "particles/halo.hpp"
#include "particles/migration.hpp"

using namespace meniscus;

namespace {
std::unique_ptr<grid::Decomposition<2>> unit_square(double dx) {
  grid::Decomposition<2>::Spec s;
  s.lower = {0, 0};
  s.upper = {1, 1};
  s.dx = dx;
  return std::make_unique<grid::Decomposition<2>>(MPI_COMM_WORLD, s);
}

// Every rank creates the particles it owns out of one global random set.
void seed(particles::ParticleSet& set, const grid::Decomposition<2>& dec, int n_global, int xf, int tf) {
  std::mt19937 rng(42);
  std::uniform_real_distribution<double> u(0.05, 0.95);
  std::vector<std::array<double, 2>> mine;
  std::vector<int64_t> ids;
  for (int p = 0; p < n_global; ++p) {
    double x[2] = {u(rng), u(rng)};
    if (dec.owner_of(x) == dec.rank()) {
      mine.push_back({x[0], x[1]});
      ids.push_back(1000 + p);
    }
  }
  set.resize(mine.size());
  auto xv = Kokkos::create_mirror_view(set.field(xf));
  auto tv = Kokkos::create_mirror_view(set.field(tf));
  auto iv = Kokkos::create_mirror_view(set.id());
  for (size_t p = 0; p < mine.size(); ++p) {
    xv(p, 0) = mine[p][0];
    xv(p, 1) = mine[p][1];
    tv(p, 0) = 3.0 * ids[p];
    iv(p) = ids[p];
  }
  Kokkos::deep_copy(set.field(xf), xv);
  Kokkos::deep_copy(set.field(tf), tv);
  Kokkos::deep_copy(set.id(), iv);
}

std::vector<int64_t> all_ids(const particles::ParticleSet& set) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.id());
  std::vector<int64_t> mine(h.data(), h.data() + set.size());
  std::vector<int64_t> out = allgather_vector(MPI_COMM_WORLD, mine);
  std::sort(out.begin(), out.end());
  return out;
}
}  // namespace

TEST(Migration, NoParticleIsLostOrDuplicated) {
  auto dec = unit_square(0.02);
  particles::ParticleSet set;
  const int xf = set.add_field("position", 2);
  const int tf = set.add_field("tag", 1);
  seed(set, *dec, 5000, xf, tf);
  const auto before = all_ids(set);
  ASSERT_EQ(before.size(), 5000u);
  std::mt19937 rng(1 + dec->rank());
  for (int round = 0; round < 30; ++round) {
    // Random moves of up to 0.9 cells: many particles cross rank boundaries every round.
    auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(xf));
    std::uniform_real_distribution<double> u(-0.9 * 0.02, 0.9 * 0.02);
    for (size_t p = 0; p < set.size(); ++p)
      for (int d = 0; d < 2; ++d) x(p, d) = std::clamp(x(p, d) + u(rng), 0.03, 0.97);
    Kokkos::deep_copy(set.field(xf), x);
    particles::migrate<2>(set, *dec, xf);
    if (round % 7 == 0) particles::sort_by_cell<2>(set, *dec, xf);
  }
  EXPECT_EQ(all_ids(set), before);
  // Every particle sits on its owner and kept its payload.
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(xf));
  auto t = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(tf));
  auto id = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.id());
  for (size_t p = 0; p < set.size(); ++p) {
    double xp[2] = {x(p, 0), x(p, 1)};
    EXPECT_EQ(dec->owner_of(xp), dec->rank());
    EXPECT_EQ(t(p, 0), 3.0 * id(p));
  }
}

TEST(Halo, GhostsAreExactlyTheParticlesNearTheRegion) {
  auto dec = unit_square(0.02);
  particles::ParticleSet set;
  const int xf = set.add_field("position", 2);
  const int tf = set.add_field("tag", 1);
  seed(set, *dec, 4000, xf, tf);
  const double width = 0.045;
  particles::HaloPlan<2> halo;
  halo.build(set, *dec, xf, width);
  auto ghost_x = halo.refresh(set.field(xf));
  auto ghost_t = halo.refresh(set.field(tf));

  // Brute force: every particle of another rank inside my region widened by `width`.
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(xf));
  auto ids = all_ids(set);  // collective; sizes only used below
  (void)ids;
  int size = dec->size();
  std::vector<double> mine;
  for (size_t p = 0; p < set.size(); ++p) {
    mine.push_back(x(p, 0));
    mine.push_back(x(p, 1));
  }
  std::vector<int> counts;
  const std::vector<double> all = allgather_vector(MPI_COMM_WORLD, mine, &counts);
  std::vector<int> displs(size, 0);
  for (int r = 1; r < size; ++r) displs[r] = displs[r - 1] + counts[r - 1];
  double lo[2], hi[2];
  dec->region(dec->rank(), lo, hi);
  size_t expected = 0;
  for (int r = 0; r < size; ++r) {
    if (r == dec->rank()) continue;
    for (int k = displs[r]; k < displs[r] + counts[r]; k += 2) {
      const double px = all[k], py = all[k + 1];
      if (px >= lo[0] - width && px < hi[0] + width && py >= lo[1] - width && py < hi[1] + width) ++expected;
    }
  }
  EXPECT_EQ(halo.ghost_count(), expected);
  auto gx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ghost_x);
  auto gt = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ghost_t);
  auto gid = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), halo.ghost_ids());
  for (size_t g = 0; g < halo.ghost_count(); ++g) {
    double xp[2] = {gx(g, 0), gx(g, 1)};
    EXPECT_NE(dec->owner_of(xp), dec->rank()) << "a ghost is never one of my own particles";
    EXPECT_EQ(gt(g, 0), 3.0 * gid(g)) << "refresh replays the plan for any field";
  }
}

TEST(Halo, RowsAttachedToGhostsReachTheOwningParticle) {
  auto dec = unit_square(0.02);
  particles::ParticleSet set;
  const int xf = set.add_field("position", 2);
  const int tf = set.add_field("tag", 1);
  seed(set, *dec, 3000, xf, tf);
  particles::HaloPlan<2> halo;
  halo.build(set, *dec, xf, 0.05);
  // One row per ghost, in reverse order, carrying the ghost's id; the owner must get it back at the
  // particle with that id.
  const int ng = static_cast<int>(halo.ghost_count());
  particles::IndexList ghost_of_row("ghost_of_row", ng);
  particles::RealField payload("payload", ng, 1);
  auto gid = halo.ghost_ids();
  Kokkos::parallel_for(
      ng, KOKKOS_LAMBDA(const int i) {
        ghost_of_row(i) = ng - 1 - i;
        payload(i, 0) = static_cast<double>(gid(ng - 1 - i));
      });
  auto back = halo.send_to_owners(ghost_of_row, {payload});
  EXPECT_EQ(back.owner_index.extent(0), halo.sent_count()) << "every ghost row returns to its owner";
  auto idx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), back.owner_index);
  auto val = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), back.fields[0]);
  auto ids = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.id());
  for (size_t r = 0; r < idx.extent(0); ++r) EXPECT_EQ(static_cast<double>(ids(idx(r))), val(r, 0));
}
