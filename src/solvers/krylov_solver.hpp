#pragma once
// A PETSc KSP with an options prefix: the code sets defaults (method, preconditioner, tolerances,
// residual norm), then KSPSetFromOptions lets the user override any of them with -<prefix>ksp_* and
// -<prefix>pc_*, so command-line and deck `petsc.options` always win over the defaults.
#include <petscksp.h>

#include <string>

namespace meniscus::solvers {

struct KrylovDefaults {
  KSPType type = KSPCG;
  PCType pc = PCNONE;
  double rtol = 1e-3;
  double atol = 0.0;
  int max_iterations = 100;
  // Off by default: with a warm start PETSc measures the residual against ||b||, and an initial
  // residual above 1e4 ||b|| (PETSc's default divtol) is legitimate for a small right-hand side; it
  // used to stop such solves at iteration 0 with the guess. -<prefix>ksp_divtol still sets one.
  double divtol = 1e300;
  bool unpreconditioned_norm = true;  // stop on ||b - A x||, not on the preconditioned residual
};

struct KrylovResult {
  int iterations = 0;
  double residual_norm = 0;  // final ||b - A x|| as PETSc reports it
  double rhs_norm = 0;       // ||b||
  bool converged = false;
  int reason = 0;            // KSPConvergedReason
  std::string reason_name;   // PETSc's name of it, e.g. DIVERGED_NANORINF
  std::string prefix;        // the solver's options prefix
  // Stopped at its iteration cap (KSP_DIVERGED_ITS): the iterate is usable, only less accurate.
  bool capped() const { return reason == KSP_DIVERGED_ITS; }
  // Any other negative reason (breakdown, NaN/Inf, divergence tolerance, indefinite operator): the
  // iterate must not be used; the caller rejects its step.
  bool diverged() const { return reason < 0 && reason != KSP_DIVERGED_ITS; }
  // "KSP <prefix>: <reason name> after N iterations (relative residual r)", for log lines and errors.
  std::string describe() const;
};

class KrylovSolver {
 public:
  KrylovSolver(MPI_Comm comm, const std::string& options_prefix);
  ~KrylovSolver();
  KrylovSolver(const KrylovSolver&) = delete;
  KrylovSolver& operator=(const KrylovSolver&) = delete;

  // Solves A x = b. x holds the initial guess when nonzero_guess is true. Defaults are re-applied
  // before the user's options on every call (they may change from step to step, e.g. tolerances).
  // A may have another size on every call; the KSP keeps no reference to it afterwards.
  KrylovResult solve(Mat A, Vec b, Vec x, const KrylovDefaults& defaults, bool nonzero_guess);
  // True when the options database names a Krylov method for this prefix (-<prefix>ksp_type).
  bool user_chose_type() const { return user_type_; }
  KSP ksp() const { return ksp_; }

 private:
  KSP ksp_ = nullptr;
  std::string prefix_;
  bool user_type_ = false;
};

}  // namespace meniscus::solvers
