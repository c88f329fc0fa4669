// Rigid bodies of the three-way coupling of Ruan et al. 2021 (§4.3 and §5.3, Eqs. 12-14, 26-28): the point
// Jacobian against finite differences of the exact rigid motion and its transpose as a power-
// conjugate map, and the three-way KKT system with a body (symmetric, C positive definite, the
// rigid block holding the body's mass, MINRES agreeing with MUMPS).
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <random>

#include "membrane_scenes.hpp"
#include "petsc_matrices.hpp"

namespace mm = meniscus::membrane;

namespace {
using meniscus::test::dense;

mm::Disc disc(double cx, double cy, double r, double rho) {
  mm::Disc d;
  d.c[0] = cx;
  d.c[1] = cy;
  d.radius = r;
  d.density = rho;
  return d;
}

// A cylinder R = 0.1 of areal density 3 sitting 0.04 cm deep in a 0.8 x 0.6 pool, sigma = 0.9.
mm::FlowParameters float_parameters() {
  mm::FlowParameters p;
  p.sigma = 0.9;
  p.gravity[1] = -9.8;
  p.remesh_edge = 0;
  return p;
}
}  // namespace

TEST(MembraneRigid, PointJacobianIsTheDerivativeOfRigidMotion) {
  std::mt19937 gen(7);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int trial = 0; trial < 20; ++trial) {
    mm::Disc b = disc(u(gen), u(gen), 0.3, 2.0);
    b.v[0] = u(gen);
    b.v[1] = u(gen);
    b.omega = 3 * u(gen);
    const double x[2] = {b.c[0] + u(gen), b.c[1] + u(gen)};
    // Exact motion of the body point over +-h: translation plus rotation by omega h about c.
    auto moved = [&](double h, double* out) {
      const double a = b.omega * h, rx = x[0] - b.c[0], ry = x[1] - b.c[1];
      out[0] = b.c[0] + b.v[0] * h + std::cos(a) * rx - std::sin(a) * ry;
      out[1] = b.c[1] + b.v[1] * h + std::sin(a) * rx + std::cos(a) * ry;
    };
    const double h = 1e-5;
    double xp[2], xm[2];
    moved(h, xp);
    moved(-h, xm);
    for (int d = 0; d < 2; ++d) {
      const double fd = (xp[d] - xm[d]) / (2 * h);
      double row[3];
      b.jacobian_row(d, x, row);
      const double jv = row[0] * b.v[0] + row[1] * b.v[1] + row[2] * b.omega;
      EXPECT_NEAR(jv, fd, 1e-8 * (1 + std::abs(fd)));
      EXPECT_NEAR(b.point_velocity(d, x), jv, 1e-14);
    }
    // J^T maps a force f at x to (f, (x - c) x f): (J^T f) . v = f . (J v) for any f and v.
    const double f[2] = {u(gen), u(gen)};
    double r0[3], r1[3];
    b.jacobian_row(0, x, r0);
    b.jacobian_row(1, x, r1);
    double jtf[3], lhs = 0, rhs = 0;
    for (int q = 0; q < 3; ++q) jtf[q] = r0[q] * f[0] + r1[q] * f[1];
    EXPECT_NEAR(jtf[2], (x[0] - b.c[0]) * f[1] - (x[1] - b.c[1]) * f[0], 1e-14);
    const double vr[3] = {b.v[0], b.v[1], b.omega};
    for (int q = 0; q < 3; ++q) lhs += jtf[q] * vr[q];
    rhs = f[0] * b.point_velocity(0, x) + f[1] * b.point_velocity(1, x);
    EXPECT_NEAR(lhs, rhs, 1e-13);
  }
  // A body that does not rotate has no omega column.
  mm::Disc b = disc(0, 0, 0.1, 1);
  b.rotates = false;
  const double x[2] = {0.3, 0.2};
  double row[3];
  b.jacobian_row(0, x, row);
  EXPECT_EQ(row[2], 0.0);
}

TEST(MembraneRigid, ThreeWaySystemIsSymmetricWithDefiniteVelocityBlock) {
  auto s = meniscus::test::make_pool_with_bodies(0.8, 0.6, 0.025, 0.35, {disc(0.4, 0.41, 0.1, 3.0)},
                                                 float_parameters());
  s.flow->solver().keep_blocks(true);
  s.flow->step(5e-4);
  const auto& k = s.flow->solver().blocks();
  ASSERT_EQ(k.rigid_unknowns, 3);
  EXPECT_GT(static_cast<long>(s.flow->bodies().size()), 0L);
  long contacts = 0;
  for (int c : s.flow->contact()) contacts += c >= 0;
  EXPECT_GT(contacts, 4);  // the wetted arc is carried by the body
  const double asym = meniscus::test::relative_asymmetry(k.K);
  std::printf("three-way KKT: |K - K^T| / |K| = %.3e\n", asym);
  EXPECT_GE(asym, 0.0);
  EXPECT_LT(asym, 1e-13);
  const Eigen::MatrixXd c = dense(k.C), a = dense(k.A);
  Eigen::LLT<Eigen::MatrixXd> llt(c);
  EXPECT_EQ(llt.info(), Eigen::Success);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> ea(a);
  EXPECT_GE(ea.eigenvalues().minCoeff(), -1e-12 * a.norm());
  // The rigid rows hold the body's mass matrix plus the lumped liquid and contact-vertex masses
  // (Phi_r^T M Phi_r + J_C^T M_s J_C): the diagonal is at least m, m, I.
  const mm::Disc& b = s.flow->bodies()[0];
  const long r0 = k.membrane_unknowns;
  EXPECT_GE(c(r0, r0), b.mass());
  EXPECT_GE(c(r0 + 1, r0 + 1), b.mass());
  EXPECT_GE(c(r0 + 2, r0 + 2), b.inertia());
  // The body couples to the free membrane components at both contact lines (K_{a,s} = K_{c,r}^T of
  // Eq. 22, and W^T M W through the contact vertices' W columns).
  long coupled = 0;
  for (long j = 0; j < r0; ++j) coupled += c(r0 + 1, j) != 0;
  EXPECT_GE(coupled, 2);
}

TEST(MembraneRigid, ThreeWayMinresAgreesWithMumps) {
  mm::CoupledSolveOptions direct;
  direct.mode = "direct";
  const std::vector<mm::Disc> bodies = {disc(0.4, 0.41, 0.1, 3.0)};
  // MINRES at rtol 1e-12: the four steps carry each solve's error into the next geometry (at the
  // default 1e-10 the bodies' v_y differed from MUMPS by 1.6e-7 relative after four steps).
  mm::CoupledSolveOptions minres;
  minres.rtol = 1e-12;
  auto a = meniscus::test::make_pool_with_bodies(0.8, 0.6, 0.025, 0.35, bodies, float_parameters(), minres);
  auto b = meniscus::test::make_pool_with_bodies(0.8, 0.6, 0.025, 0.35, bodies, float_parameters(), direct);
  for (int n = 0; n < 4; ++n) {
    a.flow->step(5e-4);
    b.flow->step(5e-4);
  }
  const auto &ba = a.flow->bodies()[0], &bb = b.flow->bodies()[0];
  std::printf("three-way: MINRES v_y %.10e, MUMPS v_y %.10e\n", ba.v[1], bb.v[1]);
  EXPECT_GT(std::abs(bb.v[1]), 1e-4);  // the body moves
  EXPECT_NEAR(ba.v[0], bb.v[0], 1e-7 * std::abs(bb.v[1]) + 1e-12);
  EXPECT_NEAR(ba.v[1], bb.v[1], 1e-7 * std::abs(bb.v[1]));
  EXPECT_NEAR(ba.omega, bb.omega, 1e-6 * std::abs(bb.v[1]) / 0.1 + 1e-12);
}

// A link's stroke window (the robot's jump gait, Ruan 2021 Fig. 10d-e): before stroke_start the link holds
// at the stroke's starting position, inside the window it follows r(t) = (s_x - a_x cos th, s_y + a_y sin th),
// th = 2 pi f (t - t_start) + phase, with r'(t) as its known velocity, and after stroke_cycles cycles it holds
// at the last position with no velocity. Its centre is always the root's plus r, so the position is
// continuous across both edges. Checked against the formula at times before, inside and after the window.
TEST(MembraneRigid, LinkStrokeRunsInsideItsWindowAndHoldsOutside) {
  std::vector<mm::Disc> bodies = {disc(1.0, 2.0, 0.1, 1.1), disc(0, 0, 0.05, 1.1)};
  bodies[0].rotates = false;
  bodies[0].v[0] = 0.5;
  mm::Disc& link = bodies[1];
  link.root = 0;
  link.stroke_centre[0] = -0.2;
  link.stroke_centre[1] = -0.23;
  link.stroke_amplitude[0] = 0.01;
  link.stroke_amplitude[1] = 0.03;
  link.stroke_frequency = 5;
  link.stroke_phase = M_PI / 2;
  link.stroke_start = 0.6;
  link.stroke_cycles = 0.75;  // the window ends at 0.6 + 0.15 s
  const double w = 2 * M_PI * 5;
  auto expect_at = [&](double t, double th, bool moving) {
    mm::attach_links(bodies, t);
    const double r[2] = {-0.2 - 0.01 * std::cos(th), -0.23 + 0.03 * std::sin(th)};
    const double vk[2] = {moving ? w * 0.01 * std::sin(th) : 0.0, moving ? w * 0.03 * std::cos(th) : 0.0};
    for (int d = 0; d < 2; ++d) {
      EXPECT_NEAR(bodies[1].c[d], bodies[0].c[d] + r[d], 1e-15) << "t " << t << " axis " << d;
      EXPECT_NEAR(bodies[1].v_kin[d], vk[d], 1e-13) << "t " << t << " axis " << d;
      EXPECT_NEAR(bodies[1].v[d], bodies[0].v[d] + vk[d], 1e-13) << "t " << t << " axis " << d;
    }
  };
  expect_at(0.0, M_PI / 2, false);
  expect_at(0.3, M_PI / 2, false);
  expect_at(0.6, M_PI / 2, true);
  expect_at(0.65, M_PI / 2 + w * 0.05, true);
  expect_at(0.74, M_PI / 2 + w * (0.74 - 0.6), true);
  expect_at(0.9, M_PI / 2 + w * 0.15, false);
  expect_at(5.0, M_PI / 2 + w * 0.15, false);
  // Without a window (the defaults) the stroke runs from t = 0 for ever.
  link.stroke_start = 0;
  link.stroke_cycles = 0;
  expect_at(0.0, M_PI / 2, true);
  expect_at(7.3, M_PI / 2 + w * 7.3, true);
}
