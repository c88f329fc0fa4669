#include "geometry/contour_2d.hpp"

#include "core/kmath.hpp"

namespace meniscus::geometry {

namespace detail {
// Point where phi crosses zero on edge e of a cell (e0 bottom, e1 right, e2 top, e3 left).
KOKKOS_INLINE_FUNCTION void edge_point(int e, const double* c, double x0, double y0, double h, double* p) {
  const int a[4] = {0, 1, 2, 3}, b[4] = {1, 2, 3, 0};
  const double cx[4] = {0, 1, 1, 0}, cy[4] = {0, 0, 1, 1};
  const double fa = c[a[e]], fb = c[b[e]];
  double t = fa / (fa - fb);
  t = t < 0 ? 0 : (t > 1 ? 1 : t);
  p[0] = x0 + h * (cx[a[e]] + t * (cx[b[e]] - cx[a[e]]));
  p[1] = y0 + h * (cy[a[e]] + t * (cy[b[e]] - cy[a[e]]));
}

// Edge pairs of a cell's segments for the inside mask (bit k: corner k inside); returns the count.
KOKKOS_INLINE_FUNCTION int cell_segments(const double* c, int pairs[2][2]) {
  int mask = 0;
  for (int k = 0; k < 4; ++k)
    if (c[k] < 0) mask |= 1 << k;
  switch (mask) {
    case 0: case 15: return 0;
    case 1: case 14: pairs[0][0] = 3; pairs[0][1] = 0; return 1;
    case 2: case 13: pairs[0][0] = 0; pairs[0][1] = 1; return 1;
    case 4: case 11: pairs[0][0] = 1; pairs[0][1] = 2; return 1;
    case 8: case 7: pairs[0][0] = 2; pairs[0][1] = 3; return 1;
    case 3: case 12: pairs[0][0] = 1; pairs[0][1] = 3; return 1;
    case 6: case 9: pairs[0][0] = 0; pairs[0][1] = 2; return 1;
    case 5: case 10: {
      // Saddle: the centre value decides whether the inside corners connect.
      const bool centre_inside = (c[0] + c[1] + c[2] + c[3]) < 0;
      const bool cut_13 = (mask == 5) == centre_inside;  // separate corners 1 and 3
      if (cut_13) {
        pairs[0][0] = 0; pairs[0][1] = 1;
        pairs[1][0] = 2; pairs[1][1] = 3;
      } else {
        pairs[0][0] = 3; pairs[0][1] = 0;
        pairs[1][0] = 1; pairs[1][1] = 2;
      }
      return 2;
    }
  }
  return 0;
}
}  // namespace detail

Segments2D marching_squares(const Kokkos::View<const double*>& phi, const Lattice2D& L, const int cell_lo[2],
                            const int cell_hi[2], int64_t global_nx) {
  const int cx0 = cell_lo[0], cy0 = cell_lo[1];
  const int ncx = cell_hi[0] - cell_lo[0], ncy = cell_hi[1] - cell_lo[1];
  const int ncells = ncx > 0 && ncy > 0 ? ncx * ncy : 0;
  const int nx = L.n[0];
  auto corners = KOKKOS_LAMBDA(int c, double* v, int& i, int& j) {
    i = cx0 + c % ncx;
    j = cy0 + c / ncx;
    v[0] = phi(i + nx * j);
    v[1] = phi(i + 1 + nx * j);
    v[2] = phi(i + 1 + nx * (j + 1));
    v[3] = phi(i + nx * (j + 1));
  };
  Kokkos::View<int*> offset("ms_offset", ncells + 1);
  Kokkos::parallel_scan(
      "marching_squares::count", Kokkos::RangePolicy<>(0, ncells), KOKKOS_LAMBDA(const int c, int& sum, const bool final) {
        double v[4];
        int i, j, pairs[2][2];
        corners(c, v, i, j);
        const int k = detail::cell_segments(v, pairs);
        if (final) offset(c) = sum;
        sum += k;
        if (final && c == ncells - 1) offset(ncells) = sum;
      });
  int total = 0;
  if (ncells > 0) Kokkos::deep_copy(total, Kokkos::subview(offset, ncells));
  Segments2D out;
  out.ends = Kokkos::View<double* [2][2]>("segments", total);
  out.key = Kokkos::View<int64_t*>("segment_key", total);
  auto ends = out.ends;
  auto key = out.key;
  const double x0 = L.lower[0], y0 = L.lower[1], h = L.h;
  const int64_t gx = L.offset[0], gy = L.offset[1];
  Kokkos::parallel_for(
      "marching_squares::emit", Kokkos::RangePolicy<>(0, ncells), KOKKOS_LAMBDA(const int c) {
        double v[4];
        int i, j, pairs[2][2];
        corners(c, v, i, j);
        const int k = detail::cell_segments(v, pairs);
        const double ox = x0 + (gx + i) * h, oy = y0 + (gy + j) * h;
        for (int s = 0; s < k; ++s) {
          double a[2], b[2];
          detail::edge_point(pairs[s][0], v, ox, oy, h, a);
          detail::edge_point(pairs[s][1], v, ox, oy, h, b);
          // Orient by the bilinear interpolant's gradient at the segment midpoint: the outward
          // normal rot(-90)(b - a) = (b_y - a_y, a_x - b_x) must point along +grad(phi).
          const double u = (0.5 * (a[0] + b[0]) - ox) / h, w = (0.5 * (a[1] + b[1]) - oy) / h;
          const double gxv = (1 - w) * (v[1] - v[0]) + w * (v[2] - v[3]);
          const double gyv = (1 - u) * (v[3] - v[0]) + u * (v[2] - v[1]);
          const double nx_ = b[1] - a[1], ny_ = a[0] - b[0];
          const bool flip = nx_ * gxv + ny_ * gyv < 0;
          const int q = offset(c) + s;
          for (int d = 0; d < 2; ++d) {
            ends(q, 0, d) = flip ? b[d] : a[d];
            ends(q, 1, d) = flip ? a[d] : b[d];
          }
          key(q) = ((gx + i) + global_nx * (gy + j)) * 2 + s;
        }
      });
  return out;
}

Kokkos::View<int*> cell_elements(const Kokkos::View<const int64_t*>& key, int per_cell) {
  const int n = static_cast<int>(key.extent(0));
  Kokkos::View<int*> starts("element_starts", n + 1);
  int count = 0;
  Kokkos::parallel_scan(
      "contour::cell_elements", Kokkos::RangePolicy<>(0, n),
      KOKKOS_LAMBDA(const int q, int& sum, const bool final) {
        const bool start = q == 0 || key(q) / per_cell != key(q - 1) / per_cell;
        if (final && start) starts(sum) = q;
        sum += start ? 1 : 0;
      },
      count);
  Kokkos::View<int*> first("element_first", count + 1);
  Kokkos::deep_copy(Kokkos::subview(first, Kokkos::make_pair(0, count)), Kokkos::subview(starts, Kokkos::make_pair(0, count)));
  Kokkos::deep_copy(Kokkos::subview(first, count), n);
  return first;
}

SurfaceSamples2D sample_segments(const Segments2D& segments, double density, AreaWeight weight, uint64_t seed,
                                 int64_t step, bool stratified) {
  auto ends = segments.ends;
  auto key = segments.key;
  const auto first = cell_elements(key, 2);
  const int ne = static_cast<int>(first.extent(0)) - 1;
  const bool uniform = weight == AreaWeight::Uniform && !stratified;
  auto seg_length = KOKKOS_LAMBDA(const int q)->double {
    const double dx = ends(q, 1, 0) - ends(q, 0, 0), dy = ends(q, 1, 1) - ends(q, 0, 1);
    return kmath::sqrt(dx * dx + dy * dy);
  };
  auto count = KOKKOS_LAMBDA(const int e, double& len)->int {
    len = 0;
    for (int q = first(e); q < first(e + 1); ++q) len += seg_length(q);
    if (len <= 0) return 0;
    if (stratified) return kmath::max(1, static_cast<int>(density * len + 0.5));
    const int n = hashed_poisson(seed, step, key(first(e)) / 2, density * len);
    return uniform ? n : kmath::max(1, n);
  };
  Kokkos::View<int*> offset("sample_offset", ne + 1);
  Kokkos::parallel_scan(
      "sample_segments::count", Kokkos::RangePolicy<>(0, ne), KOKKOS_LAMBDA(const int e, int& sum, const bool final) {
        double len;
        const int k = count(e, len);
        if (final) offset(e) = sum;
        sum += k;
        if (final && e == ne - 1) offset(ne) = sum;
      });
  int total = 0;
  if (ne > 0) Kokkos::deep_copy(total, Kokkos::subview(offset, ne));
  SurfaceSamples2D out;
  out.position = Kokkos::View<double* [2]>("surface_position", total);
  out.area = Kokkos::View<double* [2]>("surface_area", total);
  auto pos = out.position;
  auto area = out.area;
  Kokkos::parallel_for(
      "sample_segments::place", Kokkos::RangePolicy<>(0, ne), KOKKOS_LAMBDA(const int e) {
        double len;
        const int k = count(e, len);
        if (k == 0) return;
        const double dA = uniform ? 1.0 / density : len / k;
        const int64_t cell = key(first(e)) / 2;
        for (int r = 0; r < k; ++r) {
          // Arc length along the element's segments, then the segment that holds it.
          double s = (stratified ? (r + 0.5) / k : hashed_uniform(seed, step, cell, r)) * len;
          int q = first(e);
          while (q + 1 < first(e + 1) && s > seg_length(q)) s -= seg_length(q++);
          const double L = seg_length(q);
          const double t = L > 0 ? kmath::min(s / L, 1.0) : 0.0;
          const int o = offset(e) + r;
          pos(o, 0) = ends(q, 0, 0) + t * (ends(q, 1, 0) - ends(q, 0, 0));
          pos(o, 1) = ends(q, 0, 1) + t * (ends(q, 1, 1) - ends(q, 0, 1));
          const double tx = L > 0 ? (ends(q, 1, 0) - ends(q, 0, 0)) / L : 0.0;
          const double ty = L > 0 ? (ends(q, 1, 1) - ends(q, 0, 1)) / L : 0.0;
          area(o, 0) = dA * ty;  // outward normal rot(-90)(t) = (t_y, -t_x)
          area(o, 1) = -dA * tx;
        }
      });
  return out;
}

}  // namespace meniscus::geometry
