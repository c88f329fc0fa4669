#pragma once
// The Hessian of the MPM incremental potential (Chen et al. 2021, Sec. 3.3) assembled for algebraic
// multigrid: the same operator as the matrix-free product of ImplicitGridSolver::hessian,
//   H' = P (H_particles + M) P + (I - P),
// P the constraint projection per node (0 for held and inactive nodes, I - n n^T on a slip
// collider, I for free nodes). Held and inactive nodes are identity rows and most of the box, so
// only the unknown nodes are assembled: a "reduced" matrix with block size Dim whose rows are the
// owned unknown nodes (numbered rank by rank), MATBAIJ for the default CG + SOR and MATAIJ for
// multigrid, so that GAMG aggregates node blocks (optionally with the rigid-body modes as near null
// space: -<prefix>near_null_space rigid). Each row holds its unknown neighbours within +-2 nodes,
// preallocated exactly once per set of unknowns; the Mat is kept while that set is unchanged (every
// Newton iteration of a step, and across steps where the set stays), and each linearisation inserts
// values only (one MatSetValuesBlocked per owned row). A rank's partial rows on ghost nodes travel to
// their owners in a fixed pattern (plan_ghost_rows), and the owner adds them to its own partial row in
// ascending source-rank order, so the matrix does not depend on message arrival: PETSc's stash, which
// this replaces, added remote rows in arrival order, and at 3+ ranks (a row with two remote partial
// sums) two identical runs differed in the last bits.
// Toward the Newton solver (which works on vectors of the owned active nodes, ImplicitGridSolver) the
// operator is a MATSHELL of that size, blockdiag(reduced, I), and the preconditioner a PCSHELL that copies the unknown rows
// into the reduced system, solves it with an inner KSP (CG + SOR, switching to CG + GAMG for the
// rest of the run after a solve of more than -<prefix>sor_max_iterations; prefix <prefix>redistribute_,
// named after the PCREDISTRIBUTE this replaced so that its options still apply) and copies back.
// The reduced matrix is built directly, so nothing is extracted per Newton iteration and GAMG sees
// the Dim x Dim node blocks (PCREDISTRIBUTE's sub-matrix had block size 1).
#include <petscdmda.h>
#include <petscksp.h>
#include <petscmat.h>

#include <vector>

#include "grid/grid_field.hpp"
#include "methods/mpm/hessian_layout.hpp"
#include "methods/mpm/incremental_potential.hpp"
#include "solvers/block_ssor_cg.hpp"

namespace meniscus::mpm {

// Per ghosted node: how the Newton solve treats it.
enum class NodeConstraint : int { Held = 0, Free = 1, Normal = 2 };

template <int Dim>
class AssembledHessian {
 public:
  // dm: the solver's DMDA (Dim dofs per node); gbox/obox: its ghosted and owned node boxes.
  AssembledHessian(DM dm, const grid::NodeBox<Dim>& gbox, const grid::NodeBox<Dim>& obox, const double* lower,
                   double dx, const char* options_prefix);
  ~AssembledHessian();
  AssembledHessian(const AssembledHessian&) = delete;
  AssembledHessian& operator=(const AssembledHessian&) = delete;

  // The Newton vectors' layout for this step: compact_of maps each owned node to its entry (-1: none)
  // among `active` entries per rank. Recreates the operator when the size changes.
  void set_active(Kokkos::View<const int*> compact_of, long active);
  // constraint (ghost-local, a NodeConstraint) and normal (ghost-local x Dim, used where Normal).
  // Rebuilds pattern and matrix when the unknowns differ from the last call on any rank. Collective.
  // global_scratch and local_scratch: a global and a local vector of the DM, overwritten (the ghost
  // exchange of the unknowns' numbers borrows them rather than keeping two box-sized vectors in the
  // DM's pool for the rest of the run).
  void prepare(Kokkos::View<const int*> constraint, Kokkos::View<const double**, Kokkos::LayoutRight> normal,
               Vec global_scratch, Vec local_scratch);
  // Assembles the values at the potential's last linearisation; active_mass: the kinetic node mass
  // on the active nodes (set_active; the inertia term). Collective.
  void assemble(const IncrementalPotential<Dim>& potential, Kokkos::View<const double*> active_mass);
  // The operator on the active nodes, blockdiag(reduced, I) (a MATSHELL; valid after the first prepare()).
  Mat mat() const { return shell_; }
  Mat reduced() const { return mat_; }
  long pattern_builds() const { return builds_; }
  // The automatic choice's switch from SOR to GAMG (multigrid() below says whether it happened), also
  // for a run restarted from a checkpoint written after it (so that it solves as the straight run does).
  void switch_to_multigrid() {
    if (!automatic_ || multigrid_) return;
    multigrid_ = true;
    reset_inner_ = true;
    retype_ = blocked_;
  }
  // The inner KSP of the reduced system (CG + SOR or GAMG: configure_pc), configured with the Newton
  // options' tolerance; then the options database (prefix <prefix>redistribute_).
  void configure_inner(double rtol, int max_iterations);
  void configure_pc(PC pc);  // SOR or GAMG (the automatic choice), then the options database
  bool multigrid() const { return multigrid_; }
  // The next solve sets the preconditioner up afresh even when -<prefix>reuse_preconditioner keeps
  // it between linearisations (called at the start of each step's Newton solve).
  void refresh_preconditioner();
  KSP inner_ksp() const { return inner_; }
  // The last solve's CG iterations and converged reason (the inner KSP's).
  PetscInt last_iterations() const { return last_iterations_; }
  KSPConvergedReason last_reason() const { return last_reason_; }
  // Turns `pc` (of the Newton KSP, which should be PREONLY) into the reduced solve.
  void make_preconditioner(PC pc);

  // Public only because they launch device lambdas, which nvcc rejects in private members, or are
  // called from PETSc's C callbacks.
  void build_pattern();
  void create_matrix();
  void number_unknowns(Vec global, Vec local);
  void to_reduced(Vec full, Vec reduced) const;
  void from_reduced(Vec reduced, Vec full) const;  // unknown rows only
  void product(Vec x, Vec y);                      // y = blockdiag(reduced, I) x
  void solve(Vec b, Vec x);                        // x = blockdiag(inner KSP, I) b
  void inner_solve(Vec b);                         // rx_ = inner KSP (reduced b)
  void diagonal(Vec d);

 private:
  void release_matrix();           // frees the matrix, its values and the inner KSP's hold on them
  void plan_ghost_rows();          // who sends which partial rows where (once per pattern)
  void add_ghost_rows(double* values);  // every owned row += the remote partial rows, ascending rank

  // A source rank's partial rows as they arrive: the sender's rows in its order, each a Dim x
  // (count x Dim) block row, and where each of its blocks lies in our row.
  struct Incoming {
    std::vector<int> row;    // per sender row: our row
    std::vector<int> count;  // per sender row: its entries (blocks)
    std::vector<int> entry;  // per sender block: its entry index within our row
  };

  DM dm_;
  grid::NodeBox<Dim> gbox_, obox_;
  double lower_[Dim] = {}, dx_ = 0;
  std::string prefix_;
  Mat mat_ = nullptr;    // the reduced matrix (owned unknown nodes x Dim rows)
  Mat shell_ = nullptr;  // blockdiag(mat_, I) on the active nodes
  KSP inner_ = nullptr;
  bool reset_inner_ = false;  // the reduced matrix was recreated since the inner KSP's last set-up
  bool reuse_preconditioner_ = false;  // -<prefix>reuse_preconditioner
  bool automatic_ = true;   // no -<prefix>redistribute_pc_type: SOR, switching to GAMG (configure_pc)
  bool multigrid_ = false;  // the automatic choice has switched to GAMG (for the rest of the run)
  int sor_max_iterations_ = 60;  // -<prefix>sor_max_iterations: a longer SOR solve switches
  bool refresh_ = true;                // the next solve sets the preconditioner up (a new step)
  bool blocked_ = false;  // MATBAIJ (create_matrix says when), else MATAIJ
  bool retype_ = false;   // the next assembly recreates the matrix (BAIJ -> AIJ for multigrid)
  Vec rb_ = nullptr, rx_ = nullptr;
  // CG + SOR with PETSc's defaults on BAIJ runs as the KSP type KSPMENISCUSSSORCG (solvers/
  // block_ssor_cg.hpp: the same iteration, a third of the matrix traffic) unless
  // -<prefix>fused_ssor_cg false or -<prefix>redistribute_ksp_type chooses another (choose_ksp_type).
  void choose_ksp_type();
  bool fused_option_ = true;        // -<prefix>fused_ssor_cg
  bool explicit_ksp_type_ = false;  // -<prefix>redistribute_ksp_type given
  PetscInt last_iterations_ = 0;
  KSPConvergedReason last_reason_ = KSP_CONVERGED_ITERATING;
  Kokkos::View<PetscInt*> reduced_index_;            // ghost node -> global reduced node, -1 if held
  Kokkos::View<long*> owned_unknown_;                // reduced local node -> owned node index
  Kokkos::View<const int*> compact_of_;              // owned node -> active node (set_active)
  Kokkos::View<long*> unknown_active_;               // reduced local node -> active node
  HessianLayout<Dim> layout_;
  Kokkos::View<int*> constraint_;                    // the last call's constraints
  Kokkos::View<double**, Kokkos::LayoutRight> normal_;
  Kokkos::View<PetscInt*> cols_;                     // entries: ghost-local column node
  Kokkos::View<PetscInt*> block_cols_;               // entries: global reduced column node
  Kokkos::View<PetscInt*> row_node_;                 // rows: ghost-local node
  Kokkos::View<double*> values_;                     // the layout's blocks, row by row (inside assemble())
  long rows_ = 0, entries_ = 0, builds_ = 0, owned_unknowns_ = 0, first_unknown_ = 0;
  std::vector<int> owned_rows_;                      // rows on owned nodes, ascending
  std::vector<int> send_ranks_, recv_ranks_;         // ascending
  std::vector<std::vector<int>> send_rows_;          // per send rank: our rows on nodes it owns
  std::vector<Incoming> incoming_;                   // per receive rank
  std::vector<std::vector<double>> send_values_, recv_values_;
};

}  // namespace meniscus::mpm
