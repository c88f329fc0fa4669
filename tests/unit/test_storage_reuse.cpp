// Storage kept across steps:
//  - the explicit MPM step's compact node array (GridField::acquire_active): while the particles move,
//    the box they reach changes position and shape most steps. The array is kept across steps, so a
//    moving box allocates only when it outgrows the store, not every step. Allocations are counted
//    with Kokkos' tool hook on the array's label, so the count is what the allocator saw.
//  - a particle set's fields, ids and materials across a sort or a removal (ParticleSet::gather): a
//    view taken before sees the permuted rows after (a stale material view once misread rows).
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstring>
#include <memory>

#include "grid/grid_field.hpp"
#include "particles/keep_if.hpp"
#include "particles/migration.hpp"

using namespace meniscus;

namespace {
int g_active_allocations = 0;
void count_active(const Kokkos::Tools::SpaceHandle, const char* label, const void*, uint64_t) {
  if (std::strcmp(label, "active_nodes") == 0) ++g_active_allocations;
}

// The unit square in cells of 1/64 (65 x 65 nodes).
std::unique_ptr<grid::Decomposition<2>> unit_square() {
  grid::Decomposition<2>::Spec spec;
  spec.lower = {0, 0};
  spec.upper = {1, 1};
  spec.dx = 1.0 / 64;
  spec.deck_file = "deck.yaml";
  return std::make_unique<grid::Decomposition<2>>(MPI_COMM_WORLD, spec);
}

grid::NodeBox<2> box_at(int lo_x, int lo_y, int nx, int ny) {
  grid::NodeBox<2> b;
  b.lo[0] = lo_x;
  b.lo[1] = lo_y;
  b.n[0] = nx;
  b.n[1] = ny;
  return b;
}
}  // namespace

TEST(GridActiveStore, MovingBoxReusesTheStore) {
  const auto decomp_ptr = unit_square();
  const auto& decomp = *decomp_ptr;
  if (decomp.size() != 1) GTEST_SKIP() << "one rank: the whole grid is the ghosted box";
  if (!Kokkos::SpaceAccessibility<Kokkos::HostSpace, grid::MemSpace>::accessible) GTEST_SKIP() << "host arrays only";
  grid::GridField<2> field(decomp);
  Kokkos::Tools::Experimental::set_allocate_data_callback(count_active);
  g_active_allocations = 0;
  // 1. A box of fixed shape moving one node every step (a translating block): one allocation.
  const int steps = 40;
  for (int s = 0; s < steps; ++s) {
    auto a = field.acquire_active(box_at(2 + s, 3 + s / 2, 12, 9));
    ASSERT_EQ(a.extent(0), 12u * 9u);
    a(0, 0) = 1.0;  // the next call must hand it back zeroed
  }
  const int translating = g_active_allocations;
  // 2. A spreading box (a dam break's front): from 12 x 9 to 51 x 22 nodes (10.4 times the area), a
  // row or a column at a time, so that it changes shape at 60 of the 61 steps. Growth by an eighth
  // allows ceil(ln 10.4 / ln(9/8)) = 20 allocations at most.
  g_active_allocations = 0;
  const int grow_steps = 61;
  double worst_ratio = 0;
  for (int s = 0; s < grow_steps; ++s) {
    const auto box = box_at(5, 4, 12 + (39 * s) / (grow_steps - 1), 9 + (13 * s) / (grow_steps - 1));
    auto a = field.acquire_active(box);
    ASSERT_EQ(a.extent(0), static_cast<size_t>(box.size()));
    ASSERT_EQ(a.extent(1), static_cast<size_t>(field.dof()));
    for (size_t i = 0; i < a.extent(0); ++i)
      for (size_t c = 0; c < a.extent(1); ++c) ASSERT_EQ(a(i, c), 0.0) << "step " << s << " row " << i;
    for (size_t i = 0; i < a.extent(0); ++i) a(i, 0) = 1.0 + i;
    worst_ratio = std::max(worst_ratio, static_cast<double>(field.active_capacity()) / box.size());
  }
  const int growing = g_active_allocations;
  // 3. The box shrinks to a tenth of the store: the store is released down to it.
  g_active_allocations = 0;
  field.acquire_active(box_at(5, 4, 10, 10));
  const int shrunk = g_active_allocations;
  Kokkos::Tools::Experimental::set_allocate_data_callback(nullptr);
  EXPECT_EQ(translating, 1) << "a box that only moves allocated " << translating << " times in " << steps << " steps";
  EXPECT_GE(growing, 1);
  EXPECT_LE(growing, static_cast<int>(std::ceil(std::log((51.0 * 22) / (12.0 * 9)) / std::log(9.0 / 8))))
      << "a growing box allocated " << growing << " times in " << grow_steps << " steps";
  EXPECT_LE(worst_ratio, 2.0) << "the store held more than twice the box";
  EXPECT_EQ(shrunk, 1);
  EXPECT_LE(field.active_capacity(), 2u * 100u);
}

namespace {
// Keeps the particles with even ids (a device function object: no lambda in a test body).
struct EvenId {
  particles::IdField id;
  KOKKOS_INLINE_FUNCTION bool operator()(const int p) const { return id(p) % 2 == 0; }
};

// Every row of the views taken before holds one particle: position, material and id agree with the
// particle's id as it was seeded. Returns how many rows moved from where they were seeded.
int check_rows(const particles::IdField& id_d, const particles::IntField& mat_d, const particles::RealField& x_d,
               size_t n) {
  auto id = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), id_d);
  auto mat = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mat_d);
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x_d);
  int moved = 0;
  for (size_t p = 0; p < n; ++p) {
    const long k = id(p) - 1000;
    EXPECT_EQ(mat(p), k % 3) << "row " << p;
    EXPECT_EQ(x(p, 0), 0.99 - 0.015 * k) << "row " << p;
    EXPECT_EQ(x(p, 1), 0.5) << "row " << p;
    moved += k != static_cast<long>(p) ? 1 : 0;
  }
  return moved;
}
}  // namespace

TEST(ParticleSetStorage, ViewsTakenBeforeASortSeeTheSortedRows) {
  const auto decomp = unit_square();
  particles::ParticleSet set;
  const int xf = set.add_field("x", 2);
  const size_t n = 60;
  set.resize(n);
  {
    auto id = Kokkos::create_mirror_view(set.id());
    auto mat = Kokkos::create_mirror_view(set.material());
    auto x = Kokkos::create_mirror_view(set.field(xf));
    for (size_t k = 0; k < n; ++k) {
      id(k) = 1000 + k;
      mat(k) = k % 3;
      x(k, 0) = 0.99 - 0.015 * k;  // right to left: the sort by cell reverses the rows
      x(k, 1) = 0.5;
    }
    Kokkos::deep_copy(set.id(), id);
    Kokkos::deep_copy(set.material(), mat);
    Kokkos::deep_copy(set.field(xf), x);
  }
  const auto id = set.id();
  const auto mat = set.material();
  const auto x = set.field(xf);
  particles::sort_by_cell<2>(set, *decomp, xf);
  ASSERT_EQ(set.size(), n);
  EXPECT_EQ(set.id().data(), id.data());
  EXPECT_EQ(set.material().data(), mat.data());
  EXPECT_EQ(set.field(xf).data(), x.data());
  EXPECT_GT(check_rows(id, mat, x, n), static_cast<int>(n) / 2) << "the sort must move rows for the test to mean anything";
  // Removal gathers too: the kept rows come first in the same storage.
  EXPECT_EQ(particles::keep_if(set, EvenId{set.id()}, "test::keep_even"), static_cast<long>(n / 2));
  ASSERT_EQ(set.size(), n / 2);
  EXPECT_EQ(set.id().data(), id.data());
  EXPECT_EQ(set.material().data(), mat.data());
  check_rows(id, mat, x, n / 2);
  auto idh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), id);
  for (size_t p = 0; p < n / 2; ++p) EXPECT_EQ(idh(p) % 2, 0) << "row " << p;
}
