// Marching squares and surface sampling in 2D (Chen et al. 2021, Sec. 4.1.1): the contour of a disc's signed
// distance converges to the circle, is closed and oriented outward; samples lie on their segments
// and their area-weighted normals add up to the perimeter.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "geometry/contour_2d.hpp"

using namespace meniscus::geometry;

namespace {
struct Disc {
  double cx = 0.013, cy = -0.021, R = 0.31;
  double phi(double x, double y) const { return std::hypot(x - cx, y - cy) - R; }
};

Segments2D contour(const Disc& disc, double h, Lattice2D& L) {
  const int n = static_cast<int>(std::ceil(1.0 / h)) + 1;
  L = Lattice2D{{-0.5, -0.5}, h, {n, n}, {0, 0}};
  Kokkos::View<double*> phi("phi", n * n);
  auto ph = Kokkos::create_mirror_view(phi);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) ph(i + n * j) = disc.phi(-0.5 + i * h, -0.5 + j * h);
  Kokkos::deep_copy(phi, ph);
  const int lo[2] = {0, 0}, hi[2] = {n - 1, n - 1};
  return marching_squares(phi, L, lo, hi, n);
}

double perimeter(const Segments2D& s) {
  auto e = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.ends);
  double L = 0;
  for (size_t q = 0; q < s.size(); ++q) L += std::hypot(e(q, 1, 0) - e(q, 0, 0), e(q, 1, 1) - e(q, 0, 1));
  return L;
}
}  // namespace

TEST(Contour2D, CircleIsClosedOutwardAndConverges) {
  Disc disc;
  double previous_error = 1e9;
  for (double h : {0.04, 0.02, 0.01}) {
    Lattice2D L;
    const auto s = contour(disc, h, L);
    auto e = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.ends);
    std::map<std::pair<long, long>, int> starts, stops;
    for (size_t q = 0; q < s.size(); ++q) {
      // Endpoints lie on the circle up to the interpolation error O(h^2 / R).
      for (int k = 0; k < 2; ++k) EXPECT_LT(std::fabs(disc.phi(e(q, k, 0), e(q, k, 1))), h * h / disc.R);
      const double mx = 0.5 * (e(q, 0, 0) + e(q, 1, 0)), my = 0.5 * (e(q, 0, 1) + e(q, 1, 1));
      const double nx = e(q, 1, 1) - e(q, 0, 1), ny = e(q, 0, 0) - e(q, 1, 0);
      EXPECT_GT(nx * (mx - disc.cx) + ny * (my - disc.cy), 0.0) << "normal points outward";
      starts[{std::lround(e(q, 0, 0) * 1e9), std::lround(e(q, 0, 1) * 1e9)}]++;
      stops[{std::lround(e(q, 1, 0) * 1e9), std::lround(e(q, 1, 1) * 1e9)}]++;
    }
    EXPECT_EQ(starts, stops) << "every segment's end is the next one's start: a closed, consistently oriented curve";
    const double err = std::fabs(perimeter(s) - 2 * M_PI * disc.R) / (2 * M_PI * disc.R);
    EXPECT_LT(err, previous_error) << "h = " << h;
    EXPECT_LT(err, 5e-3);
    previous_error = err;
  }
}

TEST(Contour2D, SaddleCellsGiveTwoSegments) {
  // Corners 0 and 2 inside: with the centre inside they connect (segments cut off corners 1 and 3).
  Lattice2D L{{0, 0}, 1.0, {2, 2}, {0, 0}};
  Kokkos::View<double*> phi("phi", 4);
  auto h = Kokkos::create_mirror_view(phi);
  h(0) = -1; h(1) = 0.5; h(2) = 0.5; h(3) = -1;  // nodes (0,0) (1,0) (0,1) (1,1), x fastest
  Kokkos::deep_copy(phi, h);
  const int lo[2] = {0, 0}, hi[2] = {1, 1};
  auto s = marching_squares(phi, L, lo, hi, 2);
  ASSERT_EQ(s.size(), 2u);
  auto e = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.ends);
  for (int q = 0; q < 2; ++q) {
    // Each segment's midpoint is nearer corner 1 (1,0) or corner 3 (0,1): those are cut off.
    const double mx = 0.5 * (e(q, 0, 0) + e(q, 1, 0)), my = 0.5 * (e(q, 0, 1) + e(q, 1, 1));
    const double d1 = std::hypot(mx - 1, my), d3 = std::hypot(mx, my - 1);
    EXPECT_LT(std::min(d1, d3), 0.5);
  }
}

TEST(Contour2D, SamplesCoverThePerimeterAndLieOnSegments) {
  Disc disc;
  Lattice2D L;
  const auto s = contour(disc, 0.01, L);
  const double exact = perimeter(s);
  for (auto weight : {AreaWeight::Uniform, AreaWeight::PerElement}) {
    const auto samples = sample_segments(s, 4.0 / 0.01 * 25, weight, 1234, 7);
    auto p = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), samples.position);
    auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), samples.area);
    double sum = 0;
    for (size_t r = 0; r < samples.size(); ++r) {
      sum += std::hypot(a(r, 0), a(r, 1));
      EXPECT_LT(std::fabs(disc.phi(p(r, 0), p(r, 1))), 1e-4) << "sample on the contour";
      EXPECT_GT(a(r, 0) * (p(r, 0) - disc.cx) + a(r, 1) * (p(r, 1) - disc.cy), 0.0) << "outward";
    }
    EXPECT_NEAR(sum, exact, 0.02 * exact);
  }
  // At the paper's 4 samples per cell length, per-element weights still give the perimeter exactly:
  // every cell's segments draw at least one sample (per segment, empty short segments lost 4 % of a
  // drop's perimeter). Uniform weights lose nothing in expectation but fluctuate.
  const double density = 4.0 / 0.01;
  const auto paper = sample_segments(s, density, AreaWeight::PerElement, 1234, 7);
  auto ap = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), paper.area);
  double sum = 0;
  for (size_t r = 0; r < paper.size(); ++r) sum += std::hypot(ap(r, 0), ap(r, 1));
  EXPECT_NEAR(sum, exact, 1e-12 * exact);
  EXPECT_NEAR(static_cast<double>(paper.size()), density * exact, 0.1 * density * exact);
  // Same seed and step: the same samples (counter-based random numbers).
  const auto s1 = sample_segments(s, 400, AreaWeight::Uniform, 99, 3);
  const auto s2 = sample_segments(s, 400, AreaWeight::Uniform, 99, 3);
  ASSERT_EQ(s1.size(), s2.size());
  auto p1 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s1.position);
  auto p2 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s2.position);
  for (size_t r = 0; r < s1.size(); ++r) EXPECT_EQ(p1(r, 0), p2(r, 0));
}

// Stratified placement: round(density L) (at least one) samples per element (the segments of one
// cell) at the centres of equal parts, so their |dA| sum to the perimeter up to round-off and their
// count is deterministic.
TEST(Contour2D, StratifiedSamplesAreMidpointsOfEqualParts) {
  Disc disc;
  Lattice2D L;
  const auto s = contour(disc, 0.01, L);
  const double exact = perimeter(s), density = 4.0 / 0.01;
  const auto samples = sample_segments(s, density, AreaWeight::Uniform, 1234, 7, true);
  auto p = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), samples.position);
  auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), samples.area);
  auto e = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.ends);
  auto key = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.key);
  std::map<int64_t, double> cell_length;
  for (size_t q = 0; q < s.size(); ++q) cell_length[key(q) / 2] += std::hypot(e(q, 1, 0) - e(q, 0, 0), e(q, 1, 1) - e(q, 0, 1));
  size_t expected = 0;
  for (const auto& [cell, len] : cell_length)
    if (len > 0) expected += std::max(1, static_cast<int>(density * len + 0.5));
  ASSERT_EQ(samples.size(), expected);
  double sum = 0;
  for (size_t r = 0; r < samples.size(); ++r) {
    sum += std::hypot(a(r, 0), a(r, 1));
    EXPECT_LT(std::fabs(disc.phi(p(r, 0), p(r, 1))), 1e-4) << "sample on the contour";
  }
  EXPECT_NEAR(sum, exact, 1e-12 * exact);
  // A different seed or step changes nothing.
  const auto other = sample_segments(s, density, AreaWeight::PerElement, 99, 3, true);
  ASSERT_EQ(other.size(), samples.size());
  auto p2 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), other.position);
  for (size_t r = 0; r < samples.size(); ++r) EXPECT_EQ(p(r, 0), p2(r, 0));
}

// The counter-based Poisson count has the mean and variance lambda, also past lambda = 745 where
// exp(-lambda) underflows (there it sums independent parts), and is the same for the same counters.
TEST(Contour2D, HashedPoissonHasMeanAndVarianceLambda) {
  for (double lambda : {0.5, 3.0, 16.0, 2000.0}) {
    const int n = 20000;
    double sum = 0, sum2 = 0;
    for (int key = 0; key < n; ++key) {
      const double k = hashed_poisson(42, 7, key, lambda);
      sum += k;
      sum2 += k * k;
    }
    const double mean = sum / n, var = sum2 / n - mean * mean;
    EXPECT_NEAR(mean, lambda, 5 * std::sqrt(lambda / n)) << "lambda " << lambda;
    EXPECT_NEAR(var, lambda, 0.1 * lambda) << "lambda " << lambda;
    EXPECT_EQ(hashed_poisson(42, 7, 3, lambda), hashed_poisson(42, 7, 3, lambda));
  }
}
