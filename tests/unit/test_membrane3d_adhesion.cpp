// The adhesion stiffnesses of Ruan et al. 2021 §5.2 as the 3D three-way solve assembles them:
// Eq. 21, K_{a,s} = -df_a/dx_s (body rows, free membrane columns), Eq. 22, K_{a,r} = -df_a/dq_r
// (body rows and columns, the paper's chain rule sum_i df_a/dx_i J_ri with J frozen), and
// K_{c,r} = -df_{c,F}/dq_r = K_{a,s}^T. They are read off the velocity block C of the solve
// (CoupledSolver3 with kept blocks) as (C(sigma) - C(0)) / dt^2, on a grid of AIR cells so that no
// face mass enters C, and compared with
//  * their closed forms from Eq. 11's cotangent weights L (K_c = L (x) I_3): K_{a,s} = J_C^T L[C,F],
//    K_{a,r} = sum over the edges between a contact vertex i and a free one of L_ij J_i^T J_i (edges
//    inside the contact region are left out, Eq. 22 assembles mixed elements only);
//  * central finite differences of the capillary force (Eq. 10) through the body's frozen Jacobian,
//    where the paper's all-directional stiffness is the exact derivative: displacements normal to a
//    flat membrane (the area of a graph z(x, y) is A0 + 1/2 int |grad z|^2 + O(z^4), whose Hessian
//    on P1 triangles is the cotangent Laplacian). In-plane entries of the surrogate are not the
//    exact derivative (Membrane3dOperators.ExactHessianMatchesForceDerivative...) and are checked
//    against the closed form only.
// The negative control: with adhesion off (MembraneHost3::adhesion) the three blocks are zero and
// the body's right-hand side carries no capillary force.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "membrane3d_scenes.hpp"
#include "methods/membrane/coupled_solve_3d.hpp"
#include "methods/membrane/kkt_assembly.hpp"
#include "petsc_matrices.hpp"
#include "test_membrane3d_support.hpp"

namespace mm = meniscus::membrane;
using namespace meniscus::membrane::testing;

namespace {

constexpr double kSigma = 0.7, kDt = 1e-3;

struct Assembled {
  Eigen::MatrixXd c;       // velocity block C
  Eigen::VectorXd bv;      // its right-hand side b_v
  long membrane_unknowns;  // free components first, then the body's six
};

// C and b_v of one three-way solve of host h with the body b (its velocity an unknown) on a grid of
// AIR cells (no pressure unknowns couple, no face masses).
Assembled assemble(const mm::MembraneHost3& h, const mm::RigidBody3& b) {
  auto grid = meniscus::test::unit_box_grid3(6, MPI_COMM_WORLD);
  mm::CoupledSolveOptions o;
  o.mode = "direct";
  mm::CoupledSolver3 solver(*grid, o);
  solver.keep_blocks(true);
  mm::RigidHost3 r;
  r.bodies = {b};
  r.v_start.assign(6, 0.0);
  r.unknowns = true;
  std::vector<double> v, vr;
  solver.solve(h, r, 1.0, kDt, mm::k3U, mm::k3U, v, vr);
  const mm::KktBlocks& k = solver.blocks();
  Assembled a{meniscus::test::dense(k.C), {}, k.membrane_unknowns};
  Vec sub;
  VecGetSubVector(k.b, k.is[1], &sub);
  PetscInt n = 0;
  VecGetSize(sub, &n);
  const PetscScalar* vals;
  VecGetArrayRead(sub, &vals);
  a.bv = Eigen::Map<const Eigen::VectorXd>(vals, n);
  VecRestoreArrayRead(sub, &vals);
  VecRestoreSubVector(k.b, k.is[1], &sub);
  return a;
}

// The generalized force sum_i J_i^T f_i over the contact vertices of the capillary force with the
// vertices at x, J frozen at the body b and the vertices' positions x0 (the paper's chain rule).
std::array<double, 6> adhesion_force(mm::TriangleMembrane& m, const Host3& x, const Host3& x0,
                                     const std::vector<int>& contact, const mm::RigidBody3& b) {
  from_host(x, m.x);
  mm::Vec3Array f("f", m.vertices());
  mm::capillary_force(m, kSigma, f);
  from_host(x0, m.x);
  const Host3 hf = to_host(f);
  std::array<double, 6> out{};
  for (size_t i = 0; i < x.size(); ++i) {
    if (contact[i] < 0) continue;
    for (int d = 0; d < 3; ++d) {
      double row[6];
      b.jacobian_row(d, x0[i].data(), row);
      for (int q = 0; q < 6; ++q) out[q] += row[q] * hf[i][d];
    }
  }
  return out;
}

}  // namespace

// A flat sheet (z = 0.5 over the unit square, 12 x 12 quads, edges 1/12) whose vertices within 0.2
// of (0.47, 0.52) are carried by a body centred there in the sheet's plane. Checked:
//  * closed forms (Eq. 21, Eq. 22, K_{c,r} = K_{a,s}^T) to 1e-12 of the largest entry;
//  * finite differences (step 1e-6) of the normal block: the body rows F_z, tau_x, tau_y against
//    every free vertex's z (Eq. 21), against the body's vertical translation (Eq. 22), and every
//    free vertex's f_z against that translation (K_{c,r}), to 1e-6 of the largest entry;
//  * with the carried patch lifted by 0.03 (the flat sheet pulls on nothing), the body's b_v carries
//    -dt f_a (Eq. 20) to 1e-12; with adhesion off K_{a,s}, K_{c,r}, K_{a,r} and the body's capillary
//    right-hand side vanish.
TEST(Membrane3dAdhesion, StiffnessesOfEqs21And22MatchClosedFormsAndFiniteDifferences) {
  mm::Flow3Parameters p;
  p.sigma = kSigma;
  auto scene = meniscus::test::make_pool3(6, 0.5, p);
  mm::MembraneHost3 h = scene.flow->host_state(true);
  mm::TriangleMembrane& m = scene.flow->membrane();
  const long n = h.vertices();
  mm::RigidBody3 body = meniscus::test::sphere3({0.47, 0.52, 0.5}, 0.2, 1.0);
  h.body.assign(n, -1);
  long contacts = 0;
  for (long i = 0; i < n; ++i)
    if (std::hypot(h.x[3 * i] - body.c[0], h.x[3 * i + 1] - body.c[1]) < 0.2) {
      h.body[i] = 0;
      ++contacts;
    }
  ASSERT_GT(contacts, 10);
  // The solve's numbering of the free components (not wall-held, not carried).
  std::vector<long> unknown(3 * n, -1);
  long nv = 0;
  for (long i = 0; i < n; ++i)
    for (int d = 0; d < 3; ++d)
      if ((h.fixed.empty() || !(h.fixed[i] & (1 << d))) && h.body[i] < 0) unknown[3 * i + d] = nv++;

  mm::MembraneHost3 h0 = h;  // no tension: C(0)
  h0.k_row.clear();
  h0.k_col.clear();
  h0.k_value.clear();
  std::fill(h0.force.begin(), h0.force.end(), 0.0);
  const Assembled on = assemble(h, body), zero = assemble(h0, body);
  ASSERT_EQ(on.membrane_unknowns, nv);
  const Eigen::MatrixXd k = (on.c - zero.c) / (kDt * kDt);
  const long r0 = nv;
  const Eigen::MatrixXd kas = k.block(r0, 0, 6, nv), kcr = k.block(0, r0, nv, 6), kar = k.block(r0, r0, 6, 6);

  // Closed forms from L.
  Eigen::MatrixXd kas_ref = Eigen::MatrixXd::Zero(6, nv), kar_ref = Eigen::MatrixXd::Zero(6, 6);
  for (size_t e = 0; e < h.k_value.size(); ++e) {
    const long i = h.k_row[e], j = h.k_col[e];
    if (i == j || h.body[i] < 0 || h.body[j] >= 0) continue;  // i contact, j free
    const double w = -h.k_value[e];                           // L_ij = -w
    for (int d = 0; d < 3; ++d) {
      double ji[6];
      body.jacobian_row(d, &h.x[3 * i], ji);
      for (int q = 0; q < 6; ++q) {
        if (unknown[3 * j + d] >= 0) kas_ref(q, unknown[3 * j + d]) += -w * ji[q];
        for (int s = 0; s < 6; ++s) kar_ref(q, s) += w * ji[q] * ji[s];
      }
    }
  }
  const double scale = std::max({kas_ref.cwiseAbs().maxCoeff(), kar_ref.cwiseAbs().maxCoeff(), 1e-300});
  const double closed = std::max({(kas - kas_ref).cwiseAbs().maxCoeff(), (kar - kar_ref).cwiseAbs().maxCoeff(),
                                  (kcr - kas.transpose()).cwiseAbs().maxCoeff()});
  std::printf("Eqs. 21-22: %ld contact vertices, %ld free unknowns; largest entry %.4e; closed forms and K_{c,r} = "
              "K_{a,s}^T to %.2e\n",
              contacts, nv, scale, closed);
  EXPECT_GT(kas.cwiseAbs().maxCoeff(), 0.1 * kSigma);
  EXPECT_LT(closed, 1e-12 * scale);

  // Finite differences of the normal block.
  const Host3 x0 = to_host(m.x);
  std::vector<int> carried(h.body.begin(), h.body.end());
  const double step = 1e-6;
  const int normal_rows[3] = {2, 3, 4};  // F_z, tau_x, tau_y
  double fd_worst = 0;
  for (long j = 0; j < n; ++j) {  // Eq. 21: columns z_j of the free vertices
    if (unknown[3 * j + 2] < 0) continue;
    Host3 xp = x0, xm = x0;
    xp[j][2] += step;
    xm[j][2] -= step;
    const auto fp = adhesion_force(m, xp, x0, carried, body), fm = adhesion_force(m, xm, x0, carried, body);
    for (int q : normal_rows)
      fd_worst = std::max(fd_worst, std::abs(kas(q, unknown[3 * j + 2]) + (fp[q] - fm[q]) / (2 * step)));
  }
  // Eq. 22 and K_{c,r}: the body's vertical translation moves its contact vertices by +-step.
  Host3 xp = x0, xm = x0;
  for (long i = 0; i < n; ++i)
    if (carried[i] >= 0) {
      xp[i][2] += step;
      xm[i][2] -= step;
    }
  const auto fp = adhesion_force(m, xp, x0, carried, body), fm = adhesion_force(m, xm, x0, carried, body);
  for (int q : normal_rows) fd_worst = std::max(fd_worst, std::abs(kar(q, 2) + (fp[q] - fm[q]) / (2 * step)));
  from_host(xp, m.x);
  mm::Vec3Array f("f", n);
  mm::capillary_force(m, kSigma, f);
  const Host3 fcp = to_host(f);
  from_host(xm, m.x);
  mm::capillary_force(m, kSigma, f);
  const Host3 fcm = to_host(f);
  from_host(x0, m.x);
  for (long j = 0; j < n; ++j)
    if (unknown[3 * j + 2] >= 0)
      fd_worst = std::max(fd_worst, std::abs(kcr(unknown[3 * j + 2], 2) + (fcp[j][2] - fcm[j][2]) / (2 * step)));
  std::printf("normal block against finite differences: max error %.2e (%.2e of the largest entry)\n", fd_worst,
              fd_worst / scale);
  EXPECT_LT(fd_worst, 1e-6 * scale);
  EXPECT_GT(std::abs(kar(2, 2)), 0.1 * kSigma);  // the rim stiffens the body's vertical motion

  // f_a in the body's right-hand side (Eq. 20: b_v = -dt f_a at rest), and adhesion off. The flat
  // sheet pulls on nothing; with the carried patch lifted by 0.03 (a plateau whose rim pulls it back)
  // f_a is a downward force (and torques: the patch is off-centre on the lattice).
  Host3 lifted = x0;
  for (long i = 0; i < n; ++i)
    if (carried[i] >= 0) lifted[i][2] += 0.03;
  from_host(lifted, m.x);
  mm::MembraneHost3 hl = scene.flow->host_state(true);
  from_host(x0, m.x);
  hl.body = h.body;
  mm::MembraneHost3 hl0 = hl;
  hl0.k_row.clear();
  hl0.k_col.clear();
  hl0.k_value.clear();
  std::fill(hl0.force.begin(), hl0.force.end(), 0.0);
  const Assembled lon = assemble(hl, body), lzero = assemble(hl0, body);
  const auto fa = adhesion_force(m, lifted, lifted, carried, body);
  double rhs_worst = 0, fa_scale = 0;
  for (int q = 0; q < 6; ++q) {
    rhs_worst = std::max(rhs_worst, std::abs((lon.bv(r0 + q) - lzero.bv(r0 + q)) + kDt * fa[q]));
    fa_scale = std::max(fa_scale, std::abs(fa[q]));
  }
  mm::MembraneHost3 hoff = hl;
  hoff.adhesion = false;
  const Assembled off = assemble(hoff, body);
  const Eigen::MatrixXd koff = (off.c - lzero.c) / (kDt * kDt);
  double off_worst = 0;
  for (int q = 0; q < 6; ++q) off_worst = std::max(off_worst, std::abs(off.bv(r0 + q) - lzero.bv(r0 + q)) / kDt);
  const double off_blocks = std::max({koff.block(r0, 0, 6, nv).cwiseAbs().maxCoeff(),
                                      koff.block(0, r0, nv, 6).cwiseAbs().maxCoeff(),
                                      koff.block(r0, r0, 6, 6).cwiseAbs().maxCoeff()});
  std::printf("f_a (%.4e, %.4e, %.4e | %.4e, %.4e, %.4e): b_v - (-dt f_a) %.2e; adhesion off: K_{a,*} %.2e, body "
              "capillary rhs %.2e\n",
              fa[0], fa[1], fa[2], fa[3], fa[4], fa[5], rhs_worst, off_blocks, off_worst);
  EXPECT_LT(fa[2], -0.1 * kSigma);  // the rim pulls the lifted patch down
  EXPECT_LT(rhs_worst, 1e-12 * kDt * std::max(fa_scale, kSigma));
  EXPECT_EQ(off_blocks, 0.0);
  EXPECT_EQ(off_worst, 0.0);
  // Without adhesion the free vertices next to the rim keep their stiffness toward it (anchored).
  EXPECT_GT(koff.block(0, 0, nv, nv).cwiseAbs().maxCoeff(), 0.1 * kSigma);
}
