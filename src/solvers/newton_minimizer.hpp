#pragma once
// Newton's method for minimising a smooth energy Phi(x) over a distributed PETSc Vec, with a
// matrix-free Hessian (ShellOperator) solved by a PETSc KSP (CG + Jacobi unless the options database
// says otherwise, under the options prefix given) and a backtracking (Armijo) line search on Phi
// itself. Own loop rather than SNES: the line search must use the energy, the convergence test is a
// mass-weighted residual, and a failed solve must come back as a value (the caller retries with a
// smaller time step) instead of a SNES divergence reason.
#include <petscksp.h>

#include <functional>
#include <memory>
#include <string>

namespace meniscus::solvers {

struct NewtonOptions {
  double tolerance = 1e-6;      // on residual_norm, relative to the problem's reference scale
  int max_iterations = 30;
  int max_line_search = 20;     // halvings of the step
  double armijo = 1e-4;         // sufficient decrease constant c1
  double linear_tolerance = 1e-4;  // KSP rtol default (-<prefix>ksp_rtol overrides)
  int max_linear_iterations = 1000;
  std::string prefix = "mpm_newton_";
  // Inexact Newton forcing (Eisenstat & Walker 1996, choice 2): the linear solve of iteration k
  // stops at the relative residual eta_k = gamma (r_k / r_{k-1})^alpha, safeguarded by
  // gamma eta_{k-1}^alpha when that exceeds 0.1, bounded by forcing_max above and by the KSP's own
  // rtol (linear_tolerance or -<prefix>..ksp_rtol) below; within 1000x the Newton target the KSP's
  // own rtol applies again (-<prefix>forcing_tight). eta_0 = forcing_max. Only the linear solves
  // loosen; the Newton tolerance is unchanged. -<prefix>forcing (bool), -<prefix>forcing_max, _gamma,
  // _alpha. Off by default: with it on, Newton stagnated on the k = 0.4 candle of
  // CandleValidation.LongCandleSpreadVsK (residual 2.79 after 30 iterations, target 2.1e-7), and the
  // curved wicks' rank equivalence fell from 1.5e-8 K to 7.1e-6 K (each rank count's Newton path
  // ends elsewhere within the tolerance). Opt in with -<prefix>forcing true for speed.
  bool forcing = false;
  double forcing_max = 0.03, forcing_gamma = 0.9, forcing_alpha = 2.0;
  // Which Hessian an iteration tries first: "exact" (the projected one only after a failure),
  // "projected" (always the projected one), or "alternate" (an iteration right after one whose
  // exact attempt failed goes straight to the projected Hessian; the next one tries exact again).
  // -<prefix>hessian_first.
  std::string hessian_first = "alternate";
};

struct NewtonProblem {
  std::function<double(Vec x)> energy;          // collective; a huge value marks an inadmissible x
  std::function<void(Vec x, Vec g)> gradient;   // the (projected) gradient at x
  std::function<void(Vec x)> linearize;         // prepares hessian() at x (the exact Hessian)
  // Optional: prepares hessian() as a positive semi-definite approximation (per-point projection).
  // Newton uses the exact Hessian and falls back to this one for an iteration where CG meets
  // negative curvature, the direction does not descend, or the line search fails along it. The
  // projected Hessian alone overestimates the curvature where a point's exact one is indefinite,
  // and Newton then converges only linearly (3D impact at dx = 1/63: residual ratio 0.77 per
  // iteration, 30 iterations not enough; docs/theory-mpm-implicit.md).
  std::function<void(Vec x)> linearize_projected;
  std::function<void(Vec in, Vec out)> hessian;  // (projected) Hessian product at the linearised x
  std::function<void(Vec diag)> diagonal;       // its diagonal (Jacobi preconditioner)
  std::function<double(Vec g)> residual_norm;   // convergence measure of a gradient
  std::function<double(Vec dv)> step_norm;      // the same units for a change of x (may be empty)
  // Optional: an assembled matrix of the same (projected) Hessian, refilled by linearize() and
  // linearize_projected(); when set, the KSP uses it as operator and preconditioner matrix instead
  // of the matrix-free product, and configure_ksp sets the solver's defaults (e.g. a reduced
  // system solved by CG + algebraic multigrid) before the options database, which still overrides
  // them. linear_outcome, when set, reports the iterations and converged reason of the solve that
  // did the work (an inner KSP when the outer one only applies a preconditioner).
  std::function<Mat()> matrix;
  std::function<void(KSP ksp)> configure_ksp;
  std::function<void(KSP ksp, PetscInt& iterations, KSPConvergedReason& reason)> linear_outcome;
  // Optional: the KSP whose relative tolerance the forcing term sets (an inner KSP when the outer
  // one only applies a preconditioner); the outer KSP when empty.
  std::function<KSP(KSP ksp)> working_ksp;
  // Optional, -<prefix>monitor only: one line on where the residual of gradient g sits (printed before
  // each iteration's line).
  std::function<std::string(Vec g)> describe_residual;
  // Converged when residual_norm <= tolerance * reference, or when an accepted step has
  // step_norm <= tolerance * reference (the residual of nearly massless unknowns can stagnate at a
  // level that moves nothing).
  double reference = 1.0;
};

struct NewtonResult {
  bool converged = false;
  int iterations = 0;
  long linear_iterations = 0;
  int linearizations = 0;      // Hessians built (exact attempts that were redone projected count twice)
  int failed_exact = 0;        // exact attempts replaced by the projected Hessian
  double residual = 0;
  std::string reason;
};

class NewtonMinimizer {
 public:
  NewtonMinimizer(Vec layout, const NewtonOptions& options);
  ~NewtonMinimizer();
  NewtonMinimizer(const NewtonMinimizer&) = delete;
  NewtonMinimizer& operator=(const NewtonMinimizer&) = delete;

  // Minimises from x (in place). Collective.
  NewtonResult minimize(const NewtonProblem& problem, Vec x);
  const NewtonOptions& options() const { return options_; }

 private:
  NewtonOptions options_;
  Vec g_ = nullptr, dir_ = nullptr, trial_ = nullptr;
};

}  // namespace meniscus::solvers
