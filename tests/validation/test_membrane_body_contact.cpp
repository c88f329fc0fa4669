// Rigid-rigid contact in the liquid (body_contact.hpp, the post-solve impulse projection that the
// three-way coupling of Ruan et al. 2021 leaves open): two floating discs pushed toward each other
// on a sigma = 0 pool (CGS units, liquid density 1.0, g = 9.8 cm/s^2) meet and stay touching without
// overlapping; with the contact switched off (the negative control) they pass into each other. The
// same for two floating spheres in 3D.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "membrane3d_scenes.hpp"
#include "membrane_scenes.hpp"
#include "validation_support.hpp"

namespace mm = meniscus::membrane;
using meniscus::test::print_rank0;

namespace {
struct Meeting {
  double min_gap = 1e300;  // smallest |c1 - c2| - 2R over the run (cm)
  double final_gap = 0, relative_speed = 0;
  long contact_steps = 0;
};

// Discs R = 0.1, density 0.5, 0.1 cm apart on the pool of release_in_pool's tank (1.2 x 0.8, level
// 0.4, dx 0.025), launched toward each other at 3 cm/s, for 0.25 s.
Meeting push_together(bool contact) {
  const double dx = 0.025, R = 0.1;
  auto p = meniscus::test::pool_parameters(0.0, dx);
  p.body_contact = contact;
  mm::Disc a = meniscus::test::pool_disc(0.45, 0.4, R, 0.5), b = meniscus::test::pool_disc(0.75, 0.4, R, 0.5);
  a.v[0] = 3.0;
  b.v[0] = -3.0;
  auto sc = meniscus::test::make_pool_with_bodies(1.2, 0.8, dx, 0.4, {a, b}, p, meniscus::test::pool_solve_options());
  Meeting m;
  double t = 0;
  while (t < 0.25 - 1e-12) {
    const double dt = sc.flow->stable_dt(0.5, 1.0, 2e-3);
    const auto report = sc.flow->step(dt);
    t += dt;
    m.contact_steps += report.body_contacts > 0;
    const auto& bs = sc.flow->bodies();
    m.min_gap = std::min(m.min_gap, std::hypot(bs[1].c[0] - bs[0].c[0], bs[1].c[1] - bs[0].c[1]) - 2 * R);
  }
  const auto& bs = sc.flow->bodies();
  m.final_gap = std::hypot(bs[1].c[0] - bs[0].c[0], bs[1].c[1] - bs[0].c[1]) - 2 * R;
  m.relative_speed = bs[1].v[0] - bs[0].v[0];
  print_rank0("discs pushed together, body contact %s: smallest gap %.3e cm, final gap %.3e cm, relative speed "
              "%.3e cm/s, %ld steps with contacts",
              contact ? "on" : "off", m.min_gap, m.final_gap, m.relative_speed, m.contact_steps);
  return m;
}
}  // namespace

// With the contact the discs meet (they touch within a hundredth of a cell: the sampled outline's
// chords, (dx / 8)^2 / (2 R), are 5e-5 cm inside the circle) and stop approaching; without it the
// same launch carries them at least a fifth of a cell into each other.
TEST(MembraneBodyContactValidation, FloatingDiscsPushedTogetherTouchWithoutOverlapping) {
  const Meeting on = push_together(true);
  EXPECT_GT(on.contact_steps, 0);
  EXPECT_GT(on.min_gap, -0.01 * 0.025);
  EXPECT_LT(on.final_gap, 0.1 * 0.025);
  const Meeting off = push_together(false);
  EXPECT_LT(off.min_gap, -0.2 * 0.025);
  EXPECT_EQ(off.contact_steps, 0);
}

namespace {
// Spheres R = 0.2, density 0.5, centred on the level of a 12^3-cell unit-box pool (depth 0.5, sigma =
// 0), 0.04 apart, launched toward each other at 1 cm/s for 0.1 s (dt 2e-3).
Meeting push_together_3d(bool contact) {
  const double R = 0.2;
  meniscus::membrane::Flow3Parameters p;
  p.sigma = 0.0;
  p.body_contact = contact;
  auto a = meniscus::test::sphere3({0.28, 0.5, 0.5}, R, 0.5), b = meniscus::test::sphere3({0.72, 0.5, 0.5}, R, 0.5);
  a.v[0] = 1.0;
  b.v[0] = -1.0;
  auto sc = meniscus::test::make_pool3(12, 0.5, p, {}, MPI_COMM_WORLD, {a, b});
  Meeting m;
  auto gap = [&] {
    const auto& bs = sc.flow->bodies();
    return std::hypot(bs[1].c[0] - bs[0].c[0], bs[1].c[1] - bs[0].c[1], bs[1].c[2] - bs[0].c[2]) - 2 * R;
  };
  for (int n = 0; n < 50; ++n) {
    const auto report = sc.flow->step(2e-3);
    m.contact_steps += report.body_contacts > 0;
    m.min_gap = std::min(m.min_gap, gap());
  }
  m.final_gap = gap();
  m.relative_speed = sc.flow->bodies()[1].v[0] - sc.flow->bodies()[0].v[0];
  print_rank0("3D spheres pushed together, body contact %s: smallest gap %.3e, final gap %.3e, relative speed %.3e, "
              "%ld steps with contacts",
              contact ? "on" : "off", m.min_gap, m.final_gap, m.relative_speed, m.contact_steps);
  return m;
}
}  // namespace

// 3D: with the contact the spheres meet within the gaps of their surface samples (a quarter cell
// apart: a cap of radius 0.75 spacing holding no sample is (0.75 dx / 4)^2 / (2 R) = 5.3e-4 cm deep,
// twice that with both spheres sampled, 0.013 of the 1/12 cell) and stop approaching; without it
// they pass into each other. Measured: smallest gap -5.8e-4, final -8.3e-5 (contact); -0.26 (off).
TEST(MembraneBodyContactValidation, FloatingSpheresPushedTogetherTouchWithoutOverlapping3D) {
  const Meeting on = push_together_3d(true);
  EXPECT_GT(on.contact_steps, 0);
  EXPECT_GT(on.min_gap, -0.015 / 12);
  EXPECT_LT(on.final_gap, 0.1 / 12);
  const Meeting off = push_together_3d(false);
  EXPECT_LT(off.min_gap, -0.2 / 12);
  EXPECT_EQ(off.contact_steps, 0);
}
