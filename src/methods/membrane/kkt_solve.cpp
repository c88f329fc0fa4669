#include "methods/membrane/kkt_solve.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.hpp"
#include "core/log.hpp"
#include "methods/membrane/coupled_solve.hpp"
#include "solvers/petsc_check.hpp"
#include "solvers/reproducible_products.hpp"

#define KKT_PETSC(call) ::meniscus::solvers::petsc_check((call), #call)

namespace meniscus::membrane {

namespace {

// Sets an option default under the solver's prefix unless the user gave one.
void default_option(const std::string& prefix, const std::string& name, const std::string& value) {
  const std::string key = "-" + prefix + name;
  PetscBool set = PETSC_FALSE;
  KKT_PETSC(PetscOptionsHasName(nullptr, nullptr, key.c_str(), &set));
  if (!set) KKT_PETSC(PetscOptionsSetValue(nullptr, key.c_str(), value.c_str()));
}

[[noreturn]] void not_converged(const std::string& what, int reason, int its, const std::string& advice) {
  throw RuntimeError("membrane coupled solve (" + what + ") did not converge (reason " + std::to_string(reason) +
                     " after " + std::to_string(its) + " iterations); " + advice);
}

KktSolveStats solve_minres(KktBlocks& k, const CoupledSolveOptions& o, MPI_Comm comm) {
  KSP ksp;
  PC pc;
  KKT_PETSC(KSPCreate(comm, &ksp));
  KKT_PETSC(KSPSetOptionsPrefix(ksp, o.prefix.c_str()));
  KKT_PETSC(KSPSetTolerances(ksp, o.rtol, 1e-50, PETSC_DEFAULT, o.max_iterations));
  KKT_PETSC(KSPSetOperators(ksp, k.K, k.P));
  KKT_PETSC(KSPSetType(ksp, KSPMINRES));
  KKT_PETSC(KSPGetPC(ksp, &pc));
  KKT_PETSC(PCSetType(pc, PCFIELDSPLIT));
  KKT_PETSC(PCFieldSplitSetIS(pc, "p", k.is[0]));
  KKT_PETSC(PCFieldSplitSetIS(pc, "v", k.is[1]));
  KKT_PETSC(PCFieldSplitSetType(pc, PC_COMPOSITE_ADDITIVE));
  default_option(o.prefix, "fieldsplit_p_ksp_type", "preonly");
  default_option(o.prefix, "fieldsplit_p_pc_type", "gamg");
  default_option(o.prefix, "fieldsplit_v_ksp_type", "preonly");
  default_option(o.prefix, "fieldsplit_v_pc_type", "jacobi");
  KKT_PETSC(KSPSetFromOptions(ksp));
  {
    // GAMG's coarse products in a fixed order on 3+ ranks (two 4-rank drop runs differed without).
    const solvers::ReproducibleGalerkinProducts products(comm);
    KKT_PETSC(KSPSolve(ksp, k.b, k.z));
  }
  KSPConvergedReason reason;
  PetscInt its = 0;
  KKT_PETSC(KSPGetConvergedReason(ksp, &reason));
  KKT_PETSC(KSPGetIterationNumber(ksp, &its));
  KKT_PETSC(KSPDestroy(&ksp));
  if (reason <= 0)
    not_converged("minres_blockdiag", reason, its, "raise -" + o.prefix + "ksp_max_it or try -" + o.prefix + "ksp_type gmres");
  return {static_cast<int>(its), static_cast<int>(reason), 0, "minres_blockdiag"};
}

KktSolveStats solve_direct(KktBlocks& k, const CoupledSolveOptions& o, MPI_Comm comm) {
  Mat kaij;
  KSP ksp;
  PC pc;
  KKT_PETSC(MatConvert(k.K, MATAIJ, MAT_INITIAL_MATRIX, &kaij));
  KKT_PETSC(KSPCreate(comm, &ksp));
  KKT_PETSC(KSPSetOptionsPrefix(ksp, o.prefix.c_str()));
  KKT_PETSC(KSPSetOperators(ksp, kaij, kaij));
  KKT_PETSC(KSPSetType(ksp, KSPPREONLY));
  KKT_PETSC(KSPGetPC(ksp, &pc));
  KKT_PETSC(PCSetType(pc, PCLU));
  KKT_PETSC(PCFactorSetMatSolverType(pc, MATSOLVERMUMPS));
  KKT_PETSC(KSPSetFromOptions(ksp));
  KKT_PETSC(KSPSolve(ksp, k.b, k.z));
  KSPConvergedReason reason;
  KKT_PETSC(KSPGetConvergedReason(ksp, &reason));
  KKT_PETSC(KSPDestroy(&ksp));
  KKT_PETSC(MatDestroy(&kaij));
  if (reason <= 0) not_converged("direct", reason, 1, "the factorization failed; try -" + o.prefix + "solver_mode minres_blockdiag");
  return {1, static_cast<int>(reason), 0, "direct"};
}

// Schur-CG: S p = b_p + B^T C^-1 b_v with S = A + B^T C^-1 B = A11 - A10 A00^-1 A01 for A00 = C,
// A01 = -B, A10 = B^T, A11 = A (PETSc's MATSCHURCOMPLEMENT); then v = C^-1 (B p - b_v).
KktSolveStats solve_schur_cg(KktBlocks& k, const CoupledSolveOptions& o, MPI_Comm comm) {
  Mat negB, S;
  KKT_PETSC(MatDuplicate(k.B, MAT_COPY_VALUES, &negB));
  KKT_PETSC(MatScale(negB, -1.0));
  KKT_PETSC(MatCreateSchurComplement(k.C, k.C, negB, k.Bt, k.A, &S));
  KSP inner;
  KKT_PETSC(MatSchurComplementGetKSP(S, &inner));
  const std::string inner_prefix = o.prefix + "schur_inner_";
  KKT_PETSC(KSPSetOptionsPrefix(inner, inner_prefix.c_str()));
  // The outer CG sees S only through these solves: they must be far tighter than its tolerance.
  const double inner_rtol = std::max(1e-14, 1e-3 * o.rtol);
  KKT_PETSC(KSPSetType(inner, KSPCG));
  PC ipc;
  KKT_PETSC(KSPGetPC(inner, &ipc));
  KKT_PETSC(PCSetType(ipc, PCJACOBI));
  KKT_PETSC(KSPSetTolerances(inner, inner_rtol, 1e-50, PETSC_DEFAULT, 10000));
  KKT_PETSC(KSPSetFromOptions(inner));
  KKT_PETSC(KSPSetErrorIfNotConverged(inner, PETSC_TRUE));  // every inner solve is checked by PETSc

  Vec bp, bv, zp, zv, w;
  KKT_PETSC(VecGetSubVector(k.b, k.is[0], &bp));
  KKT_PETSC(VecGetSubVector(k.b, k.is[1], &bv));
  KKT_PETSC(VecGetSubVector(k.z, k.is[0], &zp));
  KKT_PETSC(VecGetSubVector(k.z, k.is[1], &zv));
  KKT_PETSC(VecDuplicate(bv, &w));
  int inner_its = 0;
  auto count_inner = [&] {
    PetscInt its = 0;
    KSPConvergedReason r;
    KKT_PETSC(KSPGetIterationNumber(inner, &its));
    KKT_PETSC(KSPGetConvergedReason(inner, &r));
    if (r <= 0) not_converged("schur_cg inner C solve", r, its, "loosen -" + inner_prefix + "ksp_rtol");
    inner_its += static_cast<int>(its);
  };
  // Right-hand side b_p + B^T C^-1 b_v.
  Vec rhs;
  KKT_PETSC(VecDuplicate(bp, &rhs));
  KKT_PETSC(KSPSolve(inner, bv, w));
  count_inner();
  KKT_PETSC(MatMult(k.Bt, w, rhs));
  KKT_PETSC(VecAXPY(rhs, 1.0, bp));

  KSP ksp;
  PC pc;
  KKT_PETSC(KSPCreate(comm, &ksp));
  KKT_PETSC(KSPSetOptionsPrefix(ksp, o.prefix.c_str()));
  KKT_PETSC(KSPSetOperators(ksp, S, k.S));
  KKT_PETSC(KSPSetType(ksp, KSPCG));
  KKT_PETSC(KSPGetPC(ksp, &pc));
  KKT_PETSC(PCSetType(pc, PCGAMG));
  KKT_PETSC(KSPSetTolerances(ksp, o.rtol, 1e-50, PETSC_DEFAULT, o.max_iterations));
  KKT_PETSC(KSPSetFromOptions(ksp));
  KKT_PETSC(VecSet(zp, 0.0));
  {
    const solvers::ReproducibleGalerkinProducts products(comm);  // as in solve_minres
    KKT_PETSC(KSPSolve(ksp, rhs, zp));
  }
  KSPConvergedReason reason;
  PetscInt its = 0;
  KKT_PETSC(KSPGetConvergedReason(ksp, &reason));
  KKT_PETSC(KSPGetIterationNumber(ksp, &its));
  KKT_PETSC(KSPDestroy(&ksp));
  if (reason > 0) {
    // v = C^-1 (B p - b_v)
    KKT_PETSC(MatMult(k.B, zp, w));
    KKT_PETSC(VecAXPY(w, -1.0, bv));
    KKT_PETSC(KSPSolve(inner, w, zv));
    count_inner();
  }
  KKT_PETSC(VecDestroy(&rhs));
  KKT_PETSC(VecDestroy(&w));
  KKT_PETSC(VecRestoreSubVector(k.z, k.is[1], &zv));
  KKT_PETSC(VecRestoreSubVector(k.z, k.is[0], &zp));
  KKT_PETSC(VecRestoreSubVector(k.b, k.is[1], &bv));
  KKT_PETSC(VecRestoreSubVector(k.b, k.is[0], &bp));
  KKT_PETSC(MatDestroy(&S));
  KKT_PETSC(MatDestroy(&negB));
  if (reason <= 0) not_converged("schur_cg", reason, its, "raise -" + o.prefix + "ksp_max_it or use solver minres_blockdiag");
  return {static_cast<int>(its), static_cast<int>(reason), inner_its, "schur_cg"};
}

// The paper's DPCG: conjugate gradients on the indefinite K with the diagonal scaling D = |diag K|
// (a PETSc KSPCG stops at the first negative curvature, p^T K p < 0, which K has by construction;
// the paper's solver does not test for it). Converged when ||b - K z|| <= rtol ||b||. Returns
// reason > 0 on convergence, -3 (iterations exhausted) or -5 (breakdown, p^T K p = 0 or not
// finite); the caller decides what to do with a failure.
KktSolveStats run_dpcg(KktBlocks& k, double rtol, int max_it) {
  Vec r, s, p, q, dinv;
  KKT_PETSC(VecDuplicate(k.b, &r));
  KKT_PETSC(VecDuplicate(k.b, &s));
  KKT_PETSC(VecDuplicate(k.b, &p));
  KKT_PETSC(VecDuplicate(k.b, &q));
  KKT_PETSC(VecDuplicate(k.b, &dinv));
  KKT_PETSC(MatGetDiagonal(k.K, dinv));
  KKT_PETSC(VecAbs(dinv));
  KKT_PETSC(VecReciprocal(dinv));  // PETSc leaves zero entries at zero
  KKT_PETSC(MatMult(k.K, k.z, r));
  KKT_PETSC(VecAYPX(r, -1.0, k.b));  // r = b - K z
  PetscReal bnorm = 0, rnorm = 0;
  KKT_PETSC(VecNorm(k.b, NORM_2, &bnorm));
  KKT_PETSC(VecPointwiseMult(s, dinv, r));
  KKT_PETSC(VecCopy(s, p));
  PetscScalar rho = 0;
  KKT_PETSC(VecDot(r, s, &rho));
  KktSolveStats st;
  st.mode = "paper_dpcg";
  st.reason = -3;
  for (int it = 0; it <= max_it; ++it) {
    KKT_PETSC(VecNorm(r, NORM_2, &rnorm));
    if (bnorm == 0 || rnorm <= rtol * bnorm) {
      st.iterations = it;
      st.reason = bnorm == 0 ? 1 : 2;
      break;
    }
    if (it == max_it) {
      st.iterations = it;
      break;
    }
    PetscScalar pq = 0;
    KKT_PETSC(MatMult(k.K, p, q));
    KKT_PETSC(VecDot(p, q, &pq));
    if (pq == 0 || !std::isfinite(PetscRealPart(pq)) || !std::isfinite(PetscRealPart(rho))) {
      st.iterations = it;
      st.reason = -5;
      break;
    }
    const PetscScalar alpha = rho / pq;
    KKT_PETSC(VecAXPY(k.z, alpha, p));
    KKT_PETSC(VecAXPY(r, -alpha, q));
    KKT_PETSC(VecPointwiseMult(s, dinv, r));
    PetscScalar rho_new = 0;
    KKT_PETSC(VecDot(r, s, &rho_new));
    KKT_PETSC(VecAYPX(p, rho_new / rho, s));  // p = s + beta p
    rho = rho_new;
  }
  for (Vec* v : {&r, &s, &p, &q, &dinv}) KKT_PETSC(VecDestroy(v));
  return st;
}

KktSolveStats solve_paper_dpcg(KktBlocks& k, const CoupledSolveOptions& o, MPI_Comm comm) {
  PetscReal rtol = o.rtol;
  PetscInt max_it = o.max_iterations;
  KKT_PETSC(PetscOptionsGetReal(nullptr, o.prefix.c_str(), "-dpcg_rtol", &rtol, nullptr));
  KKT_PETSC(PetscOptionsGetInt(nullptr, o.prefix.c_str(), "-dpcg_max_it", &max_it, nullptr));
  Vec z0;
  KKT_PETSC(VecDuplicate(k.z, &z0));
  KKT_PETSC(VecCopy(k.z, z0));
  KktSolveStats st = run_dpcg(k, rtol, static_cast<int>(max_it));
  if (st.reason > 0) {
    KKT_PETSC(VecDestroy(&z0));
    return st;
  }
  // Ruan 2021 §7: CG on the indefinite K "works well in practice" but is not guaranteed.
  log::warn("membrane paper_dpcg: %s after %d iterations; solving this system with minres_blockdiag",
            st.reason == -5 ? "breakdown (p^T K p = 0)" : "no convergence", st.iterations);
  KKT_PETSC(VecCopy(z0, k.z));
  KKT_PETSC(VecDestroy(&z0));
  return solve_minres(k, o, comm);
}

}  // namespace

std::string kkt_solver_mode(const CoupledSolveOptions& options) {
  char buf[64] = {0};
  PetscBool set = PETSC_FALSE;
  KKT_PETSC(PetscOptionsGetString(nullptr, options.prefix.c_str(), "-solver_mode", buf, sizeof buf, &set));
  const std::string mode = set ? std::string(buf) : options.mode;
  for (const char* m : {"minres_blockdiag", "schur_cg", "paper_dpcg", "direct"})
    if (mode == m) return mode;
  throw InputError(set ? "PETSc options" : "deck", set ? "-" + options.prefix + "solver_mode" : "membrane.solver",
                   "unknown solver mode '" + mode + "' (minres_blockdiag, schur_cg, paper_dpcg or direct)");
}

KktSolveStats solve_kkt(KktBlocks& k, const CoupledSolveOptions& options, MPI_Comm comm) {
  const std::string mode = kkt_solver_mode(options);
  if (mode == "direct") return solve_direct(k, options, comm);
  if (mode == "schur_cg") return solve_schur_cg(k, options, comm);
  if (mode == "paper_dpcg") return solve_paper_dpcg(k, options, comm);
  return solve_minres(k, options, comm);
}

}  // namespace meniscus::membrane
