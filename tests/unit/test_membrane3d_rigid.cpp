// 3D rigid bodies of the three-way coupling of Ruan et al. 2021 (§4.3, the 3D form of Eqs. 12-14;
// Eqs. 26-29): the sphere's point Jacobian J(x) = [I, -[x - c]_x] against finite differences of the
// exact rigid motion and against the quaternion update of Stage 1, its transpose as the map of
// forces to (sum f, sum (x - c) x f), the analytic mass matrix, and the three-way KKT system with a
// floating sphere (symmetric, C positive definite, six rigid unknowns holding the body's mass).
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

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

// Articulated bodies in 3D (RigidBody3::root, the water strider of Ruan 2021 Fig. 14 in the reduced form
// of the 2D robot): a link sits at its root's centre plus the stroke (s_x - a_x cos th, s_y - a_y cos th,
// s_z + a_z sin th), th = 2 pi f (t - t_start) + phase, moves with the root's velocity plus r'(t), keeps
// its own orientation and no spin; outside the stroke's window it holds still at the window's edge (at
// rest; on the edges it still moves with the stroke).
// r'(t) is checked against central differences of r(t) (1e-8), the rest exactly.
TEST(Membrane3dRigid, LinkFollowsItsRootAlongTheStroke) {
  std::vector<mm::RigidBody3> bodies(2);
  bodies[0] = meniscus::test::sphere3({1.0, 2.0, 3.0}, 0.3, 0.4);
  bodies[0].rotates = false;
  bodies[0].v[0] = 0.7;
  bodies[0].v[2] = -0.2;
  mm::RigidBody3& link = bodies[1];
  link = meniscus::test::sphere3({0, 0, 0}, 0.1, 0.4);
  link.root = 0;
  link.q[0] = std::cos(0.25 * M_PI);  // a quarter turn about z, kept
  link.q[3] = std::sin(0.25 * M_PI);
  link.omega[1] = 5.0;  // overridden: a link does not spin
  const double s[3] = {0.1, -1.2, 0.05}, a[3] = {0.3, 0.02, 0.08}, f = 4.0, phase = 0.3, start = 0.1, cycles = 2;
  for (int d = 0; d < 3; ++d) {
    link.stroke_centre[d] = s[d];
    link.stroke_amplitude[d] = a[d];
  }
  link.stroke_frequency = f;
  link.stroke_phase = phase;
  link.stroke_start = start;
  link.stroke_cycles = cycles;
  auto offset = [&](double t) {
    std::vector<mm::RigidBody3> copy = bodies;
    mm::attach_links(copy, t);
    std::array<double, 3> r{};
    for (int d = 0; d < 3; ++d) r[d] = copy[1].c[d] - copy[0].c[d];
    return r;
  };
  for (const double t : {0.0, 0.1, 0.23, 0.37, 0.5, 0.6, 0.8}) {
    mm::attach_links(bodies, t);
    const double tau = std::clamp(t - start, 0.0, cycles / f), th = 2 * M_PI * f * tau + phase;
    const double expect[3] = {s[0] - a[0] * std::cos(th), s[1] - a[1] * std::cos(th), s[2] + a[2] * std::sin(th)};
    // The window is closed: at its edges the link still has the stroke's velocity.
    const bool moving = t >= start && t <= start + cycles / f, inside = t > start && t < start + cycles / f;
    const double h = 1e-6;
    const std::array<double, 3> up = offset(t + h), down = offset(t - h);
    for (int d = 0; d < 3; ++d) {
      EXPECT_NEAR(link.c[d] - bodies[0].c[d], expect[d], 1e-15) << "t " << t << ", axis " << d;
      EXPECT_EQ(link.v[d], bodies[0].v[d] + link.v_kin[d]);
      EXPECT_EQ(link.omega[d], 0.0);
      if (inside) EXPECT_NEAR(link.v_kin[d], (up[d] - down[d]) / (2 * h), 1e-8) << "t " << t << ", axis " << d;
      if (!moving) EXPECT_EQ(link.v_kin[d], 0.0) << "t " << t;
    }
    EXPECT_EQ(link.q[0], std::cos(0.25 * M_PI));
    EXPECT_EQ(link.q[3], std::sin(0.25 * M_PI));
  }
  // The same stroke in 2D (Disc::root): its x and its vertical axis (y) move as the 3D link's x and z.
  std::vector<mm::Disc> flat(2);
  flat[0].radius = 0.3;
  flat[0].c[0] = bodies[0].c[0];
  flat[0].rotates = false;
  flat[1].radius = 0.1;
  flat[1].root = 0;
  flat[1].stroke_centre[0] = s[0];
  flat[1].stroke_centre[1] = s[2];
  flat[1].stroke_amplitude[0] = a[0];
  flat[1].stroke_amplitude[1] = a[2];
  flat[1].stroke_frequency = f;
  flat[1].stroke_phase = phase;
  flat[1].stroke_start = start;
  flat[1].stroke_cycles = cycles;
  mm::attach_links(flat, 0.37);
  mm::attach_links(bodies, 0.37);
  EXPECT_EQ(flat[1].c[0] - flat[0].c[0], bodies[1].c[0] - bodies[0].c[0]);
  EXPECT_EQ(flat[1].v_kin[0], bodies[1].v_kin[0]);
  EXPECT_EQ(flat[1].v_kin[1], bodies[1].v_kin[2]);
}

// The root's M_r with its links (composite_mass_matrix): the masses add on the translations and each
// link adds I_k + m_k (|d|^2 I - d d^T) to the world inertia (parallel axes), d = c_k - c_root. Checked
// against the inertia tensor of point samples of the three bodies about the root's centre (a sphere
// sampled on a fine lattice, 2e-3 relative), and the translational block against the sum of masses.
TEST(Membrane3dRigid, CompositeMassMatrixAddsTheLinks) {
  std::vector<mm::RigidBody3> bodies(3);
  bodies[0] = meniscus::test::sphere3({0.2, -0.1, 0.4}, 0.3, 0.4);
  bodies[0].rotates = false;
  for (int k = 1; k < 3; ++k) {
    bodies[k] = meniscus::test::sphere3({0, 0, 0}, 0.15, 1.3);
    bodies[k].root = 0;
    bodies[k].stroke_centre[0] = k == 1 ? 0.5 : -0.2;
    bodies[k].stroke_centre[1] = k == 1 ? -0.6 : 0.7;
    bodies[k].stroke_centre[2] = k == 1 ? 0.1 : -0.3;
  }
  mm::attach_links(bodies, 0.0);
  double M[36];
  mm::composite_mass_matrix(bodies, 0, M);
  const double mass = bodies[0].mass() + bodies[1].mass() + bodies[2].mass();
  EXPECT_DOUBLE_EQ(mm::composite_mass(bodies, 0), mass);
  double I[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  const int n = 120;
  for (const auto& b : bodies) {
    const double h = 2 * b.radius / n, dm = b.density * h * h * h;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        for (int l = 0; l < n; ++l) {
          const double y[3] = {(i + 0.5) * h - b.radius, (j + 0.5) * h - b.radius, (l + 0.5) * h - b.radius};
          if (y[0] * y[0] + y[1] * y[1] + y[2] * y[2] > b.radius * b.radius) continue;
          const double r[3] = {b.c[0] + y[0] - bodies[0].c[0], b.c[1] + y[1] - bodies[0].c[1], b.c[2] + y[2] - bodies[0].c[2]};
          const double rr = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
          for (int e = 0; e < 3; ++e)
            for (int g = 0; g < 3; ++g) I[3 * e + g] += dm * ((e == g ? rr : 0.0) - r[e] * r[g]);
        }
  }
  for (int e = 0; e < 6; ++e)
    for (int g = 0; g < 6; ++g) {
      if (e < 3 || g < 3) {
        EXPECT_EQ(M[6 * e + g], e == g ? mass : 0.0) << e << " " << g;
        continue;
      }
      EXPECT_NEAR(M[6 * e + g], I[3 * (e - 3) + (g - 3)], 2e-3 * std::abs(I[3 * (e - 3) + (e - 3)])) << e << " " << g;
    }
}
