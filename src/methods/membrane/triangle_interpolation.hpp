#pragma once
// The 3D membrane-to-grid interpolation W of Ruan et al. 2021 (§4.3 "dual cells") and the
// membrane queries the 3D grid classification needs. Every triangle is clipped against a face's
// dual cell (Sutherland-Hodgman against the box's six planes) and each of its three vertices gets
// the clipped area; the row is normalised to sum 1 (interpolation_row_of, shared with 2D). Cells are
// typed by ray parity along +z (liquid where an upward ray crosses the membrane an odd number of
// times) and get a signed distance phi (negative in the liquid) near the membrane for the
// ghost-fluid fraction of the mixed mass M. Host code: the rows feed PETSc assembly.
#include <utility>
#include <vector>

namespace meniscus::membrane {

class TriangleIndex {
 public:
  // xyz: 3 per vertex; tri: 3 per triangle. Buckets are cubes of side `cell` from `lower`, n per axis.
  TriangleIndex(std::vector<double> xyz, std::vector<int> tri, const double lower[3], double cell, const int n[3]);
  const std::vector<double>& xyz() const { return xyz_; }
  const std::vector<int>& tri() const { return tri_; }
  long triangles() const { return static_cast<long>(tri_.size() / 3); }
  // Triangles whose bounding box meets the box [lo, hi], sorted, each once.
  void candidates(const double* lo, const double* hi, std::vector<int>& out) const;
  // Number of triangles crossed by the upward (+z) ray from p; odd: p lies in the liquid. The ray
  // is offset by a fraction of a bucket in x and y so that it never meets an edge of a mesh
  // aligned with the grid.
  int crossings_above(const double p[3]) const;
  // The crossings whose height z satisfies p[2] < z <= ztop only (a slab of the ray): the counts of
  // consecutive slabs add up to crossings_above exactly.
  int crossings_between(const double p[3], double ztop) const;
  // Unsigned distance from p to the membrane if it is below `reach`, else `reach`.
  double distance(const double p[3], double reach) const;
  // The element interface of interpolation_row_of.
  std::pair<const int*, int> element_vertices(int t) const { return {&tri_[3 * t], 3}; }
  double clipped_measure(int t, const double* lo, const double* hi) const;
  int nearest_element(const double* p) const;

 private:
  std::vector<double> xyz_;
  std::vector<int> tri_;
  double lower_[3], cell_;
  int n_[3];
  std::vector<std::vector<int>> buckets_;
  int bucket(int d, double x) const;
};

// Area of the part of triangle (a, b, c) inside the box [lo, hi].
double clipped_area(const double a[3], const double b[3], const double c[3], const double lo[3], const double hi[3]);

// The W row of the dual cell centred at `centre` with half-widths half[0..2]: (vertex, weight)
// pairs, weights summing to 1; an empty clip falls back to the nearest triangle's three vertices.
std::vector<std::pair<int, double>> interpolation_row(const TriangleIndex& index, const double centre[3],
                                                     const double half[3]);

}  // namespace meniscus::membrane
