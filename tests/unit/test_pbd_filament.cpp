// Filament detection (Xing et al. 2022, sec. 4.3): the kernel-weighted covariance of a
// particle's neighbourhood has e2 / e1 = 0 on a straight line of particles (filament: no density
// constraint) and e2 ~ e1 on a plane, a two-layer film or inside a ball (not filaments). Also checks
// the closed-form eigenvalues against a diagonal and a rotated matrix.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "methods/pbd/filament.hpp"
#include "particles/neighbor_search.hpp"

using namespace meniscus;

namespace {
// Filament flags of the points p (xyz triples), h = 6r with r = 0.025 (spacing 0.05).
std::vector<int> filaments(const std::vector<double>& p, double ratio = 0.1) {
  const int np = static_cast<int>(p.size() / 3);
  Kokkos::View<double**, Kokkos::LayoutRight> x("x", np, 3);
  auto xh = Kokkos::create_mirror_view(x);
  for (int i = 0; i < np; ++i)
    for (int d = 0; d < 3; ++d) xh(i, d) = p[3 * i + d];
  Kokkos::deep_copy(x, xh);
  particles::NeighborLists lists;
  particles::build_neighbor_lists<3>(x, np, 0.15, lists);
  Kokkos::View<int*> fil("fil", np);
  pbd::detect_filaments(x, lists.offset, lists.index, np, 0.15, ratio, fil);
  auto fh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), fil);
  return std::vector<int>(fh.data(), fh.data() + np);
}
int count(const std::vector<int>& f) {
  int c = 0;
  for (int v : f) c += v;
  return c;
}
}  // namespace

TEST(PbdFilament, ClosedFormEigenvalues) {
  double e[3];
  const double diag[6] = {2.0, 5.0, 3.0, 0, 0, 0};
  pbd::symmetric_eigenvalues(diag, e);
  EXPECT_NEAR(e[0], 5.0, 1e-12);
  EXPECT_NEAR(e[1], 3.0, 1e-12);
  EXPECT_NEAR(e[2], 2.0, 1e-12);
  // R diag(4, 1, 0.5) R^T with R a rotation by 0.3 about z, then 0.7 about x.
  const double c1 = std::cos(0.3), s1 = std::sin(0.3), c2 = std::cos(0.7), s2 = std::sin(0.7);
  const double R[3][3] = {{c1, -s1, 0}, {c2 * s1, c2 * c1, -s2}, {s2 * s1, s2 * c1, c2}};
  const double L[3] = {4.0, 1.0, 0.5};
  double A[3][3] = {};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) A[i][j] += R[i][k] * L[k] * R[j][k];
  const double a[6] = {A[0][0], A[1][1], A[2][2], A[0][1], A[0][2], A[1][2]};
  pbd::symmetric_eigenvalues(a, e);
  EXPECT_NEAR(e[0], 4.0, 1e-12);
  EXPECT_NEAR(e[1], 1.0, 1e-12);
  EXPECT_NEAR(e[2], 0.5, 1e-12);
}

TEST(PbdFilament, LineIsAFilamentPlaneFilmAndBallAreNot) {
  const double s = 0.05;
  std::vector<double> line, plane, film, ball;
  for (int i = 0; i < 20; ++i) line.insert(line.end(), {0.3 * s + i * s * 0.99, 0.1 * s, 0.0});  // tilted slightly off-axis
  for (int j = 0; j < 12; ++j)
    for (int i = 0; i < 12; ++i) {
      plane.insert(plane.end(), {i * s + 0.5 * (j % 2) * s, j * s * std::sqrt(3.0) / 2, 0.0});
      for (int l = 0; l < 2; ++l) film.insert(film.end(), {i * s, j * s, l * s});
    }
  for (int k = -5; k <= 5; ++k)
    for (int j = -5; j <= 5; ++j)
      for (int i = -5; i <= 5; ++i)
        if (i * i + j * j + k * k <= 25) ball.insert(ball.end(), {i * s, j * s, k * s});
  const auto fl = filaments(line), fp = filaments(plane), ff = filaments(film), fb = filaments(ball);
  std::printf("filaments: line %d of %zu, plane %d of %zu, two-layer film %d of %zu, ball %d of %zu\n", count(fl),
              fl.size(), count(fp), fp.size(), count(ff), ff.size(), count(fb), fb.size());
  EXPECT_EQ(count(fl), static_cast<int>(fl.size()));  // every particle of the line (ends included: 3 neighbours)
  EXPECT_EQ(count(fp), 0);
  EXPECT_EQ(count(ff), 0);
  EXPECT_EQ(count(fb), 0);
  // Off: ratio 0 flags nothing.
  EXPECT_EQ(count(filaments(line, 0.0)), 0);
}
