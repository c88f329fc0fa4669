// The 3D membrane-to-grid interpolation W (Ruan et al. 2021 §4.3: triangles clipped against each
// face's dual cell, clipped areas as vertex weights, rows normalised) and the ray-parity cell typing.
#include <gtest/gtest.h>

#include <cmath>

#include "membrane3d_scenes.hpp"
#include "methods/membrane/triangle_interpolation.hpp"

namespace mm = meniscus::membrane;

namespace {
mm::TriangleIndex index_of(const meniscus::geometry::TriangleMesh& mesh, double dx, int cells) {
  std::vector<double> xyz;
  std::vector<int> tri;
  for (const auto& v : mesh.vertices) xyz.insert(xyz.end(), {v[0], v[1], v[2]});
  for (const auto& t : mesh.triangles) tri.insert(tri.end(), {t[0], t[1], t[2]});
  const double lower[3] = {0, 0, 0};
  const int n[3] = {cells, cells, cells};
  return mm::TriangleIndex(xyz, tri, lower, dx, n);
}
}  // namespace

// Clipping: a triangle inside the box keeps its area; one cut by a plane keeps the part on the
// box's side ; a flat sheet's triangles clipped by a box crossing it
// sum to the box's cross-section.
TEST(Membrane3DInterpolation, ClippedAreasMatchTheGeometry) {
  const double a[3] = {0.1, 0.1, 0.5}, b[3] = {0.9, 0.1, 0.5}, c[3] = {0.1, 0.9, 0.5};
  const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  EXPECT_NEAR(mm::clipped_area(a, b, c, lo, hi), 0.32, 1e-15);
  // Cut at x = 0.5: the part with x <= 0.5 of the right triangle with legs 0.8 is the triangle
  // less its corner beyond the cut, 0.32 - 0.5 * 0.4 * 0.4 = 0.24.
  const double hi_x[3] = {0.5, 1, 1};
  EXPECT_NEAR(mm::clipped_area(a, b, c, lo, hi_x), 0.24, 1e-15);
  const double lo_out[3] = {0, 0, 0.6};
  EXPECT_EQ(mm::clipped_area(a, b, c, lo_out, hi), 0.0);
  const double sl[2] = {0, 0}, su[2] = {1, 1};
  const auto sheet = mm::flat_sheet(sl, su, 0.43, 20);
  const auto idx = index_of(sheet, 0.125, 8);
  const double blo[3] = {0.21, 0.33, 0.4}, bhi[3] = {0.46, 0.71, 0.5};
  std::vector<int> cand;
  idx.candidates(blo, bhi, cand);
  double total = 0;
  for (int t : cand) total += idx.clipped_measure(t, blo, bhi);
  EXPECT_NEAR(total, 0.25 * 0.38, 1e-14);
}

// Every face dual cell near a sphere gets a W row whose weights are positive and sum to one, so W
// reproduces a uniform membrane velocity and W^T moves a face impulse to the vertices without
// changing its sum; rays typed as liquid fill the sphere's volume to within the grid's resolution.
TEST(Membrane3DInterpolation, RowsSumToOneAndRayParityFindsTheLiquid) {
  const int cells = 16;
  const double dx = 1.0 / cells, r = 0.3;
  const auto mesh = mm::perturbed_sphere({0.5, 0.5, 0.5}, r, 0.0, 0.5 * dx);
  const auto idx = index_of(mesh, dx, cells);
  long rows = 0;
  double worst = 0;
  for (int d = 0; d < 3; ++d)
    for (int k = 0; k < cells; ++k)
      for (int j = 0; j < cells; ++j)
        for (int i = 1; i < cells; ++i) {
          // i runs along the face normal d, (j, k) over the other two axes.
          int c[3];
          c[d] = i;
          c[(d + 1) % 3] = j;
          c[(d + 2) % 3] = k;
          double x[3];
          for (int e = 0; e < 3; ++e) x[e] = (c[e] + (e == d ? 0.0 : 0.5)) * dx;
          const double rho = std::hypot(x[0] - 0.5, x[1] - 0.5, x[2] - 0.5);
          if (std::abs(rho - r) > 0.5 * dx) continue;  // faces whose dual cell the sphere crosses
          double half[3] = {0.5 * dx, 0.5 * dx, 0.5 * dx};
          const auto row = mm::interpolation_row(idx, x, half);
          double sum = 0;
          for (auto& [v, w] : row) {
            EXPECT_GT(w, 0.0);
            sum += w;
          }
          worst = std::max(worst, std::abs(sum - 1));
          ++rows;
        }
  std::printf("W rows near the sphere: %ld, worst |sum - 1| %.1e\n", rows, worst);
  EXPECT_GT(rows, 500);
  EXPECT_LT(worst, 1e-14);
  long liquid = 0;
  for (int k = 0; k < cells; ++k)
    for (int j = 0; j < cells; ++j)
      for (int i = 0; i < cells; ++i) {
        const double x[3] = {(i + 0.5) * dx, (j + 0.5) * dx, (k + 0.5) * dx};
        const bool inside = idx.crossings_above(x) % 2 == 1;
        liquid += inside;
        // Away from the surface the parity agrees with the sphere exactly.
        const double rho = std::hypot(x[0] - 0.5, x[1] - 0.5, x[2] - 0.5);
        if (std::abs(rho - r) > 0.05 * dx) EXPECT_EQ(inside, rho < r) << i << " " << j << " " << k;
      }
  const double v_cells = liquid * dx * dx * dx, v_sphere = 4.0 / 3.0 * M_PI * r * r * r;
  std::printf("liquid cells %ld: %.5f vs sphere %.5f cm^3 (%.2f %%)\n", liquid, v_cells, v_sphere,
              100 * (v_cells / v_sphere - 1));
  EXPECT_NEAR(v_cells / v_sphere, 1.0, 0.05);
}
