// Candle letters (Chen et al. 2021, Sec. 6.12, Fig. 17) on the 2D CI deck inputs/candle-letters-2d-ci.yaml:
// the letters H, O, T (box unions, 0.24 m high), each with its own curved wick (a cubic Bezier, a source
// of type curve) and its own flame (b = 100 W/m within 0.05 m of its tip from t = 0.1 s), h = 2.5 to
// 298 K, T_melt = 303 K, dx = 1/64, run for 1 s at one rank. The paper shows the letters melting from
// their flames down while the rest stands (Fig. 17, frame 60). Asserted:
//  - every letter melts near its own wick: liquid particles within the flame radius plus a cell of
//    each of the three tips, and each tip still stands over its own letter;
//  - the wax's mass (solid + liquid; the wick's trimmed particles are not wax) is conserved to
//    round-off through the phase changes (1e-12 relative);
//  - the parts far from the flames stay solid: every particle that started in the bottom third of the
//    letters (at least 0.11 m below the wax top next to each tip) is solid and below T_melt;
//  - each wick stands at most trim_height (plus one particle spacing) above the wax, measured along its
//    curve.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "core/log.hpp"
#include "geometry/curve.hpp"
#include "methods/mpm/mpm_method.hpp"
#include "run/deck_schema.hpp"
#include "scene.hpp"
#include "validation_support.hpp"

using namespace meniscus;

namespace {

constexpr int kWax = 0, kLiquid = 1, kWick = 2;
constexpr double kFloor = 0.03125, kHeight = 0.24, kFlame = 0.05, kTrim = 0.04, kTrimRadius = 0.06;
// The letters' x ranges (H, O, T).
const double kLetter[3][2] = {{0.10, 0.28}, {0.41, 0.59}, {0.72, 0.90}};

}  // namespace

TEST(CandleLettersValidation, EveryLetterMeltsAtItsWick) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 1) GTEST_SKIP() << "one-rank test";
  auto d = run::load_deck(test::source_dir() + "/inputs/candle-letters-2d-ci.yaml", {"simulation.end_time=1.0"});
  const auto root = d.deck.root();
  const double dx = root.section("domain").real("cell_size"), spacing = dx / 2;
  mpm::MpmMethod<2> m(MethodContext{MPI_COMM_WORLD, root, 2});
  auto& set0 = m.particles();
  // The wax's mass and the ids of the particles in the bottom third of the letters, at the start.
  double mass0 = 0;
  std::set<int64_t> bottom;
  {
    auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set0.field(m.fields().x));
    auto mass = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set0.field(m.fields().mass));
    auto mat = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set0.material());
    auto id = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set0.id());
    for (size_t p = 0; p < set0.size(); ++p) {
      if (mat(p) == kWick) continue;
      mass0 += mass(p, 0);
      if (x(p, 1) < kFloor + kHeight / 3) bottom.insert(id(p));
    }
  }
  double t = 0;
  while (t < 1.0 * (1 - 1e-12)) {
    const double dt = std::min(m.stable_dt(), 1.0 - t);
    m.step(dt);
    t += dt;
  }
  auto& set = m.particles();
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().x));
  auto mass = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().mass));
  auto T = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.temperature_field()));
  auto mat = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.material());
  auto id = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.id());
  const auto& curves = m.wick_curves();
  ASSERT_EQ(curves.size(), 3u) << "one wick per letter";

  double mass1 = 0, bottom_hottest = 0;
  long bottom_liquid = 0, bottom_seen = 0;
  for (size_t p = 0; p < set.size(); ++p) {
    if (mat(p) == kWick) continue;
    mass1 += mass(p, 0);
    if (bottom.count(id(p))) {
      ++bottom_seen;
      bottom_liquid += mat(p) == kLiquid ? 1 : 0;
      bottom_hottest = std::max(bottom_hottest, T(p, 0));
    }
  }
  test::print_rank0("candle letters: t = %g s, wax mass %.15g -> %.15g (relative change %.2e); bottom third: %ld of %zu "
         "particles found, %ld liquid, hottest %.3f K",
         t, mass0, mass1, mass1 / mass0 - 1, bottom_seen, bottom.size(), bottom_liquid, bottom_hottest);
  EXPECT_NEAR(mass1, mass0, 1e-12 * mass0) << "phase changes keep each particle's mass";
  EXPECT_EQ(bottom_seen, static_cast<long>(bottom.size())) << "no wax particle is lost";
  EXPECT_EQ(bottom_liquid, 0) << "the bottoms of the letters, far from the flames, stay solid";
  EXPECT_LT(bottom_hottest, 303.0);

  for (int k = 0; k < 3; ++k) {
    // The wick's tip from its particles (projected on the host onto the curve) and the wax near it.
    double tip_arc = -1;
    for (size_t p = 0; p < set.size(); ++p)
      if (mat(p) == kWick) {
        double best = 1e300;
        int nearest = -1;
        for (int j = 0; j < 3; ++j) {
          const auto q = curves[j].point_at(curves[j].project(&x(p, 0)));
          const double dd = std::hypot(q[0] - x(p, 0), q[1] - x(p, 1));
          if (dd < best) best = dd, nearest = j;
        }
        if (nearest == k) tip_arc = std::max(tip_arc, curves[k].project(&x(p, 0)));
      }
    ASSERT_GE(tip_arc, 0) << "letter " << k << " keeps its wick";
    const auto tip = curves[k].point_at(tip_arc);
    long liquid_near = 0;
    double wax_top = -1e300;
    for (size_t p = 0; p < set.size(); ++p) {
      if (mat(p) == kWick) continue;
      if (mat(p) == kLiquid && std::hypot(x(p, 0) - tip[0], x(p, 1) - tip[1]) <= kFlame + dx) ++liquid_near;
      if (std::fabs(x(p, 0) - tip[0]) <= kTrimRadius) wax_top = std::max(wax_top, x(p, 1));
    }
    const double exposed = tip_arc - curves[k].first_above(wax_top, 1);
    test::print_rank0("letter %d: wick tip (%.4f, %.4f) at arc %.4f of %.4f m, %.4f m exposed along it, %ld liquid particles "
           "within %.3f m of the tip",
           k, tip[0], tip[1], tip_arc, curves[k].length(), exposed, liquid_near, kFlame + dx);
    EXPECT_GT(liquid_near, 0) << "letter " << k << " melts at its wick";
    EXPECT_GE(tip[0], kLetter[k][0]) << "letter " << k;
    EXPECT_LE(tip[0], kLetter[k][1]) << "letter " << k;
    EXPECT_LE(exposed, kTrim + spacing) << "letter " << k;
    EXPECT_NEAR(m.wick_tips()[k][0], tip[0], 1e-3) << "the operator's tip " << k;
    EXPECT_NEAR(m.wick_tips()[k][1], tip[1], 1e-3) << "the operator's tip " << k;
  }
}
