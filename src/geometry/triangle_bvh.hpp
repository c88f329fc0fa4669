#pragma once
// A bounding-volume hierarchy over a mesh's triangles, stored in flat views so that kernels can walk
// it: nearest-triangle distance queries, and the triangles a line parallel to x may cross. Built on
// the host by median splits, so its depth is about log2(triangles) and a fixed stack suffices.
#include <Kokkos_Core.hpp>

#include "core/kmath.hpp"
#include "geometry/point_triangle.hpp"

namespace meniscus::geometry {

struct TriangleMesh;

struct TriangleBvh {
  // A depth-first walk holds at most one pending sibling per level plus the current node; build_bvh
  // keeps the depth below this (median splits give about log2(triangles) levels).
  static constexpr int max_depth = 64;

  Kokkos::View<double* [6]> boxes;     // per node: lower x, y, z, upper x, y, z
  Kokkos::View<int* [3]> nodes;        // per node: right child (-1 for a leaf), first triangle, count
  Kokkos::View<double* [9]> triangles;  // vertex coordinates, grouped by leaf; the left child is node + 1

  KOKKOS_INLINE_FUNCTION double box_distance2(int node, const double p[3]) const {
    double s = 0;
    for (int d = 0; d < 3; ++d) {
      const double below = boxes(node, d) - p[d], above = p[d] - boxes(node, 3 + d);
      const double gap = kmath::max(0.0, kmath::max(below, above));
      s += gap * gap;
    }
    return s;
  }

  KOKKOS_INLINE_FUNCTION void corners(int t, double a[3], double b[3], double c[3]) const {
    for (int d = 0; d < 3; ++d) {
      a[d] = triangles(t, d);
      b[d] = triangles(t, 3 + d);
      c[d] = triangles(t, 6 + d);
    }
  }

  // Squared distance from p to the nearest triangle. Children are visited nearer first so that the
  // bound tightens early and most of the tree is pruned.
  KOKKOS_INLINE_FUNCTION double closest_distance2(const double p[3]) const {
    double best = kmath::huge;
    int stack[max_depth];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
      const int node = stack[--top];
      if (box_distance2(node, p) >= best) continue;
      const int right = nodes(node, 0);
      if (right < 0) {
        const int first = nodes(node, 1), count = nodes(node, 2);
        for (int t = first; t < first + count; ++t) {
          double a[3], b[3], c[3];
          corners(t, a, b, c);
          best = kmath::min(best, triangle_distance2(p, a, b, c));
        }
        continue;
      }
      const int left = node + 1;
      const double dl = box_distance2(left, p), dr = box_distance2(right, p);
      const int nearer = dl <= dr ? left : right, farther = dl <= dr ? right : left;
      if (kmath::max(dl, dr) < best) stack[top++] = farther;
      if (kmath::min(dl, dr) < best) stack[top++] = nearer;
    }
    return best;
  }

  // Calls visit(t) for every triangle whose bounding box meets the line {(s, y, z)}. Box tests are
  // closed so that no triangle the line touches is missed.
  template <class Visit>
  KOKKOS_INLINE_FUNCTION void for_each_on_x_line(double y, double z, Visit& visit) const {
    int stack[max_depth];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
      const int node = stack[--top];
      if (y < boxes(node, 1) || y > boxes(node, 4) || z < boxes(node, 2) || z > boxes(node, 5)) continue;
      const int right = nodes(node, 0);
      if (right < 0) {
        for (int t = nodes(node, 1); t < nodes(node, 1) + nodes(node, 2); ++t) visit(t);
        continue;
      }
      stack[top++] = right;
      stack[top++] = node + 1;
    }
  }
};

// Requires at least one triangle with in-range indices (validate() guarantees both).
TriangleBvh build_bvh(const TriangleMesh& mesh);

}  // namespace meniscus::geometry
