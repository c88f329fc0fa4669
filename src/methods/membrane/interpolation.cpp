#include "methods/membrane/interpolation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace meniscus::membrane {

SegmentIndex::SegmentIndex(std::vector<double> xy, std::vector<int> seg, double x0, double y0, double cell, int nx,
                           int ny)
    : xy_(std::move(xy)), seg_(std::move(seg)), x0_(x0), y0_(y0), cell_(cell), nx_(nx), ny_(ny), buckets_(nx * ny) {
  const int ns = static_cast<int>(seg_.size() / 2);
  for (int e = 0; e < ns; ++e) {
    const double* a = &xy_[2 * seg_[2 * e]];
    const double* b = &xy_[2 * seg_[2 * e + 1]];
    for (int j = bucket_y(std::min(a[1], b[1])); j <= bucket_y(std::max(a[1], b[1])); ++j)
      for (int i = bucket_x(std::min(a[0], b[0])); i <= bucket_x(std::max(a[0], b[0])); ++i)
        buckets_[j * nx_ + i].push_back(e);
  }
}

int SegmentIndex::bucket_x(double x) const {
  return std::clamp(static_cast<int>(std::floor((x - x0_) / cell_)), 0, nx_ - 1);
}
int SegmentIndex::bucket_y(double y) const {
  return std::clamp(static_cast<int>(std::floor((y - y0_) / cell_)), 0, ny_ - 1);
}

void SegmentIndex::candidates(const double lo[2], const double hi[2], std::vector<int>& out) const {
  out.clear();
  for (int j = bucket_y(lo[1]); j <= bucket_y(hi[1]); ++j)
    for (int i = bucket_x(lo[0]); i <= bucket_x(hi[0]); ++i)
      for (int e : buckets_[j * nx_ + i]) out.push_back(e);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

namespace {
double point_segment_distance(const double p[2], const double a[2], const double b[2]) {
  const double ex = b[0] - a[0], ey = b[1] - a[1];
  const double ll = ex * ex + ey * ey;
  double t = ll > 0 ? ((p[0] - a[0]) * ex + (p[1] - a[1]) * ey) / ll : 0.0;
  t = std::clamp(t, 0.0, 1.0);
  const double dx = a[0] + t * ex - p[0], dy = a[1] + t * ey - p[1];
  return std::sqrt(dx * dx + dy * dy);
}
}  // namespace

int SegmentIndex::nearest_segment(const double p[2]) const {
  const int ns = static_cast<int>(seg_.size() / 2);
  int best = -1;
  double bd = std::numeric_limits<double>::max();
  for (int e = 0; e < ns; ++e) {
    const double d = point_segment_distance(p, &xy_[2 * seg_[2 * e]], &xy_[2 * seg_[2 * e + 1]]);
    if (d < bd) {
      bd = d;
      best = e;
    }
  }
  return best;
}

double SegmentIndex::distance(const double p[2]) const {
  const int e = nearest_segment(p);
  if (e < 0) return std::numeric_limits<double>::max();
  return point_segment_distance(p, &xy_[2 * seg_[2 * e]], &xy_[2 * seg_[2 * e + 1]]);
}

int SegmentIndex::crossings_above(const double p[2]) const {
  // Perturbed abscissa so that the ray never passes through a vertex of a lattice-aligned mesh.
  const double px = p[0] + 1e-7 * cell_;
  const int ns = static_cast<int>(seg_.size() / 2);
  int count = 0;
  for (int e = 0; e < ns; ++e) {
    const double* a = &xy_[2 * seg_[2 * e]];
    const double* b = &xy_[2 * seg_[2 * e + 1]];
    if ((a[0] <= px) == (b[0] <= px)) continue;
    const double t = (px - a[0]) / (b[0] - a[0]);
    if (a[1] + t * (b[1] - a[1]) > p[1]) ++count;
  }
  return count;
}

double clipped_length(const double a[2], const double b[2], const double lo[2], const double hi[2]) {
  double t0 = 0, t1 = 1;
  const double d[2] = {b[0] - a[0], b[1] - a[1]};
  for (int k = 0; k < 2; ++k) {
    if (d[k] == 0) {
      if (a[k] < lo[k] || a[k] > hi[k]) return 0;
      continue;
    }
    double ta = (lo[k] - a[k]) / d[k], tb = (hi[k] - a[k]) / d[k];
    if (ta > tb) std::swap(ta, tb);
    t0 = std::max(t0, ta);
    t1 = std::min(t1, tb);
    if (t0 >= t1) return 0;
  }
  return (t1 - t0) * std::sqrt(d[0] * d[0] + d[1] * d[1]);
}

std::vector<std::pair<int, double>> interpolation_row(const SegmentIndex& index, const double centre[2], double half) {
  const double h2[2] = {half, half};
  return interpolation_row(index, centre, h2);
}

double SegmentIndex::clipped_measure(int e, const double* lo, const double* hi) const {
  return clipped_length(&xy_[2 * seg_[2 * e]], &xy_[2 * seg_[2 * e + 1]], lo, hi);
}

std::vector<std::pair<int, double>> interpolation_row(const SegmentIndex& index, const double centre[2],
                                                     const double halfw[2]) {
  const double lo[2] = {centre[0] - halfw[0], centre[1] - halfw[1]};
  const double hi[2] = {centre[0] + halfw[0], centre[1] + halfw[1]};
  // Slivers below 1e-12 dx are round-off of a segment grazing the box.
  return interpolation_row_of(index, centre, lo, hi, 1e-12 * std::min(halfw[0], halfw[1]));
}

}  // namespace meniscus::membrane
