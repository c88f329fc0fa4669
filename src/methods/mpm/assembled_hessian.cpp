#include "methods/mpm/assembled_hessian.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/log.hpp"
#include "core/mpi_exchange.hpp"
#include "core/mpi_gather.hpp"
#include "solvers/petsc_check.hpp"
#include "solvers/reproducible_products.hpp"
#include "solvers/vec_access.hpp"
#include "solvers/view_files.hpp"

namespace meniscus::mpm {

using solvers::petsc_check;

namespace {

template <int Dim>
KOKKOS_INLINE_FUNCTION bool inside(const grid::NodeBox<Dim>& box, const int* node) {
  for (int d = 0; d < Dim; ++d)
    if (node[d] < box.lo[d] || node[d] >= box.lo[d] + box.n[d]) return false;
  return true;
}

// The neighbour of `node` at slot s (offsets -2..2 per axis, axis 0 fastest).
template <int Dim>
KOKKOS_INLINE_FUNCTION void neighbour(const int* node, int s, int* out) {
  for (int d = 0; d < Dim; ++d) {
    out[d] = node[d] + s % HessianLayout<Dim>::Span - 2;
    s /= HessianLayout<Dim>::Span;
  }
}

// P of a node: 0 (held), I (free), I - n n^T (normal constraint).
template <int Dim>
KOKKOS_INLINE_FUNCTION void projection(int constraint, const Kokkos::View<double**, Kokkos::LayoutRight>& normal, long l,
                                       double (*P)[Dim]) {
  for (int a = 0; a < Dim; ++a)
    for (int b = 0; b < Dim; ++b) {
      if (constraint == static_cast<int>(NodeConstraint::Held)) {
        P[a][b] = 0;
      } else {
        P[a][b] = a == b ? 1.0 : 0.0;
        if (constraint == static_cast<int>(NodeConstraint::Normal)) P[a][b] -= normal(l, a) * normal(l, b);
      }
    }
}

// Coordinates of the listed owned nodes, one row per node.
template <int Dim, class CoordinateView>
void fill_node_coordinates(const CoordinateView& c, const grid::NodeBox<Dim>& ob, const Kokkos::View<long*>& list,
                           const double* lower, double dx) {
  double lo[Dim];
  for (int d = 0; d < Dim; ++d) lo[d] = lower[d];
  const auto box = ob;
  Kokkos::parallel_for(
      "hessian::coordinates", Kokkos::RangePolicy<>(0, list.extent(0)), KOKKOS_LAMBDA(const long k) {
        int node[Dim];
        box.node(list(k), node);
        for (int d = 0; d < Dim; ++d) c(k, d) = lo[d] + node[d] * dx;
      });
}

}  // namespace

namespace {

// PETSc's C callbacks of the shell operator and preconditioner: no exception may cross them.
template <int Dim>
PetscErrorCode shell_product(Mat A, Vec x, Vec y) {
  void* ctx = nullptr;
  PetscCall(MatShellGetContext(A, &ctx));
  try {
    static_cast<AssembledHessian<Dim>*>(ctx)->product(x, y);
  } catch (const std::exception& e) {
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_LIB, "assembled Hessian product: %s", e.what());
  }
  return 0;
}

template <int Dim>
PetscErrorCode shell_diagonal(Mat A, Vec d) {
  void* ctx = nullptr;
  PetscCall(MatShellGetContext(A, &ctx));
  try {
    static_cast<AssembledHessian<Dim>*>(ctx)->diagonal(d);
  } catch (const std::exception& e) {
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_LIB, "assembled Hessian diagonal: %s", e.what());
  }
  return 0;
}

template <int Dim>
PetscErrorCode shell_solve(PC pc, Vec b, Vec x) {
  void* ctx = nullptr;
  PetscCall(PCShellGetContext(pc, &ctx));
  try {
    static_cast<AssembledHessian<Dim>*>(ctx)->solve(b, x);
  } catch (const std::exception& e) {
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_LIB, "reduced Hessian solve: %s", e.what());
  }
  return 0;
}

}  // namespace

template <int Dim>
AssembledHessian<Dim>::AssembledHessian(DM dm, const grid::NodeBox<Dim>& gbox, const grid::NodeBox<Dim>& obox,
                                        const double* lower, double dx, const char* options_prefix)
    : dm_(dm), gbox_(gbox), obox_(obox), dx_(dx), prefix_(options_prefix) {
  for (int d = 0; d < Dim; ++d) lower_[d] = lower[d];
  MPI_Comm comm;
  petsc_check(PetscObjectGetComm(reinterpret_cast<PetscObject>(dm_), &comm), "PetscObjectGetComm");
  petsc_check(KSPCreate(comm, &inner_), "KSPCreate");
  petsc_check(KSPSetOptionsPrefix(inner_, (prefix_ + "redistribute_").c_str()), "KSPSetOptionsPrefix");
}

template <int Dim>
void AssembledHessian<Dim>::set_active(Kokkos::View<const int*> compact_of, long active) {
  compact_of_ = compact_of;
  const PetscInt n = static_cast<PetscInt>(active * Dim);
  PetscInt have = -1;
  if (shell_) petsc_check(MatGetLocalSize(shell_, &have, nullptr), "MatGetLocalSize");
  MPI_Comm comm;
  petsc_check(PetscObjectGetComm(reinterpret_cast<PetscObject>(dm_), &comm), "PetscObjectGetComm");
  int changed = have != n ? 1 : 0;  // MatCreateShell is collective: all ranks or none
  MPI_Allreduce(MPI_IN_PLACE, &changed, 1, MPI_INT, MPI_MAX, comm);
  if (!changed) return;
  if (shell_) petsc_check(MatDestroy(&shell_), "MatDestroy");
  petsc_check(MatCreateShell(comm, n, n, PETSC_DETERMINE, PETSC_DETERMINE, this, &shell_), "MatCreateShell");
  petsc_check(MatShellSetOperation(shell_, MATOP_MULT, reinterpret_cast<void (*)(void)>(shell_product<Dim>)),
              "MatShellSetOperation");
  petsc_check(MatShellSetOperation(shell_, MATOP_GET_DIAGONAL, reinterpret_cast<void (*)(void)>(shell_diagonal<Dim>)),
              "MatShellSetOperation");
  petsc_check(MatSetOption(shell_, MAT_SYMMETRIC, PETSC_TRUE), "MatSetOption");
}

template <int Dim>
AssembledHessian<Dim>::~AssembledHessian() {
  if (inner_) solvers::petsc_check_noexcept(KSPDestroy(&inner_), "KSPDestroy");
  for (Vec* v : {&rb_, &rx_})
    if (*v) solvers::petsc_check_noexcept(VecDestroy(v), "VecDestroy");
  if (shell_) solvers::petsc_check_noexcept(MatDestroy(&shell_), "MatDestroy");
  if (mat_) solvers::petsc_check_noexcept(MatDestroy(&mat_), "MatDestroy");
}

template <int Dim>
void AssembledHessian<Dim>::configure_inner(double rtol, int max_iterations) {
  petsc_check(KSPSetType(inner_, KSPCG), "KSPSetType");
  // No divergence tolerance (see newton_minimizer.cpp).
  petsc_check(KSPSetTolerances(inner_, rtol, 1e-300, 1e300, max_iterations), "KSPSetTolerances");
  PC pc;
  petsc_check(KSPGetPC(inner_, &pc), "KSPGetPC");
  configure_pc(pc);
  solvers::append_ksp_view_files(PetscObjectComm(reinterpret_cast<PetscObject>(inner_)), prefix_ + "redistribute_");
  petsc_check(KSPSetFromOptions(inner_), "KSPSetFromOptions");
  // -<prefix>fused_ssor_cg false: PETSc's KSPCG where the fused KSPMENISCUSSSORCG would run
  // (choose_ksp_type); an explicit -<prefix>redistribute_ksp_type decides alone.
  PetscBool fused = PETSC_TRUE;
  petsc_check(PetscOptionsGetBool(nullptr, prefix_.c_str(), "-fused_ssor_cg", &fused, nullptr), "PetscOptionsGetBool");
  fused_option_ = fused == PETSC_TRUE;
  PetscBool explicit_type = PETSC_FALSE;
  petsc_check(PetscOptionsHasName(nullptr, (prefix_ + "redistribute_").c_str(), "-ksp_type", &explicit_type),
              "PetscOptionsHasName");
  explicit_ksp_type_ = explicit_type == PETSC_TRUE;
}

template <int Dim>
void AssembledHessian<Dim>::choose_ksp_type() {
  // The inner KSP runs as KSPMENISCUSSSORCG (CG fused with the block SSOR sweeps) wherever it would
  // run PETSc's KSPCG + PCSOR with their defaults on the BAIJ matrix: the same iterations, reasons
  // and monitors at about a third of the matrix traffic. PETSc's KSPCG where it would not (GAMG after
  // the switch, AIJ storage, SOR settings from the options database, -<prefix>fused_ssor_cg false).
  // An explicit -<prefix>redistribute_ksp_type stays, except that the switch to GAMG takes the
  // fused type back to CG (it fuses SOR only).
  PetscBool is_fused = PETSC_FALSE;
  petsc_check(PetscObjectTypeCompare(reinterpret_cast<PetscObject>(inner_), KSPMENISCUSSSORCG, &is_fused),
              "PetscObjectTypeCompare");
  if (explicit_ksp_type_ && !(is_fused && multigrid_)) return;
  PC pc;
  petsc_check(KSPGetPC(inner_, &pc), "KSPGetPC");
  const bool fused = fused_option_ && automatic_ && !multigrid_ && blocked_ && solvers::fusable_sor(pc);
  if (fused != (is_fused == PETSC_TRUE))
    petsc_check(KSPSetType(inner_, fused ? KSPMENISCUSSSORCG : KSPCG), "KSPSetType");
}

template <int Dim>
void AssembledHessian<Dim>::configure_pc(PC pc) {
  // Default: symmetric SOR until a solve needs more than -<prefix>sor_max_iterations CG iterations,
  // then GAMG for the rest of the run (an explicit -<prefix>redistribute_pc_type decides alone).
  // Why SOR first: at the implicit steps of the 3D impact (dx = 1/63, dt = 1 ms) the Hessian is
  // dominated by the node masses, GAMG's coarse levels hardly change CG's iterations (the same
  // 18 per Newton iteration with its set-up reused across a whole step), and its Chebyshev
  // smoothing costs about six products with the 5^Dim-block matrix per CG iteration; one SOR sweep
  // pair costs about two and needs no set-up: 24.8 CG iterations per Newton iteration instead of
  // 18.1, and 27-30 % less core time per step (docs/performance.md, implicit MPM, fifth round).
  // Stiffer systems (finer grids, larger steps, stiff solids) need multigrid: a solve over the
  // threshold switches to it.
  PetscBool explicit_type = PETSC_FALSE;
  petsc_check(PetscOptionsHasName(nullptr, (prefix_ + "redistribute_").c_str(), "-pc_type", &explicit_type),
              "PetscOptionsHasName");
  automatic_ = explicit_type == PETSC_FALSE;
  PetscInt sor_max = sor_max_iterations_;
  petsc_check(PetscOptionsGetInt(nullptr, prefix_.c_str(), "-sor_max_iterations", &sor_max, nullptr),
              "PetscOptionsGetInt");
  sor_max_iterations_ = static_cast<int>(sor_max);
  petsc_check(PCSetType(pc, automatic_ && !multigrid_ ? PCSOR : PCGAMG), "PCSetType");
  // The prolongators of the first linearisation with a pattern serve its later ones (the Newton
  // iterations of a step, and steps with the same unknowns): only the Galerkin products are redone.
  petsc_check(PCGAMGSetReuseInterpolation(pc, PETSC_TRUE), "PCGAMGSetReuseInterpolation");
  // GAMG's level smoother: Chebyshev with SOR instead of PETSc's default Chebyshev with Jacobi
  // (-<prefix>redistribute_mg_levels_pc_type overrides). The systems that reach GAMG are the stiff
  // ones, and on the stiffest, the 3D candle's solid wax (Chen et al. 2021, Sec. 6.9: E = 1e6 Pa,
  // rho = 10, dt = 0.01 s, the elastic wave crossing 100-200 cells per step), Jacobi smoothing left
  // CG at 100-114 iterations per Newton iteration at dx = 1/31 and 288 at 1/63, more than SOR alone
  // (65-111); SOR smoothing: 26-35 at 1/31, 118 at 1/63 (docs/performance.md, 3D candle).
  {
    const std::string key = "-" + prefix_ + "redistribute_mg_levels_pc_type";
    PetscBool given = PETSC_FALSE;
    petsc_check(PetscOptionsHasName(nullptr, nullptr, key.c_str(), &given), "PetscOptionsHasName");
    if (!given) petsc_check(PetscOptionsSetValue(nullptr, key.c_str(), "sor"), "PetscOptionsSetValue");
  }
  petsc_check(PCSetFromOptions(pc), "PCSetFromOptions");
  // -<prefix>reuse_preconditioner: the preconditioner built at a step's first linearisation serves
  // the step's later Newton iterations (their operators differ by the Newton updates and the
  // exact/projected choice; CG runs with each iteration's own matrix); a new step sets it up again.
  PetscBool reuse = reuse_preconditioner_ ? PETSC_TRUE : PETSC_FALSE;
  petsc_check(PetscOptionsGetBool(nullptr, prefix_.c_str(), "-reuse_preconditioner", &reuse, nullptr),
              "PetscOptionsGetBool");
  reuse_preconditioner_ = reuse == PETSC_TRUE;
  petsc_check(PCSetReusePreconditioner(pc, reuse), "PCSetReusePreconditioner");
}

template <int Dim>
void AssembledHessian<Dim>::refresh_preconditioner() {
  refresh_ = true;
}

template <int Dim>
void AssembledHessian<Dim>::make_preconditioner(PC pc) {
  petsc_check(PCSetType(pc, PCSHELL), "PCSetType");
  petsc_check(PCShellSetContext(pc, this), "PCShellSetContext");
  petsc_check(PCShellSetApply(pc, shell_solve<Dim>), "PCShellSetApply");
  petsc_check(PCShellSetName(pc, "reduced assembled Hessian: CG + GAMG on the unknown nodes"), "PCShellSetName");
}

template <int Dim>
void AssembledHessian<Dim>::to_reduced(Vec full, Vec reduced) const {
  solvers::VecAccess f(full, Dim, false), r(reduced, Dim);
  copy_listed_rows<Dim>(f.view, r.view, unknown_active_, true);
}

template <int Dim>
void AssembledHessian<Dim>::from_reduced(Vec reduced, Vec full) const {
  solvers::VecAccess r(reduced, Dim, false), f(full, Dim);
  copy_listed_rows<Dim>(r.view, f.view, unknown_active_, false);
}

template <int Dim>
void AssembledHessian<Dim>::product(Vec x, Vec y) {
  if (!mat_) throw RuntimeError("assembled Hessian: product before prepare()");
  to_reduced(x, rb_);
  petsc_check(MatMult(mat_, rb_, rx_), "MatMult");
  petsc_check(VecCopy(x, y), "VecCopy");  // the held rows: identity
  from_reduced(rx_, y);
}

template <int Dim>
void AssembledHessian<Dim>::diagonal(Vec d) {
  if (!mat_) throw RuntimeError("assembled Hessian: diagonal before prepare()");
  petsc_check(MatGetDiagonal(mat_, rx_), "MatGetDiagonal");
  petsc_check(VecSet(d, 1.0), "VecSet");
  from_reduced(rx_, d);
}

template <int Dim>
void AssembledHessian<Dim>::solve(Vec b, Vec x) {
  if (!mat_) throw RuntimeError("assembled Hessian: solve before prepare()");
  if (reset_inner_) {
    // A new pattern: the multigrid hierarchy (and its reused interpolation) starts afresh, in a new
    // preconditioner object (PETSc 3.18's PCReset leaves GAMG's level solvers at the old sizes).
    petsc_check(KSPReset(inner_), "KSPReset");
    PC old, pc;
    petsc_check(KSPGetPC(inner_, &old), "KSPGetPC");
    petsc_check(PCCreate(PetscObjectComm(reinterpret_cast<PetscObject>(inner_)), &pc), "PCCreate");
    const char* prefix = nullptr;
    petsc_check(PCGetOptionsPrefix(old, &prefix), "PCGetOptionsPrefix");
    petsc_check(PCSetOptionsPrefix(pc, prefix), "PCSetOptionsPrefix");
    configure_pc(pc);
    petsc_check(KSPSetPC(inner_, pc), "KSPSetPC");
    petsc_check(PCDestroy(&pc), "PCDestroy");
    // KSPReset also drops the view options' viewers (PETSc 3.18 KSPResetViewers): -ksp_view showed
    // none of the first step's 3 solves on inputs/mpm-candle-2d-ci.yaml, not even on stdout. The
    // options database again, keeping the tolerances the Newton loop has set (CG iterations of
    // every solve unchanged on that deck, with SOR, GAMG and the switch between them).
    PetscReal rtol, abstol, dtol;
    PetscInt maxits;
    petsc_check(KSPGetTolerances(inner_, &rtol, &abstol, &dtol, &maxits), "KSPGetTolerances");
    petsc_check(KSPSetFromOptions(inner_), "KSPSetFromOptions");
    petsc_check(KSPSetTolerances(inner_, rtol, abstol, dtol, maxits), "KSPSetTolerances");
    reset_inner_ = false;
  }
  choose_ksp_type();
  inner_solve(b);
  if (automatic_ && !multigrid_ && last_iterations_ > sor_max_iterations_) {
    // SOR was too slow for this system: multigrid from the next solve on (a new preconditioner
    // object, as for a new pattern). The iteration count is global, so every rank switches together.
    switch_to_multigrid();
    log::info("implicit MPM: CG + SOR needed %d iterations (limit %d, -%ssor_max_iterations): switching the "
              "Newton solves to CG + GAMG for the rest of the run", static_cast<int>(last_iterations_),
              sor_max_iterations_, prefix_.c_str());
  }
  // The Newton loop reads the iterations and converged reason (implicit_solve.cpp).
  petsc_check(VecCopy(b, x), "VecCopy");  // the held rows: identity
  from_reduced(rx_, x);
}

template <int Dim>
void AssembledHessian<Dim>::inner_solve(Vec b) {
  petsc_check(KSPSetOperators(inner_, mat_, mat_), "KSPSetOperators");
  PC pc;
  petsc_check(KSPGetPC(inner_, &pc), "KSPGetPC");
  const bool fresh = refresh_ && reuse_preconditioner_;
  if (fresh) petsc_check(PCSetReusePreconditioner(pc, PETSC_FALSE), "PCSetReusePreconditioner");
  refresh_ = false;
  to_reduced(b, rb_);
  {
    // GAMG's coarse products in a fixed order on 3+ ranks (two 4-rank candle runs differed without).
    solvers::ReproducibleGalerkinProducts products(PetscObjectComm(reinterpret_cast<PetscObject>(inner_)));
    petsc_check(KSPSolve(inner_, rb_, rx_), "KSPSolve");
  }
  if (fresh) petsc_check(PCSetReusePreconditioner(pc, PETSC_TRUE), "PCSetReusePreconditioner");
  petsc_check(KSPGetIterationNumber(inner_, &last_iterations_), "KSPGetIterationNumber");
  petsc_check(KSPGetConvergedReason(inner_, &last_reason_), "KSPGetConvergedReason");
}

template <int Dim>
void AssembledHessian<Dim>::prepare(Kokkos::View<const int*> constraint, Kokkos::View<const double**, Kokkos::LayoutRight> normal,
                                    Vec global_scratch, Vec local_scratch) {
  const long ng = gbox_.size();
  if (static_cast<long>(constraint.extent(0)) != ng) throw RuntimeError("assembled Hessian: constraint size mismatch");
  int changed = 0;
  if (!mat_ || constraint_.extent(0) != constraint.extent(0)) {
    changed = 1;
  } else {
    auto old = constraint_;
    long diff = 0;
    Kokkos::parallel_reduce(
        "hessian::unknowns_changed", Kokkos::RangePolicy<>(0, ng),
        KOKKOS_LAMBDA(const long l, long& acc) {
          const bool was = old(l) != static_cast<int>(NodeConstraint::Held);
          const bool is = constraint(l) != static_cast<int>(NodeConstraint::Held);
          acc += was != is ? 1 : 0;
        },
        diff);
    changed = diff > 0 ? 1 : 0;
  }
  MPI_Comm comm;
  petsc_check(PetscObjectGetComm(reinterpret_cast<PetscObject>(dm_), &comm), "PetscObjectGetComm");
  MPI_Allreduce(MPI_IN_PLACE, &changed, 1, MPI_INT, MPI_MAX, comm);
  if (constraint_.extent(0) != constraint.extent(0)) {
    constraint_ = Kokkos::View<int*>("hessian_constraint", ng);
    normal_ = Kokkos::View<double**, Kokkos::LayoutRight>("hessian_normal", ng, Dim);
  }
  Kokkos::deep_copy(constraint_, constraint);
  Kokkos::deep_copy(normal_, normal);
  if (changed) {
    release_matrix();
    build_pattern();
    number_unknowns(global_scratch, local_scratch);
    plan_ghost_rows();
    create_matrix();
    ++builds_;
  }
  // The active nodes' numbering changes every step, the unknowns' only with the pattern.
  if (static_cast<long>(unknown_active_.extent(0)) != owned_unknowns_)
    unknown_active_ = Kokkos::View<long*>("hessian_unknown_active", owned_unknowns_);
  auto ua = unknown_active_;
  const auto ou = owned_unknown_;
  const auto cof = compact_of_;
  long lost = 0;
  Kokkos::parallel_reduce(
      "hessian::unknown_active", Kokkos::RangePolicy<>(0, owned_unknowns_),
      KOKKOS_LAMBDA(const long r, long& bad) {
        ua(r) = cof(ou(r));
        if (ua(r) < 0) ++bad;
      },
      lost);
  if (lost > 0) throw RuntimeError("assembled Hessian: an unknown node has no mass");
}

template <int Dim>
void AssembledHessian<Dim>::build_pattern() {
  constexpr int Slots = HessianLayout<Dim>::Slots;
  const long ng = gbox_.size();
  const auto box = gbox_;
  const auto c = constraint_;
  layout_.gbox = gbox_;
  // The old pattern's arrays go before the new ones are allocated (release_matrix).
  layout_.slot = Kokkos::View<int**, Kokkos::LayoutRight>();
  cols_ = Kokkos::View<PetscInt*>();
  layout_.row = Kokkos::View<int*>("hessian_row", ng);
  auto row = layout_.row;
  long nrows = 0;
  Kokkos::parallel_scan(
      "hessian::rows", Kokkos::RangePolicy<>(0, ng),
      KOKKOS_LAMBDA(const long l, long& upd, const bool final) {
        const bool unknown = c(l) != static_cast<int>(NodeConstraint::Held);
        if (final) row(l) = unknown ? static_cast<int>(upd) : -1;
        if (unknown) upd += 1;
      },
      nrows);
  rows_ = nrows;
  row_node_ = Kokkos::View<PetscInt*>("hessian_row_node", nrows);
  auto rn = row_node_;
  Kokkos::parallel_for(
      "hessian::row_nodes", Kokkos::RangePolicy<>(0, ng), KOKKOS_LAMBDA(const long l) {
        if (row(l) >= 0) rn(row(l)) = static_cast<PetscInt>(l);
      });
  // Entries per row: unknown neighbours within +-2 nodes inside the ghosted box.
  Kokkos::View<int*> count("hessian_row_count", nrows);
  Kokkos::parallel_for(
      "hessian::row_counts", Kokkos::RangePolicy<>(0, nrows), KOKKOS_LAMBDA(const long r) {
        int node[Dim], nb[Dim], n = 0;
        box.node(rn(r), node);
        for (int s = 0; s < Slots; ++s) {
          neighbour<Dim>(node, s, nb);
          if (inside<Dim>(box, nb) && row(box.index(nb)) >= 0) ++n;
        }
        count(r) = n;
      });
  layout_.row_start = Kokkos::View<int*>("hessian_row_start", nrows + 1);
  auto start = layout_.row_start;
  long nentries = 0;
  Kokkos::parallel_scan(
      "hessian::row_starts", Kokkos::RangePolicy<>(0, nrows + 1),
      KOKKOS_LAMBDA(const long r, long& upd, const bool final) {
        if (final) start(r) = static_cast<int>(upd);
        if (r < nrows) upd += count(r);
      },
      nentries);
  entries_ = nentries;
  layout_.slot = Kokkos::View<int**, Kokkos::LayoutRight>("hessian_slot", nrows, Slots);
  cols_ = Kokkos::View<PetscInt*>("hessian_cols", nentries);
  auto slot = layout_.slot;
  auto cols = cols_;
  Kokkos::parallel_for(
      "hessian::slots", Kokkos::RangePolicy<>(0, nrows), KOKKOS_LAMBDA(const long r) {
        int node[Dim], nb[Dim], e = start(r);
        box.node(rn(r), node);
        for (int s = 0; s < Slots; ++s) {
          neighbour<Dim>(node, s, nb);
          const long lj = inside<Dim>(box, nb) ? box.index(nb) : -1;
          if (lj >= 0 && row(lj) >= 0) {
            slot(r, s) = e;
            cols(e) = static_cast<PetscInt>(lj);
            ++e;
          } else {
            slot(r, s) = -1;
          }
        }
      });
}

template <int Dim>
void AssembledHessian<Dim>::number_unknowns(Vec global, Vec local) {
  // The owned unknown nodes, numbered rank by rank; ghosts learn their owners' numbers through the
  // DMDA's ghost exchange (component 0 of a node vector; exact in a double below 2^53).
  const auto gb = gbox_, ob = obox_;
  const auto row = layout_.row;
  Kokkos::View<long*> slot("hessian_owned_slot", ob.size());
  long count = 0;
  Kokkos::parallel_scan(
      "hessian::owned_unknowns", Kokkos::RangePolicy<>(0, ob.size()),
      KOKKOS_LAMBDA(const long i, long& upd, const bool final) {
        int node[Dim];
        ob.node(i, node);
        const bool unknown = row(gb.index(node)) >= 0;
        if (final) slot(i) = unknown ? upd : -1;
        if (unknown) upd += 1;
      },
      count);
  owned_unknowns_ = count;
  MPI_Comm comm;
  petsc_check(PetscObjectGetComm(reinterpret_cast<PetscObject>(dm_), &comm), "PetscObjectGetComm");
  long first = 0;
  MPI_Exscan(&count, &first, 1, MPI_LONG, MPI_SUM, comm);
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) first = 0;
  first_unknown_ = first;
  owned_unknown_ = Kokkos::View<long*>("hessian_owned_unknown", count);
  auto ou = owned_unknown_;
  Kokkos::parallel_for(
      "hessian::owned_unknown_list", Kokkos::RangePolicy<>(0, ob.size()), KOKKOS_LAMBDA(const long i) {
        if (slot(i) >= 0) ou(slot(i)) = i;
      });
  {
    solvers::VecAccess acc(global, Dim);
    auto g = acc.view;
    Kokkos::parallel_for(
        "hessian::number_owned", Kokkos::RangePolicy<>(0, ob.size()), KOKKOS_LAMBDA(const long i) {
          g(i, 0) = slot(i) >= 0 ? static_cast<double>(first + slot(i)) : -1.0;
        });
  }
  petsc_check(DMGlobalToLocalBegin(dm_, global, INSERT_VALUES, local), "DMGlobalToLocalBegin");
  petsc_check(DMGlobalToLocalEnd(dm_, global, INSERT_VALUES, local), "DMGlobalToLocalEnd");
  reduced_index_ = Kokkos::View<PetscInt*>("hessian_reduced_index", gb.size());
  long missing = 0;
  {
    solvers::VecAccess acc(local, Dim, false);
    auto l = acc.view;
    auto ri = reduced_index_;
    Kokkos::parallel_reduce(
        "hessian::number_ghosts", Kokkos::RangePolicy<>(0, gb.size()),
        KOKKOS_LAMBDA(const long n, long& bad) {
          ri(n) = row(n) >= 0 ? static_cast<PetscInt>(l(n, 0)) : -1;
          if (row(n) >= 0 && l(n, 0) < 0) ++bad;
        },
        missing);
  }
  // Ghost constraints come from their owners (ImplicitGridSolver::gather_ghost_constraints), so a
  // ghost unknown here is an unknown on its owner.
  if (missing > 0) throw RuntimeError("assembled Hessian: a ghost unknown node is held on its owner");
}

template <int Dim>
void AssembledHessian<Dim>::plan_ghost_rows() {
  // Every rank's owned and ghosted boxes: a ghost row goes to the rank owning its node, and partial
  // rows arrive from the ranks whose ghosted boxes meet our owned box (an empty message where all of
  // their rows there are held: both sides name each other without looking at the constraints).
  MPI_Comm comm;
  petsc_check(PetscObjectGetComm(reinterpret_cast<PetscObject>(dm_), &comm), "PetscObjectGetComm");
  int me = 0;
  MPI_Comm_rank(comm, &me);
  std::vector<int> mine(4 * Dim);
  for (int d = 0; d < Dim; ++d) {
    mine[d] = obox_.lo[d];
    mine[Dim + d] = obox_.lo[d] + obox_.n[d];
    mine[2 * Dim + d] = gbox_.lo[d];
    mine[3 * Dim + d] = gbox_.lo[d] + gbox_.n[d];
  }
  const std::vector<int> all = allgather_vector(comm, mine);
  const int ranks = static_cast<int>(all.size() / (4 * Dim));
  auto meets = [&](int r, int their, int our) {  // box `their` (0 owned, 2 ghosted) of r meets ours
    for (int d = 0; d < Dim; ++d) {
      const int lo = std::max(all[4 * Dim * r + their * Dim + d], mine[our * Dim + d]);
      const int hi = std::min(all[4 * Dim * r + (their + 1) * Dim + d], mine[(our + 1) * Dim + d]);
      if (lo >= hi) return false;
    }
    return true;
  };
  send_ranks_.clear();
  recv_ranks_.clear();
  for (int r = 0; r < ranks; ++r) {
    if (r == me) continue;
    if (meets(r, 0, 2)) send_ranks_.push_back(r);
    if (meets(r, 2, 0)) recv_ranks_.push_back(r);
  }
  // Our rows: owned, or ghost rows for their owners (in row order), each described by its node and
  // the offset slots of its entries.
  auto hs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), layout_.row_start);
  auto hn = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), row_node_);
  auto hc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), cols_);
  auto hrow = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), layout_.row);
  auto hslot = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), layout_.slot);
  HessianLayout<Dim> host_layout;
  host_layout.gbox = gbox_;
  owned_rows_.clear();
  send_rows_.assign(send_ranks_.size(), {});
  std::vector<std::vector<int>> described(send_ranks_.size());
  for (long r = 0; r < rows_; ++r) {
    int node[Dim];
    gbox_.node(hn(r), node);
    if (inside<Dim>(obox_, node)) {
      owned_rows_.push_back(static_cast<int>(r));
      continue;
    }
    size_t k = 0;
    for (; k < send_ranks_.size(); ++k) {
      bool in = true;
      for (int d = 0; d < Dim; ++d) {
        const int* box = &all[4 * Dim * send_ranks_[k]];
        in = in && node[d] >= box[d] && node[d] < box[Dim + d];
      }
      if (in) break;
    }
    if (k == send_ranks_.size()) throw std::logic_error("assembled Hessian: a ghost node without an owner");
    send_rows_[k].push_back(static_cast<int>(r));
    auto& msg = described[k];
    msg.insert(msg.end(), node, node + Dim);
    msg.push_back(hs(r + 1) - hs(r));
    for (long e = hs(r); e < hs(r + 1); ++e) msg.push_back(host_layout.offset(hn(r), hc(e)));
  }
  std::vector<std::vector<int>> received;
  exchange_buffers_sized(comm, send_ranks_, described, recv_ranks_, received, 7621);
  // Where each arriving block goes: the sender's rows lie on our owned nodes and its entries are
  // unknown nodes within +-2 of them, all in our ghosted box (the DMDA's stencil width is 2), so each
  // has its entry in our row; anything else means the ranks disagree on the unknowns.
  incoming_.assign(recv_ranks_.size(), {});
  recv_values_.assign(recv_ranks_.size(), {});
  send_values_.assign(send_ranks_.size(), {});
  for (size_t k = 0; k < recv_ranks_.size(); ++k) {
    const std::vector<int>& msg = received[k];
    Incoming& in = incoming_[k];
    long blocks = 0;
    for (size_t p = 0; p < msg.size();) {
      int node[Dim];
      for (int d = 0; d < Dim; ++d) node[d] = msg[p + d];
      const int count = msg[p + Dim];
      p += Dim + 1;
      const int r = inside<Dim>(obox_, node) ? hrow(gbox_.index(node)) : -1;
      if (r < 0) throw std::logic_error("assembled Hessian: a partial row for a node that is not our unknown");
      in.row.push_back(r);
      in.count.push_back(count);
      for (int e = 0; e < count; ++e, ++p) {
        if (msg[p] < 0 || msg[p] >= HessianLayout<Dim>::Slots)
          throw std::logic_error("assembled Hessian: a partial row's block offset out of range");
        const int entry = hslot(r, msg[p]);
        if (entry < 0) throw std::logic_error("assembled Hessian: a partial row's block outside our row");
        in.entry.push_back(entry - hs(r));
      }
      blocks += count;
    }
    recv_values_[k].resize(static_cast<size_t>(blocks) * Dim * Dim);
  }
  for (size_t k = 0; k < send_ranks_.size(); ++k) {
    long blocks = 0;
    for (int r : send_rows_[k]) blocks += hs(r + 1) - hs(r);
    send_values_[k].resize(static_cast<size_t>(blocks) * Dim * Dim);
  }
}

template <int Dim>
void AssembledHessian<Dim>::add_ghost_rows(double* values) {
  // A row's values are contiguous (Dim rows of count x Dim numbers), so a sender's rows are copied
  // whole; the owner adds each source's numbers to its own in ascending source rank.
  auto hs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), layout_.row_start);
  for (size_t k = 0; k < send_ranks_.size(); ++k) {
    double* out = send_values_[k].data();
    for (int r : send_rows_[k]) {
      const long n = (hs(r + 1) - hs(r)) * Dim * Dim;
      std::copy(values + hs(r) * Dim * Dim, values + hs(r) * Dim * Dim + n, out);
      out += n;
    }
  }
  MPI_Comm comm;
  petsc_check(PetscObjectGetComm(reinterpret_cast<PetscObject>(dm_), &comm), "PetscObjectGetComm");
  exchange_buffers(comm, send_ranks_, send_values_, recv_ranks_, recv_values_, 7623);
  for (size_t k = 0; k < recv_ranks_.size(); ++k) {
    const Incoming& in = incoming_[k];
    const double* v = recv_values_[k].data();
    const int* entry = in.entry.data();
    for (size_t q = 0; q < in.row.size(); ++q) {
      const long first = hs(in.row[q]), ours = hs(in.row[q] + 1) - first, theirs = in.count[q];
      double* row = values + first * Dim * Dim;
      for (int a = 0; a < Dim; ++a)
        for (long e = 0; e < theirs; ++e)
          for (int b = 0; b < Dim; ++b) row[a * ours * Dim + entry[e] * Dim + b] += v[a * theirs * Dim + e * Dim + b];
      v += theirs * Dim * Dim;
      entry += theirs;
    }
  }
}

template <int Dim>
void AssembledHessian<Dim>::release_matrix() {
  // The inner KSP holds the matrix (KSPSetOperators) and the multigrid hierarchy built on it, so
  // MatDestroy alone freed neither: they lived until the next solve()'s KSPReset, beside the new
  // pattern's arrays and matrix. A step whose unknowns changed (every step of a melting candle) then
  // held two matrices and one hierarchy at once: on the 3D candle at dx = 1/63 the heap peaked at
  // 864 MB in steps 2 and 3 against 678 MB in step 1 (heaptrack), and at 1/127 a run's second step
  // peaked 1.5 GiB above its first (docs/performance.md, "Memory of the 3D candle"). Releasing them
  // here changes no result: solve() starts the inner KSP afresh after a new pattern either way.
  if (inner_) petsc_check(KSPReset(inner_), "KSPReset");  // also the fused KSP's copies of the matrix
  if (mat_) petsc_check(MatDestroy(&mat_), "MatDestroy");
  for (Vec* v : {&rb_, &rx_})
    if (*v) petsc_check(VecDestroy(v), "VecDestroy");
  values_ = Kokkos::View<double*>();  // before the new one is allocated, not after
  block_cols_ = Kokkos::View<PetscInt*>();
}

template <int Dim>
void AssembledHessian<Dim>::create_matrix() {
  release_matrix();
  // Global block columns of the layout's entries and, per owned row, its blocks in the diagonal
  // (owned) and off-diagonal parts: the exact preallocation of every block row. Values are then
  // inserted row by row (MatSetValuesBlocked reads a row's Dim x (entries x Dim) values in the layout's
  // order) after the ghost rows' shares have reached their owners (add_ghost_rows). (A COO pattern,
  // whose remote entries PETSc also sums in arrival order, did the same with
  // two 8-byte maps per scalar entry and two index copies at every pattern build: 6.4 M entries on
  // the 3D impact at dx = 1/63.)
  const long first_owned = first_unknown_, last_owned = first_unknown_ + owned_unknowns_;
  block_cols_ = Kokkos::View<PetscInt*>("hessian_block_cols", entries_);
  Kokkos::View<PetscInt*> diag("hessian_diag_blocks", owned_unknowns_), off("hessian_off_blocks", owned_unknowns_);
  {
    const auto start = layout_.row_start;
    const auto rn = row_node_;
    const auto cols = cols_;
    const auto ri = reduced_index_;
    auto bc = block_cols_;
    Kokkos::parallel_for(
        "hessian::block_columns", Kokkos::RangePolicy<>(0, rows_), KOKKOS_LAMBDA(const long r) {
          const long gr = ri(rn(r));
          const bool owned = gr >= first_owned && gr < last_owned;
          PetscInt nd = 0, no = 0;
          for (long e = start(r); e < start(r + 1); ++e) {
            bc(e) = ri(cols(e));
            if (bc(e) >= first_owned && bc(e) < last_owned) ++nd;
            else ++no;
          }
          if (owned) {
            diag(gr - first_owned) = nd;
            off(gr - first_owned) = no;
          }
        });
  }
  MPI_Comm comm;
  petsc_check(PetscObjectGetComm(reinterpret_cast<PetscObject>(dm_), &comm), "PetscObjectGetComm");
  const PetscInt n = static_cast<PetscInt>(owned_unknowns_ * Dim);
  petsc_check(MatCreate(comm, &mat_), "MatCreate");
  // -<prefix>near_null_space: what GAMG aggregates with. `translations` (default): block size
  // Dim, GAMG's default near null space of one constant per component; `rigid`: block size Dim
  // and the rigid-body modes (translations and rotations: twice the coarse unknowns per aggregate
  // in 3D, and at dx = 1/63 on the 3D impact twice the set-up time for the same CG iterations: the
  // liquid's Hessian, mass plus pressure and viscosity, is not an elastic body's); `scalar`: block
  // size 1 (every component aggregated on its own, as PCREDISTRIBUTE's sub-matrix was).
  char nns[32] = "translations";
  petsc_check(PetscOptionsGetString(nullptr, prefix_.c_str(), "-near_null_space", nns, sizeof nns, nullptr),
              "PetscOptionsGetString");
  const std::string mode = nns;
  if (mode != "translations" && mode != "rigid" && mode != "scalar")
    throw RuntimeError("-" + prefix_ + "near_null_space: '" + mode + "' is not translations, rigid or scalar");
  // Storage: block AIJ (one column index per Dim x Dim block, PETSc's unrolled block kernels; its
  // SOR is point-block Gauss-Seidel, each node's 3 x 3 diagonal block inverted) for the default
  // inner CG + SOR; AIJ for multigrid (GAMG's Galerkin products need AIJ), for an inner
  // preconditioner chosen in the options database (e.g. `eisenstat`, which BAIJ's SOR lacks) and
  // for scalar blocks. -<prefix>matrix_type aij|baij overrides.
  PetscBool explicit_pc = PETSC_FALSE;
  petsc_check(PetscOptionsHasName(nullptr, (prefix_ + "redistribute_").c_str(), "-pc_type", &explicit_pc),
              "PetscOptionsHasName");
  char type[16] = "";
  petsc_check(PetscOptionsGetString(nullptr, prefix_.c_str(), "-matrix_type", type, sizeof type, nullptr),
              "PetscOptionsGetString");
  const std::string requested = type;
  if (!requested.empty() && requested != "aij" && requested != "baij")
    throw InputError("PETSc options database", "-" + prefix_ + "matrix_type", "'" + requested + "' is not aij or baij");
  const int bs = mode == "scalar" ? 1 : Dim;
  blocked_ = requested.empty() ? !explicit_pc && !multigrid_ && bs == Dim : requested == "baij";
  if (blocked_ && bs != Dim) throw RuntimeError("-" + prefix_ + "matrix_type baij needs node blocks (not -" + prefix_ + "near_null_space scalar)");
  petsc_check(MatSetSizes(mat_, n, n, PETSC_DETERMINE, PETSC_DETERMINE), "MatSetSizes");
  petsc_check(MatSetBlockSize(mat_, bs), "MatSetBlockSize");
  petsc_check(MatSetType(mat_, blocked_ ? MATBAIJ : MATAIJ), "MatSetType");
  petsc_check(MatSetOptionsPrefix(mat_, prefix_.c_str()), "MatSetOptionsPrefix");
  petsc_check(MatSetFromOptions(mat_), "MatSetFromOptions");
  {
    auto hd = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), diag);
    auto ho = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), off);
    // Per row of the matrix's block size.
    std::vector<PetscInt> d(static_cast<size_t>(owned_unknowns_) * (Dim / bs)), o(d.size());
    for (size_t i = 0; i < d.size(); ++i) {
      d[i] = hd(i / (Dim / bs)) * (Dim / bs);
      o[i] = ho(i / (Dim / bs)) * (Dim / bs);
    }
    petsc_check(MatXAIJSetPreallocation(mat_, bs, d.data(), o.data(), nullptr, nullptr), "MatXAIJSetPreallocation");
  }
  petsc_check(MatSetOption(mat_, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE), "MatSetOption");
  // Ghost rows reach their owners through add_ghost_rows: PETSc's assembly communicates nothing.
  petsc_check(MatSetOption(mat_, MAT_NO_OFF_PROC_ENTRIES, PETSC_TRUE), "MatSetOption");
  petsc_check(MatSetOption(mat_, MAT_SYMMETRIC, PETSC_TRUE), "MatSetOption");
  petsc_check(MatSetOption(mat_, MAT_SYMMETRY_ETERNAL, PETSC_TRUE), "MatSetOption");
  petsc_check(MatCreateVecs(mat_, &rx_, &rb_), "MatCreateVecs");
  // Rigid-body modes from the unknown nodes' coordinates: the near null space GAMG builds its
  // coarse spaces from (the Hessian of an elastic potential is blind to translations and, at rest,
  // to rotations; the inertia term lifts them by the node mass only).
  if (mode == "rigid") {
    Vec coords;
    petsc_check(VecDuplicate(rx_, &coords), "VecDuplicate");
    petsc_check(VecSetBlockSize(coords, Dim), "VecSetBlockSize");
    {
      solvers::VecAccess acc(coords, Dim);
      fill_node_coordinates<Dim>(acc.view, obox_, owned_unknown_, lower_, dx_);
    }
    MatNullSpace rigid;
    petsc_check(MatNullSpaceCreateRigidBody(coords, &rigid), "MatNullSpaceCreateRigidBody");
    petsc_check(MatSetNearNullSpace(mat_, rigid), "MatSetNearNullSpace");
    petsc_check(MatNullSpaceDestroy(&rigid), "MatNullSpaceDestroy");
    petsc_check(VecDestroy(&coords), "VecDestroy");
  }
  retype_ = false;
  reset_inner_ = true;
}

template <int Dim>
void AssembledHessian<Dim>::assemble(const IncrementalPotential<Dim>& potential, Kokkos::View<const double*> active_mass) {
  if (retype_) create_matrix();  // the switch to multigrid needs AIJ storage
  // The layout's blocks live only while they are summed and handed to PETSc: kept between Newton
  // iterations they were a third copy of the matrix beside PETSc's and the solver's (zero-filled on
  // allocation).
  values_ = Kokkos::View<double*>("hessian_values", entries_ * Dim * Dim);
  potential.add_hessian_blocks(layout_, values_);
  // Inertia on owned diagonal blocks, then P_i B P_j, then (I - P_i) on owned diagonal blocks (the
  // same P H P + (I - P) as the matrix-free product). A rank's partial sums for a ghost row are
  // projected with that node's own P, so their sum on the owner is the projected block.
  {
    const auto gb = gbox_, ob = obox_;
    const auto start = layout_.row_start;
    const auto rn = row_node_;
    const auto cols = cols_;
    const auto c = constraint_;
    const auto nrm = normal_;
    const auto cof = compact_of_;
    auto vals = values_;
    Kokkos::parallel_for(
        "hessian::nodes", Kokkos::RangePolicy<>(0, rows_), KOKKOS_LAMBDA(const long r) {
          const long li = rn(r);
          int node[Dim];
          gb.node(li, node);
          const bool owned = inside<Dim>(ob, node);
          double Pi[Dim][Dim];
          projection<Dim>(c(li), nrm, li, Pi);
          const long first = start(r), count = start(r + 1) - first;
          for (long e = first; e < first + count; ++e) {
            const long lj = cols(e);
            double B[Dim][Dim], Pj[Dim][Dim], T[Dim][Dim];
            for (int a = 0; a < Dim; ++a)
              for (int b = 0; b < Dim; ++b) B[a][b] = vals(first * Dim * Dim + a * count * Dim + (e - first) * Dim + b);
            const bool diagonal = owned && lj == li;
            if (diagonal)
              for (int a = 0; a < Dim; ++a) B[a][a] += active_mass(cof(ob.index(node)));
            projection<Dim>(c(lj), nrm, lj, Pj);
            for (int a = 0; a < Dim; ++a)
              for (int b = 0; b < Dim; ++b) {
                double s = 0;
                for (int k = 0; k < Dim; ++k) s += B[a][k] * Pj[k][b];
                T[a][b] = s;
              }
            for (int a = 0; a < Dim; ++a)
              for (int b = 0; b < Dim; ++b) {
                double s = 0;
                for (int k = 0; k < Dim; ++k) s += Pi[a][k] * T[k][b];
                if (diagonal) s += (a == b ? 1.0 : 0.0) - Pi[a][b];
                vals(first * Dim * Dim + a * count * Dim + (e - first) * Dim + b) = s;
              }
          }
        });
  }
  auto hv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), values_);
  add_ghost_rows(hv.data());
  auto hs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), layout_.row_start);
  auto hn = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), row_node_);
  auto hri = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), reduced_index_);
  auto hc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), block_cols_);
  // Every preallocated block of the owned rows is set: nothing to zero first.
  std::vector<PetscInt> rows(Dim), cols;
  for (int r : owned_rows_) {
    const long first = hs(r), count = hs(r + 1) - first;
    const PetscInt row = hri(hn(r));
    const double* v = hv.data() + first * Dim * Dim;
    if (blocked_) {
      petsc_check(MatSetValuesBlocked(mat_, 1, &row, static_cast<PetscInt>(count), hc.data() + first, v, INSERT_VALUES),
                  "MatSetValuesBlocked");
    } else {  // AIJ: the same values, indices per component (MatSetValuesBlocked would need block size Dim)
      cols.resize(static_cast<size_t>(count) * Dim);
      for (int a = 0; a < Dim; ++a) rows[a] = row * Dim + a;
      for (long e = 0; e < count; ++e)
        for (int b = 0; b < Dim; ++b) cols[e * Dim + b] = hc(first + e) * Dim + b;
      petsc_check(MatSetValues(mat_, Dim, rows.data(), static_cast<PetscInt>(cols.size()), cols.data(), v, INSERT_VALUES),
                  "MatSetValues");
    }
  }
  hv = decltype(hv)();
  values_ = Kokkos::View<double*>();
  petsc_check(MatAssemblyBegin(mat_, MAT_FINAL_ASSEMBLY), "MatAssemblyBegin");
  petsc_check(MatAssemblyEnd(mat_, MAT_FINAL_ASSEMBLY), "MatAssemblyEnd");
}

template class AssembledHessian<2>;
template class AssembledHessian<3>;

}  // namespace meniscus::mpm
