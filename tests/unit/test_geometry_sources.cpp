// Lattice seeding: particle counts against areas and exact box counts, and independence of the
// seeded set from how the owned region is split among ranks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

#include "geometry/shapes.hpp"
#include "geometry/sources.hpp"

namespace g = meniscus::geometry;

namespace {

constexpr double inf = HUGE_VAL;

template <int Dim>
struct HostSeeds {
  std::vector<int64_t> index;
  std::vector<std::array<double, Dim>> x;
};

template <int Dim>
HostSeeds<Dim> to_host(const g::Seeds<Dim>& s) {
  auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.x);
  auto hi = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.lattice_index);
  HostSeeds<Dim> out;
  for (size_t i = 0; i < hi.extent(0); ++i) {
    out.index.push_back(hi(i));
    std::array<double, Dim> p;
    for (int d = 0; d < Dim; ++d) p[d] = hx(i, d);
    out.x.push_back(p);
  }
  return out;
}

template <int Dim>
HostSeeds<Dim> seed_all(const g::Shape<Dim>& shape, std::array<double, Dim> lo, std::array<double, Dim> hi, double s) {
  std::array<double, Dim> olo, ohi;
  olo.fill(-inf);
  ohi.fill(inf);
  return to_host<Dim>(g::seed_lattice<Dim>(shape, lo, hi, s, olo, ohi));
}

// Seeds each slab [cuts[k], cuts[k+1]) along `axis` separately and checks that together they are
// exactly the unsplit set: same lattice indices and positions, nothing twice.
template <int Dim>
void expect_split_invariant(const g::Shape<Dim>& shape, std::array<double, Dim> lo, std::array<double, Dim> hi,
                            double s, int axis, const std::vector<double>& cuts) {
  const auto whole = seed_all<Dim>(shape, lo, hi, s);
  ASSERT_TRUE(std::is_sorted(whole.index.begin(), whole.index.end()));
  std::vector<std::pair<int64_t, std::array<double, Dim>>> parts;
  for (size_t k = 0; k + 1 < cuts.size(); ++k) {
    std::array<double, Dim> olo, ohi;
    olo.fill(-inf);
    ohi.fill(inf);
    olo[axis] = cuts[k];
    ohi[axis] = cuts[k + 1];
    const auto part = to_host<Dim>(g::seed_lattice<Dim>(shape, lo, hi, s, olo, ohi));
    for (size_t i = 0; i < part.index.size(); ++i) {
      EXPECT_GE(part.x[i][axis], cuts[k]);
      EXPECT_LT(part.x[i][axis], cuts[k + 1]);
      parts.push_back({part.index[i], part.x[i]});
    }
  }
  std::sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  ASSERT_EQ(parts.size(), whole.index.size());
  for (size_t i = 0; i < parts.size(); ++i) {
    ASSERT_EQ(parts[i].first, whole.index[i]);
    for (int d = 0; d < Dim; ++d) ASSERT_EQ(parts[i].second[d], whole.x[i][d]);
  }
}

}  // namespace

TEST(GeometrySources, DiscCountMatchesArea) {
  const double radius = 1.0, s = 0.02;
  const auto seeds = seed_all<2>(g::sphere<2>({0.3, -0.2}, radius), {-0.7, -1.2}, {1.3, 0.8}, s);
  const double expected = M_PI * radius * radius / (s * s);
  EXPECT_NEAR(static_cast<double>(seeds.index.size()), expected, 0.02 * expected);
  for (const auto& p : seeds.x) EXPECT_LT(std::hypot(p[0] - 0.3, p[1] + 0.2), radius);
}

TEST(GeometrySources, SphereCountMatchesVolume) {
  const double radius = 0.5, s = 0.025;
  const auto seeds = seed_all<3>(g::sphere<3>({0.0, 0.0, 0.0}, radius), {-0.5, -0.5, -0.5}, {0.5, 0.5, 0.5}, s);
  const double expected = 4.0 / 3.0 * M_PI * std::pow(radius, 3) / std::pow(s, 3);
  EXPECT_NEAR(static_cast<double>(seeds.index.size()), expected, 0.02 * expected);
}

TEST(GeometrySources, BoxCountIsExact) {
  const auto filled = seed_all<2>(g::box<2>({0.0, 0.0}, {1.0, 0.5}), {0.0, 0.0}, {1.0, 0.5}, 0.1);
  EXPECT_EQ(filled.index.size(), 50u);  // 10 x 5, no spurious layer from 1.0 / 0.1 rounding up
  ASSERT_FALSE(filled.x.empty());
  EXPECT_DOUBLE_EQ(filled.x[0][0], 0.05);
  EXPECT_DOUBLE_EQ(filled.x[0][1], 0.05);
  EXPECT_EQ(filled.index[1], 1);  // axis 0 fastest
  EXPECT_EQ(filled.index[10], 10);

  // A smaller box inside the lattice: points 0.25, 0.35, ..., 0.75 per axis.
  const auto inner = seed_all<3>(g::box<3>({0.2, 0.2, 0.2}, {0.8, 0.8, 0.8}), {0.0, 0.0, 0.0}, {1.0, 1.0, 1.0}, 0.1);
  EXPECT_EQ(inner.index.size(), 216u);
  EXPECT_EQ(inner.index.front(), 2 + 10 * 2 + 100 * 2);
}

TEST(GeometrySources, SplitDomainsSeedTheSameParticles) {
  const auto disc = g::sphere<2>({0.0, 0.0}, 1.0);
  const double s = 0.05;
  // A cut exactly on a lattice coordinate tests the half-open ownership rule.
  const double on_lattice = -1.0 + (17 + 0.5) * s;
  expect_split_invariant<2>(disc, {-1.0, -1.0}, {1.0, 1.0}, s, 0, {-inf, 0.1, inf});
  expect_split_invariant<2>(disc, {-1.0, -1.0}, {1.0, 1.0}, s, 1, {-inf, on_lattice, 0.37, inf});
  expect_split_invariant<2>(disc, {-1.0, -1.0}, {1.0, 1.0}, s, 0, {-1.0, -0.3333, 0.3333, 1.0});

  const auto ball = g::ellipsoid<3>({0.1, 0.0, -0.1}, {0.8, 0.6, 0.5});
  expect_split_invariant<3>(ball, {-1.0, -1.0, -1.0}, {1.0, 1.0, 1.0}, 0.04, 2, {-inf, 0.0, inf});
  expect_split_invariant<3>(ball, {-1.0, -1.0, -1.0}, {1.0, 1.0, 1.0}, 0.04, 0, {-inf, -0.2, -1.0 + 30.5 * 0.04, inf});
}

TEST(GeometrySources, OwnedBoxOutsideTheLatticeSeedsNothing) {
  const auto seeds = g::seed_lattice<2>(g::sphere<2>({0.0, 0.0}, 1.0), {-1.0, -1.0}, {1.0, 1.0}, 0.1, {5.0, 5.0},
                                        {6.0, 6.0});
  EXPECT_EQ(seeds.x.extent(0), 0u);
  EXPECT_EQ(seeds.lattice_index.extent(0), 0u);
}

TEST(GeometrySources, LatticeSpacingNeedsPerfectPowers) {
  EXPECT_DOUBLE_EQ(g::lattice_spacing(1.0, 1, 2), 1.0);
  EXPECT_DOUBLE_EQ(g::lattice_spacing(1.0, 4, 2), 0.5);
  EXPECT_DOUBLE_EQ(g::lattice_spacing(0.3, 9, 2), 0.1);
  EXPECT_DOUBLE_EQ(g::lattice_spacing(1.0, 16, 2), 0.25);
  EXPECT_DOUBLE_EQ(g::lattice_spacing(1.0, 8, 3), 0.5);
  EXPECT_DOUBLE_EQ(g::lattice_spacing(0.9, 27, 3), 0.3);
  EXPECT_DOUBLE_EQ(g::lattice_spacing(1.0, 64, 3), 0.25);
  EXPECT_THROW(g::lattice_spacing(1.0, 2, 2), std::invalid_argument);
  EXPECT_THROW(g::lattice_spacing(1.0, 8, 2), std::invalid_argument);
  EXPECT_THROW(g::lattice_spacing(1.0, 4, 3), std::invalid_argument);
  EXPECT_THROW(g::lattice_spacing(1.0, 0, 3), std::invalid_argument);
  EXPECT_THROW(g::lattice_spacing(0.0, 4, 2), std::invalid_argument);
  try {
    g::lattice_spacing(1.0, 5, 2);
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("perfect square"), std::string::npos) << e.what();
  }
}

TEST(GeometrySources, RejectsBadLattices) {
  const auto disc = g::sphere<2>({0.0, 0.0}, 1.0);
  EXPECT_THROW(g::seed_lattice<2>(disc, {0.0, 0.0}, {1.0, 1.0}, 0.0, {0.0, 0.0}, {1.0, 1.0}), std::invalid_argument);
  EXPECT_THROW(g::seed_lattice<2>(disc, {0.0, 0.0}, {0.0, 1.0}, 0.1, {0.0, 0.0}, {1.0, 1.0}), std::invalid_argument);
}
