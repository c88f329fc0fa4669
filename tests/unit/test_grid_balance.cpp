// Particle-balanced ownership ranges (grid/balance.hpp): the cuts of one axis follow the cumulative
// particle count, respect the minimum block width, fall back to the even split without particles; the
// process grid with the best predicted load is chosen.
#include <gtest/gtest.h>

#include <numeric>

#include "grid/balance.hpp"

using namespace meniscus;

TEST(GridBalance, CutsFollowTheCumulativeCount) {
  // 17 nodes; particles on nodes 2..9 only (the ExaMPM block in one corner): 1, 2, ..., 2, 1 per plane.
  std::vector<long> h(17, 0);
  h[2] = 1;
  for (int k = 3; k <= 8; ++k) h[k] = 2;
  h[9] = 1;
  const auto r2 = grid::balanced_ranges(h, 2, 3);
  ASSERT_EQ(r2.size(), 2u);
  EXPECT_EQ(r2[0] + r2[1], 17);
  EXPECT_EQ(r2[0], 6) << "nodes 0..5 hold 1 + 2 + 2 + 2 = 7 of the 14 layers";
  const auto r4 = grid::balanced_ranges(h, 4, 3);
  EXPECT_EQ(std::accumulate(r4.begin(), r4.end(), 0), 17);
  for (int r : r4) EXPECT_GE(r, 3);
}

TEST(GridBalance, MinimumWidthAndEmptyAxis) {
  // Everything on one node: the blocks keep their minimum width; no particles: the even split.
  std::vector<long> h(12, 0);
  h[0] = 100;
  const auto r = grid::balanced_ranges(h, 3, 3);
  EXPECT_EQ(r, (std::vector<int>{3, 3, 6}));
  EXPECT_EQ(grid::balanced_ranges(std::vector<long>(12, 0), 3, 3), (std::vector<int>{4, 4, 4}));
}

TEST(GridBalance, LayoutPrefersTheBalancedProcessGrid) {
  // 7 particle planes along x (cannot be halved), 8 along y: two ranks split y exactly.
  std::array<std::vector<long>, 2> h{std::vector<long>(20, 0), std::vector<long>(20, 0)};
  for (int k = 0; k < 7; ++k) h[0][2 + k] = 8;
  for (int k = 0; k < 8; ++k) h[1][2 + k] = 7;
  std::array<int, 2> procs{};
  std::array<std::vector<int>, 2> ranges;
  ASSERT_EQ(grid::balanced_layout<2>(h, 2, 3, {0, 0}, procs, ranges), "");
  EXPECT_EQ(procs, (std::array<int, 2>{1, 2}));
  EXPECT_DOUBLE_EQ(grid::predicted_imbalance<2>(h, ranges), 1.0);
  // A fixed process grid is honoured: along x the best is 4 of 7 planes, 8/7 of the mean.
  ASSERT_EQ(grid::balanced_layout<2>(h, 2, 3, {2, 0}, procs, ranges), "");
  EXPECT_EQ(procs, (std::array<int, 2>{2, 1}));
  EXPECT_NEAR(grid::predicted_imbalance<2>(h, ranges), 8.0 / 7.0, 1e-12);
  // Too many ranks for the grid: the reason, as for the even split.
  EXPECT_NE(grid::balanced_layout<2>(h, 64, 3, {0, 0}, procs, ranges), "");
}
