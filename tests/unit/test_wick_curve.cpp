// Curved candle wicks (Chen et al. 2021, Sec. 6.9: wick particles sampled on cubic splines and trimmed when
// they stand too far above the liquid): the curve's arc length, its sampling at the particle spacing and
// the trim rule measured along it, against curves whose lengths are known in closed form.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "geometry/curve.hpp"

using meniscus::geometry::Curve;

namespace {

double dist(const std::array<double, 3>& a, const std::array<double, 3>& b) {
  return std::hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
}

// y = x^2 on [0, 1] as a cubic Bezier (the quadratic (0,0), (1/2,0), (1,1) raised to degree 3): its length
// is (2 sqrt 5 + asinh 2) / 4.
Curve parabola() { return Curve({0, 0, 1.0 / 3, 0, 2.0 / 3, 1.0 / 3, 1, 1}, 2, Curve::Form::Bezier); }
const double kParabolaLength = (2 * std::sqrt(5.0) + std::asinh(2.0)) / 4;

}  // namespace

TEST(WickCurve, ArcLengthOfKnownCurves) {
  // A polyline's length is exact: 3-4-5 triangle legs plus a unit step in 3D.
  const Curve poly({0, 0, 0, 3, 4, 0, 3, 4, 1}, 3, Curve::Form::Polyline);
  EXPECT_NEAR(poly.length(), 6.0, 1e-14);
  const auto mid = poly.point_at(2.5);  // halfway along the first leg
  EXPECT_NEAR(mid[0], 1.5, 1e-14);
  EXPECT_NEAR(mid[1], 2.0, 1e-14);
  EXPECT_NEAR(parabola().length(), kParabolaLength, 1e-7 * kParabolaLength);
  // A Bezier with collinear but unevenly spaced control points: a straight segment of length 1 traversed
  // at a non-uniform parameter speed; the point at arc length s must still lie s along it.
  const Curve line({0, 0, 0.05, 0, 0.9, 0, 1, 0}, 2, Curve::Form::Bezier);
  EXPECT_NEAR(line.length(), 1.0, 1e-12);
  for (double s : {0.1, 0.37, 0.8}) EXPECT_NEAR(line.point_at(s)[0], s, 1e-12);
}

TEST(WickCurve, SamplesAtTheParticleSpacing) {
  const Curve c = parabola();
  const double h = 1.0 / 64;
  const auto smp = meniscus::geometry::sample_curve(c, h, 0.0);
  const int n = static_cast<int>(std::ceil(kParabolaLength / h));
  ASSERT_EQ(smp.stations, n);
  ASSERT_EQ(static_cast<int>(smp.x.size()), n);
  const double ds = kParabolaLength / n;
  EXPECT_NEAR(smp.volume, ds * h, 1e-7 * ds * h);
  EXPECT_NEAR(smp.volume * n / h, kParabolaLength, 1e-7) << "the samples' volumes add up to length x h";
  for (int i = 0; i < n; ++i) {
    EXPECT_NEAR(smp.arc_length[i], (i + 0.5) * ds, 1e-7 * kParabolaLength);
    EXPECT_NEAR(smp.x[i][1], smp.x[i][0] * smp.x[i][0], 1e-6) << "sample " << i << " lies on y = x^2";
    if (i > 0) {
      // Chords between neighbours are a little shorter than the arc (by ds^3 kappa^2 / 24 at most).
      const double chord = dist(smp.x[i], smp.x[i - 1]);
      EXPECT_LE(chord, ds * (1 + 1e-7));
      EXPECT_GE(chord, ds * (1 - 4.0 * ds * ds / 24 - 1e-7));
    }
  }
  // Three rows across: the outer rows lie h to either side of the curve.
  const auto wide = meniscus::geometry::sample_curve(c, h, 3 * h);
  ASSERT_EQ(wide.rows, 3);
  ASSERT_EQ(wide.x.size(), 3u * n);
  for (int i = 0; i < n; ++i) {
    EXPECT_NEAR(dist(wide.x[3 * i], wide.x[3 * i + 1]), h, 1e-12);
    EXPECT_NEAR(dist(wide.x[3 * i + 2], wide.x[3 * i + 1]), h, 1e-12);
  }
}

TEST(WickCurve, TrimMeasuredAlongTheCurve) {
  // A wick rising from (0, 0) at 3:4 slope (length 0.5 to (0.3, 0.4)), then bending horizontal for 0.2.
  const Curve c({0, 0, 0.3, 0.4, 0.5, 0.4}, 2, Curve::Form::Polyline);
  // The wax top at y = 0.2: the wick leaves the wax at arc length 0.25 and keeps 0.1 of its length beyond.
  EXPECT_NEAR(meniscus::geometry::wick_cut_length(c, 0.2, 0.1), 0.35, 1e-14);
  // The kept part may run along the horizontal leg: wax top 0.39, trim height 0.1.
  EXPECT_NEAR(meniscus::geometry::wick_cut_length(c, 0.39, 0.1), 0.4875 + 0.1, 1e-12);
  // Wax above the whole wick: nothing is cut.
  EXPECT_EQ(meniscus::geometry::wick_cut_length(c, 0.45, 0.1), std::numeric_limits<double>::infinity());
  // Projection gives the arc length of a point beside the curve: 0.01 off the first leg at s = 0.1.
  const double p[2] = {0.06 - 0.8 * 0.01, 0.08 + 0.6 * 0.01};
  EXPECT_NEAR(c.project(p), 0.1, 1e-14);
  // A straight vertical wick from y = 0.1 trims where the box-seeded wick does: at wax top + trim height.
  const Curve straight({0.3, 0.1, 0.3, 0.2, 0.3, 0.3, 0.3, 0.4}, 2, Curve::Form::Bezier);
  const double cut = meniscus::geometry::wick_cut_length(straight, 0.25, 0.04);
  EXPECT_NEAR(straight.point_at(cut)[1], 0.25 + 0.04, 1e-12);
}
