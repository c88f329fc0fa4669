#include "methods/membrane/triangle_interpolation.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "geometry/point_triangle.hpp"
#include "methods/membrane/interpolation.hpp"

namespace meniscus::membrane {

TriangleIndex::TriangleIndex(std::vector<double> xyz, std::vector<int> tri, const double lower[3], double cell,
                             const int n[3])
    : xyz_(std::move(xyz)), tri_(std::move(tri)), cell_(cell) {
  for (int d = 0; d < 3; ++d) {
    lower_[d] = lower[d];
    n_[d] = std::max(1, n[d]);
  }
  buckets_.resize(static_cast<size_t>(n_[0]) * n_[1] * n_[2]);
  for (long t = 0; t < triangles(); ++t) {
    int lo[3], hi[3];
    for (int d = 0; d < 3; ++d) {
      double a = xyz_[3 * tri_[3 * t] + d], b = a;
      for (int q = 1; q < 3; ++q) {
        a = std::min(a, xyz_[3 * tri_[3 * t + q] + d]);
        b = std::max(b, xyz_[3 * tri_[3 * t + q] + d]);
      }
      lo[d] = bucket(d, a);
      hi[d] = bucket(d, b);
    }
    for (int k = lo[2]; k <= hi[2]; ++k)
      for (int j = lo[1]; j <= hi[1]; ++j)
        for (int i = lo[0]; i <= hi[0]; ++i)
          buckets_[(static_cast<size_t>(k) * n_[1] + j) * n_[0] + i].push_back(static_cast<int>(t));
  }
}

int TriangleIndex::bucket(int d, double x) const {
  return std::clamp(static_cast<int>(std::floor((x - lower_[d]) / cell_)), 0, n_[d] - 1);
}

void TriangleIndex::candidates(const double* lo, const double* hi, std::vector<int>& out) const {
  out.clear();
  for (int k = bucket(2, lo[2]); k <= bucket(2, hi[2]); ++k)
    for (int j = bucket(1, lo[1]); j <= bucket(1, hi[1]); ++j)
      for (int i = bucket(0, lo[0]); i <= bucket(0, hi[0]); ++i)
        for (int t : buckets_[(static_cast<size_t>(k) * n_[1] + j) * n_[0] + i]) out.push_back(t);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

int TriangleIndex::crossings_above(const double p[3]) const {
  return crossings_between(p, std::numeric_limits<double>::infinity());
}

int TriangleIndex::crossings_between(const double p[3], double ztop) const {
  const double px = p[0] + 1.3e-7 * cell_, py = p[1] + 0.7e-7 * cell_;
  const double lo[3] = {px, py, p[2]};
  const double hi[3] = {px, py, std::min(ztop, lower_[2] + n_[2] * cell_ + cell_)};
  std::vector<int> cand;
  candidates(lo, hi, cand);
  int count = 0;
  for (int t : cand) {
    const double* a = &xyz_[3 * tri_[3 * t]];
    const double* b = &xyz_[3 * tri_[3 * t + 1]];
    const double* c = &xyz_[3 * tri_[3 * t + 2]];
    // Signed areas of the projections on the xy-plane: the ray meets the triangle where all three
    // have the sign of the whole triangle's.
    auto edge = [&](const double* u, const double* v) { return (v[0] - u[0]) * (py - u[1]) - (v[1] - u[1]) * (px - u[0]); };
    const double wa = edge(b, c), wb = edge(c, a), wc = edge(a, b), s = wa + wb + wc;
    if (s == 0) continue;  // vertical triangle: the ray grazes it
    if (!((wa > 0 && wb > 0 && wc > 0) || (wa < 0 && wb < 0 && wc < 0))) continue;
    const double z = (wa * a[2] + wb * b[2] + wc * c[2]) / s;
    if (z > p[2] && z <= ztop) ++count;
  }
  return count;
}

double TriangleIndex::distance(const double p[3], double reach) const {
  const double lo[3] = {p[0] - reach, p[1] - reach, p[2] - reach};
  const double hi[3] = {p[0] + reach, p[1] + reach, p[2] + reach};
  std::vector<int> cand;
  candidates(lo, hi, cand);
  double best = reach * reach;
  for (int t : cand)
    best = std::min(best, geometry::triangle_distance2(p, &xyz_[3 * tri_[3 * t]], &xyz_[3 * tri_[3 * t + 1]],
                                                       &xyz_[3 * tri_[3 * t + 2]]));
  return std::sqrt(best);
}

int TriangleIndex::nearest_element(const double* p) const {
  int best = -1;
  double bd = std::numeric_limits<double>::max();
  std::array<double, 3> bc{};
  // Ties (a point equally far from triangles that share a vertex or an edge) go to the triangle
  // with the smallest centroid (x, then y, then z), not to the first in storage order, so that the
  // row does not depend on how a rank's layout orders its triangles.
  auto centroid = [&](long t) {
    std::array<double, 3> c{};
    for (int d = 0; d < 3; ++d)
      c[d] = (xyz_[3 * tri_[3 * t] + d] + xyz_[3 * tri_[3 * t + 1] + d] + xyz_[3 * tri_[3 * t + 2] + d]) / 3;
    return c;
  };
  for (long t = 0; t < triangles(); ++t) {
    const double d = geometry::triangle_distance2(p, &xyz_[3 * tri_[3 * t]], &xyz_[3 * tri_[3 * t + 1]],
                                                  &xyz_[3 * tri_[3 * t + 2]]);
    if (d > bd) continue;
    const std::array<double, 3> c = centroid(t);
    if (d == bd && !(c < bc)) continue;
    bd = d;
    bc = c;
    best = static_cast<int>(t);
  }
  return best;
}

double TriangleIndex::clipped_measure(int t, const double* lo, const double* hi) const {
  return clipped_area(&xyz_[3 * tri_[3 * t]], &xyz_[3 * tri_[3 * t + 1]], &xyz_[3 * tri_[3 * t + 2]], lo, hi);
}

double clipped_area(const double a[3], const double b[3], const double c[3], const double lo[3], const double hi[3]) {
  // Sutherland-Hodgman: a convex polygon clipped by one plane at a time keeps at most one more
  // vertex per plane (3 + 6).
  std::vector<std::array<double, 3>> poly = {{a[0], a[1], a[2]}, {b[0], b[1], b[2]}, {c[0], c[1], c[2]}}, next;
  for (int d = 0; d < 3; ++d)
    for (int side = 0; side < 2; ++side) {
      // Inside: x_d >= lo_d (side 0) or x_d <= hi_d (side 1).
      auto inside = [&](const std::array<double, 3>& p) { return side == 0 ? p[d] >= lo[d] : p[d] <= hi[d]; };
      const double plane = side == 0 ? lo[d] : hi[d];
      next.clear();
      const size_t n = poly.size();
      for (size_t q = 0; q < n; ++q) {
        const auto& p = poly[q];
        const auto& r = poly[(q + 1) % n];
        const bool pin = inside(p), rin = inside(r);
        if (pin) next.push_back(p);
        if (pin != rin) {
          const double s = (plane - p[d]) / (r[d] - p[d]);
          std::array<double, 3> x;
          for (int e = 0; e < 3; ++e) x[e] = p[e] + s * (r[e] - p[e]);
          x[d] = plane;
          next.push_back(x);
        }
      }
      poly.swap(next);
      if (poly.size() < 3) return 0;
    }
  // Area of a planar polygon: half the norm of the sum of its fan's cross products.
  double s[3] = {0, 0, 0};
  for (size_t q = 1; q + 1 < poly.size(); ++q) {
    double u[3], v[3];
    for (int e = 0; e < 3; ++e) {
      u[e] = poly[q][e] - poly[0][e];
      v[e] = poly[q + 1][e] - poly[0][e];
    }
    s[0] += u[1] * v[2] - u[2] * v[1];
    s[1] += u[2] * v[0] - u[0] * v[2];
    s[2] += u[0] * v[1] - u[1] * v[0];
  }
  return 0.5 * std::sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
}

std::vector<std::pair<int, double>> interpolation_row(const TriangleIndex& index, const double centre[3],
                                                     const double half[3]) {
  double lo[3], hi[3];
  for (int d = 0; d < 3; ++d) {
    lo[d] = centre[d] - half[d];
    hi[d] = centre[d] + half[d];
  }
  // Slivers below 1e-12 dx^2 are round-off of a triangle grazing the box.
  const double h = std::min({half[0], half[1], half[2]});
  return interpolation_row_of(index, centre, lo, hi, 1e-12 * h * h);
}

}  // namespace meniscus::membrane
