#pragma once
// Backward-Euler grid velocity update of MPM (Chen et al. 2021, Sec. 4.3.1): minimises the incremental potential
//   Phi(v) = sum_i m_i/2 |v_i - v_i^n|^2 - dt m_i g.v_i + E(v)     (E: incremental_potential.hpp)
// over the active nodes (m_i > 0) with solvers::NewtonMinimizer. The Newton vectors (iterate, gradient,
// direction, line-search trial, Krylov work) hold this rank's owned active nodes only, listed once per
// step (a compact index <-> grid node map): the ghosted box the particle kernels read and write is
// ~100x larger than the set of nodes with mass in a droplet scene, and every vector operation, node
// term and first touch of a box-sized vector cost in proportion to it. The Hessian is assembled
// (assembled_hessian.hpp: MATAIJ, CG + algebraic multigrid by default) or a MATSHELL whose product is
// a particle kernel (mpm.newton.hessian: matrix_free, CG + Jacobi). Massless nodes are no entries and
// stay at zero. Colliders:
// sticky nodes are fixed at the collider velocity; slip and friction nodes whose predicted velocity
// approaches the collider are constrained to its normal velocity (projection P = I - n n^T); after
// the solve every node goes through the same collider rule as the explicit update (separation,
// Coulomb friction), so explicit and implicit runs see the same boundaries.
#include <memory>

#include "grid/decomposition.hpp"
#include "grid/grid_field.hpp"
#include "methods/mpm/assembled_hessian.hpp"
#include "methods/mpm/incremental_potential.hpp"
#include "physics/collider.hpp"
#include "solvers/newton_minimizer.hpp"

namespace meniscus::mpm {

struct ImplicitStats {
  int newton_iterations = 0;
  long linear_iterations = 0;
  double residual = 0;
  long light_nodes = 0;  // nodes held at v^n (mpm.newton.light_node_fraction), all ranks
  int hold_passes = 0;    // Newton solves of the contact-line hold's active-set loop (0: no hold)
  long hold_released = 0;  // held contact-line nodes released at the end (all ranks)
};

template <int Dim>
class ImplicitGridSolver {
 public:
  ImplicitGridSolver(const grid::Decomposition<Dim>& decomp, const solvers::NewtonOptions& options);
  ~ImplicitGridSolver();
  ImplicitGridSolver(const ImplicitGridSolver&) = delete;
  ImplicitGridSolver& operator=(const ImplicitGridSolver&) = delete;

  // Reads the P2G result (mass, momentum on owned nodes of `grid`), sets up the active set,
  // constraints and the initial guess v^n + dt g. Collective.
  void setup(grid::GridField<Dim>& grid, const physics::ColliderSet<Dim>& colliders, const double* gravity,
             double dt);
  // Minimises Phi; throws StepRejected when Newton fails. Then writes v into the grid's velocity
  // components (owned and ghosts) after the collider rule. Collective.
  ImplicitStats solve(IncrementalPotential<Dim>& potential, grid::GridField<Dim>& grid);

  // For derivative checks (collective), on vectors of velocity()'s layout (the active nodes): Phi, its
  // gradient (projected when asked) and the product P H P + (I - P) at the last linearisation.
  double energy(IncrementalPotential<Dim>& potential, Vec v);
  void gradient(IncrementalPotential<Dim>& potential, Vec v, Vec g, bool project);
  void hessian(IncrementalPotential<Dim>& potential, Vec d, Vec out);
  void linearize(IncrementalPotential<Dim>& potential, Vec v, bool project = true);
  // Zeroes inactive and constrained components.
  void project(Vec v);
  Vec velocity() const { return v_; }  // the current iterate (initial guess after setup), active nodes
  long active_nodes() const { return static_cast<long>(active_.extent(0)); }  // this rank's owned, at the last setup
  // Nodes lighter than `fraction` of the heaviest node (global) keep their P2G velocity v^n and are
  // no unknowns (0: every node with mass is one). See docs/theory-mpm-implicit.md.
  void set_light_node_fraction(double fraction) { light_fraction_ = fraction; }
  // Free nodes lighter than `fraction` of the heaviest take that mass in the kinetic term of Phi
  // (0: off); the momentum this adds is removed again by the same uniform shift.
  void set_kinetic_mass_floor(double fraction) { floor_fraction_ = fraction; }
  long light_node_count() const { return light_count_; }  // frozen at the last setup (all ranks)
  // The contact-line hold inside the solve (mpm.surface_tension.hold_mode in_solve; wetting_adhesion.hpp): the
  // grid carries each node's hold limit cap_i (a force) in column 1 + Dim, and the solve minimises
  // Phi(v) + sum_i dt cap_i (v_i - v_c).n_i subject to (v_i - v_c).n_i >= 0 on the held nodes of wetting walls
  // (docs/theory-mpm-implicit.md, "The contact-line hold").
  void set_contact_line_hold(bool on) { line_hold_ = on; }
  // Assembled Hessian + algebraic multigrid (default) or the matrix-free product + Jacobi.
  void set_assembled_hessian(bool on) { assembled_ = on; }
  bool assembled_hessian() const { return assembled_; }
  // The assembled Hessian at the last linearize() (same operator as hessian()). Collective.
  Mat assemble_hessian(IncrementalPotential<Dim>& potential);
  long pattern_builds() const { return matrix_ ? matrix_->pattern_builds() : 0; }
  // The assembled Hessian's SOR -> GAMG switch (AssembledHessian::multigrid), kept in checkpoints; a
  // restored switch applies to the matrix made at the next setup.
  bool multigrid() const { return matrix_ ? matrix_->multigrid() : start_multigrid_; }
  void restore_multigrid(bool on) {
    start_multigrid_ = on;
    if (matrix_ && on) matrix_->switch_to_multigrid();
  }
  // Ghost-local constraints and normals for the assembly (public: it launches device lambdas).
  void gather_ghost_constraints();

 private:
  // Active-node vector <-> the ghosted local box of the particle kernels: load() writes the velocities
  // into in_local_ (zero on massless nodes, owners' values on ghosts); store() sums out_local_'s
  // partial rows on their owners and gathers them into an active-node vector.
  void load(Vec compact);
  void store(Vec compact);
  void resize(long active);  // the active-node vectors and node arrays for `active` nodes

 public:  // launch device lambdas: CUDA rejects those in private members (not part of the interface)
  long list_active_nodes(const grid::NodeArray& a);
  double node_energy(Vec v);
  void treat_light_nodes();
  void choose_initial_guess(IncrementalPotential<Dim>& potential);
  void restore_momentum(IncrementalPotential<Dim>& potential);
  long update_hold_set(IncrementalPotential<Dim>& potential, bool apply, double tolerance);

 private:

  const grid::Decomposition<Dim>& decomp_;
  solvers::NewtonOptions options_;
  DM dm_ = nullptr;  // the MPM DMDA with Dim dofs per node
  Vec v_ = nullptr, work_ = nullptr;                // active nodes (Newton's layout)
  Vec box_ = nullptr, in_local_ = nullptr, out_local_ = nullptr;  // owned box (staging), ghosted box
  // One rank without periodic ghosts: the ghosted box is the owned box and load()/store() copy
  // straight between the active-node vectors and the local arrays (no box-wide ghost exchange).
  bool direct_ = false;
  bool box_clean_ = false, in_clean_ = false;  // box_ / in_local_ zero on every massless node
  Kokkos::View<long*> active_;     // active node -> owned node index
  Kokkos::View<int*> compact_of_;  // owned node -> active node, -1 when massless
  std::unique_ptr<solvers::NewtonMinimizer> newton_;
  // Active nodes: mass, v^n, constraint (1 free, 2 normal fixed, 3 all fixed, 4/5 light), normal,
  // prescribed velocity.
  Kokkos::View<double*> mass_;
  Kokkos::View<double**, Kokkos::LayoutRight> vn_, normal_, vfix_;
  Kokkos::View<int*> kind_;
  double dt_ = 0, gravity_[Dim] = {};
  double light_fraction_ = 0, floor_fraction_ = 0;
  Kokkos::View<double*> real_mass_;  // P2G mass (mass_ is the kinetic mass, floored)
  bool line_hold_ = false;
  Kokkos::View<double*> hold_;  // dt cap_i on the contact-line hold's nodes (normal_, vfix_ their wall), else 0
  Kokkos::View<int*> released_;  // owned nodes: 1 where the last solve ended with the node released (the next start)
  long light_count_ = 0;
  physics::ColliderSet<Dim> colliders_;
  bool assembled_ = true;
  std::unique_ptr<AssembledHessian<Dim>> matrix_;
  bool start_multigrid_ = false;
  grid::NodeBox<Dim> gbox_{}, obox_{};
  bool constraints_ready_ = false;  // ghost constraints gathered since the last setup
  Kokkos::View<int*> ghost_constraint_;
  Kokkos::View<double**, Kokkos::LayoutRight> ghost_normal_;
};

}  // namespace meniscus::mpm
