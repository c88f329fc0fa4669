#include "geometry/contour_3d.hpp"

#include "core/kmath.hpp"

namespace meniscus::geometry {

namespace detail {
// Corner c (0..7) of a cell as bits (x, y, z) = (c & 1, c >> 1 & 1, c >> 2 & 1).
// Kuhn tetrahedra: corner 0, then add the axes of a permutation one by one, ending at corner 7.
KOKKOS_INLINE_FUNCTION void kuhn_tet(int t, int* v) {
  const int perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  int c = 0;
  v[0] = c;
  for (int s = 0; s < 3; ++s) {
    c |= 1 << perm[t][s];
    v[s + 1] = c;
  }
}

KOKKOS_INLINE_FUNCTION void corner_position(int c, const double* o, double h, double* p) {
  p[0] = o[0] + h * (c & 1);
  p[1] = o[1] + h * ((c >> 1) & 1);
  p[2] = o[2] + h * ((c >> 2) & 1);
}

KOKKOS_INLINE_FUNCTION void crossing(const double* pa, const double* pb, double fa, double fb, double* p) {
  double t = fa / (fa - fb);
  t = t < 0 ? 0 : (t > 1 ? 1 : t);
  for (int d = 0; d < 3; ++d) p[d] = pa[d] + t * (pb[d] - pa[d]);
}

// Triangles of one tetrahedron (vertex positions P, values f): returns 0, 1 or 2 and fills tri.
KOKKOS_INLINE_FUNCTION int tet_triangles(const double P[4][3], const double* f, double tri[2][3][3]) {
  int in[4], out[4], ni = 0, no = 0;
  for (int k = 0; k < 4; ++k) {
    if (f[k] < 0) in[ni++] = k;
    else out[no++] = k;
  }
  if (ni == 0 || ni == 4) return 0;
  if (ni == 1 || ni == 3) {
    const int lone = ni == 1 ? in[0] : out[0];
    const int* others = ni == 1 ? out : in;
    for (int k = 0; k < 3; ++k) crossing(P[lone], P[others[k]], f[lone], f[others[k]], tri[0][k]);
    return 1;
  }
  // Two in, two out: the crossing points on the four mixed edges form a quad a-b-c-d.
  double a[3], b[3], c[3], d[3];
  crossing(P[in[0]], P[out[0]], f[in[0]], f[out[0]], a);
  crossing(P[in[0]], P[out[1]], f[in[0]], f[out[1]], b);
  crossing(P[in[1]], P[out[1]], f[in[1]], f[out[1]], c);
  crossing(P[in[1]], P[out[0]], f[in[1]], f[out[0]], d);
  for (int k = 0; k < 3; ++k) {
    tri[0][0][k] = a[k];
    tri[0][1][k] = b[k];
    tri[0][2][k] = c[k];
    tri[1][0][k] = a[k];
    tri[1][1][k] = c[k];
    tri[1][2][k] = d[k];
  }
  return 2;
}

// Gradient of the linear interpolant of f over a tetrahedron (solve the 3x3 edge system).
KOKKOS_INLINE_FUNCTION void tet_gradient(const double P[4][3], const double* f, double* g) {
  double E[3][3], r[3];
  for (int k = 0; k < 3; ++k) {
    for (int d = 0; d < 3; ++d) E[k][d] = P[k + 1][d] - P[0][d];
    r[k] = f[k + 1] - f[0];
  }
  const double det = E[0][0] * (E[1][1] * E[2][2] - E[1][2] * E[2][1]) - E[0][1] * (E[1][0] * E[2][2] - E[1][2] * E[2][0]) +
                     E[0][2] * (E[1][0] * E[2][1] - E[1][1] * E[2][0]);
  // Cramer's rule for E g = r.
  for (int c = 0; c < 3; ++c) {
    double M[3][3];
    for (int k = 0; k < 3; ++k)
      for (int d = 0; d < 3; ++d) M[k][d] = d == c ? r[k] : E[k][d];
    const double dc = M[0][0] * (M[1][1] * M[2][2] - M[1][2] * M[2][1]) - M[0][1] * (M[1][0] * M[2][2] - M[1][2] * M[2][0]) +
                      M[0][2] * (M[1][0] * M[2][1] - M[1][1] * M[2][0]);
    g[c] = dc / det;
  }
}
}  // namespace detail

Triangles3D marching_tetrahedra(const Kokkos::View<const double*>& phi, const Lattice3D& L, const int cell_lo[3],
                                const int cell_hi[3], const int64_t global_n[2]) {
  const int nc[3] = {cell_hi[0] - cell_lo[0], cell_hi[1] - cell_lo[1], cell_hi[2] - cell_lo[2]};
  const int ncells = (nc[0] > 0 && nc[1] > 0 && nc[2] > 0) ? nc[0] * nc[1] * nc[2] : 0;
  const int n0 = L.n[0], n1 = L.n[1];
  const int c0 = cell_lo[0], c1 = cell_lo[1], c2 = cell_lo[2], m0 = nc[0], m1 = nc[1];
  const double h = L.h;
  const double lo0 = L.lower[0], lo1 = L.lower[1], lo2 = L.lower[2];
  const int64_t g0 = L.offset[0], g1 = L.offset[1], g2 = L.offset[2], gn0 = global_n[0], gn1 = global_n[1];
  // All triangles of a cell, in a fixed order; emit=false only counts.
  auto cell_triangles = KOKKOS_LAMBDA(const int cell, double tris[12][3][3])->int {
    const int i = c0 + cell % m0, j = c1 + (cell / m0) % m1, k = c2 + cell / (m0 * m1);
    double f[8], origin[3] = {lo0 + (g0 + i) * h, lo1 + (g1 + j) * h, lo2 + (g2 + k) * h};
    int inside = 0;
    for (int c = 0; c < 8; ++c) {
      f[c] = phi((i + (c & 1)) + n0 * ((j + ((c >> 1) & 1)) + n1 * (k + ((c >> 2) & 1))));
      inside += f[c] < 0 ? 1 : 0;
    }
    // A cell wholly inside or outside has no triangle in any of its tetrahedra (most cells).
    if (inside == 0 || inside == 8) return 0;
    int count = 0;
    for (int t = 0; t < 6; ++t) {
      int v[4];
      detail::kuhn_tet(t, v);
      double P[4][3], ft[4], tri[2][3][3];
      for (int q = 0; q < 4; ++q) {
        detail::corner_position(v[q], origin, h, P[q]);
        ft[q] = f[v[q]];
      }
      const int nt = detail::tet_triangles(P, ft, tri);
      if (nt == 0) continue;
      double g[3];
      detail::tet_gradient(P, ft, g);
      for (int s = 0; s < nt; ++s) {
        double e1[3], e2[3];
        for (int d = 0; d < 3; ++d) {
          e1[d] = tri[s][1][d] - tri[s][0][d];
          e2[d] = tri[s][2][d] - tri[s][0][d];
        }
        const double nx = e1[1] * e2[2] - e1[2] * e2[1], ny = e1[2] * e2[0] - e1[0] * e2[2],
                     nz = e1[0] * e2[1] - e1[1] * e2[0];
        const bool flip = nx * g[0] + ny * g[1] + nz * g[2] < 0;
        for (int d = 0; d < 3; ++d) {
          tris[count][0][d] = tri[s][0][d];
          tris[count][1][d] = flip ? tri[s][2][d] : tri[s][1][d];
          tris[count][2][d] = flip ? tri[s][1][d] : tri[s][2][d];
        }
        ++count;
      }
    }
    return count;
  };
  Kokkos::View<int*> offset("mt_offset", ncells + 1);
  Kokkos::parallel_scan(
      "marching_tetrahedra::count", Kokkos::RangePolicy<>(0, ncells), KOKKOS_LAMBDA(const int c, int& sum, const bool final) {
        double tris[12][3][3];
        const int k = cell_triangles(c, tris);
        if (final) offset(c) = sum;
        sum += k;
        if (final && c == ncells - 1) offset(ncells) = sum;
      });
  int total = 0;
  if (ncells > 0) Kokkos::deep_copy(total, Kokkos::subview(offset, ncells));
  Triangles3D out;
  out.corners = Kokkos::View<double* [3][3]>("triangles", total);
  out.key = Kokkos::View<int64_t*>("triangle_key", total);
  auto corners = out.corners;
  auto key = out.key;
  Kokkos::parallel_for(
      "marching_tetrahedra::emit", Kokkos::RangePolicy<>(0, ncells), KOKKOS_LAMBDA(const int c) {
        double tris[12][3][3];
        const int k = cell_triangles(c, tris);
        const int i = c0 + c % m0, j = c1 + (c / m0) % m1, kk = c2 + c / (m0 * m1);
        const int64_t cell_key = (g0 + i) + gn0 * ((g1 + j) + gn1 * (g2 + kk));
        for (int s = 0; s < k; ++s) {
          for (int a = 0; a < 3; ++a)
            for (int d = 0; d < 3; ++d) corners(offset(c) + s, a, d) = tris[s][a][d];
          key(offset(c) + s) = cell_key * 12 + s;
        }
      });
  return out;
}

SurfaceSamples3D sample_triangles(const Triangles3D& triangles, double density, AreaWeight weight, uint64_t seed,
                                  int64_t step, bool stratified) {
  auto T = triangles.corners;
  auto key = triangles.key;
  const auto first = cell_elements(key, 12);
  const int ne = static_cast<int>(first.extent(0)) - 1;
  const bool uniform = weight == AreaWeight::Uniform && !stratified;
  auto geometry_of = KOKKOS_LAMBDA(const int q, double* n)->double {
    double e1[3], e2[3];
    for (int d = 0; d < 3; ++d) {
      e1[d] = T(q, 1, d) - T(q, 0, d);
      e2[d] = T(q, 2, d) - T(q, 0, d);
    }
    n[0] = e1[1] * e2[2] - e1[2] * e2[1];
    n[1] = e1[2] * e2[0] - e1[0] * e2[2];
    n[2] = e1[0] * e2[1] - e1[1] * e2[0];
    const double len = kmath::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int d = 0; d < 3; ++d) n[d] = len > 0 ? n[d] / len : 0.0;
    return 0.5 * len;
  };
  auto count = KOKKOS_LAMBDA(const int e, double& A)->int {
    A = 0;
    double n[3];
    for (int q = first(e); q < first(e + 1); ++q) A += geometry_of(q, n);
    if (A <= 0) return 0;
    if (stratified) return kmath::max(1, static_cast<int>(density * A + 0.5));
    const int k = hashed_poisson(seed, step, key(first(e)) / 12, density * A);
    return uniform ? k : kmath::max(1, k);
  };
  Kokkos::View<int*> offset("tri_sample_offset", ne + 1);
  Kokkos::parallel_scan(
      "sample_triangles::count", Kokkos::RangePolicy<>(0, ne), KOKKOS_LAMBDA(const int e, int& sum, const bool final) {
        double A;
        const int k = count(e, A);
        if (final) offset(e) = sum;
        sum += k;
        if (final && e == ne - 1) offset(ne) = sum;
      });
  int total = 0;
  if (ne > 0) Kokkos::deep_copy(total, Kokkos::subview(offset, ne));
  SurfaceSamples3D out;
  out.position = Kokkos::View<double* [3]>("surface_position", total);
  out.area = Kokkos::View<double* [3]>("surface_area", total);
  auto pos = out.position;
  auto area = out.area;
  Kokkos::parallel_for(
      "sample_triangles::place", Kokkos::RangePolicy<>(0, ne), KOKKOS_LAMBDA(const int e) {
        double A;
        const int k = count(e, A);
        if (k == 0) return;
        const double dA = uniform ? 1.0 / density : A / k;
        const int64_t cell = key(first(e)) / 12;
        for (int r = 0; r < k; ++r) {
          // A triangle of the element with probability proportional to its area, then a uniform
          // point on it (Osada et al. 2002). Stratified: the midpoint of the r-th of k equal parts of the
          // element's area, counted triangle by triangle, and across that part a golden-ratio sequence.
          double a = (stratified ? (r + 0.5) / k : hashed_uniform(seed, step, cell, 3 * r)) * A, n[3];
          int q = first(e);
          double Aq = geometry_of(q, n);
          while (q + 1 < first(e + 1) && a > Aq) {
            a -= Aq;
            Aq = geometry_of(++q, n);
          }
          double u1, u2;
          if (stratified) {
            // The part of triangle (P0, P1, P2) nearer P0 than the line u1 = const holds the area fraction u1^2.
            u1 = kmath::sqrt(Aq > 0 ? kmath::min(a / Aq, 1.0) : 0.5);
            const double g = 0.5 + 0.6180339887498949 * r;
            u2 = g - kmath::floor(g);
          } else {
            u1 = kmath::sqrt(hashed_uniform(seed, step, cell, 3 * r + 1));
            u2 = hashed_uniform(seed, step, cell, 3 * r + 2);
          }
          const int o = offset(e) + r;
          for (int d = 0; d < 3; ++d) {
            pos(o, d) = (1 - u1) * T(q, 0, d) + u1 * (1 - u2) * T(q, 1, d) + u1 * u2 * T(q, 2, d);
            area(o, d) = dA * n[d];
          }
        }
      });
  return out;
}

}  // namespace meniscus::geometry
