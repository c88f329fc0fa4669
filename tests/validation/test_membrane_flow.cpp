// Physics checks of the 2D liquid-membrane method (Ruan et al. 2021) against analytic values:
// hydrostatic rest, the Laplace pressure of a drop, and volume conservation of an oscillating drop.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "membrane_scenes.hpp"
#include "validation_support.hpp"

namespace mm = meniscus::membrane;
using meniscus::test::print_rank0;

namespace {
double max_membrane_speed(mm::Polyline& m) {
  auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.v);
  double s = 0;
  for (long i = 0; i < m.vertices(); ++i) s = std::max(s, std::hypot(v(i, 0), v(i, 1)));
  return s;
}
double max_height_drift(mm::Polyline& m, double level) {
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.x);
  double s = 0;
  for (long i = 0; i < m.vertices(); ++i) s = std::max(s, std::abs(x(i, 1) - level));
  return s;
}
}  // namespace

// Ruan 2021 T-H1 analogue: a flat pool with gravity and surface tension stays at rest, and the
// pressure is hydrostatic, p = rho g (level - y). The level lies 0.3 dx above a face, so the
// ghost-fluid mass fraction of the surface dual cells is exercised.
TEST(MembraneValidation, HydrostaticPoolStaysAtRestWithHydrostaticPressure) {
  mm::FlowParameters p;
  p.rho = 1.0;
  p.sigma = 0.9;
  p.gravity[1] = -9.8;
  const int cells = 32;
  const double dx = 1.0 / cells, level = 0.5 + 0.3 * dx;
  auto s = meniscus::test::make_pool(cells, level, p);
  const double dt = 2e-3;
  const double v0 = s.flow->volume();
  for (int n = 0; n < 100; ++n) s.flow->step(dt);
  const double umax = mm::max_face_speed(*s.grid), vmax = max_membrane_speed(s.flow->membrane());
  const double drift = max_height_drift(s.flow->membrane(), level);
  // Pressure of the bottom row of cells (centre y = dx/2).
  const auto g = s.grid->geometry();
  auto a = s.grid->field().acquire_local(false);
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
  s.grid->field().release_local(a);
  double worst = 0;
  if (g.owned.lo[1] == 0)
    for (int i = g.owned.lo[0]; i < std::min(g.owned.lo[0] + g.owned.n[0], cells); ++i) {
      const double pressure = h(g.local(i, 0), mm::kP) / dt, exact = p.rho * 9.8 * (level - 0.5 * dx);
      worst = std::max(worst, std::abs(pressure / exact - 1));
    }
  double gworst = 0;
  MPI_Allreduce(&worst, &gworst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  const double dv = std::abs(s.flow->volume() / v0 - 1);
  print_rank0("hydrostatic: max|u| %.3e cm/s, max|v_membrane| %.3e cm/s, height drift %.3e dx, bottom pressure error %.3e, volume change %.3e",
              umax, vmax, drift / dx, gworst, dv);
  EXPECT_LT(umax, 1e-3);
  EXPECT_LT(vmax, 1e-3);
  EXPECT_LT(drift, 0.01 * dx);
  EXPECT_LT(gworst, 0.01);
  EXPECT_LT(dv, 5e-3);
}
