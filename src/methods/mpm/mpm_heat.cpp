#include "methods/mpm/mpm_heat.hpp"

#include <Kokkos_ScatterView.hpp>
#include <chrono>
#include <algorithm>
#include <cstring>

#include "core/error.hpp"
#include "core/log.hpp"
#include "grid/bspline.hpp"
#include "grid/stencil_loop.hpp"
#include "solvers/petsc_check.hpp"
#include "solvers/reproducible_products.hpp"
#include <string>

namespace meniscus::mpm {

using solvers::petsc_check;

namespace {

// Node `slot` of the 5^Dim box around node ijk (the reach of a pair of quadratic stencils, one matrix
// row's pattern), and whether it lies in the ghost box.
template <int Dim>
KOKKOS_INLINE_FUNCTION bool pair_neighbour(const grid::NodeBox<Dim>& box, const int* ijk, int slot, int* nb) {
  bool inside = true;
  for (int d = 0; d < Dim; ++d) {
    nb[d] = ijk[d] + slot % 5 - 2;
    slot /= 5;
    inside = inside && nb[d] >= box.lo[d] && nb[d] < box.lo[d] + box.n[d];
  }
  return inside;
}
template <int Dim>
grid::NodeBox<Dim> box_of(const std::array<int, Dim>& lo, const std::array<int, Dim>& hi) {
  grid::NodeBox<Dim> b;
  for (int d = 0; d < Dim; ++d) {
    b.lo[d] = lo[d];
    b.n[d] = hi[d] - lo[d];
  }
  return b;
}

}  // namespace

template <int Dim>
HeatSolver<Dim>::HeatSolver(const grid::Decomposition<Dim>& decomp, const HeatOptions& options,
                            const std::vector<physics::ThermalProperties>& materials)
    : decomp_(decomp), options_(options) {
  materials_ = Kokkos::View<physics::ThermalProperties*>("thermal_materials", materials.size());
  auto h = Kokkos::create_mirror_view(materials_);
  for (size_t i = 0; i < materials.size(); ++i) {
    h(i) = materials[i];
    any_source_ = any_source_ || materials[i].heat_source != 0;
  }
  Kokkos::deep_copy(materials_, h);
  gbox_ = box_of<Dim>(decomp.ghost_lo(), decomp.ghost_hi());
  obox_ = box_of<Dim>(decomp.owned_lo(), decomp.owned_hi());
  // Same ownership and ghost width as the MPM grid, so every particle and sample stencil is local.
  petsc_check(DMDACreateCompatibleDMDA(decomp.dm(), 1, &dm1_), "DMDACreateCompatibleDMDA(heat, 1)");
  petsc_check(DMDACreateCompatibleDMDA(decomp.dm(), kNodalDofs, &dm_nodal_), "DMDACreateCompatibleDMDA(heat, nodal)");
  petsc_check(DMCreateGlobalVector(dm_nodal_, &rhs_nodal_), "DMCreateGlobalVector(heat)");
  petsc_check(DMCreateLocalVector(dm_nodal_, &local_nodal_), "DMCreateLocalVector(heat)");
  petsc_check(DMCreateGlobalVector(dm1_, &T_), "DMCreateGlobalVector(heat T)");
  petsc_check(VecDuplicate(T_, &b_), "VecDuplicate(heat)");
  petsc_check(DMCreateLocalVector(dm1_, &localT_), "DMCreateLocalVector(heat T)");
  ISLocalToGlobalMapping ltog;
  petsc_check(DMGetLocalToGlobalMapping(dm1_, &ltog), "DMGetLocalToGlobalMapping(heat)");
  const PetscInt* idx = nullptr;
  PetscInt n = 0;
  petsc_check(ISLocalToGlobalMappingGetSize(ltog, &n), "ISLocalToGlobalMappingGetSize");
  if (n != gbox_.size()) throw RuntimeError("heat solve: ghosted DMDA size differs from the MPM ghost box");
  petsc_check(ISLocalToGlobalMappingGetIndices(ltog, &idx), "ISLocalToGlobalMappingGetIndices");
  global_index_ = Kokkos::View<PetscInt*>("heat_global_index", n);
  auto gh = Kokkos::create_mirror_view(global_index_);
  for (PetscInt i = 0; i < n; ++i) gh(i) = idx[i];
  Kokkos::deep_copy(global_index_, gh);
  petsc_check(ISLocalToGlobalMappingRestoreIndices(ltog, &idx), "ISLocalToGlobalMappingRestoreIndices");
  owned_ = Kokkos::View<double**, Kokkos::LayoutRight>("heat_owned", obox_.size(), kNodalDofs);

  petsc_check(KSPCreate(decomp.comm(), &ksp_), "KSPCreate(heat)");
  petsc_check(KSPSetOptionsPrefix(ksp_, "mpm_heat_"), "KSPSetOptionsPrefix(heat)");
  petsc_check(KSPSetType(ksp_, KSPCG), "KSPSetType(heat)");
  PC pc;
  petsc_check(KSPGetPC(ksp_, &pc), "KSPGetPC(heat)");
  petsc_check(PCSetType(pc, PCGAMG), "PCSetType(heat)");
  // From the second solve on, PETSc's GAMG (3.18) keeps the aggregates and prolongators of the first set-up
  // and recomputes only the Galerkin coarse operators, but its Chebyshev smoothers keep the eigenvalue
  // bounds cached from the first set-up's smoothed-aggregation estimate. The coarse operators change with
  // the particles (3D Robin sphere, dx = 1/64: the coarse level's largest eigenvalue of D^-1 A went from
  // 1.06 to 3.07 between the first two steps against a cached bound of 1.17), Chebyshev then amplifies
  // instead of smoothing and CG stops with an indefinite preconditioner (KSP reason -8). The smoothers
  // therefore estimate their bounds at every set-up (10 CG iterations per level). The second cause of that
  // failure, the nodes only B-spline tails reach, is removed from the matrix (mark_weak_nodes).
  petsc_check(PCGAMGSetUseSAEstEig(pc, PETSC_FALSE), "PCGAMGSetUseSAEstEig(heat)");
  // The absolute tolerance is far below any temperature residual, so rtol alone decides.
  petsc_check(KSPSetTolerances(ksp_, options.rtol, 1e-50, PETSC_DEFAULT, 10000), "KSPSetTolerances(heat)");
  petsc_check(KSPSetInitialGuessNonzero(ksp_, PETSC_TRUE), "KSPSetInitialGuessNonzero(heat)");
  petsc_check(KSPSetFromOptions(ksp_), "KSPSetFromOptions(heat)");
  // The weak-node floor on the filled fraction (mark_weak_nodes); 0 keeps every node with capacity.
  PetscBool set = PETSC_FALSE;
  petsc_check(PetscOptionsGetReal(nullptr, "mpm_heat_", "-weak_node_fraction", &weak_fraction_, &set),
              "PetscOptionsGetReal(-mpm_heat_weak_node_fraction)");
  // A preconditioner named in the options database is kept; otherwise choose_preconditioner picks one per solve.
  petsc_check(PetscOptionsHasName(nullptr, "mpm_heat_", "-pc_type", &set), "PetscOptionsHasName(-mpm_heat_pc_type)");
  auto_pc_ = !set;
  petsc_check(PetscOptionsGetReal(nullptr, "mpm_heat_", "-jacobi_max_ratio", &jacobi_max_ratio_, &set),
              "PetscOptionsGetReal(-mpm_heat_jacobi_max_ratio)");
  const long ng = gbox_.size();
  weak_ = Kokkos::View<int*>("heat_weak", ng);
  free_ = Kokkos::View<int*>("heat_free", ng);
  reached_ = Kokkos::View<int*>("heat_reached", ng);
  row_ = Kokkos::View<int*>("heat_pattern_row", ng);
  Kokkos::deep_copy(row_, -1);
}

template <int Dim>
HeatSolver<Dim>::~HeatSolver() {
  if (ksp_) solvers::petsc_check_noexcept(KSPDestroy(&ksp_), "KSPDestroy");
  if (A_) solvers::petsc_check_noexcept(MatDestroy(&A_), "MatDestroy");
  for (Vec* v : {&rhs_nodal_, &local_nodal_, &T_, &b_, &localT_, &lift_local_, &lift_global_, &shape_global_, &shape_local_})
    if (*v) solvers::petsc_check_noexcept(VecDestroy(v), "VecDestroy");
  if (dm1_) solvers::petsc_check_noexcept(DMDestroy(&dm1_), "DMDestroy");
  if (dm_nodal_) solvers::petsc_check_noexcept(DMDestroy(&dm_nodal_), "DMDestroy");
  if (dm_shape_) solvers::petsc_check_noexcept(DMDestroy(&dm_shape_), "DMDestroy");
}

template <int Dim>
void HeatSolver<Dim>::set_boundary(double time, const physics::ColliderSet<Dim>& colliders,
                                   const std::vector<double>& temperature) {
  time_ = time;
  colliders_ = colliders;
  any_fixed_ = false;
  for (int c = 0; c < colliders.count; ++c) {
    collider_T_[c] = c < static_cast<int>(temperature.size()) ? temperature[c] : -1.0;
    any_fixed_ = any_fixed_ || collider_T_[c] >= 0;
  }
  if (any_fixed_ && !lift_local_) {
    petsc_check(DMCreateLocalVector(dm1_, &lift_local_), "DMCreateLocalVector(heat lift)");
    petsc_check(DMCreateGlobalVector(dm1_, &lift_global_), "DMCreateGlobalVector(heat lift)");
    fixed_ = Kokkos::View<double*>("heat_fixed_T", gbox_.size());
    lift_ = Kokkos::View<double*>("heat_lift", gbox_.size());
  }
}

// Ghosted nodes inside a collider with a temperature, or within half a cell of its surface (the same
// geometric test on every rank, so the copies of a node agree without communication); the last such
// collider in the list wins. The half cell: material resting on a plane between two node rows reaches
// the row below the plane only with the B-spline tail (weight 1/32 for a particle a quarter cell above a
// plane at a node row's height + 0.9 dx), which leaves it almost insulated; with the half cell the fixed
// row lies at most half a cell from the surface either way.
template <int Dim>
void HeatSolver<Dim>::mark_fixed_nodes() {
  const auto gbox = gbox_;
  double lower[Dim];
  for (int d = 0; d < Dim; ++d) lower[d] = decomp_.lower()[d];
  const double dx = decomp_.dx();
  const auto cs = colliders_;
  // The array travels into the kernel by value. Kokkos::Array, not a struct local to this function:
  // nvcc rejects a function-local type in the capture of an extended device lambda.
  Kokkos::Array<double, physics::ColliderSet<Dim>::kMax> temps;
  for (int c = 0; c < cs.count; ++c) temps[c] = collider_T_[c];
  auto fixed = fixed_;
  Kokkos::parallel_for(
      "heat::mark_fixed", Kokkos::RangePolicy<>(0, gbox.size()), KOKKOS_LAMBDA(const long i) {
        int ijk[Dim];
        gbox.node(i, ijk);
        double xi[Dim];
        for (int d = 0; d < Dim; ++d) xi[d] = lower[d] + ijk[d] * dx;
        double T = -1;
        for (int c = 0; c < cs.count; ++c)
          if (temps[c] >= 0 && cs.items[c].distance(xi) <= 0.5 * dx) T = temps[c];
        fixed(i) = T;
      });
}

// Symmetric elimination of the fixed nodes from the COO values: a fixed row keeps nothing (its owner puts
// 1 on the diagonal), a free row moves A_ij T_j of each fixed neighbour j into lift_i (subtracted from its
// right-hand side after the rank sum). A row outside the pattern is an identity row (weak or fixed) and
// has no lift: its right-hand side is its own T^n or prescribed T.
template <int Dim>
void HeatSolver<Dim>::eliminate_fixed_nodes() {
  constexpr int W = Dim == 2 ? 25 : 125;
  const auto gbox = gbox_;
  auto vals = values_;
  auto fixed = fixed_;
  auto lift = lift_;
  auto row = row_;
  Kokkos::parallel_for(
      "heat::eliminate_fixed", Kokkos::RangePolicy<>(0, gbox.size()), KOKKOS_LAMBDA(const long a) {
        const long r = row(a);
        lift(a) = 0;
        if (r < 0) return;
        int ijk[Dim];
        gbox.node(a, ijk);
        double l = 0;
        for (int slot = 0; slot < W; ++slot) {
          int nb[Dim];
          const bool inside = pair_neighbour<Dim>(gbox, ijk, slot, nb);
          double& v = vals(r * W + slot);
          if (fixed(a) >= 0) {
            v = 0;
          } else if (inside) {
            const double Tb = fixed(gbox.index(nb));
            if (Tb >= 0) {
              l += v * Tb;
              v = 0;
            }
          }
        }
        lift(a) = l;
      });
  sum_ghosted_into_owners(dm1_, lift_, lift_local_, lift_global_, "heat lift");
}

// Weak nodes: the nodes that the particles reach only with the tails of their quadratic B-splines. A point
// a distance 1.5 dx - e from a node along one axis gives it the weight e^2 / 2 and the gradient e / dx, so
// such a node's capacity and its own conduction entry scale as e^2 while its couplings to the nodes inside
// scale as e: its row of A is about 1/e times its diagonal. On the 3D Robin sphere at dx = 1/64 the
// filled fractions phi_i = sum_q N_i(x_q) V_q / dx^Dim reach down to 1e-18..1e-21 and rows reach 4e3..1.3e5
// times their diagonal. The system stays SPD, but these rows spoil the 10-step CG estimate of the largest
// eigenvalue of D^-1 A that the fine level's Chebyshev smoother is built on: it fell to 1.29..1.46 while the
// eigenvalue is 1.56..1.57 (the same estimate run for 60 steps), the smoother's upper target 1.1 times the
// estimate then lies below the spectrum, and at step 6 CG stopped with an indefinite preconditioner. A node
// whose phi_i is below weak_fraction_ (default 1e-4; -mpm_heat_weak_node_fraction) and that is not a
// fixed-temperature node is therefore taken out of the system (decouple_weak_nodes). With the floor the
// sphere's rows are at most 13 times their diagonal, the 10-step estimate is 1.53..1.54 against 1.55, and
// the weak nodes hold 2.6e-6 of the capacity and 4e-9 of the boundary forcing. Marked on the ghosted nodes
// from the summed fractions, so every rank agrees on every copy of a node.
template <int Dim>
void HeatSolver<Dim>::mark_weak_nodes() {
  const long ng = gbox_.size();
  petsc_check(DMGlobalToLocalBegin(dm_nodal_, rhs_nodal_, INSERT_VALUES, local_nodal_), "DMGlobalToLocalBegin(heat nodal)");
  petsc_check(DMGlobalToLocalEnd(dm_nodal_, rhs_nodal_, INSERT_VALUES, local_nodal_), "DMGlobalToLocalEnd(heat nodal)");
  Kokkos::View<double*> fill("heat_fill", ng);
  {
    const PetscScalar* a = nullptr;
    petsc_check(VecGetArrayRead(local_nodal_, &a), "VecGetArrayRead(heat nodal)");
    auto fh = Kokkos::create_mirror_view(fill);
    for (long i = 0; i < ng; ++i) fh(i) = a[i * kNodalDofs + 3];
    petsc_check(VecRestoreArrayRead(local_nodal_, &a), "VecRestoreArrayRead(heat nodal)");
    Kokkos::deep_copy(fill, fh);
  }
  const bool any_fixed = any_fixed_;
  auto fixed = fixed_;
  auto weak = weak_;
  auto free = free_;
  auto reached = reached_;
  const double floor = weak_fraction_;
  Kokkos::parallel_for(
      "heat::mark_weak", Kokkos::RangePolicy<>(0, ng), KOKKOS_LAMBDA(const long i) {
        const bool is_fixed = any_fixed && fixed(i) >= 0;
        weak(i) = (fill(i) <= 0 || fill(i) < floor) && !is_fixed ? 1 : 0;
        free(i) = !weak(i) && !is_fixed ? 1 : 0;
        reached(i) = fill(i) > 0 && !is_fixed ? 1 : 0;
      });
  const auto gbox = gbox_, obox = obox_;
  auto own = owned_;
  long count = 0;
  Kokkos::parallel_reduce(
      "heat::count_weak", Kokkos::RangePolicy<>(0, obox.size()),
      KOKKOS_LAMBDA(const long i, long& acc) {
        int ijk[Dim];
        obox.node(i, ijk);
        acc += weak(gbox.index(ijk)) && own(i, 0) > 0 ? 1 : 0;
      },
      count);
  MPI_Allreduce(MPI_IN_PLACE, &count, 1, MPI_LONG, MPI_SUM, decomp_.comm());
  weak_count_ = count;
}

// Takes the weak nodes out of this rank's COO values (before the fixed-node elimination): a weak row keeps
// nothing (its owner puts 1 on the diagonal and T_i^n on the right-hand side), and a free row moves its
// entry A_ij of each weak neighbour j onto its own diagonal, i.e. reads T_j as T_i in row i. The result is
// symmetric, the columns of the conduction part still sum to zero over the remaining nodes (so with
// thermal_transfer: conservative sum m c_p T stays exact: the weak nodes keep C_j T_j^n), and a uniform
// ambient temperature stays a solution of the Robin rows. The Robin entries and the forcing never reach a
// weak node: the boundary and source points spread them over the coupled nodes (for_each_coupled_node in
// mpm_heat.hpp), so no heat is lost with the weak rows.
template <int Dim>
void HeatSolver<Dim>::decouple_weak_nodes() {
  constexpr int W = Dim == 2 ? 25 : 125, centre = Dim == 2 ? 12 : 62;
  const auto gbox = gbox_;
  auto vals = values_;
  auto weak = weak_;
  auto node = row_node_;
  // The pattern's rows only: a row outside it holds no slots (its identity entry is a constant, create_matrix).
  Kokkos::parallel_for(
      "heat::decouple_weak", Kokkos::RangePolicy<>(0, node.extent(0)), KOKKOS_LAMBDA(const long r) {
        const long a = node(r);
        const bool row_weak = weak(a) != 0;
        int ijk[Dim];
        gbox.node(a, ijk);
        double moved = 0;
        for (int slot = 0; slot < W; ++slot) {
          int nb[Dim];
          const bool inside = pair_neighbour<Dim>(gbox, ijk, slot, nb);
          double& v = vals(r * W + slot);
          if (row_weak) {
            v = 0;
          } else if (inside && slot != centre && weak(gbox.index(nb))) {
            moved += v;
            v = 0;
          }
        }
        if (!row_weak) vals(r * W + centre) += moved;
      });
}

template <int Dim>
void HeatSolver<Dim>::scatter(double dt, const Particles& p, const Samples& s) {
  (void)dt;
  const auto gbox = gbox_;
  Kokkos::View<double**, Kokkos::LayoutRight> local("heat_p2g", gbox.size(), kNodalDofs);
  auto sc = Kokkos::Experimental::create_scatter_view(local);
  double lower[Dim];
  for (int d = 0; d < Dim; ++d) lower[d] = decomp_.lower()[d];
  const double dx = decomp_.dx(), inv_dx = 1.0 / dx;
  double inv_cell = 1;
  for (int d = 0; d < Dim; ++d) inv_cell *= inv_dx;
  auto x = p.x, mass = p.mass, vol = p.volume, J = p.J, T = p.T, gT = p.gradT;
  auto mat = p.material;
  auto th = materials_;
  const bool split = s.active;
  const auto group = s.group;
  Kokkos::parallel_for(
      "heat::p2g", Kokkos::RangePolicy<>(0, p.size), KOKKOS_LAMBDA(const int q) {
        double xp[Dim];
        for (int d = 0; d < Dim; ++d) xp[d] = x(q, d);
        const physics::ThermalProperties& tp = th(mat(q));
        const double share = split ? 1.0 / (2 * group(q) + 1) : 1.0;
        const double mc = share * mass(q, 0) * tp.heat_capacity, Tq = T(q, 0);
        const double fill = share * vol(q, 0) * J(q, 0) * inv_cell;
        grid::Stencil<Dim> st;
        st.compute(xp, lower, inv_dx);
        double g[Dim];
        for (int d = 0; d < Dim; ++d) g[d] = gT(q, d);
        auto acc = sc.access();
        // Affine transfer (as APIC does for velocity): the node sees T_p + grad T_p . (x_i - x_p), so a
        // linear field passes P2G/G2P unchanged instead of being smoothed by every round trip; the
        // sum of m c_p T is unchanged because sum_i N_i (x_i - x_p) = 0.
        grid::for_each_stencil_node<Dim>(st, gbox, lower, dx, xp, [&](long idx, double w, const double*, const double* r) {
          double Ti = Tq;
          for (int d = 0; d < Dim; ++d) Ti += g[d] * r[d];
          acc(idx, 0) += w * mc;
          acc(idx, 1) += w * mc * Ti;
          acc(idx, 3) += w * fill;
        });
      });
  if (s.active && s.size > 0) {
    auto pos = s.position;
    auto par = s.parent;
    Kokkos::parallel_for(
        "heat::p2g_surface", Kokkos::RangePolicy<>(0, s.size), KOKKOS_LAMBDA(const int r) {
          const int q = par(r);
          const physics::ThermalProperties& tp = th(mat(q));
          const double mc = mass(q, 0) * tp.heat_capacity / (2 * group(q) + 1);
          const double fill = vol(q, 0) * J(q, 0) * inv_cell / (2 * group(q) + 1);
          auto acc = sc.access();
          // The sample s_r and its balance particle b_r = 2 x_p - s_r carry the parent's affine field.
          for (int which = 0; which < 2; ++which) {
            double pt[Dim], Tpt = T(q, 0);
            for (int d = 0; d < Dim; ++d) {
              pt[d] = which == 0 ? pos(r, d) : 2 * x(q, d) - pos(r, d);
              Tpt += gT(q, d) * (pt[d] - x(q, d));
            }
            grid::Stencil<Dim> st;
            st.compute(pt, lower, inv_dx);
            grid::for_each_stencil_node<Dim>(st, gbox, lower, dx, pt, [&](long idx, double w, const double*, const double* rr) {
              double Ti = Tpt;
              for (int d = 0; d < Dim; ++d) Ti += gT(q, d) * rr[d];
              acc(idx, 0) += w * mc;
              acc(idx, 1) += w * mc * Ti;
              acc(idx, 3) += w * fill;
            });
          }
        });
  }
  Kokkos::Experimental::contribute(local, sc);
  // Sum every rank's ghosted contributions into the owners.
  sum_ghosted_into_owners(dm_nodal_, Kokkos::View<const double*, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(local.data(), local.size()),
                          local_nodal_, rhs_nodal_, "heat");
  const PetscScalar* g = nullptr;
  petsc_check(VecGetArrayRead(rhs_nodal_, &g), "VecGetArrayRead(heat)");
  Kokkos::View<const double**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> gh(
      g, obox_.size(), kNodalDofs);
  Kokkos::deep_copy(owned_, gh);
  petsc_check(VecRestoreArrayRead(rhs_nodal_, &g), "VecRestoreArrayRead(heat)");
}

// The forcing f^h + f^H (dof 2 of the nodal sums), once the weak nodes are known: each sample's boundary heat
// (h T-bar + b) |dA_r| at its boundary point y_r (boundary_quadrature) and each particle's source H V_p,
// both spread over the coupled nodes only (for_each_coupled_node, mpm_heat.hpp). Returns the number of
// samples whose stencil holds no coupled node (their heat is not taken in; boundary_power leaves them out).
template <int Dim>
long HeatSolver<Dim>::scatter_forcing(const Particles& p, const Samples& s) {
  const auto gbox = gbox_;
  Kokkos::View<double*> local("heat_forcing", gbox.size());
  auto sc = Kokkos::Experimental::create_scatter_view(local);
  double lower[Dim];
  for (int d = 0; d < Dim; ++d) lower[d] = decomp_.lower()[d];
  const double dx = decomp_.dx(), inv_dx = 1.0 / dx;
  auto weak = weak_;
  auto th = materials_;
  if (any_source_) {
    auto x = p.x, vol = p.volume, J = p.J;
    auto mat = p.material;
    Kokkos::parallel_for(
        "heat::p2g_source", Kokkos::RangePolicy<>(0, p.size), KOKKOS_LAMBDA(const int q) {
          const double source = th(mat(q)).heat_source * vol(q, 0) * J(q, 0);
          if (source == 0) return;
          double xp[Dim];
          for (int d = 0; d < Dim; ++d) xp[d] = x(q, d);
          grid::Stencil<Dim> st;
          st.compute(xp, lower, inv_dx);
          auto acc = sc.access();
          for_each_coupled_node<Dim>(st, gbox, lower, dx, xp, weak, [&](long idx, double w) { acc(idx) += w * source; });
        });
  }
  long uncoupled = 0;
  if (s.active && s.size > 0) {
    const double hTbar = options_.transfer_coefficient * options_.ambient_temperature, b = options_.boundary_flux;
    const FluxRegion region = options_.flux;
    const double time = time_;
    auto by = boundary_y_;
    auto bdA = boundary_dA_;
    Kokkos::parallel_reduce(
        "heat::p2g_boundary", Kokkos::RangePolicy<>(0, s.size),
        KOKKOS_LAMBDA(const int r, long& lost) {
          double y[Dim];
          for (int d = 0; d < Dim; ++d) y[d] = by(r, d);
          const double heat = (hTbar + (region.template contains<Dim>(y, time) ? b : 0.0)) * bdA(r);
          grid::Stencil<Dim> st;
          st.compute(y, lower, inv_dx);
          auto acc = sc.access();
          if (for_each_coupled_node<Dim>(st, gbox, lower, dx, y, weak, [&](long idx, double w) { acc(idx) += w * heat; }) <= 0)
            ++lost;
        },
        uncoupled);
  }
  Kokkos::Experimental::contribute(local, sc);
  sum_ghosted_into_owners(dm1_, local, localT_, b_, "heat forcing");
  const PetscScalar* f = nullptr;
  petsc_check(VecGetArrayRead(b_, &f), "VecGetArrayRead(heat forcing)");
  Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> fh(f, obox_.size());
  auto own = owned_;
  auto fd = Kokkos::create_mirror_view_and_copy(Kokkos::DefaultExecutionSpace::memory_space(), fh);
  Kokkos::parallel_for(
      "heat::forcing_to_owned", Kokkos::RangePolicy<>(0, obox_.size()), KOKKOS_LAMBDA(const long i) { own(i, 2) = fd(i); });
  petsc_check(VecRestoreArrayRead(b_, &f), "VecRestoreArrayRead(heat forcing)");
  MPI_Allreduce(MPI_IN_PLACE, &uncoupled, 1, MPI_LONG, MPI_SUM, decomp_.comm());
  return uncoupled;
}

// Whether a free node lies outside A_'s pattern on any rank (collective). A pattern built for a set of nodes
// serves every subset of it: a node that is no longer free keeps its entries as stored zeros (its row is
// the identity, decouple_weak_nodes), which neither CG nor GAMG (it drops zero entries from its graph) sees.
template <int Dim>
bool HeatSolver<Dim>::pattern_outdated() {
  int changed = 0;
  if (A_) {
    auto now = free_;
    auto row = row_;
    Kokkos::parallel_reduce(
        "heat::pattern_outdated", Kokkos::RangePolicy<>(0, gbox_.size()),
        KOKKOS_LAMBDA(const long i, int& acc) { acc += now(i) && row(i) < 0 ? 1 : 0; }, changed);
  } else {
    changed = 1;
  }
  MPI_Allreduce(MPI_IN_PLACE, &changed, 1, MPI_INT, MPI_MAX, decomp_.comm());
  return changed != 0;
}

// The pattern: a node that the material reaches (filled fraction above 0, not fixed: the free nodes and the
// weak ones, which may become free in a later step) couples to the reached nodes within two of it on each
// axis (the nodes that can share a quadratic B-spline stencil), and every ghosted node has its diagonal.
// Built this way it outlives the small changes of the free set from step to step (the surface samples
// move; 3D Robin sphere: rebuilt once in 100 steps instead of every step). Rows of ghost nodes belong to
// other ranks and PETSc sums them there; every rank marks the same nodes, so the copies of a row agree.
// Only the reached nodes' rows hold couplings: a scene that fills a tenth of its box stores about a tenth
// of the entries a full 5^Dim-point pattern would (Robin sphere, dx = 1/64: 0.8 M instead of 4.5 M), which
// is what every CG iteration and preconditioner set-up pays for.
template <int Dim>
void HeatSolver<Dim>::create_matrix() {
  constexpr int W = Dim == 2 ? 25 : 125, centre = Dim == 2 ? 12 : 62;
  const long ng = gbox_.size();
  auto gi = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), global_index_);
  auto fr = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), reached_);
  const auto gbox = gbox_, obox = obox_;
  auto row = Kokkos::create_mirror_view(row_);
  std::vector<long> node;
  for (long i = 0; i < ng; ++i) {
    row(i) = fr(i) ? static_cast<int>(node.size()) : -1;
    if (fr(i)) node.push_back(i);
  }
  std::vector<PetscInt> rows, cols;
  std::vector<long> entry;
  rows.reserve(obox.size() + node.size() * 32);
  cols.reserve(rows.capacity());
  entry.reserve(rows.capacity());
  for (long i = 0; i < ng; ++i) {
    int ijk[Dim];
    gbox.node(i, ijk);
    if (row(i) < 0) {
      // An identity row (weak or fixed: decouple_weak_nodes, eliminate_fixed_nodes), whose 1 its owner adds.
      bool owned = true;
      for (int d = 0; d < Dim; ++d) owned = owned && ijk[d] >= obox.lo[d] && ijk[d] < obox.lo[d] + obox.n[d];
      if (!owned) continue;
      rows.push_back(gi(i));
      cols.push_back(gi(i));
      entry.push_back(-1);
      continue;
    }
    for (int slot = 0; slot < W; ++slot) {
      int nb[Dim];
      const bool inside = pair_neighbour<Dim>(gbox, ijk, slot, nb);
      if (slot != centre && !(inside && fr(gbox.index(nb)))) continue;
      rows.push_back(gi(i));
      cols.push_back(slot == centre ? gi(i) : gi(gbox.index(nb)));
      entry.push_back(row(i) * static_cast<long>(W) + slot);
    }
  }
  Kokkos::deep_copy(row_, row);
  row_node_ = Kokkos::View<long*>("heat_pattern_node", node.size());
  {
    Kokkos::View<const long*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> nh(node.data(), node.size());
    Kokkos::deep_copy(row_node_, nh);
  }
  values_ = Kokkos::View<double*>();  // release the old slots before the new ones are allocated
  values_ = Kokkos::View<double*>("heat_pattern_values", node.size() * W);
  if (A_) petsc_check(MatDestroy(&A_), "MatDestroy(heat)");
  const PetscInt nown = static_cast<PetscInt>(obox_.size());
  petsc_check(MatCreate(decomp_.comm(), &A_), "MatCreate(heat)");
  petsc_check(MatSetSizes(A_, nown, nown, PETSC_DETERMINE, PETSC_DETERMINE), "MatSetSizes(heat)");
  petsc_check(MatSetType(A_, MATAIJ), "MatSetType(heat)");
  petsc_check(MatSetPreallocationCOO(A_, static_cast<PetscCount>(rows.size()), rows.data(), cols.data()),
              "MatSetPreallocationCOO(heat)");
  petsc_check(MatSetOption(A_, MAT_SPD, PETSC_TRUE), "MatSetOption(heat, SPD)");
  entry_ = Kokkos::View<long*>("heat_coo_entry", entry.size());
  coo_values_ = Kokkos::View<double*>("heat_coo_values", entry.size());
  {
    Kokkos::View<const long*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> eh(entry.data(), entry.size());
    Kokkos::deep_copy(entry_, eh);
  }
  MatInfo info;
  petsc_check(MatGetInfo(A_, MAT_GLOBAL_SUM, &info), "MatGetInfo(heat)");
  nonzeros_ = static_cast<long>(info.nz_used);
  ++pattern_builds_;
}

// The COO values of the pattern, taken from the pattern rows' slots; 1 for an owned identity row.
template <int Dim>
void HeatSolver<Dim>::compact_values() {
  auto vals = values_;
  auto entry = entry_;
  auto coo = coo_values_;
  Kokkos::parallel_for(
      "heat::compact_values", Kokkos::RangePolicy<>(0, entry.extent(0)),
      KOKKOS_LAMBDA(const long k) { coo(k) = entry(k) >= 0 ? vals(entry(k)) : 1.0; });
}

// max over the free owned nodes of (A_ii - C_i/dt) / (C_i/dt): how far the conduction and Robin terms
// outweigh the capacity on the assembled diagonal. The eigenvalues of D^-1 A lie above about 1 / (1 + ratio)
// (the capacity part alone) and below about 1.6 (the conduction part's largest, measured on the Robin
// sphere), so CG + Jacobi needs about 12 sqrt(1.6 (1 + ratio)) iterations to a relative residual of 1e-10.
template <int Dim>
double HeatSolver<Dim>::conduction_ratio(double dt) {
  Vec diag = nullptr;
  petsc_check(VecDuplicate(T_, &diag), "VecDuplicate(heat diagonal)");
  petsc_check(MatGetDiagonal(A_, diag), "MatGetDiagonal(heat)");
  const PetscScalar* a = nullptr;
  petsc_check(VecGetArrayRead(diag, &a), "VecGetArrayRead(heat diagonal)");
  auto own = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), owned_);
  auto fr = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), free_);
  double ratio = 0;
  for (long i = 0; i < obox_.size(); ++i) {
    int ijk[Dim];
    obox_.node(i, ijk);
    const double c = own(i, 0) / dt;
    if (fr(gbox_.index(ijk)) && c > 0) ratio = std::max(ratio, a[i] / c - 1);
  }
  petsc_check(VecRestoreArrayRead(diag, &a), "VecRestoreArrayRead(heat diagonal)");
  petsc_check(VecDestroy(&diag), "VecDestroy(heat diagonal)");
  MPI_Allreduce(MPI_IN_PLACE, &ratio, 1, MPI_DOUBLE, MPI_MAX, decomp_.comm());
  return ratio;
}

// CG + Jacobi while the capacity dominates (ratio at most -mpm_heat_jacobi_max_ratio, default 20: at most
// about 60 iterations, each one product with the matrix), CG + GAMG otherwise (7-8 iterations, each a
// V-cycle of several products, after a set-up at every step). Measured on the 3D Robin sphere at dx = 1/64
// (ratio 0.6): Jacobi takes 11 iterations where GAMG takes 8 plus its set-up, at a quarter of the time
// (docs/performance.md). Every rank sees the same ratio, so all choose the same.
template <int Dim>
void HeatSolver<Dim>::choose_preconditioner(double ratio) {
  if (!auto_pc_) return;
  const bool jacobi = ratio <= jacobi_max_ratio_;
  if (jacobi == jacobi_ && pattern_builds_ > 0 && pc_chosen_) return;
  PC pc;
  petsc_check(KSPGetPC(ksp_, &pc), "KSPGetPC(heat)");
  petsc_check(PCSetType(pc, jacobi ? PCJACOBI : PCGAMG), "PCSetType(heat)");
  if (!jacobi) {
    petsc_check(PCGAMGSetUseSAEstEig(pc, PETSC_FALSE), "PCGAMGSetUseSAEstEig(heat)");
    petsc_check(PCSetFromOptions(pc), "PCSetFromOptions(heat)");
  }
  jacobi_ = jacobi;
  pc_chosen_ = true;
}

template <int Dim>
void HeatSolver<Dim>::assemble(double dt, const Particles& p, const Samples& s) {
  constexpr int W = Dim == 2 ? 25 : 125;
  if (pattern_outdated()) create_matrix();
  Kokkos::deep_copy(values_, 0.0);
  accumulate_entries(p, s);  // mpm_heat_assembly.cpp
  decouple_weak_nodes();
  if (any_fixed_) eliminate_fixed_nodes();
  // Capacity C_i / dt on the diagonal; a weak node (also one without capacity) has no other entry and gets
  // 1, as does a fixed node (outside the pattern that 1 is the constant entry of create_matrix).
  const bool any_fixed = any_fixed_;
  auto fixed = fixed_;
  auto weak = weak_;
  auto own = owned_;
  auto vals = values_;
  auto row = row_;
  const auto gbox = gbox_, obox = obox_;
  const double inv_dt = 1.0 / dt;
  constexpr int centre = Dim == 2 ? 12 : 62;
  Kokkos::parallel_for(
      "heat::assemble_capacity", Kokkos::RangePolicy<>(0, obox.size()), KOKKOS_LAMBDA(const long i) {
        int ijk[Dim];
        obox.node(i, ijk);
        const long g = gbox.index(ijk), r = row(g);
        if (r < 0) return;
        if (any_fixed && fixed(g) >= 0)
          vals(r * W + centre) = 1.0;
        else
          vals(r * W + centre) += weak(g) ? 1.0 : own(i, 0) * inv_dt;
      });
  compact_values();
  auto vh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), coo_values_);
  petsc_check(MatSetValuesCOO(A_, vh.data(), INSERT_VALUES), "MatSetValuesCOO(heat)");
}

template <int Dim>
void HeatSolver<Dim>::gather(const Particles& p, const Samples& s) {
  petsc_check(DMGlobalToLocalBegin(dm1_, T_, INSERT_VALUES, localT_), "DMGlobalToLocalBegin(heat)");
  petsc_check(DMGlobalToLocalEnd(dm1_, T_, INSERT_VALUES, localT_), "DMGlobalToLocalEnd(heat)");
  Kokkos::View<double*> Tn("heat_nodal_T", gbox_.size());
  {
    const PetscScalar* a = nullptr;
    petsc_check(VecGetArrayRead(localT_, &a), "VecGetArrayRead(heat T)");
    Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> ah(a, gbox_.size());
    Kokkos::deep_copy(Tn, ah);
    petsc_check(VecRestoreArrayRead(localT_, &a), "VecRestoreArrayRead(heat T)");
  }
  power_ = s.active && s.size > 0 ? boundary_power(s, Tn) : 0.0;
  const auto gbox = gbox_;
  double lower[Dim];
  for (int d = 0; d < Dim; ++d) lower[d] = decomp_.lower()[d];
  const double dx = decomp_.dx(), inv_dx = 1.0 / dx;
  auto x = p.x, T = p.T, gT = p.gradT;
  // Conservative transfer: the group members' interpolated temperatures, summed per parent over its
  // samples in row order (sample_groups), so that the sum does not depend on the threads.
  const bool merge = options_.conservative && s.active && s.size > 0;
  const auto group = s.group, start = s.group_start, members = s.group_members;
  auto pos = s.position;
  Kokkos::parallel_for(
      "heat::g2p", Kokkos::RangePolicy<>(0, p.size), KOKKOS_LAMBDA(const int q) {
        double xp[Dim], Tq = 0, g[Dim] = {};
        for (int d = 0; d < Dim; ++d) xp[d] = x(q, d);
        grid::Stencil<Dim> st;
        st.compute(xp, lower, inv_dx);
        grid::for_each_stencil_node<Dim>(st, gbox, lower, dx, xp, [&](long idx, double w, const double* gr, const double*) {
          Tq += w * Tn(idx);
          for (int d = 0; d < Dim; ++d) g[d] += gr[d] * Tn(idx);
        });
        if (merge && group(q) > 0) {
          double tsum = 0;
          for (int m = start(q); m < start(q + 1); ++m) {
            const int r = members(m);
            double sum = 0;
            for (int which = 0; which < 2; ++which) {
              double pt[Dim];
              for (int d = 0; d < Dim; ++d) pt[d] = which == 0 ? pos(r, d) : 2 * xp[d] - pos(r, d);
              grid::Stencil<Dim> ss;
              ss.compute(pt, lower, inv_dx);
              grid::for_each_stencil_node<Dim>(ss, gbox, lower, dx, pt,
                                               [&](long idx, double w, const double*, const double*) { sum += w * Tn(idx); });
            }
            tsum += sum;
          }
          Tq = (Tq + tsum) / (2 * group(q) + 1);
        }
        T(q, 0) = Tq;
        for (int d = 0; d < Dim; ++d) gT(q, d) = g[d];
      });
}

template <int Dim>
double HeatSolver<Dim>::boundary_power(const Samples& s, Kokkos::View<const double*> nodal_T) const {
  const auto gbox = gbox_;
  double lower[Dim];
  for (int d = 0; d < Dim; ++d) lower[d] = decomp_.lower()[d];
  const double dx = decomp_.dx(), inv_dx = 1.0 / dx;
  const double h = options_.transfer_coefficient, Tbar = options_.ambient_temperature, b = options_.boundary_flux;
  const FluxRegion region = options_.flux;
  const double time = time_;
  auto by = boundary_y_;
  auto bdA = boundary_dA_;
  auto weak = weak_;
  double power = 0;
  Kokkos::parallel_reduce(
      "heat::boundary_power", Kokkos::RangePolicy<>(0, s.size),
      KOKKOS_LAMBDA(const long r, double& acc) {
        double y[Dim];
        for (int d = 0; d < Dim; ++d) y[d] = by(r, d);
        double Ty = 0;
        grid::Stencil<Dim> st;
        st.compute(y, lower, inv_dx);
        // The temperature the solve's Robin rows see at y_r (the coupled nodes' partition of unity); a sample
        // without a coupled node took no heat in (scatter_forcing).
        if (for_each_coupled_node<Dim>(st, gbox, lower, dx, y, weak, [&](long idx, double w) { Ty += w * nodal_T(idx); }) <= 0)
          return;
        acc += ((region.template contains<Dim>(y, time) ? b : 0.0) + h * (Tbar - Ty)) * bdA(r);
      },
      power);
  return power;
}

template <int Dim>
HeatStats HeatSolver<Dim>::solve(double dt, const Particles& p, const Samples& s) {
  auto clock = std::chrono::steady_clock::now();
  auto lap = [&clock]() {
    Kokkos::fence();
    const auto now = std::chrono::steady_clock::now();
    const double s = std::chrono::duration<double>(now - clock).count();
    clock = now;
    return s;
  };
  HeatStats stats;
  if (s.active) boundary_quadrature(p, s);
  scatter(dt, p, s);
  if (any_fixed_) mark_fixed_nodes();
  mark_weak_nodes();
  stats.uncoupled_samples = scatter_forcing(p, s);
  assemble(dt, p, s);
  // Right-hand side C T^n / dt + f and the initial guess T^n = (C T^n) / C on the owned nodes.
  const long no = obox_.size();
  Kokkos::View<double**, Kokkos::LayoutRight> bx("heat_rhs_guess", no, 2);
  auto own = owned_;
  const double inv_dt = 1.0 / dt, ambient = options_.ambient_temperature;
  const bool any_fixed = any_fixed_;
  auto fixed = fixed_;
  auto weak = weak_;
  const auto obox = obox_, gbox = gbox_;
  Kokkos::parallel_for(
      "heat::rhs", Kokkos::RangePolicy<>(0, no), KOKKOS_LAMBDA(const long i) {
        const double c = own(i, 0);
        int ijk[Dim];
        obox.node(i, ijk);
        const long g = gbox.index(ijk);
        // A weak node is decoupled (identity row) and keeps its T^n; one without capacity holds the ambient
        // temperature.
        const double Tn = c > 0 ? own(i, 1) / c : ambient;
        bx(i, 0) = weak(g) ? Tn : own(i, 1) * inv_dt + own(i, 2);
        bx(i, 1) = Tn;
        if (any_fixed) {
          const double Tf = fixed(g);
          if (Tf >= 0) bx(i, 0) = bx(i, 1) = Tf;
        }
      });
  auto bh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), bx);
  if (any_fixed_) {
    // The fixed neighbours' columns, moved to the right-hand side (a fixed row's own lift is 0).
    const PetscScalar* l = nullptr;
    petsc_check(VecGetArrayRead(lift_global_, &l), "VecGetArrayRead(heat lift)");
    for (long i = 0; i < no; ++i) bh(i, 0) -= l[i];
    petsc_check(VecRestoreArrayRead(lift_global_, &l), "VecRestoreArrayRead(heat lift)");
  }
  {
    PetscScalar *b = nullptr, *t = nullptr;
    petsc_check(VecGetArray(b_, &b), "VecGetArray(heat b)");
    petsc_check(VecGetArray(T_, &t), "VecGetArray(heat T)");
    for (long i = 0; i < no; ++i) {
      b[i] = bh(i, 0);
      t[i] = bh(i, 1);
    }
    petsc_check(VecRestoreArray(b_, &b), "VecRestoreArray(heat b)");
    petsc_check(VecRestoreArray(T_, &t), "VecRestoreArray(heat T)");
  }
  petsc_check(KSPSetOperators(ksp_, A_, A_), "KSPSetOperators(heat)");
  if (auto_pc_) {
    stats.conduction_ratio = conduction_ratio(dt);
    choose_preconditioner(stats.conduction_ratio);
  }
  stats.assemble_s = lap();
  // GAMG's coarse products in a fixed order on 3+ ranks, over the set-up and both solves below (two
  // 4-rank Robin disc runs with GAMG differed in temperature_max by 2e-16 relative without).
  const solvers::ReproducibleGalerkinProducts products(decomp_.comm());
  petsc_check(KSPSetUp(ksp_), "KSPSetUp(heat)");
  stats.setup_s = lap();
  petsc_check(KSPSolve(ksp_, b_, T_), "KSPSolve(heat)");
  PetscInt its = 0;
  KSPConvergedReason reason;
  petsc_check(KSPGetIterationNumber(ksp_, &its), "KSPGetIterationNumber(heat)");
  petsc_check(KSPGetConvergedReason(ksp_, &reason), "KSPGetConvergedReason(heat)");
  if (reason == KSP_DIVERGED_INDEFINITE_PC) {
    // A safety net: with the bounds estimated at every set-up and the weak nodes out of the matrix it has not
    // been needed in the measured scenes (HeatStats counts it). The matrix is mass-dominated, so CG with
    // Jacobi converges in tens of iterations: switch this solver to it for the rest of the run and solve
    // again from the same initial guess.
    // KSPGetConvergedReason is the same on every rank, so all ranks switch.
    log::warn("mpm heat: GAMG gave an indefinite preconditioner (KSP reason -8 after %d iterations); switching the "
              "heat solve to CG + Jacobi for the rest of the run",
              int(its));
    ++preconditioner_fallbacks_;
    auto_pc_ = false;  // Jacobi from now on
    jacobi_ = true;
    PC pc;
    petsc_check(KSPGetPC(ksp_, &pc), "KSPGetPC(heat)");
    petsc_check(PCSetType(pc, PCJACOBI), "PCSetType(heat, jacobi)");
    PetscScalar* t = nullptr;
    petsc_check(VecGetArray(T_, &t), "VecGetArray(heat T)");
    for (long i = 0; i < no; ++i) t[i] = bh(i, 1);
    petsc_check(VecRestoreArray(T_, &t), "VecRestoreArray(heat T)");
    petsc_check(KSPSolve(ksp_, b_, T_), "KSPSolve(heat, jacobi)");
    petsc_check(KSPGetIterationNumber(ksp_, &its), "KSPGetIterationNumber(heat)");
    petsc_check(KSPGetConvergedReason(ksp_, &reason), "KSPGetConvergedReason(heat)");
  }
  stats.iterations = static_cast<int>(its);
  stats.reason = static_cast<int>(reason);
  stats.preconditioner_fallbacks = preconditioner_fallbacks_;
  stats.weak_nodes = weak_count_;
  stats.nonzeros = nonzeros_;
  stats.pattern_builds = pattern_builds_;
  stats.pattern_rows = static_cast<long>(row_node_.extent(0));
  {
    PC pc;
    PCType type = nullptr;
    petsc_check(KSPGetPC(ksp_, &pc), "KSPGetPC(heat)");
    petsc_check(PCGetType(pc, &type), "PCGetType(heat)");
    stats.jacobi = type && std::strcmp(type, PCJACOBI) == 0;
  }
  PetscInt N = 0;
  petsc_check(VecGetSize(T_, &N), "VecGetSize(heat)");
  stats.unknowns = N;
  if (s.active) {
    double measure = 0;
    auto bdA = boundary_dA_;
    Kokkos::parallel_reduce(
        "heat::boundary_measure", Kokkos::RangePolicy<>(0, s.size),
        KOKKOS_LAMBDA(const long r, double& acc) { acc += bdA(r); }, measure);
    MPI_Allreduce(MPI_IN_PLACE, &measure, 1, MPI_DOUBLE, MPI_SUM, decomp_.comm());
    stats.boundary_measure = measure;
  }
  if (reason <= 0)
    throw RuntimeError(log::format("heat solve did not converge (KSP reason %d after %d iterations); try "
                                   "-mpm_heat_pc_type jacobi or a larger mpm.heat.tolerance",
                                   int(reason), int(its)));
  stats.ksp_s = lap();
  gather(p, s);
  stats.gather_s = lap();
  stats.boundary_power = power_;
  MPI_Allreduce(MPI_IN_PLACE, &stats.boundary_power, 1, MPI_DOUBLE, MPI_SUM, decomp_.comm());
  return stats;
}

template class HeatSolver<2>;
template class HeatSolver<3>;

void sum_ghosted_into_owners(DM dm, Kokkos::View<const double*> ghosted, Vec local, Vec global, const char* what) {
  const std::string w(what);
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ghosted);
  PetscScalar* a = nullptr;
  petsc_check(VecGetArray(local, &a), ("VecGetArray(" + w + ")").c_str());
  std::memcpy(a, host.data(), sizeof(double) * host.size());
  petsc_check(VecRestoreArray(local, &a), ("VecRestoreArray(" + w + ")").c_str());
  petsc_check(VecSet(global, 0.0), ("VecSet(" + w + ")").c_str());
  petsc_check(DMLocalToGlobalBegin(dm, local, ADD_VALUES, global), ("DMLocalToGlobalBegin(" + w + ")").c_str());
  petsc_check(DMLocalToGlobalEnd(dm, local, ADD_VALUES, global), ("DMLocalToGlobalEnd(" + w + ")").c_str());
}

}  // namespace meniscus::mpm
