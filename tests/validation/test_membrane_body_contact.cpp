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

// `steps` steps of 2 ms of a scene with two bodies of radius R: the gap between their surfaces,
// the steps with contacts, their final relative speed along x.
template <class Scene>
Meeting meet(Scene& sc, int steps, double R, const char* what, bool contact) {
  Meeting m;
  for (int n = 0; n < steps; ++n) {
    m.contact_steps += sc.flow->step(2e-3).body_contacts > 0;
    const auto& bs = sc.flow->bodies();
    double d2 = 0;
    for (size_t d = 0; d < sizeof(bs[0].c) / sizeof(double); ++d) d2 += std::pow(bs[1].c[d] - bs[0].c[d], 2);
    m.final_gap = std::sqrt(d2) - 2 * R;
    m.min_gap = std::min(m.min_gap, m.final_gap);
  }
  m.relative_speed = sc.flow->bodies()[1].v[0] - sc.flow->bodies()[0].v[0];
  print_rank0("%s pushed together, body contact %s: smallest gap %.3e cm, final gap %.3e cm, relative speed %.3e cm/s, "
              "%ld steps with contacts",
              what, contact ? "on" : "off", m.min_gap, m.final_gap, m.relative_speed, m.contact_steps);
  return m;
}

// With the contact the bodies meet within `overlap` and end within a tenth of a cell; without it
// they pass at least a fifth of a cell into each other.
void expect_contact_stops_them(const Meeting& on, const Meeting& off, double dx, double overlap) {
  EXPECT_GT(on.contact_steps, 0);
  EXPECT_GT(on.min_gap, -overlap);
  EXPECT_LT(on.final_gap, 0.1 * dx);
  EXPECT_LT(off.min_gap, -0.2 * dx);
  EXPECT_EQ(off.contact_steps, 0);
}

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
  return meet(sc, 125, R, "discs", contact);
}

// Spheres R = 0.2, density 0.5, centred on the level of a 12^3-cell unit-box pool (depth 0.5, sigma =
// 0), 0.04 apart, launched toward each other at 1 cm/s, for 0.1 s.
Meeting push_together_3d(bool contact) {
  const double R = 0.2;
  meniscus::membrane::Flow3Parameters p;
  p.sigma = 0.0;
  p.body_contact = contact;
  auto a = meniscus::test::sphere3({0.28, 0.5, 0.5}, R, 0.5), b = meniscus::test::sphere3({0.72, 0.5, 0.5}, R, 0.5);
  a.v[0] = 1.0;
  b.v[0] = -1.0;
  auto sc = meniscus::test::make_pool3(12, 0.5, p, {}, MPI_COMM_WORLD, {a, b});
  return meet(sc, 50, R, "3D spheres", contact);
}
}  // namespace

// With the contact the discs meet (they touch within a hundredth of a cell: the sampled outline's
// chords, (dx / 8)^2 / (2 R), are 5e-5 cm inside the circle) and stop approaching; without it the
// same launch carries them into each other. Measured: smallest gap -1.1e-8 cm (contact), -0.19 (off).
TEST(MembraneBodyContactValidation, FloatingDiscsPushedTogetherTouchWithoutOverlapping) {
  expect_contact_stops_them(push_together(true), push_together(false), 0.025, 0.01 * 0.025);
}

// 3D: with the contact the spheres meet within the gaps of their surface samples (a quarter cell
// apart: a cap of radius 0.75 spacing holding no sample is (0.75 dx / 4)^2 / (2 R) = 5.3e-4 cm deep,
// twice that with both spheres sampled, 0.013 of the 1/12 cell) and stop approaching; without it
// they pass into each other. Measured: smallest gap -5.8e-4, final -8.3e-5 (contact); -0.26 (off).
TEST(MembraneBodyContactValidation, FloatingSpheresPushedTogetherTouchWithoutOverlapping3D) {
  expect_contact_stops_them(push_together_3d(true), push_together_3d(false), 1.0 / 12, 0.015 / 12);
}
