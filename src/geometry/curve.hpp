#pragma once
// A space curve given by control points, for candle wicks (Chen et al. 2021, Sec. 6.9: "we manually
// construct and sample points on cubic splines"): either a polyline through the points or a piecewise
// cubic Bezier curve (3k + 1 control points; segment i uses points 3i .. 3i + 3, so it passes through
// every third point). The curve is held as a dense polyline with its cumulative arc length, which is
// exact for a polyline and within ~1e-7 of the length for the Bezier form (4096 chords per segment);
// everything else (points at an arc length, sampling at a spacing, projection, the wick's trim rule) is
// measured on it. Host-side: the wick operator copies what its kernels need into Views.
#include <array>
#include <stdexcept>
#include <vector>

namespace meniscus::geometry {

class Curve {
 public:
  enum class Form { Polyline, Bezier };
  // control: Dim coordinates per point (2 or 3), flattened. Throws std::invalid_argument with a
  // reason for too few points, a count that is not a multiple of Dim, a Bezier count that is not
  // 3k + 1, or a curve of zero length.
  Curve(const std::vector<double>& control, int dim, Form form);

  int dim() const { return dim_; }
  double length() const { return s_.back(); }
  // The point at arc length s from the first control point (clamped to [0, length]).
  std::array<double, 3> point_at(double s) const;
  // Unit tangent (direction of increasing s) at arc length s.
  std::array<double, 3> tangent_at(double s) const;
  // Arc length of the point of the curve nearest to x.
  double project(const double* x) const;
  // The smallest arc length at which coordinate `axis` of the curve exceeds `level` (linear within a
  // chord), or a negative value when the curve never rises above it.
  double first_above(double level, int axis) const;
  // The dense polyline (dim coordinates per vertex) and its cumulative arc lengths.
  const std::vector<std::array<double, 3>>& vertices() const { return v_; }
  const std::vector<double>& arc_lengths() const { return s_; }

 private:
  int dim_;
  std::vector<std::array<double, 3>> v_;
  std::vector<double> s_;
};

// Particles along a curve at spacing h: n = ceil(length / h) stations at arc lengths (i + 1/2) length / n
// (so the spacing along the curve is length / n <= h and the ends lie half a spacing inside the
// curve's ends), and at each station rows = max(1, round(thickness / h)) points across the curve at
// spacing h, centred on it (rows x rows in 3D, along two normals). volume is the volume each point
// stands for: (length / n) h^(dim - 1).
struct CurveSamples {
  std::vector<std::array<double, 3>> x;
  std::vector<double> arc_length;  // of the station each point belongs to
  double volume = 0;
  int stations = 0, rows = 1;
};
CurveSamples sample_curve(const Curve& c, double h, double thickness);

// The candle wick's trim rule (Chen et al. 2021, Sec. 6.9: "we delete particles from the wick that are
// too far above the highest liquid particle within a neighborhood of the wick"), measured along the
// wick: the wick leaves the wax where it first rises above the wax top (first_above(wax_top, 1)), and
// keeps at most trim_height of its length beyond that point. Returns the arc length beyond which the
// wick's particles are removed; +infinity when the curve never rises above the wax top.
double wick_cut_length(const Curve& c, double wax_top, double trim_height);

}  // namespace meniscus::geometry
