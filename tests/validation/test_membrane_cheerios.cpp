// The Cheerios effect (Ruan et al. 2021 Fig. 10a; Vella and Mahadevan 2005, "The Cheerios effect",
// Am. J. Phys. 73), 2D, CGS units: two cylinders denser than water floating side by side depress
// the surface between them less than outside, so each is pushed toward the other. In 2D the
// horizontal force per unit length on each is exactly F = rho g h_m^2 / 2, h_m the depression of
// the surface at the symmetry plane below the zero-pressure level (a horizontal force balance on
// the liquid between the plane and the far field).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "membrane_scenes.hpp"
#include "validation_support.hpp"

namespace mm = meniscus::membrane;
using meniscus::test::print_rank0;

namespace {

constexpr double kRho = 1.0, kG = 9.8, kDx = 0.025, kLevel = 0.6, kWidth = 2.4;

// Zero-pressure level: mean of y + p / (rho g) over the fluid cells two cells or more below the
// membrane (collective).
double zero_pressure_level(mm::MacGrid& grid, double dt) {
  const auto g = grid.geometry();
  auto a = grid.field().acquire_local(false);
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
  grid.field().release_local(a);
  double sum[2] = {0, 0};
  for (int j = g.owned.lo[1]; j < g.owned.lo[1] + g.owned.n[1]; ++j)
    for (int i = g.owned.lo[0]; i < g.owned.lo[0] + g.owned.n[0]; ++i) {
      if (g.cell_type(h, i, j) != mm::kFluid || h(g.local(i, j), mm::kPhi) > -2 * g.dx) continue;
      sum[0] += g.lower[1] + (j + 0.5) * g.dx + h(g.local(i, j), mm::kP) / dt / (kRho * kG);
      sum[1] += 1;
    }
  MPI_Allreduce(MPI_IN_PLACE, sum, 2, MPI_DOUBLE, MPI_SUM, grid.comm());
  return sum[1] > 0 ? sum[0] / sum[1] : 0.0;
}

// Membrane height where it crosses x = xs (the first crossing along the chain).
double height_at(mm::MembraneFlow& f, double xs) {
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.membrane().x);
  auto seg = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.membrane().seg);
  for (long e = 0; e < f.membrane().segments(); ++e) {
    const int i = seg(e, 0), j = seg(e, 1);
    if ((x(i, 0) - xs) * (x(j, 0) - xs) > 0 || x(i, 0) == x(j, 0)) continue;
    const double t = (xs - x(i, 0)) / (x(j, 0) - x(i, 0));
    return x(i, 1) + t * (x(j, 1) - x(i, 1));
  }
  return 0.0;
}

}  // namespace

// Two discs R = 0.1 (4 dx), rho_s = 3, centres 0.6 cm apart in a 2.4 x 1.0 cm tank filled to 0.6,
// sigma = 0.9: settle window (damping 8 /s) until 0.6 s, then free until 1.2 s. Checked: the gap
// shrinks by more than a quarter cell after release, the pair stays centred within half a cell,
// and the acceleration right after release (quadratic fit over 0.15 s) lies within 20 % of the
// bracket F / (m + rho A_sub) .. F / m (added mass between none and the submerged area's) with
// F = rho g h_m^2 / 2 from the measured h_m. Measured: h_m = 0.105 cm below the zero-pressure level
// 0.656, F = 0.0536 dyn/cm; gap 0.631 -> 0.475 cm in 0.6 s (it first widened from 0.6 during the
// settle window, as the surface formed its menisci); acceleration 0.653 cm/s^2 against the bracket
// 0.427 .. 0.569, i.e. 15 % above even F / m: the simulated force exceeds rho g h_m^2 / 2 by at
// least 15 % (inside the 20 % tolerance); midpoint within 0.0033 cm. h_m is measured from the
// zero-pressure level; the membrane's own flat level lies about 0.005 cm higher (see
// test_membrane_keller.cpp), which would raise F by about 10 %. About 80 s of one core (4.5 min on
// the loaded machine).
TEST(MembraneCheeriosValidation, LongTwoFloatingDiscsAttractWithTheCapillaryForce) {
  std::vector<mm::Disc> discs(2);
  for (int k = 0; k < 2; ++k) {
    discs[k].radius = 0.1;
    discs[k].density = 3.0;
    discs[k].rotates = false;
    discs[k].c[0] = 0.5 * kWidth + (k == 0 ? -0.3 : 0.3);
    discs[k].c[1] = kLevel - 0.05;
  }
  mm::FlowParameters p;
  p.sigma = 0.9;
  p.rho = kRho;
  p.gravity[1] = -kG;
  p.remesh_edge = 0.5 * kDx;
  p.settle_damping = 8.0;
  p.settle_until = 0.6;
  mm::CoupledSolveOptions o;
  o.rtol = 1e-8;
  auto s = meniscus::test::make_pool_with_bodies(kWidth, 1.0, kDx, kLevel, discs, p, o);
  double t = 0, dt = 0;
  while (t < p.settle_until) {
    dt = s.flow->stable_dt(0.5, 1.0, 2e-3);
    s.flow->step(dt);
    t += dt;
  }
  auto gap = [&] { return s.flow->bodies()[1].c[0] - s.flow->bodies()[0].c[0]; };
  const double level = zero_pressure_level(*s.grid, dt);
  const double hm = level - height_at(*s.flow, 0.5 * kWidth);
  const double t0 = t, gap0 = gap();
  // Quadratic fit of the half gap over the first 0.15 s: (gap0 - gap) / 2 = v0 tau + a tau^2 / 2.
  double s11 = 0, s12 = 0, s22 = 0, r1 = 0, r2 = 0, worst_mid = 0;
  while (t < 1.2) {
    dt = s.flow->stable_dt(0.5, 1.0, 2e-3);
    s.flow->step(dt);
    t += dt;
    const double tau = t - t0, y = 0.5 * (gap0 - gap());
    if (tau <= 0.15) {
      const double b1 = tau, b2 = 0.5 * tau * tau;
      s11 += b1 * b1;
      s12 += b1 * b2;
      s22 += b2 * b2;
      r1 += b1 * y;
      r2 += b2 * y;
    }
    const double mid = 0.5 * (s.flow->bodies()[0].c[0] + s.flow->bodies()[1].c[0]);
    worst_mid = std::max(worst_mid, std::abs(mid - 0.5 * kWidth));
  }
  const double accel = (s11 * r2 - s12 * r1) / (s11 * s22 - s12 * s12);
  const auto& b = s.flow->bodies()[0];
  const double force = 0.5 * kRho * kG * hm * hm, m = b.mass();
  // Submerged area of the disc below the zero-pressure level (circular segment, or all of it).
  const double r = b.radius, h = std::clamp(level - (b.c[1] - r), 0.0, 2 * r);
  const double a_sub = r * r * std::acos((r - h) / r) - (r - h) * std::sqrt(std::max(0.0, 2 * r * h - h * h));
  const double a_lo = force / (m + kRho * a_sub), a_hi = force / m;
  print_rank0("cheerios: h_m %.4f cm at release (z_inf %.4f), F = rho g h_m^2 / 2 = %.3e dyn/cm; gap %.4f -> %.4f cm "
              "in %.2f s; acceleration after release %.3e cm/s^2 (bracket %.3e .. %.3e); midpoint off by <= %.2e cm",
              hm, level, force, gap0, gap(), t - t0, accel, a_lo, a_hi, worst_mid);
  EXPECT_GT(hm, 0.0);
  EXPECT_LT(gap(), gap0 - 0.25 * kDx);
  EXPECT_LT(worst_mid, 0.5 * kDx);
  EXPECT_GT(accel, 0.8 * a_lo);
  EXPECT_LT(accel, 1.2 * a_hi);
}
