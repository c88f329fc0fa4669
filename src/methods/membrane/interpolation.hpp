#pragma once
// Membrane-to-grid interpolation W of Ruan et al. 2021 (§4.3 "dual cells"): the velocity of a
// fluid-air face is a weighted average of membrane vertex velocities, (W v)_f = sum_i W_fi v_i.d.
// Weights follow the paper's rule in 2D: every segment is clipped against the face's dual cell (the
// square of side dx centred at the face) and each of its two vertices receives the clipped length;
// the row is then normalised to sum 1. Because rows sum to 1, W reproduces a uniform velocity and
// W^T moves a face impulse to the vertices without changing its sum. Host code: rows feed PETSc
// assembly, which is host-only.
#include <map>
#include <utility>
#include <vector>

namespace meniscus::membrane {

// Host copy of the polyline geometry with a bucket grid of segments, for dual-cell queries.
class SegmentIndex {
 public:
  // xy: 2 per vertex; seg: 2 per segment. Buckets have side `cell` starting at (x0, y0).
  SegmentIndex(std::vector<double> xy, std::vector<int> seg, double x0, double y0, double cell, int nx, int ny);
  const std::vector<double>& xy() const { return xy_; }
  const std::vector<int>& seg() const { return seg_; }
  // Segments whose bounding box meets the box [lo, hi].
  void candidates(const double lo[2], const double hi[2], std::vector<int>& out) const;
  // Unsigned distance from p to the polyline.
  double distance(const double p[2]) const;
  // Number of segments crossed by the upward ray from p (offset to avoid hitting vertices exactly):
  // odd means p lies in the liquid (Ruan 2021 §4.3 cell typing; the ray parity rule).
  int crossings_above(const double p[2]) const;
  // Nearest segment to p.
  int nearest_segment(const double p[2]) const;
  // The element interface of interpolation_row_of.
  std::pair<const int*, int> element_vertices(int e) const { return {&seg_[2 * e], 2}; }
  double clipped_measure(int e, const double* lo, const double* hi) const;
  int nearest_element(const double* p) const { return nearest_segment(p); }

 private:
  std::vector<double> xy_;
  std::vector<int> seg_;
  double x0_, y0_, cell_;
  int nx_, ny_;
  std::vector<std::vector<int>> buckets_;
  int bucket_x(double x) const;
  int bucket_y(double y) const;
};

// Length of the part of segment (a, b) inside the axis-aligned box [lo, hi] (Liang-Barsky clip).
double clipped_length(const double a[2], const double b[2], const double lo[2], const double hi[2]);

// The paper's W row rule for any dimension (Ruan 2021 §4.3): every membrane element (segment in 2D,
// triangle in 3D) that meets the support box [lo, hi] gives each of its vertices the measure of its
// clipped part; the row is normalised to sum 1 (ordered by vertex, so rows are identical on every
// rank count). `Index` provides candidates(lo, hi, out), element_vertices(e) -> (pointer, count),
// clipped_measure(e, lo, hi) and nearest_element(p); an empty clip falls back to the vertices of the
// element nearest to `centre`, equally weighted. `tiny` is the measure below which a clip is a
// grazing round-off sliver.
template <class Index>
std::vector<std::pair<int, double>> interpolation_row_of(const Index& index, const double* centre, const double* lo,
                                                        const double* hi, double tiny) {
  std::vector<int> cand;
  index.candidates(lo, hi, cand);
  std::map<int, double> w;
  double total = 0;
  for (int e : cand) {
    const double a = index.clipped_measure(e, lo, hi);
    if (a <= tiny) continue;
    const auto [vs, n] = index.element_vertices(e);
    for (int q = 0; q < n; ++q) w[vs[q]] += a;
    total += n * a;
  }
  std::vector<std::pair<int, double>> row;
  if (total == 0) {
    const int e = index.nearest_element(centre);
    if (e < 0) return row;
    const auto [vs, n] = index.element_vertices(e);
    for (int q = 0; q < n; ++q) row.emplace_back(vs[q], 1.0 / n);
    return row;
  }
  for (const auto& kv : w) row.emplace_back(kv.first, kv.second / total);
  return row;
}

// The W row of the dual cell centred at `centre` with half-width `half`: (vertex, weight) pairs,
// weights summing to 1. An empty clip (the membrane only touches the box) falls back to the two
// vertices of the nearest segment with weight 1/2 each.
std::vector<std::pair<int, double>> interpolation_row(const SegmentIndex& index, const double centre[2], double half);
// Same with a rectangular support of half-widths half[0], half[1].
std::vector<std::pair<int, double>> interpolation_row(const SegmentIndex& index, const double centre[2],
                                                     const double half[2]);

}  // namespace meniscus::membrane
