// Capillary oscillation of a 2D drop with the liquid membrane of Ruan et al. 2021 (§7, "Membrane
// Thickness", Figs. 8-9: the membrane's virtual thickness h slows the drop's oscillation) against
// the Rayleigh/Lamb period with a membrane-inertia correction.
//
// Reference (inviscid 2D drop, mode n, potential flow phi = A r^n cos(n theta)): the liquid's
// kinetic energy is (1/2) (rho pi R^2 / n) adot^2 for a surface r = R + a cos(n theta), the
// potential energy of the tension (1/2) (sigma pi (n^2 - 1) / R) a^2, so
//   omega0^2 = n (n^2 - 1) sigma / (rho R^3)                         (Lamb 1932, §275, in 2D).
// The membrane adds a mass rho h per unit length on top of the liquid (cells are typed by the
// membrane, not by its thickness). Moving with the surface velocity of the potential flow, whose
// tangential part (1/R) dphi/dtheta has the normal part's amplitude, it adds (1/2) rho h 2 pi R adot^2,
//   omega^2 = omega0^2 / (1 + 2 n h / R);
// with normal vertex motion (membrane.normal_motion) the membrane keeps only its normal velocity and
// the term is half as large, omega^2 = omega0^2 / (1 + n h / R).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "membrane_scenes.hpp"
#include "validation_support.hpp"

namespace mm = meniscus::membrane;
using meniscus::test::print_rank0;

namespace {

// Amplitude of the n = 2 mode of a closed membrane: eps = J / (pi R^4), J = integral of
// (x - cx)^2 - (y - cy)^2 over the enclosed area about its centroid (for r = R (1 + eps cos 2t),
// J = pi R^4 eps to first order). Polygon moments are exact for the polyline.
double mode2_amplitude(mm::Polyline& m, double radius) {
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.x);
  const long nv = m.vertices();
  double a = 0, sx = 0, sy = 0, sxx = 0, syy = 0;
  for (long i = 0; i < nv; ++i) {
    const long j = (i + 1) % nv;
    const double x0 = x(i, 0), y0 = x(i, 1), x1 = x(j, 0), y1 = x(j, 1);
    const double c = x0 * y1 - x1 * y0;
    a += c / 2;
    sx += c * (x0 + x1) / 6;
    sy += c * (y0 + y1) / 6;
    sxx += c * (x0 * x0 + x0 * x1 + x1 * x1) / 12;
    syy += c * (y0 * y0 + y0 * y1 + y1 * y1) / 12;
  }
  const double cx = sx / a, cy = sy / a;
  const double j = (sxx - a * cx * cx) - (syy - a * cy * cy);
  return j / (M_PI * std::pow(radius, 4));
}

struct Oscillation {
  std::vector<double> crossings;  // times where the mode-2 amplitude changes sign
  double period = 0;              // 2 x mean spacing of consecutive crossings
  double first_amplitude = 0, last_extremum = 0;
  double t = 0;
  int steps = 0;
};

// The 10 % n = 2 drop (R = 0.3 cm, sigma = 0.9 dyn, rho = 1, zero g) at `cells`^2 in the unit box
// with membrane thickness h = h_over_dx dx, run until `crossings` sign changes of the mode
// amplitude are seen or t_max passes.
Oscillation oscillate(int cells, double h_over_dx, bool normal_motion, int crossings, double t_max) {
  mm::FlowParameters p;
  p.rho = 1.0;
  p.sigma = 0.9;
  p.gravity[1] = 0;
  p.h = h_over_dx / cells;
  p.normal_motion = normal_motion;
  const double radius = 0.3;
  auto s = meniscus::test::make_drop(cells, radius, 0.1, p);
  Oscillation o;
  double prev = mode2_amplitude(s.flow->membrane(), radius), extremum = 0;
  o.first_amplitude = prev;
  while (static_cast<int>(o.crossings.size()) < crossings && o.t < t_max) {
    const double dt = s.flow->stable_dt(0.5, 1.0, 2e-3);
    s.flow->step(dt);
    const double e = mode2_amplitude(s.flow->membrane(), radius);
    if ((prev > 0) != (e > 0)) {
      o.crossings.push_back(o.t + dt * prev / (prev - e));
      if (o.crossings.size() > 1) o.last_extremum = extremum;
      extremum = 0;
    }
    if (std::abs(e) > std::abs(extremum)) extremum = e;
    prev = e;
    o.t += dt;
    ++o.steps;
  }
  const auto nc = o.crossings.size();
  if (nc >= 2) o.period = 2 * (o.crossings[nc - 1] - o.crossings[0]) / static_cast<double>(nc - 1);
  return o;
}

// Membrane-corrected 2D Rayleigh period of mode n (see the file comment); `share` is 2 for the
// paper's vertex motion and 1 for normal motion.
double corrected_period(int n, double sigma, double rho, double radius, double h, double share) {
  const double w0 = std::sqrt(n * (n * n - 1.0) * sigma / (rho * radius * radius * radius));
  return 2 * M_PI / w0 * std::sqrt(1 + share * n * h / radius);
}

}  // namespace

// Ruan 2021 §7 ("Membrane Thickness", Fig. 9: with h = 0.5 dx the drop oscillates with the level
// set's; h = 10 dx is "significantly slower"), made quantitative: the 10 % n = 2 drop at 32^2
// (R = 9.6 dx) with the paper's h = 0.5 dx and the paper's vertex motion (the deck default). The
// period from the first to the third sign change of the mode-2 amplitude (one period, about 1.25
// periods simulated) lies between the two membrane-corrected periods (inviscid membrane that keeps
// only its normal velocity, nh/R; membrane dragged along by the liquid's tangential velocity, 2nh/R)
// within 3 %, within 10 % of the 2nh/R value, and above the bare Rayleigh period T0 by at least half
// the nh/R correction (the membrane's inertia is visible). Measured: 0.4839 s against T0 0.4443,
// nh/R 0.4669 and 2nh/R 0.4884 (305 steps).
TEST(MembraneRayleighValidation, DropPeriodIsTheMembraneCorrectedRayleighPeriod) {
  const double dx = 1.0 / 32, h = 0.5 * dx;
  const auto o = oscillate(32, 0.5, false, 3, 1.0);
  const double t0 = corrected_period(2, 0.9, 1.0, 0.3, 0, 2), tn = corrected_period(2, 0.9, 1.0, 0.3, h, 1),
               tt = corrected_period(2, 0.9, 1.0, 0.3, h, 2);
  print_rank0("membrane drop n = 2, h = 0.5 dx, 32^2: period %.4f s over %d steps (%.3f s); T0 %.4f, corrected "
              "nh/R %.4f, 2nh/R %.4f (%+.1f %%); amplitude %.4f -> %.4f",
              o.period, o.steps, o.t, t0, tn, tt, 100 * (o.period / tt - 1), o.first_amplitude, o.last_extremum);
  ASSERT_EQ(o.crossings.size(), 3u);
  EXPECT_GT(o.period, 0.97 * tn);
  EXPECT_LT(o.period, 1.03 * tt);
  EXPECT_NEAR(o.period, tt, 0.1 * tt);
  EXPECT_GT(o.period, t0 + 0.5 * (tn - t0));
}

// The thickness study of Ruan 2021 §7 / Fig. 9 (h = 0.5 dx, dx, 10 dx) in both vertex motions, over
// two periods (5 sign changes). With normal vertex motion the membrane keeps no tangential velocity,
// so the nh/R correction is the whole model: within 5 % at every h (measured +2.8, +2.5, +0.6 %; the
// thin membranes' excess is the discretisation's: +3.7 % at 64^2, +6.8 % at 32^2 with a 5 % amplitude). With the paper's motion the
// period lies between the nh/R and 2nh/R corrections (3 % margin). In both, h = 10 dx is slower than
// h = 0.5 dx by more than 1.5 (Fig. 9's "significantly slower"; predicted 1.67 with nh/R). Measured:
// paper's motion 0.4845 / 0.5180 / 0.7814 s, between nh/R (0.4669 / 0.4884 / 0.7801) and 2nh/R
// (0.4884 / 0.5288 / 1.0099); ratios 1.64 (normal) and 1.61.
TEST(MembraneRayleighValidation, LongPeriodFollowsTheMembraneThickness) {
  for (bool normal : {true, false}) {
    double thin = 0;
    for (double h_over_dx : {0.5, 1.0, 10.0}) {
      const double h = h_over_dx / 32;
      const auto o = oscillate(32, h_over_dx, normal, 5, 3.0);
      const double tn = corrected_period(2, 0.9, 1.0, 0.3, h, 1), tt = corrected_period(2, 0.9, 1.0, 0.3, h, 2);
      print_rank0("membrane drop n = 2, %s motion, h = %.1f dx: period %.4f s (%d steps, %.3f s); corrected nh/R "
                  "%.4f (%+.1f %%), 2nh/R %.4f (%+.1f %%); amplitude %.4f -> %.4f",
                  normal ? "normal" : "paper's", h_over_dx, o.period, o.steps, o.t, tn, 100 * (o.period / tn - 1), tt,
                  100 * (o.period / tt - 1), o.first_amplitude, o.last_extremum);
      ASSERT_EQ(o.crossings.size(), 5u);
      if (normal) {
        EXPECT_NEAR(o.period, tn, 0.05 * tn) << "h = " << h_over_dx << " dx";
      } else {
        EXPECT_GT(o.period, 0.97 * tn) << "h = " << h_over_dx << " dx";
        EXPECT_LT(o.period, 1.03 * tt) << "h = " << h_over_dx << " dx";
      }
      if (h_over_dx == 0.5) thin = o.period;
      if (h_over_dx == 10.0) EXPECT_GT(o.period / thin, 1.5);
    }
  }
}

