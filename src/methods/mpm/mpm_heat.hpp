#pragma once
// The implicit heat solve of the MPM method (Chen et al. 2021, Sec. 4.3.2, with the extra factor h of
// the source term dropped): with nodal heat capacity C_i = sum_q N_i(x_q) m_q c_p over the interior
// particles and, while surface samples exist, their surface and balance particles with split masses,
//   (C/dt + K^cond + R^h) T^{n+1} = C T^n / dt + f^h + f^H,
//   K^cond_ij = sum_p K_p V_p^n grad N_i(x_p) . grad N_j(x_p),  R^h_ij = sum_r h |dA_r| N_i(y_r) N_j(y_r),
//   f^h_i = sum_r N_i(y_r) (h T-bar + b) |dA_r|,                f^H_i = sum_p N_i(x_p) H_p V_p^n,
// where y_r is sample s_r moved along its normal onto the material boundary (the paper uses s_r, half a
// cell outside; see boundary_point in mpm_heat.cpp).
// C T^n is the affine P2G of m c_p T: node i sees T_p + grad T_p . (x_i - x_p), the APIC idea applied to
// the scalar; a sample or balance particle q carries its parent's affine field the same way. A split
// parent's conduction volume is shared over its group like its mass (so the nodes only the samples reach
// are coupled to the interior). The matrix is assembled (PETSc COO into MATAIJ with a fixed pattern, each
// ghosted node and its 5^Dim neighbours; PETSc sums the rows other ranks contribute) and symmetric positive
// definite, since every node with an entry has capacity; CG + GAMG under the options prefix -mpm_heat_.
// Nodes that only B-spline tails reach (filled fraction below 1e-4) are taken out of the system, which keeps
// GAMG's smoothers definite; their conduction couplings go to their neighbours' diagonals and the boundary
// and source heat to the coupled nodes (for_each_coupled_node), so that the conservative transfer's energy
// balance stays exact (mpm_heat.cpp, mark_weak_nodes). G2P: T_p = sum N_i(x_p) T_i and grad T_p = sum T_i grad N_i(x_p)
// (paper), or with thermal_transfer: conservative the split parent's T is the mass-weighted mean over its
// group, which conserves sum m c_p T exactly when h = b = H = 0 (the columns of K^cond sum to zero).
#include <petscdmda.h>
#include <petscksp.h>

#include <Kokkos_Core.hpp>
#include <vector>

#include "grid/decomposition.hpp"
#include "grid/grid_field.hpp"
#include "methods/mpm/mpm_heat_deck.hpp"
#include "particles/particle_set.hpp"
#include "physics/collider.hpp"
#include "physics/thermal/thermal_properties.hpp"
#include "grid/stencil_loop.hpp"

namespace meniscus::mpm {

// The boundary and source quadrature restricted to the nodes that stay in the heat system. Chen et al.
// 2021 (Sec. 4.3.2) spread a sample's heat (h T-bar + b) |dA_r| over the nodes with N_i(s_r), and a
// particle's source with N_i(x_p); those weights sum to one, so the heat enters the grid whole. The weak
// nodes (filled fraction below the floor, mpm_heat.cpp, mark_weak_nodes) leave the system with their T^n,
// and the part of that heat they would take would be lost (about 5e-5 of the heat taken in on the 3D candle
// letters). Every boundary and source point therefore uses the partition of unity of the coupled nodes
// instead, N_i / sum_{k coupled} N_k, for its forcing, its Robin matrix entries and the temperature it sees
// in the boundary power: the forcing still sums to the point's heat, the Robin part h N N^T stays symmetric
// and keeps a uniform T-bar a solution, and the energy balance of the conservative transfer becomes exact
// (up to CG's tolerance). The weights moved are those of the B-spline tails (weak nodes hold about 4e-9 of
// the boundary forcing on the 3D Robin sphere), so the quadrature differs from the paper's at that order.
// f(idx, w) for each coupled node of y's stencil with its renormalised weight; returns the sum of the
// plain weights of the coupled nodes (0: every node of the stencil is weak, and f is not called).
template <int Dim, class F>
KOKKOS_INLINE_FUNCTION double for_each_coupled_node(const grid::Stencil<Dim>& st, const grid::NodeBox<Dim>& box,
                                                    const double* lower, double dx, const double* y,
                                                    const Kokkos::View<int*>& weak, F&& f) {
  double z = 0;
  grid::for_each_stencil_node<Dim>(st, box, lower, dx, y, [&](long idx, double w, const double*, const double*) {
    if (!weak(idx)) z += w;
  });
  if (z <= 0) return 0;
  const double scale = 1.0 / z;
  grid::for_each_stencil_node<Dim>(st, box, lower, dx, y, [&](long idx, double w, const double*, const double*) {
    if (!weak(idx)) f(idx, w * scale);
  });
  return z;
}

struct HeatStats {
  int iterations = 0;
  int reason = 0;
  long unknowns = 0;
  double boundary_measure = 0;  // sum of the samples' boundary measures dA_r over all ranks (mpm_heat_boundary.cpp)
  // The heat per second the surface takes in over this step, over all ranks: sum_r (b_r + h (T-bar -
  // T^{n+1}(y_r))) dA_r, the flux and Robin terms of the solve at the new nodal temperatures (backward
  // Euler). With K^cond's columns summing to zero, sum m c_p T changes by dt times this (plus the source H)
  // under the conservative transfer: the energy balance the candle-letters test checks.
  double boundary_power = 0;
  int preconditioner_fallbacks = 0;  // times in this run GAMG was replaced by Jacobi (indefinite preconditioner)
  long weak_nodes = 0;  // nodes with capacity taken out of the system (filled fraction below the floor)
  // Samples whose boundary point's stencil holds no coupled node (every node weak): their heat is not taken in
  // (for_each_coupled_node); not seen in the measured scenes.
  long uncoupled_samples = 0;
  bool jacobi = false;       // this solve used CG + Jacobi (the automatic choice, or -mpm_heat_pc_type jacobi)
  double conduction_ratio = 0;  // max over the unknowns of (A_ii - C_i/dt) / (C_i/dt) (choose_preconditioner)
  long nonzeros = 0;         // stored entries of the matrix (free nodes and their couplings, plus diagonals)
  long pattern_rows = 0;     // this rank's ghosted nodes with coupling slots (the pattern's rows, create_matrix)
  int pattern_builds = 0;    // times in this run the matrix's pattern was built (the set of free nodes changed)
  // Wall seconds of this solve's parts on this rank: boundary quadrature, P2G and matrix assembly (with
  // MatSetValuesCOO); the preconditioner set-up (KSPSetUp: GAMG's aggregation, Galerkin products and
  // smoother eigenvalue estimates); the CG iterations; G2P.
  double assemble_s = 0, setup_s = 0, ksp_s = 0, gather_s = 0;
};

template <int Dim>
class HeatSolver {
 public:
  HeatSolver(const grid::Decomposition<Dim>& decomp, const HeatOptions& options,
             const std::vector<physics::ThermalProperties>& materials);
  ~HeatSolver();
  HeatSolver(const HeatSolver&) = delete;
  HeatSolver& operator=(const HeatSolver&) = delete;

  struct Particles {
    particles::RealField x, mass, volume, J, T, gradT;
    particles::IntField material;
    size_t size = 0;
  };
  // The surface samples of this step; empty views when surface tension is off.
  struct Samples {
    Kokkos::View<double**, Kokkos::LayoutRight> position, area;
    particles::IndexList parent;
    Kokkos::View<int*> group;  // samples per parent
    Kokkos::View<int*> group_start, group_members;  // each parent's sample rows, ascending (sample_groups)
    bool active = false;
    size_t size = 0;
  };

  // Thermal boundary state of the coming solve: the time t^n (flux region, heating start) and the colliders
  // where they are at t^n with their temperatures (temperature[c] < 0: insulated). Grid nodes inside a
  // collider with a temperature are Dirichlet unknowns, eliminated symmetrically (their columns move to the
  // right-hand side), so the matrix stays SPD.
  void set_boundary(double time, const physics::ColliderSet<Dim>& colliders, const std::vector<double>& temperature);
  // The centres of a wick-tip flux region (the wicks' tips at t^n), at most FluxRegion::kMaxTips.
  void set_flux_tips(int count, const double (*tips)[3]) {
    options_.flux.tip_count = count;
    for (int k = 0; k < count; ++k)
      for (int d = 0; d < 3; ++d) options_.flux.tips[k][d] = tips[k][d];
  }

  // One backward-Euler step of the heat equation at the particles' current positions (x^n); writes
  // T and grad T of every particle. Collective. Throws RuntimeError if CG does not converge.
  HeatStats solve(double dt, const Particles& p, const Samples& s);
  const HeatOptions& options() const { return options_; }
  Kokkos::View<physics::ThermalProperties*> thermal_materials() const { return materials_; }

  // Stages, public only because they hold device lambdas (CUDA refuses them in private members).
  void boundary_quadrature(const Particles& p, const Samples& s);  // mpm_heat_boundary.cpp
  void scatter(double dt, const Particles& p, const Samples& s);
  long scatter_forcing(const Particles& p, const Samples& s);
  void assemble(double dt, const Particles& p, const Samples& s);
  void accumulate_entries(const Particles& p, const Samples& s);  // mpm_heat_assembly.cpp
  void gather(const Particles& p, const Samples& s);
  double boundary_power(const Samples& s, Kokkos::View<const double*> nodal_T) const;
  void mark_fixed_nodes();
  void eliminate_fixed_nodes();
  void mark_weak_nodes();
  void decouple_weak_nodes();
  bool pattern_outdated();
  void create_matrix();
  void compact_values();
  double conduction_ratio(double dt);

 private:
  void choose_preconditioner(double ratio);

  const grid::Decomposition<Dim>& decomp_;
  HeatOptions options_;
  Kokkos::View<physics::ThermalProperties*> materials_;
  bool any_source_ = false;  // a material with a volumetric heat source H
  grid::NodeBox<Dim> gbox_{}, obox_{};
  // Nodal P2G sums per node: capacity C_i, C T^n, forcing, and the filled fraction phi_i = sum N_i V_p / dx^Dim.
  static constexpr int kNodalDofs = 4;
  DM dm1_ = nullptr, dm_nodal_ = nullptr;  // 1 dof (T), kNodalDofs dofs
  Vec rhs_nodal_ = nullptr, local_nodal_ = nullptr, T_ = nullptr, b_ = nullptr, localT_ = nullptr;
  // The matrix over every owned node, but with off-diagonal entries only between nodes the material reaches
  // within two of each other on each axis; every other row is the identity. Its COO pattern is rebuilt only
  // when a free node (capacity, neither weak nor fixed) lies outside it (pattern_outdated).
  Mat A_ = nullptr;
  // The rows of A_'s pattern (the nodes reached when it was built, create_matrix): row_ maps a ghosted node
  // to its place among them (-1 outside the pattern), row_node_ back. values_ holds 5^Dim slots for each
  // pattern row, accumulated each step. Every other row is the identity (a weak or fixed node: its owner's
  // diagonal 1), so it needs no slots: dense slots over the whole ghost box took 1 kB per node (2.1 GB on
  // the candle at dx = 1/127, a box the wax fills 2.4 % of).
  Kokkos::View<int*> row_;
  Kokkos::View<long*> row_node_;
  Kokkos::View<double*> values_;
  Kokkos::View<long*> entry_;  // COO entry -> its slot in values_, or -1: the constant 1 of an identity row
  Kokkos::View<double*> coo_values_;
  // Ghosted node -> 1 if free, if reached (filled fraction above 0, not fixed).
  Kokkos::View<int*> free_, reached_;
  long nonzeros_ = 0;
  int pattern_builds_ = 0;
  KSP ksp_ = nullptr;
  int preconditioner_fallbacks_ = 0;
  // Preconditioner: automatic unless -mpm_heat_pc_type is given. CG + Jacobi while the capacity dominates the
  // conduction (conduction_ratio at most jacobi_max_ratio_), CG + GAMG otherwise (choose_preconditioner).
  bool auto_pc_ = true, jacobi_ = false, pc_chosen_ = false;
  double jacobi_max_ratio_ = 20;
  Kokkos::View<PetscInt*> global_index_;  // ghosted node -> PETSc global row
  Kokkos::View<double**, Kokkos::LayoutRight> owned_;          // owned nodes: the kNodalDofs sums (after the rank sum)
  // Weak nodes (mark_weak_nodes): filled fraction phi_i below weak_fraction_ and not fixed. They leave the
  // system: identity row, T_i = T_i^n, and their couplings go to the diagonal of the node they couple to.
  double weak_fraction_ = 1e-4;
  Kokkos::View<int*> weak_;  // ghosted node -> 1 if weak
  long weak_count_ = 0;      // weak nodes with capacity (owned, summed over the ranks)
  // Collider temperatures.
  double time_ = 0;
  physics::ColliderSet<Dim> colliders_{};
  double collider_T_[physics::ColliderSet<Dim>::kMax] = {};
  bool any_fixed_ = false;
  Kokkos::View<double*> fixed_;  // ghosted node -> prescribed T, or -1
  Kokkos::View<double*> lift_;   // ghosted node -> sum_j A_ij T_j over its fixed neighbours j (this rank's part)
  Vec lift_local_ = nullptr, lift_global_ = nullptr;
  // Boundary quadrature of this step's samples (mpm_heat_boundary.cpp): the point y_r and the measure
  // dA_r where the Robin and flux terms are integrated; the nodal sample moments it sums over the ranks.
  Kokkos::View<double**, Kokkos::LayoutRight> boundary_y_;
  Kokkos::View<double*> boundary_dA_;
  double power_ = 0;  // boundary_power at the last gather, this rank's samples
  DM dm_shape_ = nullptr;
  Vec shape_global_ = nullptr, shape_local_ = nullptr;
};

// Sums every rank's ghosted node values (a contiguous host copy of `ghosted`, in the DMDA's local
// ordering) into their owners' rows of `global`; `local` is the DMDA's local vector used as staging.
void sum_ghosted_into_owners(DM dm, Kokkos::View<const double*> ghosted, Vec local, Vec global, const char* what);

}  // namespace meniscus::mpm
