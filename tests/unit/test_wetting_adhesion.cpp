// The wetting weight w(phi) of methods/mpm/wetting_adhesion.hpp: 1 up to delta_SL - b/2, 0 from
// delta_SL + b/2, slope and curvature against central finite differences (relative 1e-6), continuous slope
// and curvature at the ramp's ends (C2, so the implicit energy is twice differentiable), and a ramp whose
// integral equals the sharp cut's (the mean wetted distance stays delta_SL, so the weight moves no
// contact angle by itself, only adds the pull towards the wall).
#include <gtest/gtest.h>

#include <cmath>

#include "methods/mpm/wetting_adhesion.hpp"

using meniscus::mpm::WettingRamp;

TEST(WettingAdhesion, WeightIsOneThenZeroOutsideTheRamp) {
  const WettingRamp r{0.01, 0.03};
  double s, c;
  EXPECT_EQ(r.weight(-1.0, s, c), 1.0);
  EXPECT_EQ(s, 0.0);
  EXPECT_EQ(r.weight(0.01, s, c), 1.0);
  EXPECT_EQ(r.weight(0.03, s, c), 0.0);
  EXPECT_EQ(r.weight(0.5, s, c), 0.0);
  EXPECT_EQ(c, 0.0);
  EXPECT_NEAR(r.weight(0.02, s, c), 0.5, 1e-15);  // the ramp is symmetric about delta_SL
  EXPECT_NEAR(s, -1.875 / 0.02, 1e-9);             // -30 t^2 (1-t)^2 / L at t = 1/2
  EXPECT_NEAR(c, 0.0, 1e-9);
  // A sharp cut (zero width) is the old rule: 1 up to delta_SL, 0 beyond, no slope.
  const WettingRamp sharp{0.02, 0.02};
  EXPECT_EQ(sharp.weight(0.02, s, c), 1.0);
  EXPECT_EQ(sharp.weight(0.0200001, s, c), 0.0);
  EXPECT_EQ(s, 0.0);
}

TEST(WettingAdhesion, SlopeAndCurvatureMatchFiniteDifferences) {
  const WettingRamp r{-0.005, 0.025};
  double worst_s = 0, worst_c = 0;
  for (int i = 1; i < 60; ++i) {
    const double phi = r.lower + (r.upper - r.lower) * i / 60.0, h = 1e-6;
    double s, c, sp, cp, sm, cm;
    r.weight(phi, s, c);
    const double wp = r.weight(phi + h, sp, cp), wm = r.weight(phi - h, sm, cm);
    worst_s = std::max(worst_s, std::fabs((wp - wm) / (2 * h) - s) / (1.875 / 0.03));
    worst_c = std::max(worst_c, std::fabs((sp - sm) / (2 * h) - c) / (5.78 / (0.03 * 0.03)));
  }
  EXPECT_LT(worst_s, 1e-6);
  EXPECT_LT(worst_c, 1e-6);
  // C2 at the ends: slope and curvature vanish where the ramp meets the flat parts.
  // Within 1e-9 m of an end the curvature is below 1e-5 of its largest value, 5.77 / L^2.
  double s, c;
  const double c_max = 5.77 / (0.03 * 0.03);
  r.weight(r.lower + 1e-9, s, c);
  EXPECT_NEAR(s, 0.0, 1e-6);
  EXPECT_LT(std::fabs(c), 1e-5 * c_max);
  r.weight(r.upper - 1e-9, s, c);
  EXPECT_NEAR(s, 0.0, 1e-6);
  EXPECT_LT(std::fabs(c), 1e-5 * c_max);
}

TEST(WettingAdhesion, RampHoldsTheSharpCutsWettedDistance) {
  // integral of w over [lower - 1, upper + 1] = (delta_SL - (lower - 1)) for the sharp cut at delta_SL.
  const WettingRamp r{0.0, 0.05};
  const int n = 200000;
  const double a = -1.0, b = 1.05;
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += r.weight(a + (b - a) * (i + 0.5) / n);
  EXPECT_NEAR(sum * (b - a) / n, 0.025 - a, 1e-9);
}
