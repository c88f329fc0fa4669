#include "solvers/newton_minimizer.hpp"

#include <cmath>

#include "core/log.hpp"
#include "solvers/shell_operator.hpp"

namespace meniscus::solvers {

NewtonMinimizer::NewtonMinimizer(Vec layout, const NewtonOptions& options) : options_(options) {
  VecDuplicate(layout, &g_);
  VecDuplicate(layout, &dir_);
  VecDuplicate(layout, &trial_);
}

NewtonMinimizer::~NewtonMinimizer() {
  if (g_) VecDestroy(&g_);
  if (dir_) VecDestroy(&dir_);
  if (trial_) VecDestroy(&trial_);
}

NewtonResult NewtonMinimizer::minimize(const NewtonProblem& problem, Vec x) {
  NewtonResult result;
  ShellOperator H(x, problem.hessian, problem.diagonal);
  H.set_symmetric();  // a Hessian: CG may rely on it
  // One KSP per solve, so that nothing of the previous step's operator (a destroyed shell) survives.
  MPI_Comm comm;
  PetscObjectGetComm(reinterpret_cast<PetscObject>(x), &comm);
  KSP ksp = nullptr;
  KSPCreate(comm, &ksp);
  KSPSetOptionsPrefix(ksp, options_.prefix.c_str());
  // Defaults first, so that -<prefix>ksp_type / -<prefix>pc_type / -<prefix>ksp_rtol override them.
  KSPSetType(ksp, KSPCG);
  PC pc;
  KSPGetPC(ksp, &pc);
  PCSetType(pc, PCJACOBI);
  if (problem.configure_pc) problem.configure_pc(pc);
  // CG's (preconditioned) residual may grow transiently by many orders of magnitude on this badly
  // scaled system (node masses from 1e-11 to 1 of the largest): no divergence tolerance.
  KSPSetTolerances(ksp, options_.linear_tolerance, 1e-300, 1e300, options_.max_linear_iterations);
  KSPSetFromOptions(ksp);
  struct Guard {
    KSP& k;
    ~Guard() { KSPDestroy(&k); }
  } guard{ksp};
  // -<prefix>monitor (-mpm_newton_monitor) prints each Newton iteration (residual, Phi, KSP outcome, line-search step).
  PetscBool monitor = PETSC_FALSE;
  PetscOptionsHasName(nullptr, options_.prefix.c_str(), "-monitor", &monitor);
  double phi = problem.energy(x);
  if (!(phi < 1e299)) {
    result.reason = "the initial guess is inadmissible";
    return result;
  }
  const double target = options_.tolerance * problem.reference;
  for (int it = 0;; ++it) {
    problem.gradient(x, g_);
    result.residual = problem.residual_norm(g_);
    result.iterations = it;
    if (!std::isfinite(result.residual)) {
      result.reason = "non-finite residual";
      return result;
    }
    if (result.residual <= target) {
      result.converged = true;
      return result;
    }
    if (it >= options_.max_iterations) {
      result.reason = log::format("no convergence in %d Newton iterations (residual %.3e, target %.3e)", it,
                                  result.residual, target);
      return result;
    }
    // Newton direction: H dir = -g (inexact, by the KSP), with the exact Hessian or its projection.
    PetscInt its = 0;
    KSPConvergedReason kr = KSP_CONVERGED_ITERATING;
    PetscScalar slope = 0;
    auto newton_direction = [&](bool projected) {
      (projected ? problem.linearize_projected : problem.linearize)(x);
      // A shell matrix's state does not change by itself: bump it so that the preconditioner (the
      // Jacobi diagonal) is rebuilt for the new linearisation.
      Mat A = problem.matrix ? problem.matrix() : H.mat();
      if (!problem.matrix) {
        MatAssemblyBegin(H.mat(), MAT_FINAL_ASSEMBLY);
        MatAssemblyEnd(H.mat(), MAT_FINAL_ASSEMBLY);
      }
      KSPSetOperators(ksp, A, A);
      VecScale(g_, -1.0);
      KSPSolve(ksp, g_, dir_);
      VecScale(g_, -1.0);
      KSPGetIterationNumber(ksp, &its);
      KSPGetConvergedReason(ksp, &kr);
      result.linear_iterations += its;
      VecDot(g_, dir_, &slope);
    };
    // The iterate of a KSP that stopped at its iteration limit is still used when it descends. With
    // the exact Hessian, a KSP that met negative curvature (or broke down) or a direction that does
    // not descend is replaced by the projected Hessian's direction.
    const bool can_project = static_cast<bool>(problem.linearize_projected);
    bool projected = false;
    newton_direction(false);
    if (can_project && ((kr < 0 && kr != KSP_DIVERGED_ITS) || !std::isfinite(slope) || slope >= 0)) {
      projected = true;
      newton_direction(true);
    }
    // A non-finite iterate or a direction that still does not descend falls back to steepest
    // descent; the line search keeps the method globally convergent.
    if (!std::isfinite(slope) || slope >= 0) {
      VecCopy(g_, dir_);
      VecScale(dir_, -1.0);
      VecDot(g_, dir_, &slope);
    }
    // Backtracking on Phi. Near convergence the decrease drops below the round-off of Phi, so a step
    // whose energy change is within that round-off is accepted as well. If the exact Newton direction
    // finds no decrease, the projected one is tried, then steepest descent, before the solve is
    // declared failed.
    double alpha_used = 1.0;
    auto search = [&](double s) {
      double alpha = 1.0;
      for (int ls = 0; ls <= options_.max_line_search; ++ls) {
        VecWAXPY(trial_, alpha, dir_, x);
        const double trial = problem.energy(trial_);
        if (trial <= phi + options_.armijo * alpha * s + 1e-13 * std::fabs(phi)) {
          phi = trial;
          alpha_used = alpha;
          return true;
        }
        alpha *= 0.5;
      }
      return false;
    };
    bool accepted = search(slope);
    if (!accepted && can_project && !projected) {
      projected = true;
      newton_direction(true);
      accepted = std::isfinite(slope) && slope < 0 && search(slope);
    }
    if (!accepted) {
      VecCopy(g_, dir_);
      VecScale(dir_, -1.0);
      // Scale the gradient step by the diagonal of the Hessian (a Jacobi step) so that alpha = 1 is
      // meaningful.
      Vec diag;
      VecDuplicate(x, &diag);
      problem.diagonal(diag);
      VecPointwiseDivide(dir_, dir_, diag);
      VecDestroy(&diag);
      VecDot(g_, dir_, &slope);
      accepted = search(slope);
    }
    if (!accepted) {
      result.reason = log::format("line search failed at Newton iteration %d (residual %.3e)", it, result.residual);
      return result;
    }
    if (problem.step_norm) {
      VecAXPY(x, -1.0, trial_);  // x <- x - trial = -(accepted step)
      const double moved = problem.step_norm(x);
      VecCopy(trial_, x);
      if (monitor) {
        log::info("%s %d: residual %.3e (target %.3e), Phi %.10e, %s Hessian, KSP reason %d after %d its, "
                  "step %.3g, moved %.3e", options_.prefix.c_str(), it, result.residual, target, phi,
                  projected ? "projected" : "exact", (int)kr, (int)its, alpha_used, moved);
      }
      if (moved <= target) {
        problem.gradient(x, g_);
        result.residual = problem.residual_norm(g_);
        result.iterations = it + 1;
        result.converged = std::isfinite(result.residual);
        if (!result.converged) result.reason = "non-finite residual";
        return result;
      }
    } else {
      VecCopy(trial_, x);
    }
  }
}

}  // namespace meniscus::solvers
