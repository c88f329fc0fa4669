#include "solvers/krylov_solver.hpp"

#include "core/log.hpp"
#include "solvers/petsc_check.hpp"

namespace meniscus::solvers {

std::string KrylovResult::describe() const {
  const double rel = rhs_norm > 0 ? residual_norm / rhs_norm : residual_norm;
  return log::format("KSP %s: %s after %d iterations (relative residual %.3e)", prefix.c_str(), reason_name.c_str(),
                     iterations, rel);
}

KrylovSolver::KrylovSolver(MPI_Comm comm, const std::string& options_prefix) : prefix_(options_prefix) {
  petsc_check(KSPCreate(comm, &ksp_), "KSPCreate");
  petsc_check(KSPSetOptionsPrefix(ksp_, options_prefix.c_str()), "KSPSetOptionsPrefix");
  PetscBool has = PETSC_FALSE;
  const std::string key = "-" + options_prefix + "ksp_type";
  petsc_check(PetscOptionsHasName(nullptr, nullptr, key.c_str(), &has), "PetscOptionsHasName");
  user_type_ = has == PETSC_TRUE;
}

KrylovSolver::~KrylovSolver() {
  if (ksp_) petsc_check_noexcept(KSPDestroy(&ksp_), "KSPDestroy");
}

KrylovResult KrylovSolver::solve(Mat A, Vec b, Vec x, const KrylovDefaults& defaults, bool nonzero_guess) {
  petsc_check(KSPSetOperators(ksp_, A, A), "KSPSetOperators");
  petsc_check(KSPSetType(ksp_, defaults.type), "KSPSetType");
  PC pc = nullptr;
  petsc_check(KSPGetPC(ksp_, &pc), "KSPGetPC");
  petsc_check(PCSetType(pc, defaults.pc), "PCSetType");
  petsc_check(KSPSetTolerances(ksp_, defaults.rtol, defaults.atol, defaults.divtol, defaults.max_iterations),
              "KSPSetTolerances");
  if (defaults.unpreconditioned_norm) petsc_check(KSPSetNormType(ksp_, KSP_NORM_UNPRECONDITIONED), "KSPSetNormType");
  petsc_check(KSPSetInitialGuessNonzero(ksp_, nonzero_guess ? PETSC_TRUE : PETSC_FALSE), "KSPSetInitialGuessNonzero");
  petsc_check(KSPSetFromOptions(ksp_), "KSPSetFromOptions");
  petsc_check(KSPSolve(ksp_, b, x), "KSPSolve");

  KrylovResult r;
  PetscInt its = 0;
  PetscReal rnorm = 0, bnorm = 0;
  KSPConvergedReason reason;
  petsc_check(KSPGetIterationNumber(ksp_, &its), "KSPGetIterationNumber");
  petsc_check(KSPGetResidualNorm(ksp_, &rnorm), "KSPGetResidualNorm");
  petsc_check(KSPGetConvergedReason(ksp_, &reason), "KSPGetConvergedReason");
  petsc_check(VecNorm(b, NORM_2, &bnorm), "VecNorm");
  r.iterations = int(its);
  r.residual_norm = double(rnorm);
  r.rhs_norm = double(bnorm);
  r.reason = int(reason);
  r.reason_name = KSPConvergedReasons[reason];
  r.prefix = prefix_;
  r.converged = reason > 0;
  // Drop the operator and work vectors: the next call may bring another size (particle counts change
  // every step, and PETSc refuses a new local size on a set-up KSP). Type and options are kept.
  petsc_check(KSPReset(ksp_), "KSPReset");
  return r;
}

}  // namespace meniscus::solvers
