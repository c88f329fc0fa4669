// 3D rigid bodies of the three-way coupling of Ruan et al. 2021 (§4.3, the 3D form of Eqs. 12-14;
// Eqs. 26-29): the sphere's point Jacobian J(x) = [I, -[x - c]_x] against finite differences of the
// exact rigid motion and against the quaternion update of Stage 1, its transpose as the map of
// forces to (sum f, sum (x - c) x f), the analytic mass matrix, and the three-way KKT system with a
// floating sphere (symmetric, C positive definite, six rigid unknowns holding the body's mass).
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <cstdio>
#include <random>

#include "membrane3d_scenes.hpp"
#include "petsc_matrices.hpp"

namespace mm = meniscus::membrane;

namespace {
// A random body point's position after time h of the exact rigid motion (translation v h and the
// rotation by |omega| h about omega through the centre, Rodrigues' formula).
void exact_motion(const mm::RigidBody3& b, const double* x, double h, double* out) {
  const double r[3] = {x[0] - b.c[0], x[1] - b.c[1], x[2] - b.c[2]};
  const double w = std::sqrt(b.omega[0] * b.omega[0] + b.omega[1] * b.omega[1] + b.omega[2] * b.omega[2]);
  const double k[3] = {b.omega[0] / w, b.omega[1] / w, b.omega[2] / w}, th = w * h;
  const double kr = k[0] * r[0] + k[1] * r[1] + k[2] * r[2];
  const double kxr[3] = {k[1] * r[2] - k[2] * r[1], k[2] * r[0] - k[0] * r[2], k[0] * r[1] - k[1] * r[0]};
  for (int d = 0; d < 3; ++d)
    out[d] = b.c[d] + b.v[d] * h + r[d] * std::cos(th) + kxr[d] * std::sin(th) + k[d] * kr * (1 - std::cos(th));
}

mm::RigidBody3 random_sphere(std::mt19937& gen) {
  std::uniform_real_distribution<double> u(-1, 1);
  mm::RigidBody3 b = meniscus::test::sphere3({u(gen), u(gen), u(gen)}, 0.3, 2.0);
  for (double* w : {b.v, b.omega})
    for (int d = 0; d < 3; ++d) w[d] = (w == b.omega ? 3 : 1) * u(gen);
  double n = 0;
  for (double& q : b.q) n += (q = u(gen)) * q;
  for (double& q : b.q) q /= std::sqrt(n);
  return b;
}
}  // namespace

TEST(Membrane3dRigid, PointJacobianIsTheDerivativeOfRigidMotion) {
  std::mt19937 gen(11);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int trial = 0; trial < 20; ++trial) {
    const mm::RigidBody3 b = random_sphere(gen);
    const double x[3] = {b.c[0] + u(gen), b.c[1] + u(gen), b.c[2] + u(gen)};
    const double h = 1e-5;
    double xp[3], xm[3], vr[6];
    exact_motion(b, x, h, xp);
    exact_motion(b, x, -h, xm);
    b.velocity(vr);
    for (int d = 0; d < 3; ++d) {
      const double fd = (xp[d] - xm[d]) / (2 * h);
      double row[6], jv = 0;
      b.jacobian_row(d, x, row);
      for (int q = 0; q < 6; ++q) jv += row[q] * vr[q];
      EXPECT_NEAR(jv, fd, 1e-8 * (1 + std::abs(fd)));
      EXPECT_NEAR(b.point_velocity(d, x), jv, 1e-14);
    }
    // Stage 1 (Eq. 29 with Rodrigues' rotation): a point fixed in the body frame, carried by the
    // predicted centre and quaternion, lands on the exact motion over a finite step.
    const double dt = 0.05;
    double rot[9], body[3], moved[3], exact[3];
    b.rotation(rot);
    for (int i = 0; i < 3; ++i) {
      body[i] = 0;
      for (int j = 0; j < 3; ++j) body[i] += rot[3 * j + i] * (x[j] - b.c[j]);  // R^T (x - c)
    }
    std::vector<mm::RigidBody3> one = {b};
    mm::predict_positions(one, dt);
    one[0].rotation(rot);
    for (int i = 0; i < 3; ++i) {
      moved[i] = one[0].c[i];
      for (int j = 0; j < 3; ++j) moved[i] += rot[3 * i + j] * body[j];
    }
    exact_motion(b, x, dt, exact);
    for (int d = 0; d < 3; ++d) EXPECT_NEAR(moved[d], exact[d], 1e-13);
    double qq = 0;
    for (double q : one[0].q) qq += q * q;
    EXPECT_NEAR(qq, 1.0, 1e-14);
  }
  // A body that does not rotate has no omega columns.
  mm::RigidBody3 b;
  b.rotates = false;
  const double x[3] = {0.3, 0.2, -0.1};
  for (int d = 0; d < 3; ++d) {
    double row[6];
    b.jacobian_row(d, x, row);
    for (int q = 3; q < 6; ++q) EXPECT_EQ(row[q], 0.0);
  }
}

// J^T maps forces f_i at points x_i to the body's (sum f_i, sum (x_i - c) x f_i), and the power
// identity (J^T f) . v_r = f . (J v_r) holds; forces that sum to zero with zero torque give nothing.
TEST(Membrane3dRigid, JacobianTransposeGivesForceAndTorque) {
  std::mt19937 gen(5);
  std::uniform_real_distribution<double> u(-1, 1);
  const mm::RigidBody3 b = random_sphere(gen);
  double gen_force[6] = {0, 0, 0, 0, 0, 0}, total[6] = {0, 0, 0, 0, 0, 0}, vr[6];
  b.velocity(vr);
  double power = 0;
  for (int i = 0; i < 12; ++i) {
    const double x[3] = {b.c[0] + u(gen), b.c[1] + u(gen), b.c[2] + u(gen)}, f[3] = {u(gen), u(gen), u(gen)};
    for (int d = 0; d < 3; ++d) {
      double row[6];
      b.jacobian_row(d, x, row);
      for (int q = 0; q < 6; ++q) gen_force[q] += row[q] * f[d];
      power += f[d] * b.point_velocity(d, x);
    }
    const double r[3] = {x[0] - b.c[0], x[1] - b.c[1], x[2] - b.c[2]};
    for (int d = 0; d < 3; ++d) {
      total[d] += f[d];
      total[3 + d] += r[(d + 1) % 3] * f[(d + 2) % 3] - r[(d + 2) % 3] * f[(d + 1) % 3];
    }
  }
  double jtfv = 0;
  for (int q = 0; q < 6; ++q) {
    EXPECT_NEAR(gen_force[q], total[q], 1e-13);
    jtfv += gen_force[q] * vr[q];
  }
  EXPECT_NEAR(jtfv, power, 1e-12);
  // An equilibrated pair (equal, opposite, on one line through both points): no force, no torque.
  const double x1[3] = {b.c[0] + 0.2, b.c[1], b.c[2]}, x2[3] = {b.c[0] + 0.2, b.c[1] + 0.5, b.c[2]};
  const double f1[3] = {0, 1, 0};
  double sum[6] = {0, 0, 0, 0, 0, 0};
  for (int d = 0; d < 3; ++d) {
    double r1[6], r2[6];
    b.jacobian_row(d, x1, r1);
    b.jacobian_row(d, x2, r2);
    for (int q = 0; q < 6; ++q) sum[q] += r1[q] * f1[d] - r2[q] * f1[d];
  }
  for (double s : sum) EXPECT_NEAR(s, 0.0, 1e-15);
}

TEST(Membrane3dRigid, SphereMassMatrixIsAnalytic) {
  std::mt19937 gen(3);
  const mm::RigidBody3 b = random_sphere(gen);
  const double m = 2.0 * 4.0 / 3.0 * M_PI * 0.027, inertia = 0.4 * m * 0.09;
  EXPECT_NEAR(b.mass(), m, 1e-15);
  double mr[36], rot[9];
  b.mass_matrix(mr);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) EXPECT_NEAR(mr[6 * i + j], i != j ? 0.0 : (i < 3 ? m : inertia), 1e-15);
  b.rotation(rot);  // orthonormal
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double s = 0;
      for (int k = 0; k < 3; ++k) s += rot[3 * i + k] * rot[3 * j + k];
      EXPECT_NEAR(s, i == j ? 1.0 : 0.0, 1e-14);
    }
}

// One step of a half-submerged sphere in a 12^3 pool with tension: the three-way KKT system of
// Eq. 28 in 3D is symmetric, its velocity block positive definite, and the six rigid rows hold the
// body's mass matrix plus the liquid and contact-vertex masses.
TEST(Membrane3dRigid, ThreeWaySystemIsSymmetricWithDefiniteVelocityBlock) {
  mm::Flow3Parameters p;
  p.sigma = 20.0;
  auto s = meniscus::test::make_pool3(12, 0.5, p, {}, MPI_COMM_WORLD, {meniscus::test::sphere3({0.5, 0.5, 0.52}, 0.2, 0.6)});
  s.flow->solver().keep_blocks(true);
  const auto report = s.flow->step(1e-3);
  const auto& k = s.flow->solver().blocks();
  ASSERT_EQ(k.rigid_unknowns, 6);
  std::printf("3D three-way: %ld contact vertices, %ld fluid-rigid faces, %ld fluid-air faces, %d iterations\n",
              report.contact_vertices, report.second.fluid_rigid_faces, report.second.fluid_air_faces,
              report.second.iterations);
  EXPECT_GT(report.contact_vertices, 20);  // the wetted cap is carried by the body
  EXPECT_GT(report.second.fluid_rigid_faces, 20);
  const double asym = meniscus::test::relative_asymmetry(k.K);
  std::printf("3D three-way KKT: |K - K^T| / |K| = %.3e\n", asym);
  EXPECT_GE(asym, 0.0);
  EXPECT_LT(asym, 1e-13);
  const Eigen::MatrixXd c = meniscus::test::dense(k.C);
  Eigen::LLT<Eigen::MatrixXd> llt(c);
  EXPECT_EQ(llt.info(), Eigen::Success);
  const mm::RigidBody3& b = s.flow->bodies()[0];
  const long r0 = k.membrane_unknowns;
  for (int q = 0; q < 6; ++q) EXPECT_GE(c(r0 + q, r0 + q), q < 3 ? b.mass() : 0.4 * b.mass() * b.radius * b.radius);
  // The body couples to the free membrane components next to the contact line (K_{a,s} = K_{c,r}^T
  // of Eq. 22 and W^T M W through the contact vertices' W columns).
  long coupled = 0;
  for (long j = 0; j < r0; ++j) coupled += c(r0 + 2, j) != 0;
  EXPECT_GE(coupled, 8);
}

// The 3D three-way system solved by MINRES (rtol 1e-12) and by MUMPS gives the same body motion
// over three steps of a sphere released above its floating depth (sigma = 20, 10^3 cells).
TEST(Membrane3dRigid, ThreeWayMinresAgreesWithMumps) {
  mm::Flow3Parameters p;
  p.sigma = 20.0;
  mm::CoupledSolveOptions minres, direct;
  minres.rtol = 1e-12;
  direct.mode = "direct";
  const std::vector<mm::RigidBody3> bodies = {meniscus::test::sphere3({0.5, 0.5, 0.55}, 0.25, 0.7)};
  auto a = meniscus::test::make_pool3(10, 0.5, p, minres, MPI_COMM_WORLD, bodies);
  auto b = meniscus::test::make_pool3(10, 0.5, p, direct, MPI_COMM_WORLD, bodies);
  for (int n = 0; n < 3; ++n) {
    a.flow->step(1e-3);
    b.flow->step(1e-3);
  }
  const auto &ba = a.flow->bodies()[0], &bb = b.flow->bodies()[0];
  std::printf("3D three-way: MINRES v_z %.10e, MUMPS v_z %.10e\n", ba.v[2], bb.v[2]);
  EXPECT_GT(std::abs(bb.v[2]), 1e-2);  // the body moves
  for (int d = 0; d < 3; ++d) {
    EXPECT_NEAR(ba.v[d], bb.v[d], 1e-7 * std::abs(bb.v[2]));
    EXPECT_NEAR(ba.omega[d], bb.omega[d], 1e-6 * std::abs(bb.v[2]) / 0.25);
  }
}
