#pragma once
// Exact Euclidean distance from a point to a triangle in 3D, callable from kernels.
#include <Kokkos_Core.hpp>

#include "core/kmath.hpp"

namespace meniscus::geometry {

KOKKOS_INLINE_FUNCTION double segment_distance2(const double p[3], const double a[3], const double b[3]) {
  double ab[3], ap[3];
  for (int d = 0; d < 3; ++d) {
    ab[d] = b[d] - a[d];
    ap[d] = p[d] - a[d];
  }
  const double len2 = kmath::dot<3>(ab, ab);
  const double t = len2 > 0 ? kmath::clamp(kmath::dot<3>(ap, ab) / len2, 0.0, 1.0) : 0.0;
  double s = 0;
  for (int d = 0; d < 3; ++d) {
    const double r = ap[d] - t * ab[d];
    s += r * r;
  }
  return s;
}

// If p projects into the triangle the distance is the height above its plane; otherwise the
// nearest point lies on the boundary, so the nearest of the three edges decides. Degenerate
// triangles (no normal) fall through to the edges too.
KOKKOS_INLINE_FUNCTION double triangle_distance2(const double p[3], const double a[3], const double b[3],
                                                 const double c[3]) {
  double ab[3], ac[3], n[3];
  for (int d = 0; d < 3; ++d) {
    ab[d] = b[d] - a[d];
    ac[d] = c[d] - a[d];
  }
  kmath::cross(ab, ac, n);
  const double nn = kmath::dot<3>(n, n);
  if (nn > 0) {
    const double* corner[3] = {a, b, c};
    bool inside = true;
    for (int e = 0; e < 3 && inside; ++e) {
      const double* u = corner[e];
      const double* v = corner[(e + 1) % 3];
      double edge[3], up[3], side[3];
      for (int d = 0; d < 3; ++d) {
        edge[d] = v[d] - u[d];
        up[d] = p[d] - u[d];
      }
      kmath::cross(edge, up, side);
      inside = kmath::dot<3>(side, n) >= 0;
    }
    if (inside) {
      double ap[3];
      for (int d = 0; d < 3; ++d) ap[d] = p[d] - a[d];
      const double height = kmath::dot<3>(ap, n);
      return height * height / nn;
    }
  }
  return kmath::min(segment_distance2(p, a, b), kmath::min(segment_distance2(p, b, c), segment_distance2(p, c, a)));
}

}  // namespace meniscus::geometry
