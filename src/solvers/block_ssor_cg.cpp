#include "solvers/block_ssor_cg.hpp"

#include <petsc/private/kspimpl.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "solvers/petsc_check.hpp"

namespace meniscus::solvers {

namespace {

// Inverts the B x B block `a` (column-major, as BAIJ stores it) into `inv` (column-major) by
// Gauss-Jordan elimination with partial pivoting; false when a pivot is zero.
template <int B>
bool invert_block(const double* a, double* inv) {
  double m[B][2 * B];
  for (int r = 0; r < B; ++r)
    for (int c = 0; c < B; ++c) {
      m[r][c] = a[c * B + r];
      m[r][B + c] = r == c ? 1.0 : 0.0;
    }
  for (int c = 0; c < B; ++c) {
    int piv = c;
    for (int r = c + 1; r < B; ++r)
      if (std::fabs(m[r][c]) > std::fabs(m[piv][c])) piv = r;
    if (m[piv][c] == 0.0) return false;
    if (piv != c)
      for (int k = 0; k < 2 * B; ++k) std::swap(m[c][k], m[piv][k]);
    const double s = 1.0 / m[c][c];
    for (int k = 0; k < 2 * B; ++k) m[c][k] *= s;
    for (int r = 0; r < B; ++r) {
      if (r == c) continue;
      const double f = m[r][c];
      for (int k = 0; k < 2 * B; ++k) m[r][k] -= f * m[c][k];
    }
  }
  for (int r = 0; r < B; ++r)
    for (int c = 0; c < B; ++c) inv[c * B + r] = m[r][B + c];
  return true;
}

double global_sum(MPI_Comm comm, double local) {
  double sum = 0;
  MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, comm);
  return sum;
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// sum[a] = sum over blocks k in [k0, k1) of (A_k z_{col k})[a], with two interleaved partial sums and each
// block's product formed before it is added (shorter chains of dependent additions).
template <int B>
inline void row_product(const double* aa, const PetscInt* ja, size_t k0, size_t k1, const double* z, double* sum) {
  constexpr int BB = B * B;
  double s0[B] = {}, s1[B] = {};
  size_t k = k0;
  for (; k + 1 < k1; k += 2) {
    const double* b0 = aa + static_cast<size_t>(k) * BB;
    const double* b1 = b0 + BB;
    const double* z0 = z + static_cast<size_t>(ja[k]) * B;
    const double* z1 = z + static_cast<size_t>(ja[k + 1]) * B;
    for (int a = 0; a < B; ++a) {
      double p0 = 0, p1 = 0;
      for (int c = 0; c < B; ++c) {
        p0 += b0[c * B + a] * z0[c];
        p1 += b1[c * B + a] * z1[c];
      }
      s0[a] += p0;
      s1[a] += p1;
    }
  }
  if (k < k1) {
    const double* b0 = aa + static_cast<size_t>(k) * BB;
    const double* z0 = z + static_cast<size_t>(ja[k]) * B;
    for (int a = 0; a < B; ++a) {
      double p0 = 0;
      for (int c = 0; c < B; ++c) p0 += b0[c * B + a] * z0[c];
      s0[a] += p0;
    }
  }
  for (int a = 0; a < B; ++a) sum[a] = s0[a] + s1[a];
}

// The state of a KSPMENISCUSSSORCG (its ksp->data): the ghost exchange of the matrix it last solved
// with, the two contiguous halves of the matrix and the iteration's vectors.
class BlockSsorCg {
 public:
  ~BlockSsorCg() { reset(); }
  // Forgets the ghost exchange and frees the copies (KSPReset).
  void reset();
  // KSPSolve's work: x = A^-1 b (ksp->vec_sol, ksp->vec_rhs), reason and iterations in the KSP.
  void solve(KSP ksp);

 private:
  template <int B>
  void run(KSP ksp, Mat A);

  PetscObjectId scattered_ = 0;  // the matrix whose ghost exchange is set up (and its pattern's state)
  PetscObjectState scattered_pattern_ = 0;
  VecScatter ghost_scatter_ = nullptr;
  Vec ghost_ = nullptr, local_ = nullptr, zglobal_ = nullptr;
  std::vector<double> r_, z_, p_, ap_, az_, t_, dinv_, xs_;
  std::vector<PetscInt> diag_;
  std::vector<size_t> lower_start_, upper_start_;  // per row; the upper blocks' rows in reverse order
  std::vector<PetscInt> lower_cols_, upper_cols_;
  std::vector<double> lower_, upper_;
};

void BlockSsorCg::reset() {
  if (ghost_scatter_) petsc_check_noexcept(VecScatterDestroy(&ghost_scatter_), "VecScatterDestroy");
  for (Vec* v : {&ghost_, &local_, &zglobal_})
    if (*v) petsc_check_noexcept(VecDestroy(v), "VecDestroy");
  scattered_ = 0;
  for (auto* v : {&r_, &z_, &p_, &ap_, &az_, &t_, &dinv_, &xs_, &lower_, &upper_}) std::vector<double>().swap(*v);
  for (auto* v : {&diag_, &lower_cols_, &upper_cols_}) std::vector<PetscInt>().swap(*v);
  for (auto* v : {&lower_start_, &upper_start_}) std::vector<size_t>().swap(*v);
}

void BlockSsorCg::solve(KSP ksp) {
  Mat A = nullptr, P = nullptr;
  petsc_check(KSPGetOperators(ksp, &A, &P), "KSPGetOperators");
  if (A != P) throw RuntimeError(KSPMENISCUSSSORCG ": the operator and the preconditioning matrix must be one matrix");
  PetscInt bs = 1;
  petsc_check(MatGetBlockSize(A, &bs), "MatGetBlockSize");
  switch (bs) {
    case 1: return run<1>(ksp, A);
    case 2: return run<2>(ksp, A);
    case 3: return run<3>(ksp, A);
    default: throw RuntimeError(KSPMENISCUSSSORCG ": block size " + std::to_string(bs) + " (1-3 supported)");
  }
}

template <int B>
void BlockSsorCg::run(KSP ksp, Mat A) {
  constexpr int BB = B * B;
  MPI_Comm comm = PetscObjectComm(reinterpret_cast<PetscObject>(A));
  Vec b = ksp->vec_rhs, x = ksp->vec_sol;
  MatType type = nullptr;
  petsc_check(MatGetType(A, &type), "MatGetType");
  Mat Ad = A, Ao = nullptr;
  const PetscInt* garray = nullptr;
  if (std::strcmp(type, MATMPIBAIJ) == 0) {
    petsc_check(MatMPIBAIJGetSeqBAIJ(A, &Ad, &Ao, &garray), "MatMPIBAIJGetSeqBAIJ");
  } else if (std::strcmp(type, MATSEQBAIJ) != 0) {
    throw RuntimeError(std::string(KSPMENISCUSSSORCG ": matrix type ") + type + " (needs seqbaij or mpibaij)");
  }
  PetscInt ghosts = 0;
  if (Ao) {
    PetscInt rows = 0;
    petsc_check(MatGetLocalSize(Ao, &rows, &ghosts), "MatGetLocalSize");
    ghosts /= B;
  }
  PetscObjectId id = 0;
  PetscObjectState pattern = 0;
  petsc_check(PetscObjectGetId(reinterpret_cast<PetscObject>(A), &id), "PetscObjectGetId");
  petsc_check(MatGetNonzeroState(A, &pattern), "MatGetNonzeroState");
  const bool same = scattered_ == id && scattered_pattern_ == pattern;
  if (!same) reset();
  // The ghost exchange is collective: every rank of a distributed matrix sets it up and takes part,
  // with or without ghost columns of its own (a rank without any hung the others at 4 ranks).
  if (Ao && !same) {
    IS from;
    petsc_check(ISCreateBlock(PETSC_COMM_SELF, B, ghosts, garray, PETSC_COPY_VALUES, &from), "ISCreateBlock");
    petsc_check(VecCreateSeq(PETSC_COMM_SELF, ghosts * B, &ghost_), "VecCreateSeq");
    petsc_check(VecScatterCreate(b, from, ghost_, nullptr, &ghost_scatter_), "VecScatterCreate");
    petsc_check(ISDestroy(&from), "ISDestroy");
    PetscInt n = 0;
    petsc_check(VecGetLocalSize(b, &n), "VecGetLocalSize");
    petsc_check(VecCreateSeqWithArray(PETSC_COMM_SELF, B, n, nullptr, &local_), "VecCreateSeqWithArray");
    petsc_check(VecDuplicate(b, &zglobal_), "VecDuplicate");
  }
  scattered_ = id;
  scattered_pattern_ = pattern;

  PetscInt nb = 0;
  const PetscInt *ia = nullptr, *ja = nullptr;
  PetscBool done = PETSC_FALSE;
  petsc_check(MatGetRowIJ(Ad, 0, PETSC_FALSE, PETSC_TRUE, &nb, &ia, &ja, &done), "MatGetRowIJ");
  if (!done) throw RuntimeError(KSPMENISCUSSSORCG ": MatGetRowIJ gave no block structure");
  PetscScalar* aa = nullptr;
  petsc_check(MatSeqBAIJGetArray(Ad, &aa), "MatSeqBAIJGetArray");
  const size_t n = static_cast<size_t>(nb) * B;

  // Diagonal blocks: position and inverse (PETSc's SOR inverts them too).
  diag_.resize(nb);
  dinv_.resize(static_cast<size_t>(nb) * BB);
  int singular = 0;
  for (PetscInt i = 0; i < nb; ++i) {
    const PetscInt* at = std::lower_bound(ja + ia[i], ja + ia[i + 1], i);
    if (at == ja + ia[i + 1] || *at != i) throw RuntimeError(KSPMENISCUSSSORCG ": a row without its diagonal block");
    diag_[i] = static_cast<PetscInt>(at - ja);
    if (!invert_block<B>(aa + static_cast<size_t>(diag_[i]) * BB, dinv_.data() + static_cast<size_t>(i) * BB)) singular = 1;
  }
  int any_singular = 0;
  MPI_Allreduce(&singular, &any_singular, 1, MPI_INT, MPI_MAX, comm);

  for (auto* v : {&r_, &z_, &p_, &ap_, &az_, &t_}) v->assign(n, 0.0);
  xs_.assign(n, 0.0);
  if (!ksp->guess_zero) {
    // r = b - A x0 (KSPCG's start from a nonzero guess), x accumulates on x0.
    Vec w;
    petsc_check(VecDuplicate(b, &w), "VecDuplicate");
    petsc_check(MatMult(A, x, w), "MatMult");
    petsc_check(VecAYPX(w, -1.0, b), "VecAYPX");
    const PetscScalar *hw = nullptr, *hx = nullptr;
    petsc_check(VecGetArrayRead(w, &hw), "VecGetArrayRead");
    std::copy(hw, hw + n, r_.begin());
    petsc_check(VecRestoreArrayRead(w, &hw), "VecRestoreArrayRead");
    petsc_check(VecDestroy(&w), "VecDestroy");
    petsc_check(VecGetArrayRead(x, &hx), "VecGetArrayRead");
    std::copy(hx, hx + n, xs_.begin());
    petsc_check(VecRestoreArrayRead(x, &hx), "VecRestoreArrayRead");
  } else {
    const PetscScalar* hb = nullptr;
    petsc_check(VecGetArrayRead(b, &hb), "VecGetArrayRead");
    std::copy(hb, hb + n, r_.begin());
    petsc_check(VecRestoreArrayRead(b, &hb), "VecRestoreArrayRead");
  }

  // The sweeps read their halves of the rows as two contiguous streams, copied once per solve: the
  // lower blocks row by row upwards, the upper blocks row by row downwards. Reading them in place
  // from PETSc's rows (half of each row, the backward sweep walking down) the hardware prefetchers
  // fetched the skipped halves too: a sweep pair cost 2.3-2.8 products (PETSc's MatSOR the same),
  // and the fused iteration 2.8 products instead of about one (3D impact at dx = 1/63, one step).
  lower_start_.resize(nb + 1);
  upper_start_.resize(nb + 1);
  lower_start_[0] = upper_start_[0] = 0;
  for (PetscInt i = 0; i < nb; ++i) lower_start_[i + 1] = lower_start_[i] + (diag_[i] - ia[i]);
  for (PetscInt v = 0; v < nb; ++v) {
    const PetscInt i = nb - 1 - v;
    upper_start_[v + 1] = upper_start_[v] + (ia[i + 1] - diag_[i] - 1);
  }
  lower_cols_.resize(lower_start_[nb]);
  upper_cols_.resize(upper_start_[nb]);
  lower_.resize(lower_cols_.size() * BB);
  upper_.resize(upper_cols_.size() * BB);
  for (PetscInt i = 0; i < nb; ++i) {
    std::copy(ja + ia[i], ja + diag_[i], lower_cols_.begin() + lower_start_[i]);
    std::copy(aa + static_cast<size_t>(ia[i]) * BB, aa + static_cast<size_t>(diag_[i]) * BB,
              lower_.begin() + lower_start_[i] * BB);
    const PetscInt v = nb - 1 - i;
    std::copy(ja + diag_[i] + 1, ja + ia[i + 1], upper_cols_.begin() + upper_start_[v]);
    std::copy(aa + static_cast<size_t>(diag_[i] + 1) * BB, aa + static_cast<size_t>(ia[i + 1]) * BB,
              upper_.begin() + upper_start_[v] * BB);
  }
  petsc_check(MatSeqBAIJRestoreArray(Ad, &aa), "MatSeqBAIJRestoreArray");
  {
    PetscInt rows = nb;  // MatRestoreRowIJ clears what it is given
    petsc_check(MatRestoreRowIJ(Ad, 0, PETSC_FALSE, PETSC_TRUE, &rows, &ia, &ja, &done), "MatRestoreRowIJ");
  }

  // z = (D + U)^-1 D (D + L)^-1 r (one symmetric block Gauss-Seidel sweep pair from zero) and, on this
  // rank's block, az = A_d z = L z + t with t = D (D + L)^-1 r.
  auto precondition = [&]() {
    double* z = z_.data();
    double* t = t_.data();
    double* az = az_.data();
    const double* r = r_.data();
    const double* lo = lower_.data();
    const PetscInt* lc = lower_cols_.data();
    for (PetscInt i = 0; i < nb; ++i) {
      double s[B];
      row_product<B>(lo, lc, lower_start_[i], lower_start_[i + 1], z, s);
      for (int a = 0; a < B; ++a) s[a] = r[i * B + a] - s[a];
      const double* di = dinv_.data() + static_cast<size_t>(i) * BB;
      for (int a = 0; a < B; ++a) {
        t[i * B + a] = s[a];
        double w = 0;
        for (int c = 0; c < B; ++c) w += di[c * B + a] * s[c];
        z[i * B + a] = w;
      }
    }
    std::fill(az_.begin(), az_.end(), 0.0);  // L z, summed by columns below
    const double* up = upper_.data();
    const PetscInt* uc = upper_cols_.data();
    for (PetscInt v = 0; v < nb; ++v) {
      const PetscInt i = nb - 1 - v;
      const size_t k0 = upper_start_[v], k1 = upper_start_[v + 1];
      double s[B];
      row_product<B>(up, uc, k0, k1, z, s);
      for (int a = 0; a < B; ++a) s[a] = t[i * B + a] - s[a];
      const double* di = dinv_.data() + static_cast<size_t>(i) * BB;
      double zi[B];
      for (int a = 0; a < B; ++a) {
        double w = 0;
        for (int c = 0; c < B; ++c) w += di[c * B + a] * s[c];
        zi[a] = w;
        z[i * B + a] = w;
      }
      // (L z)_j += A_ji z_i = A_ij^T z_i for the upper blocks j > i of row i.
      for (size_t k = k0; k < k1; ++k) {
        const double* blk = up + k * BB;
        double* lj = az + static_cast<size_t>(uc[k]) * B;
        for (int c = 0; c < B; ++c) {
          double w = 0;
          for (int a = 0; a < B; ++a) w += blk[c * B + a] * zi[a];
          lj[c] += w;
        }
      }
    }
    for (size_t k = 0; k < n; ++k) az[k] += t[k];
  };
  // az += A_o z (the off-rank columns), after the ghost exchange of z.
  auto add_offrank = [&]() {
    if (!ghost_scatter_) return;
    Vec zg = zglobal_;
    {
      PetscScalar* h = nullptr;
      petsc_check(VecGetArray(zg, &h), "VecGetArray");
      std::copy(z_.begin(), z_.end(), h);
      petsc_check(VecRestoreArray(zg, &h), "VecRestoreArray");
    }
    petsc_check(VecScatterBegin(ghost_scatter_, zg, ghost_, INSERT_VALUES, SCATTER_FORWARD), "VecScatterBegin");
    petsc_check(VecScatterEnd(ghost_scatter_, zg, ghost_, INSERT_VALUES, SCATTER_FORWARD), "VecScatterEnd");
    petsc_check(VecPlaceArray(local_, az_.data()), "VecPlaceArray");
    petsc_check(MatMultAdd(Ao, ghost_, local_, local_), "MatMultAdd");
    petsc_check(VecResetArray(local_), "VecResetArray");
  };
  auto finish = [&]() {
    PetscScalar* hx = nullptr;
    petsc_check(VecGetArray(x, &hx), "VecGetArray");
    std::copy(xs_.begin(), xs_.end(), hx);
    petsc_check(VecRestoreArray(x, &hx), "VecRestoreArray");
    // The halves are copied afresh by every solve: freed here, they do not sit beside the caller's
    // next assembly buffer and the matrix (on the 3D impact at dx = 1/63 each copy is ~50 MB).
    for (auto* v : {&lower_, &upper_}) std::vector<double>().swap(*v);
    for (auto* v : {&lower_cols_, &upper_cols_}) std::vector<PetscInt>().swap(*v);
  };
  // A non-finite norm or inner product: PETSc's KSPCheckNorm/KSPCheckDot (KSPSolve raises it under
  // -ksp_error_if_not_converged).
  auto not_finite = [&](double v, bool norm) {
    if (std::isfinite(v)) return false;
    ksp->reason = KSP_DIVERGED_NANORINF;
    if (norm) ksp->rnorm = v;
    return true;
  };
  // PETSc's convergence test (KSPConvergedDefault unless KSPSetConvergenceTest replaced it), after
  // the residual history and monitors, as in KSPSolve_CG.
  auto converged = [&](PetscInt its, double dp) {
    petsc_check(PetscObjectSAWsTakeAccess(reinterpret_cast<PetscObject>(ksp)), "PetscObjectSAWsTakeAccess");
    ksp->its = its;
    ksp->rnorm = dp;
    petsc_check(PetscObjectSAWsGrantAccess(reinterpret_cast<PetscObject>(ksp)), "PetscObjectSAWsGrantAccess");
    petsc_check(KSPLogResidualHistory(ksp, dp), "KSPLogResidualHistory");
    petsc_check(KSPMonitor(ksp, its, dp), "KSPMonitor");
    petsc_check((*ksp->converged)(ksp, its, dp, &ksp->reason, ksp->cnvP), "KSP convergence test");
    return ksp->reason != KSP_CONVERGED_ITERATING;
  };

  ksp->its = 0;
  ksp->reason = KSP_CONVERGED_ITERATING;
  if (any_singular) {  // PETSc: a zero pivot in the diagonal block's inverse fails the preconditioner
    petsc_check(PCSetFailedReason(ksp->pc, PC_SUBPC_ERROR), "PCSetFailedReason");
    ksp->reason = KSP_DIVERGED_PC_FAILED;
    return finish();
  }

  // KSPSolve_CG (PETSc 3.18) with KSP_NORM_PRECONDITIONED.
  precondition();
  double dp = std::sqrt(global_sum(comm, dot(z_, z_)));
  if (not_finite(dp, true)) return finish();
  if (converged(0, dp)) return finish();
  double beta = global_sum(comm, dot(z_, r_));
  if (not_finite(beta, false)) return finish();
  double betaold = 0, dpi = 0, dpiold = 0;
  PetscInt i = 0;
  do {
    ksp->its = i + 1;
    if (beta == 0.0) {
      ksp->reason = KSP_CONVERGED_ATOL;
      break;
    } else if (i > 0 && beta * betaold < 0.0) {
      ksp->reason = KSP_DIVERGED_INDEFINITE_PC;
      break;
    }
    add_offrank();
    if (i == 0) {
      p_ = z_;
      ap_ = az_;
    } else {
      const double f = beta / betaold;
      for (size_t k = 0; k < n; ++k) {
        p_[k] = z_[k] + f * p_[k];
        ap_[k] = az_[k] + f * ap_[k];
      }
    }
    dpiold = dpi;
    dpi = global_sum(comm, dot(p_, ap_));
    if (not_finite(dpi, false)) break;
    betaold = beta;
    if (dpi == 0.0 || (i > 0 && dpi * dpiold <= 0.0)) {
      ksp->reason = KSP_DIVERGED_INDEFINITE_MAT;
      break;
    }
    const double a = beta / dpi;
    for (size_t k = 0; k < n; ++k) {
      xs_[k] += a * p_[k];
      r_[k] -= a * ap_[k];
    }
    precondition();
    dp = std::sqrt(global_sum(comm, dot(z_, z_)));
    if (not_finite(dp, true)) break;
    if (converged(i + 1, dp)) break;
    beta = global_sum(comm, dot(z_, r_));
    if (not_finite(beta, false)) break;
    ++i;
  } while (i < ksp->max_it);
  if (i >= ksp->max_it) ksp->reason = KSP_DIVERGED_ITS;
  finish();
}

// PETSc's C callbacks: no exception may cross them.
template <class F>
PetscErrorCode guarded(KSP ksp, const char* what, F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    SETERRQ(PetscObjectComm(reinterpret_cast<PetscObject>(ksp)), PETSC_ERR_LIB, "%s %s: %s", KSPMENISCUSSSORCG, what,
            e.what());
  }
  return 0;
}

PetscErrorCode ksp_solve(KSP ksp) {
  return guarded(ksp, "solve", [&]() { static_cast<BlockSsorCg*>(ksp->data)->solve(ksp); });
}

PetscErrorCode ksp_reset(KSP ksp) {
  return guarded(ksp, "reset", [&]() { static_cast<BlockSsorCg*>(ksp->data)->reset(); });
}

PetscErrorCode ksp_destroy(KSP ksp) {
  delete static_cast<BlockSsorCg*>(ksp->data);
  ksp->data = nullptr;
  return 0;
}

PetscErrorCode ksp_setup(KSP ksp) {
  PetscFunctionBeginUser;
  PC pc;
  PetscCall(KSPGetPC(ksp, &pc));
  PetscBool sor = PETSC_FALSE;
  PetscCall(PetscObjectTypeCompare(reinterpret_cast<PetscObject>(pc), PCSOR, &sor));
  PetscCheck(sor, PetscObjectComm(reinterpret_cast<PetscObject>(ksp)), PETSC_ERR_SUP,
             "KSP %s fuses CG with PCSOR: the PC must be sor (-pc_type sor), not %s", KSPMENISCUSSSORCG,
             reinterpret_cast<PetscObject>(pc)->type_name);
  PetscCheck(fusable_sor(pc), PetscObjectComm(reinterpret_cast<PetscObject>(ksp)), PETSC_ERR_SUP,
             "KSP %s fuses CG with PCSOR's defaults only: omega 1, one local symmetric sweep pair, its 1, lits 1 "
             "(use -ksp_type cg for other SOR settings)", KSPMENISCUSSSORCG);
  PetscFunctionReturn(0);
}

PetscErrorCode ksp_view(KSP ksp, PetscViewer viewer) {
  PetscFunctionBeginUser;
  PetscBool ascii = PETSC_FALSE;
  PetscCall(PetscObjectTypeCompare(reinterpret_cast<PetscObject>(viewer), PETSCVIEWERASCII, &ascii));
  if (ascii)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  CG fused with the PC's block SSOR sweeps on BAIJ (the product A z from "
                                             "the sweeps, Eisenstat 1981): KSPCG + PCSOR's iteration\n"));
  PetscFunctionReturn(0);
}

PetscErrorCode ksp_create(KSP ksp) {
  PetscFunctionBeginUser;
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_PRECONDITIONED, PC_LEFT, 3));
  ksp->data = new BlockSsorCg();
  ksp->ops->setup = ksp_setup;
  ksp->ops->solve = ksp_solve;
  ksp->ops->reset = ksp_reset;
  ksp->ops->destroy = ksp_destroy;
  ksp->ops->view = ksp_view;
  ksp->ops->buildsolution = KSPBuildSolutionDefault;
  ksp->ops->buildresidual = KSPBuildResidualDefault;
  // The PC it fuses: SOR unless one was chosen already.
  PC pc;
  PetscCall(KSPGetPC(ksp, &pc));
  if (!reinterpret_cast<PetscObject>(pc)->type_name) PetscCall(PCSetType(pc, PCSOR));
  PetscFunctionReturn(0);
}

}  // namespace

void register_block_ssor_cg() { petsc_check(KSPRegister(KSPMENISCUSSSORCG, ksp_create), "KSPRegister"); }

bool fusable_sor(PC pc) {
  PetscBool sor = PETSC_FALSE;
  petsc_check(PetscObjectTypeCompare(reinterpret_cast<PetscObject>(pc), PCSOR, &sor), "PetscObjectTypeCompare");
  if (!sor) return false;
  PetscReal omega = 0;
  MatSORType sweep;
  PetscInt its = 0, lits = 0;
  petsc_check(PCSORGetOmega(pc, &omega), "PCSORGetOmega");
  petsc_check(PCSORGetSymmetric(pc, &sweep), "PCSORGetSymmetric");
  petsc_check(PCSORGetIterations(pc, &its, &lits), "PCSORGetIterations");
  PetscMPIInt size = 1;
  MPI_Comm_size(PetscObjectComm(reinterpret_cast<PetscObject>(pc)), &size);
  const bool symmetric = sweep == SOR_LOCAL_SYMMETRIC_SWEEP || (size == 1 && sweep == SOR_SYMMETRIC_SWEEP);
  return omega == 1.0 && symmetric && its == 1 && lits == 1;
}

}  // namespace meniscus::solvers
