// A sphere pulled out of a 3D pool (the 3D form of MembraneDetachValidation, Ruan et al. 2021 Fig. 8c):
// with the paper's pinned contact lines the sphere carries the membrane up with it for a while; with a receding
// contact angle (membrane.receding_angle, our addition; receding_contact.hpp) the line slides down the
// sphere and lets it go. CGS units, water (sigma = 72.8 dyn/cm, g = 980 cm/s^2).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "membrane3d_scenes.hpp"
#include "validation_support.hpp"

namespace mm = meniscus::membrane;
using meniscus::test::print_rank0;

namespace {

constexpr int kCells = 16;
constexpr double kDx = 1.0 / kCells, kLevel = 0.5, kRadius = 0.2, kSpeed = 10.0;

struct Pull3 {
  long contacts_when_clear = -1;  // contact vertices in the step where the sphere's bottom passes kLevel + 2 dx
  double highest = 0;             // highest membrane vertex at the end (cm)
  double end_bottom = 0;          // the sphere's lowest point at the end
  double released_at = -1;        // the bottom's height above the level (cells) when the last contact vertex let go
};

// A sphere R = 0.2 cm (3.2 cells) with its centre 0.05 cm under the level of a pool 0.5 cm deep in the
// unit box (16^3 cells; the membrane wraps its wetted cap), pulled straight up, kinematically, at
// 10 cm/s until its bottom is 4 cells above the level. Steps of 5e-4 s (under the capillary bound).
Pull3 pull_sphere(double receding_deg, bool two_solve = true) {
  mm::RigidBody3 body = meniscus::test::sphere3({0.5 + 0.3 * kDx, 0.5 + 0.2 * kDx, kLevel - 0.05}, kRadius, 3.0);
  body.rotates = false;
  body.fixed = true;
  body.v[2] = kSpeed;
  mm::Flow3Parameters p;
  p.sigma = 72.8;
  p.remesh = true;
  p.receding_angle = receding_deg * M_PI / 180;
  p.two_solve = two_solve;
  mm::CoupledSolveOptions o;
  o.rtol = 1e-8;
  auto s = meniscus::test::make_pool3(kCells, kLevel, p, o, MPI_COMM_WORLD, {body});
  Pull3 out;
  for (int n = 0; n < 200; ++n) {
    const auto rep = s.flow->step(5e-4);
    const auto& b = s.flow->bodies()[0];
    const double bottom = b.c[2] - b.radius;
    if (std::getenv("MENISCUS_TRACE") && n % 5 == 0)
      print_rank0("  step %d bottom %.4f contacts %ld predicted %ld", n, bottom, rep.contact_vertices,
                  rep.predicted_contacts);
    if (out.contacts_when_clear < 0 && bottom > kLevel + 2 * kDx) out.contacts_when_clear = rep.contact_vertices;
    if (rep.contact_vertices > 0) out.released_at = -1;
    if (rep.contact_vertices == 0 && out.released_at < 0 && bottom > kLevel) out.released_at = (bottom - kLevel) / kDx;
    if (bottom > kLevel + 4 * kDx) break;
  }
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.flow->membrane().x);
  for (long i = 0; i < s.flow->membrane().owned_vertices; ++i) out.highest = std::max(out.highest, x(i, 2));
  MPI_Allreduce(MPI_IN_PLACE, &out.highest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  out.end_bottom = s.flow->bodies()[0].c[2] - kRadius;
  print_rank0("3D pull-out, %s, receding angle %g deg: %ld contact vertices when the sphere's bottom passes level + 2 dx; "
              "the last let go at %.2f cells above the level; at the end (bottom %.4f cm) the highest membrane vertex is "
              "%.4f cm (level %.3f, level + 3 dx %.4f)",
              two_solve ? "two solves" : "one solve", receding_deg, out.contacts_when_clear, out.released_at,
              out.end_bottom, out.highest, kLevel, kLevel + 3 * kDx);
  return out;
}

}  // namespace

// Measured (16^3 cells, 2026-11-30): with pinned lines (the paper's rules) 19 contact vertices remain when
// the sphere's bottom passes the level + 2 cells, and the last lets go when it is 2.9 cells above the level
// (in 3D the pinned line does let go in the end; the membrane is back at 0.5041 cm); with a receding angle of
// 150 deg none remains from 0.9 cells above the level on, and the membrane is at 0.5298 cm at the end. The
// test asserts the digest's release criteria of Fig. 8c for the receding line (no contact vertex at the
// level + 2 cells, no membrane above the level + 3 cells at the end) and that the pinned line still holds
// at the level + 2 cells. About 130 s of one core. MENISCUS_RECEDING sets the receding run's angle (degrees).
TEST(Membrane3DDetachValidation, LongRecedingContactLineLetsAPulledSphereGo) {
  const Pull3 pinned = pull_sphere(0);
  const Pull3 receding = pull_sphere(std::atof(meniscus::test::knob("MENISCUS_RECEDING", "150").c_str()));
  EXPECT_GT(pinned.end_bottom, kLevel + 4 * kDx - 0.01);
  EXPECT_GT(pinned.contacts_when_clear, 0);
  EXPECT_GT(receding.end_bottom, kLevel + 4 * kDx - 0.01);
  EXPECT_EQ(receding.contacts_when_clear, 0);
  EXPECT_LT(receding.highest, kLevel + 3 * kDx);
}

// The paper's one-solve control (Fig. 8c; membrane.two_solve false, Flow3Parameters::two_solve: no first
// solve, the membrane and the liquid advected with the previous step's velocities) against the two-solve
// scheme, both with pinned lines, on the same pull. The paper reports that only the one-solve run sticks;
// measured here (2026-11-30) both carry the line past the level + 2 cells (two solves 19 contact vertices
// there, one solve 17) and both let go near the level + 2.5 cells (2.72 and 2.48 cells; membrane back at
// 0.5041 and 0.5110 cm): as in 2D, the contrast is not reproduced (docs/theory-membrane.md, "Pulling a body out
// of the liquid"). Asserted: that documented behaviour (both hold at + 2 cells, both let go, within a cell of
// each other), so a change that makes either scheme stick or let go early shows. About 260 s of one core.
TEST(Membrane3DDetachValidation, LongOneSolveControlLetsGoAsTwoSolvesDo) {
  const Pull3 two = pull_sphere(0, true);
  const Pull3 one = pull_sphere(0, false);
  for (const Pull3* r : {&two, &one}) {
    EXPECT_GT(r->end_bottom, kLevel + 4 * kDx - 0.01);
    EXPECT_GT(r->contacts_when_clear, 10);
    EXPECT_GT(r->released_at, 2.0);
  }
  EXPECT_LT(std::abs(one.released_at - two.released_at), 1.0);
}
