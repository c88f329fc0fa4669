// Temperature-dependent surface tension k^sigma(T) (Chen et al. 2021, Sec. 3.5) driving flow through the
// Marangoni path of the MPM surface energy, on the CI decks of the paper's two thermocapillary scenes:
//  - Thermocapillary cavity (Sec. 6.5, Fig. 13; inputs/mpm-thermocapillary-cavity-2d-ci.yaml): T = 1 - x,
//    k = clamp(1 - T, 0, 1). A surface is pulled towards higher k, so the free surface flows from the hot
//    left to the cold right, the return flow runs along the bottom and the cell turns clockwise. The
//    velocity scale is U = sqrt(Delta k / (rho L)) (capillary pressure difference Delta k / L over a
//    column of length L): 0.34 m/s here; the peak surface speed must lie within [U/10, 10 U]. With k = T
//    the law is the mirror image, so every sign reverses and each magnitude agrees within 20 %.
//  - Marangoni droplet (Sec. 6.10, Fig. 18; inputs/mpm-marangoni-droplet-2d-ci.yaml): a drop on a sticky
//    floor with k = min(0.09 (T - 50) + 0.5, 2), heated by a flux on its left half from the heating
//    start on. The hot side pulls harder and the drop moves towards the cold side (+x) by more than half
//    a cell (its largest excursion after the heating start: the inviscid drop then sloshes); heating the
//    right half instead moves it by the same amount (within 20 %) towards -x.
#include <gtest/gtest.h>

#include <cmath>

#include "core/log.hpp"
#include "methods/mpm/mpm_method.hpp"
#include "run/deck_schema.hpp"
#include "scene.hpp"
#include "validation_support.hpp"

using namespace meniscus;

namespace {

run::LoadedDeck input_deck(const std::string& name, const std::vector<std::string>& sets) {
  return run::load_deck(test::source_dir() + "/inputs/" + name, sets);
}

void advance(mpm::MpmMethod<2>& m, double& t, double t_end) {
  while (t < t_end * (1 - 1e-12)) {
    const double dt = std::min(m.stable_dt(), t_end - t);
    m.step(dt);
    t += dt;
  }
}

struct CavityFlow {
  double surface_u = 0;   // mean u_x of the particles within 3 dx of the free surface
  double bottom_u = 0;    // mean u_x in the bottom quarter of the liquid
  double spin = 0;        // angular momentum per unit mass about the centroid (< 0: clockwise)
  double peak_speed = 0;  // largest |v| among the surface particles
};

CavityFlow cavity(const std::vector<std::string>& sets) {
  auto d = input_deck("mpm-thermocapillary-cavity-2d-ci.yaml", sets);
  const double t_end = d.deck.root().section("simulation").real("end_time");
  const double dx = d.deck.root().section("domain").real("cell_size");
  mpm::MpmMethod<2> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 2});
  double t = 0;
  advance(m, t, t_end);
  auto& set = m.particles();
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().x));
  auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().v));
  auto mass = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().mass));
  const size_t n = set.size();
  double ext[2] = {-1e300, -1e300};  // max y, -min y
  double c[3] = {0, 0, 0};           // sum m, sum m x, sum m y
  for (size_t p = 0; p < n; ++p) {
    ext[0] = std::max(ext[0], x(p, 1));
    ext[1] = std::max(ext[1], -x(p, 1));
    c[0] += mass(p, 0);
    c[1] += mass(p, 0) * x(p, 0);
    c[2] += mass(p, 0) * x(p, 1);
  }
  MPI_Allreduce(MPI_IN_PLACE, ext, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, c, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  const double top = ext[0], bottom = -ext[1], xc = c[1] / c[0], yc = c[2] / c[0];
  double s[6] = {0, 0, 0, 0, 0, 0};  // surface sum u, count; bottom sum u, count; sum m (r x v)
  double peak = 0;
  for (size_t p = 0; p < n; ++p) {
    if (x(p, 1) > top - 3 * dx) {
      s[0] += v(p, 0);
      s[1] += 1;
      peak = std::max(peak, std::hypot(v(p, 0), v(p, 1)));
    }
    if (x(p, 1) < bottom + 0.25 * (top - bottom)) {
      s[2] += v(p, 0);
      s[3] += 1;
    }
    s[4] += mass(p, 0) * ((x(p, 0) - xc) * v(p, 1) - (x(p, 1) - yc) * v(p, 0));
  }
  MPI_Allreduce(MPI_IN_PLACE, s, 5, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &peak, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  CavityFlow f;
  f.surface_u = s[0] / s[1];
  f.bottom_u = s[2] / s[3];
  f.spin = s[4] / c[0];
  f.peak_speed = peak;
  test::print_rank0("thermocapillary cavity (t = %g s): surface u = %.4f m/s, bottom u = %.4f m/s, spin = %.5f m^2/s, "
         "peak surface speed %.4f m/s",
         t, f.surface_u, f.bottom_u, f.spin, f.peak_speed);
  return f;
}

}  // namespace

TEST(ThermocapillaryValidation, CavityClockwiseCellAndReversal) {
  const CavityFlow a = cavity({});
  EXPECT_GT(a.surface_u, 0) << "surface flow from hot (left) to cold (right)";
  EXPECT_LT(a.bottom_u, 0) << "return flow along the bottom";
  EXPECT_LT(a.spin, 0) << "one clockwise cell";
  const double U = std::sqrt(1.0 / (10 * 0.875));  // sqrt(Delta k / (rho L)), Delta k = 1 N/m across L = 0.875 m
  EXPECT_GT(a.peak_speed, 0.1 * U);
  EXPECT_LT(a.peak_speed, 10 * U);
  // k = T: the mirror image of the law (coefficient 0 at T = 0, slope +1).
  const CavityFlow b =
      cavity({"mpm.surface_tension.coefficient=0", "mpm.surface_tension.marangoni.slope=1"});
  EXPECT_LT(b.surface_u, 0);
  EXPECT_GT(b.bottom_u, 0);
  EXPECT_GT(b.spin, 0);
  EXPECT_NEAR(-b.surface_u, a.surface_u, 0.2 * a.surface_u);
  EXPECT_NEAR(b.bottom_u, -a.bottom_u, 0.2 * -a.bottom_u);
  EXPECT_NEAR(b.spin, -a.spin, 0.2 * -a.spin);
}

namespace {

// Centre-of-mass x of the drop at the heating start, and its largest excursion (either way) after it.
struct Migration {
  double at_start = 0, excursion = 0, dx = 0;
};

double centroid_x(mpm::MpmMethod<2>& m) {
  auto& set = m.particles();
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().x));
  auto mass = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().mass));
  double s[2] = {0, 0};
  for (size_t p = 0; p < set.size(); ++p) {
    s[0] += mass(p, 0);
    s[1] += mass(p, 0) * x(p, 0);
  }
  MPI_Allreduce(MPI_IN_PLACE, s, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return s[1] / s[0];
}

Migration droplet(const std::string& deck, const std::vector<std::string>& sets, const char* label) {
  auto d = input_deck(deck, sets);
  const auto root = d.deck.root();
  const double t_end = root.section("simulation").real("end_time");
  const double t_heat = root.section("mpm").section("heat").real("heating_start_time");
  mpm::MpmMethod<2> m(MethodContext{MPI_COMM_WORLD, root, 2});
  Migration out;
  out.dx = root.section("domain").real("cell_size");
  double t = 0;
  advance(m, t, t_heat);
  out.at_start = centroid_x(m);
  while (t < t_end * (1 - 1e-12)) {
    advance(m, t, std::min(t + 0.005, t_end));
    const double shift = centroid_x(m) - out.at_start;
    if (std::fabs(shift) > std::fabs(out.excursion)) out.excursion = shift;
  }
  test::print_rank0("Marangoni droplet (%s, %s): centroid x %.5f at the heating start; largest excursion until %.2f s "
         "%+.5f m = %+.2f dx",
         deck.c_str(), label, out.at_start, t_end, out.excursion, out.excursion / out.dx);
  return out;
}

void droplet_pair(const std::string& deck, const std::vector<std::string>& sets) {
  std::vector<std::string> mirrored = sets;
  mirrored.push_back("mpm.heat.flux_region.lower=[0.5, -1e30]");
  mirrored.push_back("mpm.heat.flux_region.upper=[1e30, 1e30]");
  const Migration left = droplet(deck, sets, "heating x <= 0.5");
  const Migration right = droplet(deck, mirrored, "heating x >= 0.5");
  EXPECT_GT(left.excursion, 0.5 * left.dx) << "the drop moves towards the cold side (+x)";
  EXPECT_LT(right.excursion, -0.5 * right.dx) << "the mirrored run moves towards -x";
  EXPECT_NEAR(-right.excursion, left.excursion, 0.2 * left.excursion) << "mirror symmetry";
}

}  // namespace

// The drop lurches towards the cold side within ~0.1 s of the heating start and then, inviscid, sloshes
// about a shifted mean, so the test takes the largest excursion within 0.2 s of the start (measured with
// the conservative transfer: +0.161 m and -0.142 m, 12 % apart; before the boundary heat went to the
// material boundary, mpm_heat_boundary.cpp, with the paper's transfer: +0.0831 m and -0.0894 m). Stratified sample placement keeps the two runs mirror images up to
// round-off in the seeding; with the paper's Poisson placement the same runs gave +0.084 / -0.137 m.
TEST(ThermocapillaryValidation, MarangoniDropletMigratesToColdSide) {
  droplet_pair("mpm-marangoni-droplet-2d-ci.yaml", {});
}
