#pragma once
// The particle part of the MPM backward-Euler incremental potential (Chen et al. 2021, Sec. 3.4, 4.3.1) as a
// function of the grid velocities v (ghosted local nodes x Dim):
//   E(v) = sum_p V0_p psi_p(F_p(v)) + sum_p dt eta V^n_p |sym grad v_p|^2 + sum_r k_r g_eps(M_r, dA_r),
// g_eps the sample energy |cof(M) dA| smoothed at zero length (physics/smoothed_surface_energy.hpp),
// with grad v_q = sum_i v_i grad N_i(q)^T, M_q = I + dt grad v_q, solids F = M F^n, fluids the
// linearised J = (1 + dt div v) J^n (the same update G2P applies), and the surface samples' M at s_r.
// Every term is a function e_q(G) of its quadrature point's G = grad v_q, so the nodal gradient is
// sum_q de_q/dG grad N_i(q) and the Hessian product sum_q d2e_q/dG2[dG] grad N_i(q): particle
// kernels that scatter like P2G. The node terms (kinetic, gravity), projections and MPI sums are the
// solver's (implicit_solve.hpp). Sums are local to this rank's particles and samples.
#include "grid/grid_field.hpp"
#include "methods/mpm/hessian_layout.hpp"
#include "methods/mpm/wetting_adhesion.hpp"
#include "particles/particle_set.hpp"
#include "physics/material.hpp"

namespace meniscus::mpm {

template <int Dim>
struct PotentialInputs {
  size_t particles = 0;                  // the set's size (its views may hold spare capacity)
  particles::RealField x, F, J, volume;  // F empty when no material is a solid
  particles::IntField material;
  Kokkos::View<physics::Material*> materials;
  Kokkos::View<double**, Kokkos::LayoutRight> sample_position, sample_area;  // empty without surface tension
  Kokkos::View<double*> sample_coefficient;
  // Per sample k_LG and wall normal (SurfaceSamples::liquid_gas, wall_normal): a solid-liquid sample's
  // energy is k_LG g + (k - k_LG) h, h its footprint on the wall (physics::wall_footprint_gradient).
  Kokkos::View<double*> sample_liquid_gas;
  Kokkos::View<double**, Kokkos::LayoutRight> sample_wall_normal;
  // The wetting part is weighted by w(phi) of the sample's wall distance at the end of the step,
  // phi = phi^n + dt n . v(s) (wetting_adhesion.hpp): a term in the velocity at the sample, not its gradient.
  Kokkos::View<double*> sample_wall_distance;
  WettingRamp wetting;
  grid::NodeBox<Dim> gbox;
  double lower[Dim];
  double dx = 0;
  double dt = 0;
  bool has_solid = false;
  double surface_smoothing = 0.3;  // eps of smoothed_surface_energy.hpp
  bool project = true;  // project per-point Hessians to PSD (off only for derivative checks)
};

template <int Dim>
class IncrementalPotential {
 public:
  static constexpr int N = Dim * Dim;
  explicit IncrementalPotential(const PotentialInputs<Dim>& in) : in_(in) {}

  double energy(const grid::NodeArray& v) const;
  void add_gradient(const grid::NodeArray& v, grid::NodeArray& out) const;
  // Stores each point's d2e/dG2 at v, projected to PSD when `project` and in.project.
  void linearize(const grid::NodeArray& v, bool project = true);
  bool projection_allowed() const { return in_.project; }
  void add_hessian(const grid::NodeArray& d, grid::NodeArray& out) const;
  void add_diagonal(grid::NodeArray& out) const;
  // Adds the node-pair blocks H_ij[a][b] = sum_q dN_i(q)[c] d2e_q/dG[a c]dG[b d] dN_j(q)[d] of this
  // rank's particles and samples at the last linearisation into `values` (laid out by `layout`;
  // pairs it does not store are skipped). The same
  // per-point Hessians as add_hessian, so the assembled matrix and the product agree to round-off
  // (incremental_potential_blocks.cpp).
  void add_hessian_blocks(const HessianLayout<Dim>& layout, const Kokkos::View<double*>& values) const;

 private:
  PotentialInputs<Dim> in_;
  Kokkos::View<double*> fluid_curvature_;  // V0 psi''(J) (J^n dt)^2 per particle
  Kokkos::View<double**, Kokkos::LayoutRight> solid_K_;         // particles x N*N (solids only)
  Kokkos::View<double**, Kokkos::LayoutRight> surface_K_;       // samples x N*N
  // 3D: each sample's K in its tangent basis, K6 = Q K Q^T (36) then t1, t2 (6)
  // (physics/smoothed_surface_energy.hpp), for the assembled Hessian's blocks
  Kokkos::View<double**, Kokkos::LayoutRight> surface_tangent_K_;
  // Particles, then samples, in one index space in the order of their stencil (add_hessian_blocks,
  // found on first use).
  mutable Kokkos::View<long*> point_order_;
};

}  // namespace meniscus::mpm
