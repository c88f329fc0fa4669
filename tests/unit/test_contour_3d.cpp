// Marching tetrahedra and triangle sampling in 3D: the isosurface of a sphere's signed distance is
// closed (every edge shared by two triangles in opposite directions), oriented outward, converges to
// 4 pi R^2, and its samples add up to its area.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <tuple>

#include "geometry/contour_3d.hpp"

using namespace meniscus::geometry;

namespace {
struct Ball {
  double c[3] = {0.011, -0.017, 0.023}, R = 0.3;
  double phi(const double* x) const {
    return std::sqrt((x[0] - c[0]) * (x[0] - c[0]) + (x[1] - c[1]) * (x[1] - c[1]) + (x[2] - c[2]) * (x[2] - c[2])) - R;
  }
};

Triangles3D surface(const Ball& b, double h) {
  const int n = static_cast<int>(std::ceil(0.9 / h)) + 1;
  Lattice3D L{{-0.45, -0.45, -0.45}, h, {n, n, n}, {0, 0, 0}};
  Kokkos::View<double*> phi("phi", static_cast<size_t>(n) * n * n);
  auto ph = Kokkos::create_mirror_view(phi);
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        const double x[3] = {-0.45 + i * h, -0.45 + j * h, -0.45 + k * h};
        ph(i + n * (j + n * k)) = b.phi(x);
      }
  Kokkos::deep_copy(phi, ph);
  const int lo[3] = {0, 0, 0}, hi[3] = {n - 1, n - 1, n - 1};
  const int64_t gn[2] = {n, n};
  return marching_tetrahedra(phi, L, lo, hi, gn);
}

// Area of triangle q of the host copy T of Triangles3D::corners.
template <class Corners>
double triangle_area(const Corners& T, size_t q) {
  double e1[3], e2[3];
  for (int d = 0; d < 3; ++d) {
    e1[d] = T(q, 1, d) - T(q, 0, d);
    e2[d] = T(q, 2, d) - T(q, 0, d);
  }
  return 0.5 * std::sqrt(std::pow(e1[1] * e2[2] - e1[2] * e2[1], 2) + std::pow(e1[2] * e2[0] - e1[0] * e2[2], 2) +
                         std::pow(e1[0] * e2[1] - e1[1] * e2[0], 2));
}

double area(const Triangles3D& t) {
  auto T = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), t.corners);
  double A = 0;
  for (size_t q = 0; q < t.size(); ++q) A += triangle_area(T, q);
  return A;
}
}  // namespace

TEST(Contour3D, SphereIsClosedOutwardAndConverges) {
  Ball b;
  double previous = 1e9;
  for (double h : {0.06, 0.03}) {
    const auto t = surface(b, h);
    auto T = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), t.corners);
    using Key = std::tuple<long, long, long>;
    auto key = [&](size_t q, int a) {
      return Key{std::lround(T(q, a, 0) * 1e8), std::lround(T(q, a, 1) * 1e8), std::lround(T(q, a, 2) * 1e8)};
    };
    std::map<std::pair<Key, Key>, int> directed;
    for (size_t q = 0; q < t.size(); ++q) {
      double m[3], e1[3], e2[3];
      for (int d = 0; d < 3; ++d) {
        m[d] = (T(q, 0, d) + T(q, 1, d) + T(q, 2, d)) / 3;
        e1[d] = T(q, 1, d) - T(q, 0, d);
        e2[d] = T(q, 2, d) - T(q, 0, d);
      }
      const double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
      EXPECT_GE(n[0] * (m[0] - b.c[0]) + n[1] * (m[1] - b.c[1]) + n[2] * (m[2] - b.c[2]), 0.0) << "outward";
      for (int a = 0; a < 3; ++a) {
        const Key u = key(q, a), v = key(q, (a + 1) % 3);
        if (u != v) directed[{u, v}]++;
      }
    }
    int unmatched = 0;
    for (const auto& [edge, c] : directed)
      if (directed.count({edge.second, edge.first}) == 0) ++unmatched;
    EXPECT_EQ(unmatched, 0) << "closed, consistently oriented surface";
    const double err = std::fabs(area(t) - 4 * M_PI * b.R * b.R) / (4 * M_PI * b.R * b.R);
    EXPECT_LT(err, previous);
    EXPECT_LT(err, 0.03);
    previous = err;
  }
}

// At the paper's density (16 samples per cell area), per-element weights give exactly the contour's
// area: every cell's triangles together draw at least one sample. Per triangle, the Kuhn slivers left
// empty lost 12 % of a drop's area (docs/theory-mpm-surface-tension.md). Uniform weights are unbiased
// only in expectation.
TEST(Contour3D, SamplesCoverTheAreaAndFaceOutward) {
  Ball b;
  const double h = 0.03;
  const auto t = surface(b, h);
  const double density = 16 / (h * h), A = area(t);
  for (auto w : {AreaWeight::Uniform, AreaWeight::PerElement}) {
    const auto s = sample_triangles(t, density, w, 77, 2);
    auto p = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.position);
    auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.area);
    double sum = 0;
    for (size_t r = 0; r < s.size(); ++r) {
      const double x[3] = {p(r, 0), p(r, 1), p(r, 2)};
      EXPECT_LT(std::fabs(b.phi(x)), h * h / b.R + 1e-3);
      sum += std::sqrt(a(r, 0) * a(r, 0) + a(r, 1) * a(r, 1) + a(r, 2) * a(r, 2));
      EXPECT_GT(a(r, 0) * (x[0] - b.c[0]) + a(r, 1) * (x[1] - b.c[1]) + a(r, 2) * (x[2] - b.c[2]), 0.0);
    }
    if (w == AreaWeight::PerElement) {
      EXPECT_NEAR(sum, A, 1e-12 * A) << "no element loses its area";
      // At least one sample per cell adds few: the count stays within 5 % of density x area.
      EXPECT_NEAR(static_cast<double>(s.size()), density * A, 0.05 * density * A);
    } else {
      EXPECT_NEAR(sum, A, 0.03 * A);
    }
  }
}

// A cell's samples are spread over all of its triangles in proportion to their areas. One cell with
// two triangles of areas 1 and 3 (normals +z and +x): about 3/4 of the samples land on the larger
// one, the |dA| add up to 4 exactly, and the vector area is (3, 0, 1) within the Monte Carlo error.
// A second cell's triangle keeps its own count and weight.
TEST(Contour3D, SamplesChooseTheTrianglesOfACellByArea) {
  Triangles3D t;
  t.corners = Kokkos::View<double* [3][3]>("corners", 3);
  t.key = Kokkos::View<int64_t*>("key", 3);
  auto T = Kokkos::create_mirror_view(t.corners);
  auto K = Kokkos::create_mirror_view(t.key);
  const double tri[3][3][3] = {
      {{0, 0, 0}, {1, 0, 0}, {0, 2, 0}},  // area 1, normal +z, cell 7
      {{5, 0, 0}, {5, 3, 0}, {5, 0, 2}},  // area 3, normal +x, cell 7
      {{9, 0, 0}, {10, 0, 0}, {9, 1, 0}},  // area 1/2, normal +z, cell 8
  };
  for (int q = 0; q < 3; ++q)
    for (int a = 0; a < 3; ++a)
      for (int d = 0; d < 3; ++d) T(q, a, d) = tri[q][a][d];
  K(0) = 7 * 12 + 0;
  K(1) = 7 * 12 + 1;
  K(2) = 8 * 12 + 0;
  Kokkos::deep_copy(t.corners, T);
  Kokkos::deep_copy(t.key, K);
  // 150 samples per unit area (600 expected in cell 7), over 20 steps.
  double cell7[3] = {0, 0, 0};
  int on_large = 0, in7 = 0;
  const int steps = 20;
  for (int step = 0; step < steps; ++step) {
    const auto s = sample_triangles(t, 150, AreaWeight::PerElement, 11, step);
    auto p = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.position);
    auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.area);
    double magnitude7 = 0, magnitude8 = 0;
    for (size_t r = 0; r < s.size(); ++r) {
      const double m = std::sqrt(a(r, 0) * a(r, 0) + a(r, 1) * a(r, 1) + a(r, 2) * a(r, 2));
      if (p(r, 0) < 8) {
        ++in7;
        for (int d = 0; d < 3; ++d) cell7[d] += a(r, d) / steps;
        magnitude7 += m;
        on_large += p(r, 0) > 4 ? 1 : 0;
      } else {
        magnitude8 += m;
      }
    }
    EXPECT_NEAR(magnitude7, 4.0, 1e-12) << "step " << step;
    EXPECT_NEAR(magnitude8, 0.5, 1e-12) << "step " << step;
  }
  ASSERT_GT(in7, 10000);
  const double share = static_cast<double>(on_large) / in7;
  EXPECT_NEAR(share, 0.75, 4 * std::sqrt(0.75 * 0.25 / in7)) << "samples in proportion to area";
  EXPECT_NEAR(cell7[0], 3.0, 0.05);
  EXPECT_NEAR(cell7[1], 0.0, 1e-12);
  EXPECT_NEAR(cell7[2], 1.0, 0.05);
}

// Stratified placement: max(1, round(density A)) samples per element (the triangles of one cell), each with |dA| = A/n,
// so their magnitudes add up to the contour's area up to round-off; every sample lies on a triangle of its cell, faces
// outward, and the points are the same for any seed and step. The midpoints of equal parts of a cell's area put about
// 3/4 of the samples of the two-triangle cell on its larger triangle (area 3 of 4), deterministically.
TEST(Contour3D, StratifiedSamplesAreTheSameEveryStepAndCoverTheArea) {
  Ball b;
  const double h = 0.03;
  const auto t = surface(b, h);
  const double density = 4 / (h * h), A = area(t);
  const auto s = sample_triangles(t, density, AreaWeight::Uniform, 77, 2, true);
  auto p = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.position);
  auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.area);
  auto T = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), t.corners);
  auto K = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), t.key);
  std::map<int64_t, double> cell_area;
  for (size_t q = 0; q < t.size(); ++q) cell_area[K(q) / 12] += triangle_area(T, q);
  size_t expected = 0;
  for (const auto& [cell, ca] : cell_area)
    if (ca > 0) expected += std::max(1, static_cast<int>(density * ca + 0.5));
  ASSERT_EQ(s.size(), expected);
  double sum = 0;
  for (size_t r = 0; r < s.size(); ++r) {
    const double x[3] = {p(r, 0), p(r, 1), p(r, 2)};
    EXPECT_LT(std::fabs(b.phi(x)), h * h / b.R + 1e-3) << "on the contour";
    sum += std::sqrt(a(r, 0) * a(r, 0) + a(r, 1) * a(r, 1) + a(r, 2) * a(r, 2));
    EXPECT_GT(a(r, 0) * (x[0] - b.c[0]) + a(r, 1) * (x[1] - b.c[1]) + a(r, 2) * (x[2] - b.c[2]), 0.0) << "outward";
  }
  EXPECT_NEAR(sum, A, 1e-12 * A);
  const auto other = sample_triangles(t, density, AreaWeight::PerElement, 99, 3, true);
  ASSERT_EQ(other.size(), s.size());
  auto p2 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), other.position);
  auto a2 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), other.area);
  for (size_t r = 0; r < s.size(); ++r)
    for (int d = 0; d < 3; ++d) {
      EXPECT_EQ(p(r, d), p2(r, d));
      EXPECT_EQ(a(r, d), a2(r, d));
    }

  Triangles3D two;
  two.corners = Kokkos::View<double* [3][3]>("corners", 2);
  two.key = Kokkos::View<int64_t*>("key", 2);
  auto C = Kokkos::create_mirror_view(two.corners);
  auto Q = Kokkos::create_mirror_view(two.key);
  const double tri[2][3][3] = {{{0, 0, 0}, {1, 0, 0}, {0, 2, 0}}, {{5, 0, 0}, {5, 3, 0}, {5, 0, 2}}};
  for (int q = 0; q < 2; ++q)
    for (int c = 0; c < 3; ++c)
      for (int d = 0; d < 3; ++d) C(q, c, d) = tri[q][c][d];
  Q(0) = 7 * 12;
  Q(1) = 7 * 12 + 1;
  Kokkos::deep_copy(two.corners, C);
  Kokkos::deep_copy(two.key, Q);
  const auto s2 = sample_triangles(two, 10, AreaWeight::PerElement, 11, 0, true);  // 40 samples of area 0.1
  ASSERT_EQ(s2.size(), 40u);
  auto pp = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s2.position);
  auto aa = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s2.area);
  int on_large = 0;
  double vec[3] = {0, 0, 0};
  for (size_t r = 0; r < s2.size(); ++r) {
    on_large += pp(r, 0) > 4 ? 1 : 0;
    for (int d = 0; d < 3; ++d) vec[d] += aa(r, d);
    if (pp(r, 0) > 4) {
      EXPECT_NEAR(pp(r, 0), 5.0, 1e-12);  // on the plane x = 5, inside the triangle
      EXPECT_GE(pp(r, 1), 0.0);
      EXPECT_GE(pp(r, 2), 0.0);
      EXPECT_LE(pp(r, 1) / 3 + pp(r, 2) / 2, 1.0 + 1e-12);
    } else {
      EXPECT_NEAR(pp(r, 2), 0.0, 1e-12);
      EXPECT_LE(pp(r, 0) + pp(r, 1) / 2, 1.0 + 1e-12);
    }
  }
  EXPECT_EQ(on_large, 30);
  EXPECT_NEAR(vec[0], 3.0, 1e-12);
  EXPECT_NEAR(vec[2], 1.0, 1e-12);
}
