// Tangential vertex motion of the 2D membrane (tangential_motion.hpp) and the remesher's pinned
// contact vertices: the normal-only advection removes exactly the tangential part of a velocity,
// the spacing rule evens out a bunched chain without changing its shape beyond the stated bound,
// and leaves an evenly spaced one alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "methods/membrane/polyline.hpp"
#include "methods/membrane/remesh.hpp"
#include "methods/membrane/tangential_motion.hpp"

namespace mm = meniscus::membrane;

namespace {
Kokkos::View<int*, mm::MemSpace> all_free(long n) {
  Kokkos::View<int*, mm::MemSpace> k("kind", n);
  Kokkos::deep_copy(k, mm::kFree);
  return k;
}
}  // namespace

// A regular 64-gon (R = 0.3): a rigid rotation is tangential at every vertex (the vertex tangent
// x_next - x_prev is perpendicular to the radius), so nothing of it is left; a radial velocity is
// normal and is kept to round-off; a vertex marked kContact keeps its full velocity.
TEST(MembraneTangentialMotion, NormalMotionDropsRotationAndKeepsRadialVelocity) {
  const int n = 64;
  auto m = mm::make_circle(0.5, 0.5, 0.3, n);
  auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.x);
  mm::VertexArray dv("dv", n, 2);
  auto hv = Kokkos::create_mirror_view(dv);
  for (int i = 0; i < n; ++i) {  // rotation 2 rad/s plus radial 0.7 cm/s
    const double rx = hx(i, 0) - 0.5, ry = hx(i, 1) - 0.5, r = std::hypot(rx, ry);
    hv(i, 0) = -2.0 * ry + 0.7 * rx / r;
    hv(i, 1) = 2.0 * rx + 0.7 * ry / r;
  }
  Kokkos::deep_copy(dv, hv);
  auto kind = all_free(n);
  Kokkos::deep_copy(Kokkos::subview(kind, 5), static_cast<int>(mm::kContact));
  mm::keep_normal_motion(m, kind, dv);
  auto out = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dv);
  double worst = 0;
  for (int i = 0; i < n; ++i) {
    if (i == 5) {
      EXPECT_EQ(out(i, 0), hv(i, 0));
      EXPECT_EQ(out(i, 1), hv(i, 1));
      continue;
    }
    const double rx = hx(i, 0) - 0.5, ry = hx(i, 1) - 0.5, r = std::hypot(rx, ry);
    worst = std::max({worst, std::abs(out(i, 0) - 0.7 * rx / r), std::abs(out(i, 1) - 0.7 * ry / r)});
  }
  EXPECT_LT(worst, 1e-14);
}

// A circle R = 0.3 of 60 vertices with alternate gaps of 0.4 and 1.6 times the even spacing: 200
// sweeps at rate 0.5 even the edges to within 1 % of each other (alternate bunching is the
// fastest mode of the rule, L_i += rate (L_{i+1} - 2 L_i + L_{i-1}) / 2, which rate 0.5 removes in
// about one sweep on a straight chain), every vertex stays within 2e-3 R of the circle (a slide s
// along the tangent leaves the curve by about s^2 / (2 R): s = 0.3 spacings gives 5e-4 R per
// sweep; measured 1.5e-3 R after the first few sweeps) and the area changes by less than 2e-3
// of it; a further call on the evened chain slides by less than 1e-6 R.
TEST(MembraneTangentialMotion, EvenSpacingEvensABunchedCircleAndKeepsItsShape) {
  const int n = 60;
  const double R = 0.3;
  std::vector<double> xy;
  for (int i = 0; i < n; ++i) {
    const double t = 2 * M_PI * (i / 2 * 2 + (i % 2) * 0.4) / n;
    xy.push_back(0.5 + R * std::cos(t));
    xy.push_back(0.5 + R * std::sin(t));
  }
  auto m = mm::make_polyline(xy, true);
  const double a0 = mm::enclosed_area(m, true, 0.0);
  auto kind = all_free(n);
  for (int sweep = 0; sweep < 200; ++sweep) mm::even_out_spacing(m, kind, 0.5);
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.x);
  double lmin = 1e9, lmax = 0, off = 0;
  for (int i = 0; i < n; ++i) {
    const int j = (i + 1) % n;
    const double l = std::hypot(x(j, 0) - x(i, 0), x(j, 1) - x(i, 1));
    lmin = std::min(lmin, l);
    lmax = std::max(lmax, l);
    off = std::max(off, std::abs(std::hypot(x(i, 0) - 0.5, x(i, 1) - 0.5) - R));
  }
  EXPECT_LT(lmax / lmin - 1, 0.01);
  EXPECT_LT(off, 2e-3 * R);
  std::printf("edges %.6f .. %.6f, off the circle by <= %.3e R, area change %.3e\n", lmin, lmax, off / R,
              mm::enclosed_area(m, true, 0.0) / a0 - 1);
  EXPECT_LT(std::abs(mm::enclosed_area(m, true, 0.0) / a0 - 1), 2e-3);  // measured 9.8e-4
  EXPECT_LT(mm::even_out_spacing(m, kind, 0.5), 1e-6 * R);
}

// An evenly spaced open chain (a flat surface with wall ends) is left exactly where it is, and a
// bunched one only moves its free vertices between free neighbours: the wall ends and the vertices
// beside a non-free vertex stay put.
TEST(MembraneTangentialMotion, EvenSpacingLeavesEvenAndPinnedVerticesAlone) {
  std::vector<double> xy;
  for (int i = 0; i <= 10; ++i) {
    xy.push_back(0.1 * i);
    xy.push_back(0.5);
  }
  auto m = mm::make_polyline(xy, false);
  auto kind = all_free(11);
  Kokkos::deep_copy(Kokkos::subview(kind, 0), static_cast<int>(mm::kWallX));
  Kokkos::deep_copy(Kokkos::subview(kind, 10), static_cast<int>(mm::kWallX));
  EXPECT_LT(mm::even_out_spacing(m, kind, 0.5), 1e-15);
  // Bunch vertex 5 toward 4 and pin vertex 7.
  auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.x);
  hx(5, 0) = 0.42;
  Kokkos::deep_copy(m.x, hx);
  Kokkos::deep_copy(Kokkos::subview(kind, 7), static_cast<int>(mm::kContact));
  mm::even_out_spacing(m, kind, 0.5);
  auto after = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.x);
  // Vertex 5: L_next - L_prev = 0.18 - 0.02, slide 0.5 * 0.5 * 0.16 = 0.04; vertex 4 and 6 slide
  // toward it by 0.25 * 0.08; 1, 6 and 8 are next to non-free vertices.
  EXPECT_NEAR(after(5, 0), 0.46, 1e-14);
  EXPECT_NEAR(after(4, 0), 0.4 - 0.02, 1e-14);
  for (int i : {0, 1, 6, 7, 8, 9, 10}) EXPECT_EQ(after(i, 0), hx(i, 0)) << i;
  for (int i = 0; i <= 10; ++i) EXPECT_EQ(after(i, 1), 0.5);
}

// The remesher keeps a pinned (contact) vertex where it is: a short edge between it and a free
// vertex collapses onto it, not to the midpoint; two short edges between free vertices still
// collapse to their midpoints.
TEST(MembraneRemesh, ShortEdgeCollapsesOntoAPinnedVertex) {
  std::vector<double> xy;
  for (double xx : {0.0, 0.1, 0.2, 0.205, 0.3, 0.4, 0.5, 0.505, 0.6}) {
    xy.push_back(xx);
    xy.push_back(0.5);
  }
  auto m = mm::make_polyline(xy, false);
  std::vector<int> pinned(9, 0);
  pinned[3] = 1;  // x = 0.205, pinned; its short edge to x = 0.2 collapses onto it
  const auto st = mm::remesh_chain(m, false, 0.1, 1.5, 0.5, pinned);
  EXPECT_EQ(st.collapses, 2);
  EXPECT_EQ(st.splits, 0);
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.x);
  ASSERT_EQ(m.vertices(), 7);
  const double expected[7] = {0.0, 0.1, 0.205, 0.3, 0.4, 0.5025, 0.6};
  for (int i = 0; i < 7; ++i) EXPECT_DOUBLE_EQ(x(i, 0), expected[i]) << i;
}
