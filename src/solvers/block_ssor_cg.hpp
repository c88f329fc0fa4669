#pragma once
// Conjugate gradients preconditioned by one symmetric block Gauss-Seidel sweep pair (SSOR with
// omega = 1 on the matrix's diagonal blocks, block Jacobi across ranks) on a MATSEQBAIJ or
// MATMPIBAIJ matrix: the same iteration as PETSc's KSPCG + PCSOR with its defaults (preconditioned
// residual norm, zero initial guess, the same stopping and breakdown tests), at about a third of the
// matrix traffic per iteration.
//
// PETSc's CG reads the matrix three times per iteration: the product A p and the preconditioner's
// forward and backward sweeps (each over the whole matrix). Here the product comes out of the
// sweeps, after Eisenstat (1981), "Efficient implementation of a class of preconditioned conjugate
// gradient methods", SIAM J. Sci. Stat. Comput. 2(1): with A = L + D + U on a rank's diagonal block,
// the preconditioner z = (D + U)^-1 D (D + L)^-1 r gives t = D (D + L)^-1 r from the forward sweep and
// (D + U) z = t from the backward one, so A z = L z + t. L z is summed during the backward sweep
// from the upper blocks already in cache (U = L^T for the symmetric Hessian: row i's block A_ij, j > i,
// adds A_ij^T z_i to row j), and A p follows from the CG recurrence p = z + beta p_old:
// A p = A z + beta A p_old. One pass over the lower and one over the upper blocks per iteration, against
// three whole-matrix passes. The off-rank columns add their product A_o z after a ghost exchange.
#include <petscksp.h>

#include <vector>

namespace meniscus::solvers {

class BlockSsorCg {
 public:
  BlockSsorCg() = default;
  ~BlockSsorCg();
  BlockSsorCg(const BlockSsorCg&) = delete;
  BlockSsorCg& operator=(const BlockSsorCg&) = delete;

  struct Outcome {
    PetscInt iterations = 0;
    KSPConvergedReason reason = KSP_CONVERGED_ITERATING;
  };
  // x = A^-1 b to the relative tolerance rtol of the preconditioned residual norm (as KSPCG with
  // KSPConvergedDefault: ||z_k|| <= max(rtol ||z_0||, abstol)), at most max_iterations iterations.
  // A: MATSEQBAIJ or MATMPIBAIJ with block size 1-3, symmetric. Collective.
  Outcome solve(Mat A, Vec b, Vec x, double rtol, double abstol, PetscInt max_iterations);
  // Forget the ghost exchange (call when the matrix is recreated).
  void reset();

 private:
  template <int B>
  Outcome run(Mat A, Vec b, Vec x, double rtol, double abstol, PetscInt max_iterations);

  Mat scattered_ = nullptr;  // the matrix whose ghost exchange is set up
  VecScatter ghost_scatter_ = nullptr;
  Vec ghost_ = nullptr, local_ = nullptr, zglobal_ = nullptr;
  std::vector<double> r_, z_, p_, ap_, az_, t_, dinv_;
  std::vector<PetscInt> diag_;
  std::vector<size_t> lower_start_, upper_start_;  // per row; the upper blocks' rows in reverse order
  std::vector<PetscInt> lower_cols_, upper_cols_;
  std::vector<double> lower_, upper_;
};

}  // namespace meniscus::solvers
