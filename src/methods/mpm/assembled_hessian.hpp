#pragma once
// The Hessian of the MPM incremental potential (Chen et al. 2021, Sec. 3.3) as an assembled PETSc
// MATAIJ with block size Dim on the MPM DMDA, for algebraic multigrid: the same operator as the
// matrix-free product of ImplicitGridSolver::hessian,
//   H' = P (H_particles + M) P + (I - P),
// P the constraint projection per node (0 for held and inactive nodes, I - n n^T on a slip
// collider, I for free nodes). Held and inactive nodes are identity rows. Only the unknowns' rows
// carry off-diagonal blocks: their unknown neighbours within +-2 nodes, given to PETSc once as a COO
// pattern (MatSetPreallocationCOOLocal); the pattern (and the Mat) is kept while the set of unknowns
// is unchanged (every Newton iteration of a step, and across steps where the set stays), and each
// linearisation hands over values only (one MatSetValuesCOO).
#include <petscdmda.h>
#include <petscmat.h>

#include "grid/grid_field.hpp"
#include "methods/mpm/hessian_layout.hpp"
#include "methods/mpm/incremental_potential.hpp"

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

  // constraint (ghost-local, a NodeConstraint) and normal (ghost-local x Dim, used where Normal).
  // Rebuilds pattern and matrix when the unknowns differ from the last call on any rank. Collective.
  void prepare(Kokkos::View<const int*> constraint, Kokkos::View<const double**, Kokkos::LayoutRight> normal);
  // Assembles the values at the potential's last linearisation; owned_mass: the kinetic node mass
  // on owned nodes (the inertia term). Collective.
  void assemble(const IncrementalPotential<Dim>& potential, Kokkos::View<const double*> owned_mass);
  Mat mat() const { return mat_; }
  long pattern_builds() const { return builds_; }

  // Public only because they launch device lambdas, which nvcc rejects in private members.
  void build_pattern();
  void create_matrix();

 private:

  DM dm_;
  grid::NodeBox<Dim> gbox_, obox_;
  std::string prefix_;
  Mat mat_ = nullptr;
  MatNullSpace rigid_ = nullptr;
  HessianLayout<Dim> layout_;
  Kokkos::View<int*> constraint_;                    // the last call's constraints
  Kokkos::View<double**, Kokkos::LayoutRight> normal_;
  Kokkos::View<PetscInt*> cols_;                     // entries: ghost-local column node
  Kokkos::View<PetscInt*> row_node_;                 // rows: ghost-local node
  Kokkos::View<double*> values_;                     // COO order: the layout's blocks, then identities
  Kokkos::View<double*> blocks_;                     // the blocks' part of values_
  HessianScatter scatter_;                           // sums into blocks_ (allocated with the pattern)
  long rows_ = 0, entries_ = 0, builds_ = 0;
};

}  // namespace meniscus::mpm
