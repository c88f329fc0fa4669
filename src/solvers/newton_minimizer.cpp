#include "solvers/newton_minimizer.hpp"

#include <cmath>

#include "core/error.hpp"
#include "core/log.hpp"
#include "solvers/petsc_check.hpp"
#include "solvers/shell_operator.hpp"
#include "solvers/view_files.hpp"

namespace meniscus::solvers {

NewtonMinimizer::NewtonMinimizer(Vec layout, const NewtonOptions& options) : options_(options) {
  petsc_check(VecDuplicate(layout, &g_), "VecDuplicate");
  petsc_check(VecDuplicate(layout, &dir_), "VecDuplicate");
  petsc_check(VecDuplicate(layout, &trial_), "VecDuplicate");
}

NewtonMinimizer::~NewtonMinimizer() {
  if (g_) petsc_check_noexcept(VecDestroy(&g_), "VecDestroy");
  if (dir_) petsc_check_noexcept(VecDestroy(&dir_), "VecDestroy");
  if (trial_) petsc_check_noexcept(VecDestroy(&trial_), "VecDestroy");
}

NewtonResult NewtonMinimizer::minimize(const NewtonProblem& problem, Vec x) {
  NewtonResult result;
  ShellOperator H(x, problem.hessian, problem.diagonal);
  H.set_symmetric();  // a Hessian: CG may rely on it
  // One KSP per solve, so that nothing of the previous step's operator (a destroyed shell) survives.
  MPI_Comm comm;
  petsc_check(PetscObjectGetComm(reinterpret_cast<PetscObject>(x), &comm), "PetscObjectGetComm");
  KSP ksp = nullptr;
  petsc_check(KSPCreate(comm, &ksp), "KSPCreate");
  petsc_check(KSPSetOptionsPrefix(ksp, options_.prefix.c_str()), "KSPSetOptionsPrefix");
  // Defaults first, so that -<prefix>ksp_type / -<prefix>pc_type / -<prefix>ksp_rtol override them.
  petsc_check(KSPSetType(ksp, KSPCG), "KSPSetType");
  PC pc;
  petsc_check(KSPGetPC(ksp, &pc), "KSPGetPC");
  petsc_check(PCSetType(pc, PCJACOBI), "PCSetType");
  if (problem.configure_ksp) problem.configure_ksp(ksp);
  // CG's (preconditioned) residual may grow transiently by many orders of magnitude on this badly
  // scaled system (node masses from 1e-11 to 1 of the largest): no divergence tolerance.
  petsc_check(KSPSetTolerances(ksp, options_.linear_tolerance, 1e-300, 1e300, options_.max_linear_iterations), "KSPSetTolerances");
  append_ksp_view_files(comm, options_.prefix);  // a KSP per solve: its view files would restart each time
  petsc_check(KSPSetFromOptions(ksp), "KSPSetFromOptions");
  struct Guard {
    KSP& k;
    ~Guard() { petsc_check_noexcept(KSPDestroy(&k), "KSPDestroy"); }
  } guard{ksp};
  // -<prefix>monitor (-mpm_newton_monitor) prints each Newton iteration (residual, Phi, KSP outcome, line-search step).
  PetscBool monitor = PETSC_FALSE;
  petsc_check(PetscOptionsHasName(nullptr, options_.prefix.c_str(), "-monitor", &monitor), "PetscOptionsHasName");
  // Forcing and Hessian choice (newton_minimizer.hpp), overridable from the options database.
  PetscBool forcing = options_.forcing ? PETSC_TRUE : PETSC_FALSE;
  PetscReal eta_max = options_.forcing_max, gamma = options_.forcing_gamma, alpha = options_.forcing_alpha;
  const char* pre = options_.prefix.c_str();
  petsc_check(PetscOptionsGetBool(nullptr, pre, "-forcing", &forcing, nullptr), "PetscOptionsGetBool");
  petsc_check(PetscOptionsGetReal(nullptr, pre, "-forcing_max", &eta_max, nullptr), "PetscOptionsGetReal");
  petsc_check(PetscOptionsGetReal(nullptr, pre, "-forcing_gamma", &gamma, nullptr), "PetscOptionsGetReal");
  petsc_check(PetscOptionsGetReal(nullptr, pre, "-forcing_alpha", &alpha, nullptr), "PetscOptionsGetReal");
  // Within this factor of the Newton target the KSP's own rtol applies again (below).
  PetscReal tight_factor = 1000.0;
  petsc_check(PetscOptionsGetReal(nullptr, pre, "-forcing_tight", &tight_factor, nullptr), "PetscOptionsGetReal");
  enum class First { Exact, Projected, Alternate } first = First::Alternate;
  {
    char name[32] = "";
    PetscBool set = PETSC_FALSE;
    petsc_check(PetscOptionsGetString(nullptr, pre, "-hessian_first", name, sizeof name, &set), "PetscOptionsGetString");
    const std::string choice = set ? std::string(name) : options_.hessian_first;
    if (choice == "exact") first = First::Exact;
    else if (choice == "projected") first = First::Projected;
    else if (choice == "alternate") first = First::Alternate;
    else throw RuntimeError("-" + options_.prefix + "hessian_first: '" + choice + "' is not exact, projected or alternate");
  }
  // The KSP that does the work, and its relative tolerance from the options: the forcing term's floor.
  KSP work = problem.working_ksp ? problem.working_ksp(ksp) : ksp;
  PetscReal rtol_floor = 0, abstol = 0, dtol = 0;
  PetscInt maxits = 0;
  petsc_check(KSPGetTolerances(work, &rtol_floor, &abstol, &dtol, &maxits), "KSPGetTolerances");
  double eta = eta_max, previous_residual = 0;
  bool exact_failed_last = false;
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
      result.reason = "Newton " + options_.prefix + ": non-finite residual";
      return result;
    }
    if (monitor && problem.describe_residual)
      log::info("%s %d: %s", options_.prefix.c_str(), it, problem.describe_residual(g_).c_str());
    if (result.residual <= target) {
      result.converged = true;
      return result;
    }
    if (it >= options_.max_iterations) {
      result.reason = log::format("Newton %s: no convergence in %d Newton iterations (residual %.3e, target %.3e)",
                                  options_.prefix.c_str(), it, result.residual, target);
      return result;
    }
    // Forcing term of this iteration (Eisenstat & Walker 1996, choice 2, with their safeguard).
    double rtol = rtol_floor;
    if (forcing) {
      if (it > 0) {
        const double ratio = result.residual / previous_residual;
        double next = gamma * std::pow(ratio, alpha);
        const double guard = gamma * std::pow(eta, alpha);
        if (guard > 0.1) next = std::max(next, guard);
        eta = std::min(next, static_cast<double>(eta_max));
      }
      // Close to the target the KSP's own rtol again: the last iterations then converge as fast as
      // without forcing, and the converged state is as accurate (a run's result must not depend on
      // the rank count beyond the solver tolerances, tests/mpi/test_particle_rebalance.cpp).
      const bool tight = result.residual <= tight_factor * target;
      rtol = tight ? static_cast<double>(rtol_floor)
                   : std::max(static_cast<double>(rtol_floor), std::min(eta, static_cast<double>(eta_max)));
      petsc_check(KSPSetTolerances(work, rtol, abstol, dtol, maxits), "KSPSetTolerances");
    }
    previous_residual = result.residual;
    // Newton direction: H dir = -g (inexact, by the KSP), with the exact Hessian or its projection.
    PetscInt its = 0;
    KSPConvergedReason kr = KSP_CONVERGED_ITERATING;
    PetscScalar slope = 0;
    auto newton_direction = [&](bool projected) {
      (projected ? problem.linearize_projected : problem.linearize)(x);
      ++result.linearizations;
      // A shell matrix's state does not change by itself: bump it so that the preconditioner (the
      // Jacobi diagonal) is rebuilt for the new linearisation.
      Mat A = problem.matrix ? problem.matrix() : H.mat();
      if (!problem.matrix) {
        petsc_check(MatAssemblyBegin(H.mat(), MAT_FINAL_ASSEMBLY), "MatAssemblyBegin");
        petsc_check(MatAssemblyEnd(H.mat(), MAT_FINAL_ASSEMBLY), "MatAssemblyEnd");
      }
      petsc_check(KSPSetOperators(ksp, A, A), "KSPSetOperators");
      // A preconditioner whose inner solve failed last time (an inner CG that met negative
      // curvature) keeps its failed reason, and the next solve would return Inf although it
      // succeeds: clear it.
      {
        PC kpc;
        petsc_check(KSPGetPC(ksp, &kpc), "KSPGetPC");
        petsc_check(PCSetFailedReason(kpc, PC_NOERROR), "PCSetFailedReason");
      }
      petsc_check(VecScale(g_, -1.0), "VecScale");
      petsc_check(KSPSolve(ksp, g_, dir_), "KSPSolve");
      petsc_check(VecScale(g_, -1.0), "VecScale");
      petsc_check(KSPGetIterationNumber(ksp, &its), "KSPGetIterationNumber");
      petsc_check(KSPGetConvergedReason(ksp, &kr), "KSPGetConvergedReason");
      if (problem.linear_outcome) problem.linear_outcome(ksp, its, kr);
      result.linear_iterations += its;
      petsc_check(VecDot(g_, dir_, &slope), "VecDot");
    };
    // The iterate of a KSP that stopped at its iteration limit is still used when it descends. With
    // the exact Hessian, a KSP that met negative curvature (or broke down) or a direction that does
    // not descend is replaced by the projected Hessian's direction.
    // The exact attempt is skipped (hessian_first) where it would likely be wasted: it fails where a
    // point's Hessian is indefinite along the step, which holds for a few consecutive iterations far
    // from the minimiser (3D impact at dx = 1/63: 5 of 24 linearisations in two steps were exact
    // attempts redone projected, each costing an assembly, a multigrid set-up and part of a CG).
    const bool can_project = static_cast<bool>(problem.linearize_projected);
    const bool skip_exact =
        can_project && (first == First::Projected || (first == First::Alternate && exact_failed_last));
    bool projected = skip_exact;
    int failed_its = -1, failed_reason = 0;
    newton_direction(projected);
    exact_failed_last = false;
    if (!projected && can_project && ((kr < 0 && kr != KSP_DIVERGED_ITS) || !std::isfinite(slope) || slope >= 0)) {
      failed_its = static_cast<int>(its);
      failed_reason = static_cast<int>(kr);
      ++result.failed_exact;
      exact_failed_last = true;
      projected = true;
      newton_direction(true);
    }
    // A non-finite iterate or a direction that still does not descend falls back to steepest
    // descent; the line search keeps the method globally convergent.
    if (!std::isfinite(slope) || slope >= 0) {
      petsc_check(VecCopy(g_, dir_), "VecCopy");
      petsc_check(VecScale(dir_, -1.0), "VecScale");
      petsc_check(VecDot(g_, dir_, &slope), "VecDot");
    }
    // Backtracking on Phi. Near convergence the decrease drops below the round-off of Phi, so a step
    // whose energy change is within that round-off is accepted as well. If the exact Newton direction
    // finds no decrease, the projected one is tried, then steepest descent, before the solve is
    // declared failed.
    double alpha_used = 1.0;
    auto search = [&](double s) {
      double alpha = 1.0;
      for (int ls = 0; ls <= options_.max_line_search; ++ls) {
        petsc_check(VecWAXPY(trial_, alpha, dir_, x), "VecWAXPY");
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
      ++result.failed_exact;
      exact_failed_last = true;
      projected = true;
      newton_direction(true);
      accepted = std::isfinite(slope) && slope < 0 && search(slope);
    }
    if (!accepted) {
      petsc_check(VecCopy(g_, dir_), "VecCopy");
      petsc_check(VecScale(dir_, -1.0), "VecScale");
      // Scale the gradient step by the diagonal of the Hessian (a Jacobi step) so that alpha = 1 is
      // meaningful.
      Vec diag;
      petsc_check(VecDuplicate(x, &diag), "VecDuplicate");
      problem.diagonal(diag);
      petsc_check(VecPointwiseDivide(dir_, dir_, diag), "VecPointwiseDivide");
      petsc_check(VecDestroy(&diag), "VecDestroy");
      petsc_check(VecDot(g_, dir_, &slope), "VecDot");
      accepted = search(slope);
    }
    if (!accepted) {
      result.reason = log::format("Newton %s: line search failed at Newton iteration %d (residual %.3e; last KSP %s "
                                  "after %d iterations)", options_.prefix.c_str(), it, result.residual,
                                  KSPConvergedReasons[kr], (int)its);
      return result;
    }
    if (problem.step_norm) {
      petsc_check(VecAXPY(x, -1.0, trial_), "VecAXPY");  // x <- x - trial = -(accepted step)
      const double moved = problem.step_norm(x);
      petsc_check(VecCopy(trial_, x), "VecCopy");
      if (monitor) {
        log::info("%s %d: residual %.3e (target %.3e), Phi %.10e, %s Hessian%s, rtol %.2g, KSP reason %d after %d its, "
                  "step %.3g, moved %.3e", options_.prefix.c_str(), it, result.residual, target, phi,
                  projected ? "projected" : "exact",
                  failed_its >= 0 ? log::format(" (exact failed: reason %d after %d its)", failed_reason, failed_its).c_str()
                                  : (skip_exact ? " (exact skipped)" : ""),
                  rtol, (int)kr, (int)its, alpha_used, moved);
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
      petsc_check(VecCopy(trial_, x), "VecCopy");
    }
  }
}

}  // namespace meniscus::solvers
