// The liquid-membrane saddle-point system of Ruan et al. 2021 (Eq. 28 without bodies), assembled
// for a small drop: K is symmetric, A is positive semidefinite, C positive definite, and the
// iterative solver modes agree with the MUMPS direct solve.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <cstdio>

#include "membrane_scenes.hpp"
#include "petsc_matrices.hpp"
#include "methods/membrane/kkt_solve.hpp"
#include "core/error.hpp"
#include "methods/membrane/coupled_solve.hpp"

namespace mm = meniscus::membrane;

namespace {
using meniscus::test::dense;

mm::FlowParameters drop_parameters() {
  mm::FlowParameters p;
  p.sigma = 0.9;
  p.gravity[1] = -9.8;
  return p;
}
}  // namespace

TEST(MembraneKkt, SystemIsSymmetricWithSemidefiniteAAndDefiniteC) {
  auto s = meniscus::test::make_drop(16, 0.3, 0.05, drop_parameters());
  s.flow->solver().keep_blocks(true);
  s.flow->step(2e-3);
  const auto& k = s.flow->solver().blocks();
  const double asym = meniscus::test::relative_asymmetry(k.K);
  EXPECT_GE(asym, 0.0);
  EXPECT_LT(asym, 1e-13);

  const Eigen::MatrixXd a = dense(k.A), c = dense(k.C);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> ea(a);
  EXPECT_GE(ea.eigenvalues().minCoeff(), -1e-12 * a.norm());
  Eigen::LLT<Eigen::MatrixXd> llt(c);
  EXPECT_EQ(llt.info(), Eigen::Success);
  // The pressure preconditioner block S^ = A + B^T diag(C)^-1 B is SPD: the drop's one fluid region
  // meets the membrane, so the constant pressure mode is not in its null space.
  Eigen::LLT<Eigen::MatrixXd> lls(dense(k.S));
  EXPECT_EQ(lls.info(), Eigen::Success);
}

TEST(MembraneKkt, MinresAgreesWithMumps) {
  mm::CoupledSolveOptions direct;
  direct.mode = "direct";
  auto a = meniscus::test::make_drop(16, 0.3, 0.05, drop_parameters());
  auto b = meniscus::test::make_drop(16, 0.3, 0.05, drop_parameters(), direct);
  for (int n = 0; n < 3; ++n) {
    a.flow->step(2e-3);
    b.flow->step(2e-3);
  }
  auto va = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a.flow->membrane().v);
  auto vb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b.flow->membrane().v);
  double diff = 0, scale = 0;
  for (long i = 0; i < a.flow->membrane().vertices(); ++i)
    for (int d = 0; d < 2; ++d) {
      diff = std::max(diff, std::abs(va(i, d) - vb(i, d)));
      scale = std::max(scale, std::abs(vb(i, d)));
    }
  EXPECT_GT(scale, 1e-3);
  EXPECT_LT(diff / scale, 1e-7);
  const double pa = meniscus::test::mean_interior_pressure(*a.grid, 2e-3, 0.0);
  const double pb = meniscus::test::mean_interior_pressure(*b.grid, 2e-3, 0.0);
  EXPECT_NEAR(pa, pb, 1e-7 * std::abs(pb));
}

// The first solve (Ruan 2021 Eq. 19 without tension) is a projection: without bodies, the velocities
// it receives already satisfy the discrete divergence constraint on the same geometry (the second
// solve of the previous step produced them), so advecting with its result must match advecting
// with the previous step's velocities (the one-solve mode) to the solver tolerance.
TEST(MembraneKkt, FirstSolveIsAProjectionWithoutBodies) {
  auto p = drop_parameters();
  auto a = meniscus::test::make_drop(16, 0.3, 0.1, p);
  p.two_solve = false;
  auto b = meniscus::test::make_drop(16, 0.3, 0.1, p);
  for (int n = 0; n < 5; ++n) {
    a.flow->step(2e-3);
    b.flow->step(2e-3);
  }
  auto xa = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a.flow->membrane().x);
  auto xb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b.flow->membrane().x);
  auto x0 = meniscus::test::make_drop(16, 0.3, 0.1, p);
  auto xi = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x0.flow->membrane().x);
  double diff = 0, moved = 0;
  for (long i = 0; i < a.flow->membrane().vertices(); ++i)
    for (int d = 0; d < 2; ++d) {
      diff = std::max(diff, std::abs(xa(i, d) - xb(i, d)));
      moved = std::max(moved, std::abs(xa(i, d) - xi(i, d)));
    }
  EXPECT_GT(moved, 1e-4);  // the drop moved
  EXPECT_LT(diff, 1e-8 * moved);
}

// The four solver modes (kkt_solve.hpp: MINRES with the block-diagonal preconditioner, CG on the
// Schur complement, the paper's diagonally preconditioned CG on K, MUMPS LU) solve the same
// three-way system (Ruan 2021 Eq. 28: a disc R = 0.1, rho_s = 3 cutting a pool's surface, 20 x 12
// cells, its membrane, contact vertices and body unknowns) to the same solution at rtol 1e-10:
// relative 2-norm difference to MUMPS below 1e-8 and each iterative mode's true residual
// ||b - K z|| / ||b|| below 1e-9 (the modes stop on different norms: MINRES and the outer CG of
// schur_cg on preconditioned ones). Measured: MINRES 49 iterations, 3.5e-10 from MUMPS, residual
// 8.1e-11; Schur-CG 17 (24 inner), 1.2e-10, 2.6e-10; DPCG 91, 1.8e-10, 9.4e-11. The paper's DPCG
// must converge by itself here (no fallback to MINRES), and -membrane_solver_mode overrides the
// deck's mode.
TEST(MembraneKkt, AllSolverModesAgreeOnTheThreeWaySystem) {
  mm::Disc d;
  d.radius = 0.1;
  d.density = 3.0;
  d.c[0] = 0.5;
  d.c[1] = 0.42;
  auto s = meniscus::test::make_pool_with_bodies(1.0, 0.6, 0.05, 0.4, {d}, drop_parameters());
  s.flow->solver().keep_blocks(true);
  s.flow->step(2e-3);
  mm::KktBlocks k = s.flow->solver().blocks();  // shares the handles; the solver destroys them
  ASSERT_GT(k.rigid_unknowns, 0);
  Vec ref, diff, res;
  VecDuplicate(k.z, &ref);
  VecDuplicate(k.z, &diff);
  VecDuplicate(k.z, &res);
  mm::CoupledSolveOptions o;
  o.rtol = 1e-10;
  o.mode = "direct";
  VecSet(k.z, 0.0);
  EXPECT_EQ(mm::solve_kkt(k, o, MPI_COMM_WORLD).mode, "direct");
  VecCopy(k.z, ref);
  PetscReal ref_norm = 0, b_norm = 0;
  VecNorm(ref, NORM_2, &ref_norm);
  VecNorm(k.b, NORM_2, &b_norm);
  ASSERT_GT(ref_norm, 0.0);
  for (const char* mode : {"minres_blockdiag", "schur_cg", "paper_dpcg"}) {
    o.mode = mode;
    VecSet(k.z, 0.0);
    const auto st = mm::solve_kkt(k, o, MPI_COMM_WORLD);
    EXPECT_EQ(st.mode, mode);  // no fallback
    PetscReal dn = 0, rn = 0;
    VecWAXPY(diff, -1.0, ref, k.z);
    VecNorm(diff, NORM_2, &dn);
    MatMult(k.K, k.z, res);
    VecAYPX(res, -1.0, k.b);
    VecNorm(res, NORM_2, &rn);
    std::printf("solver mode %-16s: %4d iterations (inner %d), |z - z_mumps| / |z_mumps| = %.2e, |b - K z| / |b| = %.2e\n",
                mode, st.iterations, st.inner_iterations, dn / ref_norm, rn / b_norm);
    EXPECT_LT(dn / ref_norm, 1e-8) << mode;
    EXPECT_LT(rn / b_norm, 1e-9) << mode;
  }
  // The options database selects the mode over the deck's (and refuses an unknown one).
  o.mode = "minres_blockdiag";
  PetscOptionsSetValue(nullptr, "-membrane_solver_mode", "schur_cg");
  EXPECT_EQ(mm::kkt_solver_mode(o), "schur_cg");
  VecSet(k.z, 0.0);
  EXPECT_EQ(mm::solve_kkt(k, o, MPI_COMM_WORLD).mode, "schur_cg");
  PetscOptionsSetValue(nullptr, "-membrane_solver_mode", "cg");
  EXPECT_THROW(mm::kkt_solver_mode(o), meniscus::InputError);
  PetscOptionsClearValue(nullptr, "-membrane_solver_mode");
  EXPECT_EQ(mm::kkt_solver_mode(o), "minres_blockdiag");
  for (Vec* v : {&ref, &diff, &res}) VecDestroy(v);
}
