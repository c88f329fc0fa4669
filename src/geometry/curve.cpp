#include "geometry/curve.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace meniscus::geometry {

namespace {

constexpr int kChordsPerBezierSegment = 4096;

double distance(const std::array<double, 3>& a, const std::array<double, 3>& b) {
  return std::sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

std::array<double, 3> cross(const std::array<double, 3>& a, const std::array<double, 3>& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

std::array<double, 3> unit(std::array<double, 3> a) {
  const double n = std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
  for (double& c : a) c /= n;
  return a;
}

}  // namespace

Curve::Curve(const std::vector<double>& control, int dim, Form form) : dim_(dim) {
  if (dim != 2 && dim != 3) throw std::invalid_argument("a curve lives in 2 or 3 dimensions");
  if (control.size() % dim != 0)
    throw std::invalid_argument("the number of coordinates is not a multiple of the dimension");
  const size_t n = control.size() / dim;
  std::vector<std::array<double, 3>> p(n, {0, 0, 0});
  for (size_t i = 0; i < n; ++i)
    for (int d = 0; d < dim; ++d) p[i][d] = control[i * dim + d];
  if (n < 2) throw std::invalid_argument("a curve needs at least two points");
  if (form == Form::Polyline) {
    v_ = p;
  } else {
    if ((n - 1) % 3 != 0) throw std::invalid_argument("a piecewise cubic Bezier curve needs 3k + 1 control points");
    v_.push_back(p[0]);
    for (size_t seg = 0; seg + 3 < n; seg += 3)
      for (int k = 1; k <= kChordsPerBezierSegment; ++k) {
        const double t = static_cast<double>(k) / kChordsPerBezierSegment, u = 1 - t;
        const double b0 = u * u * u, b1 = 3 * u * u * t, b2 = 3 * u * t * t, b3 = t * t * t;
        std::array<double, 3> q{};
        for (int d = 0; d < 3; ++d) q[d] = b0 * p[seg][d] + b1 * p[seg + 1][d] + b2 * p[seg + 2][d] + b3 * p[seg + 3][d];
        v_.push_back(q);
      }
  }
  s_.assign(v_.size(), 0.0);
  for (size_t i = 1; i < v_.size(); ++i) s_[i] = s_[i - 1] + distance(v_[i - 1], v_[i]);
  if (!(length() > 0)) throw std::invalid_argument("the curve has zero length");
}

std::array<double, 3> Curve::point_at(double s) const {
  s = std::clamp(s, 0.0, length());
  size_t i = std::upper_bound(s_.begin(), s_.end(), s) - s_.begin();
  i = std::clamp<size_t>(i, 1, s_.size() - 1);
  const double len = s_[i] - s_[i - 1], f = len > 0 ? (s - s_[i - 1]) / len : 0.0;
  std::array<double, 3> q{};
  for (int d = 0; d < 3; ++d) q[d] = v_[i - 1][d] + f * (v_[i][d] - v_[i - 1][d]);
  return q;
}

std::array<double, 3> Curve::tangent_at(double s) const {
  s = std::clamp(s, 0.0, length());
  size_t i = std::upper_bound(s_.begin(), s_.end(), s) - s_.begin();
  i = std::clamp<size_t>(i, 1, s_.size() - 1);
  while (i + 1 < s_.size() && s_[i] == s_[i - 1]) ++i;  // skip repeated vertices
  std::array<double, 3> t{};
  for (int d = 0; d < 3; ++d) t[d] = v_[i][d] - v_[i - 1][d];
  return unit(t);
}

double Curve::project(const double* x) const {
  double best = std::numeric_limits<double>::infinity(), best_s = 0;
  for (size_t i = 1; i < v_.size(); ++i) {
    double e[3] = {}, r[3] = {}, ee = 0, er = 0;
    for (int d = 0; d < dim_; ++d) {
      e[d] = v_[i][d] - v_[i - 1][d];
      r[d] = x[d] - v_[i - 1][d];
      ee += e[d] * e[d];
      er += e[d] * r[d];
    }
    const double f = ee > 0 ? std::clamp(er / ee, 0.0, 1.0) : 0.0;
    double d2 = 0;
    for (int d = 0; d < dim_; ++d) d2 += (r[d] - f * e[d]) * (r[d] - f * e[d]);
    if (d2 < best) {
      best = d2;
      best_s = s_[i - 1] + f * (s_[i] - s_[i - 1]);
    }
  }
  return best_s;
}

double Curve::first_above(double level, int axis) const {
  if (v_[0][axis] > level) return 0.0;
  for (size_t i = 1; i < v_.size(); ++i)
    if (v_[i][axis] > level) {
      const double f = (level - v_[i - 1][axis]) / (v_[i][axis] - v_[i - 1][axis]);
      return s_[i - 1] + f * (s_[i] - s_[i - 1]);
    }
  return -1.0;
}

CurveSamples sample_curve(const Curve& c, double h, double thickness) {
  if (!(h > 0)) throw std::invalid_argument("the sampling spacing must be positive");
  CurveSamples out;
  out.stations = std::max(1, static_cast<int>(std::ceil(c.length() / h - 1e-9)));
  out.rows = std::max(1, static_cast<int>(std::lround(thickness / h)));
  const double ds = c.length() / out.stations;
  out.volume = ds * std::pow(h, c.dim() - 1);
  const int across = c.dim() == 3 ? out.rows * out.rows : out.rows;
  for (int i = 0; i < out.stations; ++i) {
    const double s = (i + 0.5) * ds;
    const auto x = c.point_at(s);
    const auto t = c.tangent_at(s);
    // Normals: in 2D the tangent turned by 90 degrees; in 3D two unit vectors across the tangent.
    std::array<double, 3> n1{-t[1], t[0], 0}, n2{0, 0, 0};
    if (c.dim() == 3) {
      const std::array<double, 3> ref = std::fabs(t[2]) < 0.9 ? std::array<double, 3>{0, 0, 1}
                                                               : std::array<double, 3>{1, 0, 0};
      n1 = unit(cross(t, ref));
      n2 = cross(t, n1);
    }
    for (int k = 0; k < across; ++k) {
      const double a = (k % out.rows - 0.5 * (out.rows - 1)) * h;
      const double b = c.dim() == 3 ? (k / out.rows - 0.5 * (out.rows - 1)) * h : 0.0;
      std::array<double, 3> q{};
      for (int d = 0; d < 3; ++d) q[d] = x[d] + a * n1[d] + b * n2[d];
      out.x.push_back(q);
      out.arc_length.push_back(s);
    }
  }
  return out;
}

double wick_cut_length(const Curve& c, double wax_top, double trim_height) {
  const double exit = c.first_above(wax_top, 1);
  if (exit < 0) return std::numeric_limits<double>::infinity();
  return exit + trim_height;
}

}  // namespace meniscus::geometry
