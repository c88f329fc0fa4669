// Mesh to distance field. Distances come from nearest-triangle queries on a BVH. Signs come from
// counting oriented crossings along each lattice row (a line parallel to x): the winding number of a
// point is the number of surface crossings before it, +1 entering and -1 leaving, which needs one
// BVH walk per row instead of one full-mesh winding-number sum per point.
#include "geometry/sampled_sdf.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "geometry/triangle_bvh.hpp"
#include "geometry/triangle_mesh.hpp"

namespace meniscus::geometry {
// Named rather than anonymous: device compilers want kernel argument types with external linkage.
namespace detail {

// Which side of the projected edge a -> b (in the y-z plane) the point q lies on: +1 left, -1 right,
// 0 when the edge projects to a point. The orientation is always evaluated with the endpoints in a
// fixed order, so the two triangles sharing an edge get bit-identical answers and a line passing
// exactly through an edge is counted in exactly one of them. An exact zero is resolved as if q were
// moved by (eps, eps^2), which breaks every tie the same way for the whole mesh.
KOKKOS_INLINE_FUNCTION int side_of_edge(double ay, double az, double by, double bz, double qy, double qz) {
  const bool swapped = by < ay || (by == ay && bz < az);
  if (swapped) {
    double t = ay;
    ay = by;
    by = t;
    t = az;
    az = bz;
    bz = t;
  }
  double o = (by - ay) * (qz - az) - (bz - az) * (qy - ay);
  if (o == 0) o = -(bz - az);
  if (o == 0) o = by - ay;
  if (o == 0) return 0;
  const int s = o > 0 ? 1 : -1;
  return swapped ? -s : s;
}

struct RowCrossings {
  TriangleBvh bvh;
  Kokkos::View<int*> winding;  // per row: nx + 1 slots, crossing increments then prefix sums
  double x0, h;
  int nx;

  // Adds the winding increments of every triangle the line (., qy, qz) crosses into the row's slots
  // and returns their sum, which is zero for a closed surface when every crossing was seen
  // consistently.
  KOKKOS_INLINE_FUNCTION int accumulate(int64_t base, double qy, double qz) const {
    int total = 0;
    auto visit = [&](int t) {
      double p[3][3];
      for (int v = 0; v < 3; ++v)
        for (int d = 0; d < 3; ++d) p[v][d] = bvh.triangles(t, 3 * v + d);
      int s[3];
      for (int e = 0; e < 3; ++e) {
        const int f = (e + 1) % 3;
        s[e] = side_of_edge(p[e][1], p[e][2], p[f][1], p[f][2], qy, qz);
      }
      if (s[0] == 0 || s[0] != s[1] || s[1] != s[2]) return;
      // Counter-clockwise in y-z means an outward normal with positive x: the line leaves the body.
      const int delta = s[0] > 0 ? -1 : 1;
      double w[3], wsum = 0;
      for (int e = 0; e < 3; ++e) {
        const int f = (e + 1) % 3, g = (e + 2) % 3;
        w[g] = (p[f][1] - p[e][1]) * (qz - p[e][2]) - (p[f][2] - p[e][2]) * (qy - p[e][1]);
        wsum += w[g];
      }
      double xc = 0;
      if (wsum != 0) {
        for (int v = 0; v < 3; ++v) xc += w[v] * p[v][0];
        xc /= wsum;
      } else {
        xc = (p[0][0] + p[1][0] + p[2][0]) / 3.0;
      }
      xc = kmath::clamp(xc, kmath::min(p[0][0], kmath::min(p[1][0], p[2][0])),
                        kmath::max(p[0][0], kmath::max(p[1][0], p[2][0])));
      // The increment applies to nodes strictly beyond the crossing.
      const double s_first = kmath::floor((xc - x0) / h) + 1.0;
      const int first = s_first < 0 ? 0 : (s_first > nx ? nx : static_cast<int>(s_first));
      winding(base + first) += delta;
      total += delta;
    };
    bvh.for_each_on_x_line(qy, qz, visit);
    return total;
  }

  KOKKOS_INLINE_FUNCTION void operator()(int64_t row, double y, double z) const {
    const int64_t base = row * (nx + 1);
    // Floating-point orientation tests can disagree with each other for a line grazing a vertex,
    // which shows as a nonzero total; a line moved by a tiny fraction of a cell then gives the
    // signs, wrong at most for nodes within that fraction of the surface, where the distance is ~0.
    constexpr int attempts = 4;
    const double jitter_y[attempts] = {0.0, 1.3e-7, -2.9e-7, 4.1e-7};
    const double jitter_z[attempts] = {0.0, 0.7e-7, 3.7e-7, -1.9e-7};
    for (int a = 0; a < attempts; ++a) {
      for (int i = 0; i <= nx; ++i) winding(base + i) = 0;
      if (accumulate(base, y + jitter_y[a] * h, z + jitter_z[a] * h) == 0) break;
    }
    int w = 0;
    for (int i = 0; i < nx; ++i) {
      w += winding(base + i);
      winding(base + i) = w;
    }
  }
};

}  // namespace detail

SampledSdf<3> sdf_from_mesh(const TriangleMesh& mesh, double h, int padding_cells) {
  if (!(h > 0) || !std::isfinite(h)) throw std::invalid_argument("distance-field spacing must be positive");
  if (padding_cells < 1) throw std::invalid_argument("distance-field padding must be at least one cell");
  if (mesh.triangles.empty()) throw std::invalid_argument("distance field of a mesh without triangles");

  double lo[3], hi[3];
  for (int d = 0; d < 3; ++d) {
    lo[d] = kmath::huge;
    hi[d] = -kmath::huge;
  }
  for (const auto& tri : mesh.triangles)
    for (int v : tri)
      for (int d = 0; d < 3; ++d) {
        lo[d] = std::min(lo[d], mesh.vertices.at(v)[d]);
        hi[d] = std::max(hi[d], mesh.vertices.at(v)[d]);
      }

  SampledSdf<3> sdf;
  sdf.h = h;
  double total = 1;
  for (int d = 0; d < 3; ++d) {
    const double cells = std::ceil((hi[d] - lo[d]) / h) + 2.0 * padding_cells;
    total *= cells + 1;
    if (cells + 1 > 1e9 || total > 4e9)
      throw std::invalid_argument("distance-field lattice too large: spacing " + std::to_string(h) +
                                  " is too fine for the mesh's size");
    sdf.count[d] = static_cast<int>(cells) + 1;
    sdf.origin[d] = lo[d] - padding_cells * h;
  }
  const int nx = sdf.count[0], ny = sdf.count[1], nz = sdf.count[2];
  const int64_t rows = static_cast<int64_t>(ny) * nz;

  detail::RowCrossings crossings{build_bvh(mesh), Kokkos::View<int*>("sdf_winding", rows * (nx + 1)), sdf.origin[0], h, nx};
  const double y0 = sdf.origin[1], z0 = sdf.origin[2];
  Kokkos::parallel_for(
      "sdf_row_signs", Kokkos::RangePolicy<Kokkos::IndexType<int64_t>>(0, rows), KOKKOS_LAMBDA(const int64_t row) {
        crossings(row, y0 + (row % ny) * h, z0 + (row / ny) * h);
      });

  sdf.values = Kokkos::View<double*>("sdf_values", sdf.size());
  const auto values = sdf.values;
  const auto winding = crossings.winding;
  const auto bvh = crossings.bvh;
  const double x0 = sdf.origin[0];
  Kokkos::parallel_for(
      "sdf_distances", Kokkos::RangePolicy<Kokkos::IndexType<int64_t>>(0, sdf.size()), KOKKOS_LAMBDA(const int64_t n) {
        const int64_t i = n % nx, row = n / nx;
        const double p[3] = {x0 + i * h, y0 + (row % ny) * h, z0 + (row / ny) * h};
        const double d = kmath::sqrt(bvh.closest_distance2(p));
        values(n) = winding(row * (nx + 1) + i) != 0 ? -d : d;
      });
  Kokkos::fence();
  return sdf;
}

}  // namespace meniscus::geometry
