#pragma once
// The solver modes of the liquid-membrane(-rigid) saddle-point system K z = b of Ruan et al. 2021
// (Eq. 28; Eq. 19 for the first solve), K = [A B^T; B -C] with A (pressure, SPD up to the constant
// mode) and C (velocities, SPD) assembled as the blocks of KktBlocks:
//
//   minres_blockdiag  MINRES on K, preconditioned by the SPD block diagonal diag(S^, C) with
//                     S^ = A + B^T diag(C)^-1 B (GAMG on S^, Jacobi on C): guaranteed for a symmetric
//                     indefinite K with an SPD preconditioner (the default);
//   schur_cg          v eliminated: CG on the SPD Schur complement S = A + B^T C^-1 B (applied
//                     matrix-free, inner CG + Jacobi solves with C), preconditioned by GAMG on S^;
//                     then v = C^-1 (B p - b_v);
//   paper_dpcg        the paper's solver (Ruan 2021 §7: "Diagonal Preconditioned Conjugate Gradient"
//                     on the indefinite K, "not guaranteed ... but works well in practice"): plain CG on K
//                     with the Jacobi scaling |diag K|. A breakdown (p^T K p = 0 or not finite) falls
//                     back to minres_blockdiag with a warning;
//   direct            MUMPS LU of K converted to AIJ (small debug runs).
//
// Options database, prefix P (default `membrane_`): -P solver_mode overrides the mode; MINRES and the
// outer CG of schur_cg read -P ksp_* / -P pc_* (and -P fieldsplit_{p,v}_*), the inner solves of
// schur_cg -P schur_inner_ksp_* / -P schur_inner_pc_*, paper_dpcg -P dpcg_rtol and -P dpcg_max_it,
// direct -P ksp_* / -P pc_*.
#include <petscksp.h>

#include <mpi.h>

#include <string>

namespace meniscus::membrane {

struct CoupledSolveOptions;
struct KktBlocks;

struct KktSolveStats {
  int iterations = 0;        // outer iterations of the mode that produced the solution
  int reason = 0;            // its KSP converged reason (paper_dpcg: 2 relative residual, 1 zero right-hand side)
  int inner_iterations = 0;  // schur_cg: iterations of the C solves for the right-hand side and for v
  std::string mode;          // the mode that produced the solution (paper_dpcg after a breakdown: minres_blockdiag)
};

// The mode the options select: -<prefix>solver_mode if given, else options.mode. Throws InputError
// for an unknown name.
std::string kkt_solver_mode(const CoupledSolveOptions& options);

// Solves K z = b for the assembled blocks (k.K, k.P, k.A, k.B, k.Bt, k.C, k.S, k.b; k.z is the initial
// guess and receives the solution). Throws RuntimeError when the selected mode does not converge.
// Collective.
KktSolveStats solve_kkt(KktBlocks& k, const CoupledSolveOptions& options, MPI_Comm comm);

}  // namespace meniscus::membrane
