// Each parent's surface samples in ascending row order (mpm::sample_groups): the per-parent sums over
// samples (merged velocities, conservative temperatures, group areas) add in this order, the same in
// every run whatever the threads do.
#include <gtest/gtest.h>

#include <vector>

#include "methods/mpm/surface_resampling.hpp"

using namespace meniscus;

TEST(SampleGroups, RowsOfEachParentInAscendingOrder) {
  // 4 parents; parent 3 has no samples. 400 rows: at more than one thread, several fill each group.
  std::vector<int> parents;
  for (int k = 0; k < 400; ++k) parents.push_back((k * 7) % 3 == 0 ? 2 : (k % 5 == 0 ? 0 : 1));
  particles::IndexList parent("parent", parents.size());
  auto ph = Kokkos::create_mirror_view(parent);
  for (size_t r = 0; r < parents.size(); ++r) ph(r) = parents[r];
  Kokkos::deep_copy(parent, ph);
  const auto g = mpm::sample_groups(parent, 4);
  auto size = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.size);
  auto start = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.start);
  auto members = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.members);
  ASSERT_EQ(start.extent(0), 5u);
  ASSERT_EQ(members.extent(0), parents.size());
  EXPECT_EQ(start(0), 0);
  EXPECT_EQ(start(4), static_cast<int>(parents.size()));
  for (int p = 0; p < 4; ++p) {
    std::vector<int> expected;
    for (size_t r = 0; r < parents.size(); ++r)
      if (parents[r] == p) expected.push_back(static_cast<int>(r));
    EXPECT_EQ(size(p), static_cast<int>(expected.size())) << "parent " << p;
    ASSERT_EQ(start(p + 1) - start(p), static_cast<int>(expected.size())) << "parent " << p;
    for (size_t k = 0; k < expected.size(); ++k) EXPECT_EQ(members(start(p) + k), expected[k]) << "parent " << p;
  }
}
