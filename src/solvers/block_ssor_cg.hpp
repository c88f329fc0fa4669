#pragma once
// KSP type `meniscus_ssorcg`: conjugate gradients preconditioned by one symmetric block Gauss-Seidel
// sweep pair (PCSOR with omega = 1 on the matrix's diagonal blocks, block Jacobi across ranks) on a
// MATSEQBAIJ or MATMPIBAIJ matrix: the same iteration as PETSc's KSPCG + PCSOR with their defaults
// (preconditioned residual norm, the same convergence test, breakdown tests and converged reasons),
// at about a third of the matrix traffic per iteration. It is a registered PETSc KSP (KSPRegister,
// through PETSc's implementation header petsc/private/kspimpl.h, as PETSc's own KSPs are written):
// KSPSetType or -<prefix>ksp_type meniscus_ssorcg selects it; tolerances, -ksp_monitor,
// -ksp_converged_reason, -ksp_view, residual history and a user convergence test act on it; its PC
// stays a PCSOR, which KSPView shows and whose settings are checked (fusable_sor) but whose MatSOR is
// never called: the sweeps run inside the Krylov loop.
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

namespace meniscus::solvers {

// The registered name (KSPSetType, -ksp_type).
#define KSPMENISCUSSSORCG "meniscus_ssorcg"

// Registers KSPMENISCUSSSORCG with PETSc (after PetscInitialize; Runtime::start_libraries does it;
// calling it again is harmless).
void register_block_ssor_cg();

// True when `pc` is a PCSOR the fused iteration reproduces: omega = 1, one local symmetric sweep
// pair (SOR_LOCAL_SYMMETRIC_SWEEP, PCSOR's default; SOR_SYMMETRIC_SWEEP on one rank), one iteration
// and one local iteration. KSPSetUp of a meniscus_ssorcg KSP fails with the reason otherwise.
bool fusable_sor(PC pc);

}  // namespace meniscus::solvers
