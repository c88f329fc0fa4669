#pragma once
// Exact signed distances and closest points of two 2D outlines, callable from Kokkos kernels: an
// ellipse centred at the origin with its axes along x and y, and a simple polygon. Negative inside.
// The 2D rigid bodies of the three-way coupling (Ruan et al. 2021 §4.3: logs, Cheerios and hulls
// seen end-on) type cells and faces with them every step, so both are exact rather than sampled.
#include <Kokkos_Core.hpp>

#include "core/kmath.hpp"

namespace meniscus::geometry {

// Closest point p of the ellipse (x / a)^2 + (y / b)^2 = 1 to (u, w); returns the signed distance.
//
// Why this form: with a >= b and (u, w) in the first quadrant the closest point is
// (a^2 u / (s + a^2 - b^2), b^2 w / s) for the root s > 0 of
//   F(s) = (a u / (s + a^2 - b^2))^2 + (b w / s)^2 - 1,
// which is decreasing and convex on s > 0 and bracketed by [b w, (a^2 u^2 + b^2 w^2)^(1/2)]
// (the normal to the ellipse at the closest point passes through (u, w); this is the Lagrange
// condition with s = t + b^2, written in s so that points near the major axis keep their digits).
// Newton from the upper end, with a geometric bisection whenever a step leaves the bracket (the
// bracket spans many decades for points near the major axis), converges to round-off. On the major axis inside the evolute's cusp (w = 0, u < (a^2 - b^2) / a) the root is
// s = 0 and the closest point has the closed form used below.
KOKKOS_INLINE_FUNCTION double ellipse_closest(double a, double b, double u, double w, double* p) {
  const bool swap = a < b;
  const double A = swap ? b : a, B = swap ? a : b;
  const double x = kmath::fabs(swap ? w : u), y = kmath::fabs(swap ? u : w);
  const double D = A * A - B * B;
  double cx = A, cy = 0;
  if (y > 0) {
    double lo = B * y, hi = kmath::sqrt(A * A * x * x + B * B * y * y), s = hi;
    for (int it = 0; it < 100; ++it) {
      const double gx = A * x / (s + D), gy = B * y / s;
      const double f = gx * gx + gy * gy - 1;
      if (f > 0) lo = s; else hi = s;
      const double df = -2 * (gx * gx / (s + D) + gy * gy / s);
      double next = s - f / df;
      if (!(next > lo && next < hi)) next = kmath::sqrt(lo * hi);  // lo > 0: halves the bracket's log-width
      const bool done = kmath::fabs(next - s) <= 4e-16 * s || hi - lo <= 4e-16 * hi;
      s = next;
      if (done) break;
    }
    cx = A * A * x / (s + D);
    cy = B * B * y / s;
  } else if (A * x < D) {
    cx = A * A * x / D;
    const double r = cx / A;
    cy = B * kmath::sqrt(kmath::max(0.0, 1 - r * r));
  }
  const double px = swap ? cy : cx, py = swap ? cx : cy;
  p[0] = u < 0 ? -px : px;
  p[1] = w < 0 ? -py : py;
  const double dx = u - p[0], dy = w - p[1];
  const double dist = kmath::sqrt(dx * dx + dy * dy);
  return (u / a) * (u / a) + (w / b) * (w / b) < 1 ? -dist : dist;
}

// Closest point p of the boundary of the simple polygon xy (n corners, x0 y0 x1 y1 ..., either
// orientation) to (u, w); returns the signed distance (inside by the crossing number).
KOKKOS_INLINE_FUNCTION double polygon_closest(const double* xy, int n, double u, double w, double* p) {
  double best = kmath::huge;
  bool inside = false;
  for (int k = 0; k < n; ++k) {
    const double* s = xy + 2 * k;
    const double* e = xy + 2 * ((k + 1) % n);
    const double ex = e[0] - s[0], ey = e[1] - s[1], len2 = ex * ex + ey * ey;
    const double t = len2 > 0 ? kmath::clamp(((u - s[0]) * ex + (w - s[1]) * ey) / len2, 0.0, 1.0) : 0.0;
    const double qx = s[0] + t * ex, qy = s[1] + t * ey;
    const double d2 = (u - qx) * (u - qx) + (w - qy) * (w - qy);
    if (d2 < best) {
      best = d2;
      p[0] = qx;
      p[1] = qy;
    }
    if ((s[1] > w) != (e[1] > w) && u < s[0] + (w - s[1]) / (e[1] - s[1]) * ex) inside = !inside;
  }
  const double dist = kmath::sqrt(best);
  return inside ? -dist : dist;
}

}  // namespace meniscus::geometry
