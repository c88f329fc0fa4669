// `domain.balance` for the liquid-membrane method (Ruan et al. 2021): the membrane is replicated on
// every rank, so the work that a rank cut can balance is the grid's, whose pressure rows are the
// liquid cells. With `balance: particles` (the default) the start-up cuts split the liquid cells
// evenly; `balance: even` splits the box.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "methods/membrane/membrane_ruan.hpp"
#include "scene.hpp"

namespace meniscus {
namespace {

// A shallow pool (a quarter of the box's height) cut across the height: an even split leaves the
// upper ranks with air only.
const std::string kShallowPool =
    "simulation: {dimension: 2, method: membrane-ruan2021, end_time: 0.01, name: membrane-balance}\n"
    "domain: {lower: [0, 0], upper: [1.0, 1.0], cell_size: 0.025, ranks: [1, 0]}\n"
    "membrane: {shape: pool, level: 0.25, surface_tension: 0.9, gravity: [0, -9.8]}\n";

// Max over ranks of the FLUID cells each owns, divided by the mean (collective).
double fluid_imbalance(membrane::MembraneRuan& m) {
  membrane::MacGrid& grid = m.flow().grid();
  const auto g = grid.geometry();
  auto a = grid.field().acquire_local(false);
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
  grid.field().release_local(a);
  long mine = 0;
  for (int j = g.owned.lo[1]; j < g.owned.lo[1] + g.owned.n[1]; ++j)
    for (int i = g.owned.lo[0]; i < g.owned.lo[0] + g.owned.n[0]; ++i)
      if (i < g.cells[0] && j < g.cells[1] && g.cell_type(h, i, j) == membrane::kFluid) ++mine;
  long sum = 0, most = 0;
  int size = 1;
  MPI_Comm_size(grid.comm(), &size);
  MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, grid.comm());
  MPI_Allreduce(&mine, &most, 1, MPI_LONG, MPI_MAX, grid.comm());
  return sum > 0 ? static_cast<double>(most) * size / sum : 0.0;
}

double imbalance_for(const std::string& balance) {
  auto d = test::deck_from_string(kShallowPool, {"domain.balance=" + balance});
  membrane::MembraneRuan m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 2});
  return fluid_imbalance(m);
}

// At 2 and 4 ranks stacked in y: even cuts give max/mean = 2 and 4 (all liquid on the lowest
// rank(s)); liquid-balanced cuts bring it within 10 % of 1 (the cuts fall on whole cell rows: 10 rows
// of liquid over 4 ranks cannot split exactly). One rank: 1 either way.
TEST(MembraneBalance, LiquidBalancedCutsSplitTheLiquidCellsEvenly) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const double even = imbalance_for("even"), balanced = imbalance_for("particles");
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0)
    std::printf("membrane balance at %d ranks: max/mean liquid cells %.3f (even) -> %.3f (particles)\n", size, even,
                balanced);
  if (size == 1) {
    EXPECT_DOUBLE_EQ(even, 1.0);
    EXPECT_DOUBLE_EQ(balanced, 1.0);
    return;
  }
  EXPECT_GT(even, 0.9 * size);  // the lowest quarter of the box holds all the liquid
  EXPECT_LT(balanced, size == 4 ? 1.25 : 1.1);  // 4 ranks: blocks of 3 rows at least give 3/3/3/1
}

}  // namespace
}  // namespace meniscus
