// Storage kept across steps:
//  - the explicit MPM step's compact node array (GridField::acquire_active): while the particles move,
//    the box they reach changes position and shape most steps. The array is kept across steps, so a
//    moving box allocates only when it outgrows the store, not every step. Allocations are counted
//    with Kokkos' tool hook on the array's label, so the count is what the allocator saw.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstring>
#include <memory>

#include "grid/grid_field.hpp"

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
