// The backward-Euler grid update of the MPM method (Chen et al. 2021, Sec. 3.3): the incremental
// potential's inputs from the particles, the kinetic mass floor, the Newton solve (implicit_solve.hpp) and the
// contact-line hold: cut after the solve (default, hold_mode after_solve) or inside it (in_solve,
// ImplicitGridSolver::set_contact_line_hold).
#include <cmath>

#include "core/error.hpp"
#include "methods/mpm/mpm_method.hpp"
#include "methods/mpm/wetting_adhesion.hpp"

namespace meniscus::mpm {

template <int Dim>
PotentialInputs<Dim> MpmMethod<Dim>::potential_inputs(double dt) const {
  PotentialInputs<Dim> in;
  in.particles = set_.size();
  in.x = set_.field(f_.x);
  in.F = deformation();
  in.J = set_.field(f_.J);
  in.volume = set_.field(f_.volume);
  in.material = set_.material();
  in.materials = materials_;
  if (st_.active) {
    in.sample_position = st_.samples.position;
    in.sample_area = st_.samples.area;
    in.sample_coefficient = st_.samples.coefficient;
    in.sample_liquid_gas = st_.samples.liquid_gas;
    in.sample_wall_normal = st_.samples.wall_normal;
    in.sample_wall_distance = st_.samples.wall_distance;
    in.wetting = st_.coefficient.wetting_ramp();
  }
  in.gbox = grid_->ghost_box();
  for (int d = 0; d < Dim; ++d) in.lower[d] = decomp_->lower()[d];
  in.dx = decomp_->dx();
  in.dt = dt;
  in.has_solid = f_.F >= 0;
  in.project = project_hessian_;
  in.surface_smoothing = surface_smoothing_;
  return in;
}

template <int Dim>
void MpmMethod<Dim>::set_kinetic_mass_floor(double dt) {
  // The floor is fictitious inertia: full at steps of a capillary time or more, where a light node's
  // capillary stiffness dt^2 k / dx^2 dominates its mass, and scaled by (dt / dt_capillary)^2 below, so
  // that it vanishes as dt -> 0 and the small-step limit stays the explicit update.
  double scale = 1.0;
  if (st_.enabled && st_.coefficient.max_coefficient() > 0) scale = std::min(1.0, std::pow(dt / capillary_dt(), 2));
  implicit_solver_->set_kinetic_mass_floor(kinetic_mass_floor_ * scale);
}

template <int Dim>
void MpmMethod<Dim>::implicit_update(double dt) {
  auto t = timers_.scope("newton");
  set_kinetic_mass_floor(dt);
  implicit_solver_->setup(*grid_, colliders_, gravity_, dt);
  IncrementalPotential<Dim> potential(potential_inputs(dt));
  try {
    last_implicit_ = implicit_solver_->solve(potential, *grid_);
  } catch (const StepRejected&) {
    st_.active = false;  // the retry resamples
    throw;
  }
  if (st_.line_hold && !st_.hold_in_solve) implicit_contact_line_hold(dt);
}

template <int Dim>
void MpmMethod<Dim>::implicit_contact_line_hold(double dt) {
  // The contact-line hold (wetting_adhesion.hpp) after the Newton solve (hold_mode after_solve), as the explicit
  // grid update applies it after the forces: a held node of a wetting wall loses up to cap_i dt / m_i of its
  // velocity away from the wall, cap_i (grid column 1 + Dim) summed in P2G from the samples in the ramp as in the
  // explicit step (the sum does not depend on dt). The solve itself keeps the wall's one-sided condition (a node
  // whose predictor approaches the wall moves along it), so the hold is the bounded part of the wall's reaction
  // that pulls the liquid back: a reaction impulse per step, outside the incremental potential, as the collider
  // rule with which the solver writes its velocities. The global-to-local copy after the solve gave every ghost
  // node its owner's mass, velocity and cap, so the update runs nodewise on the ghosted box, as in the explicit
  // step. The diagnostics count one solve (hold_passes 1) and, as hold_released, the owned held nodes whose
  // velocity away from the wall exceeded the limit (they leave it, as a node the in-solve active set releases).
  // Timed with the Newton solve.
  const auto box = grid_->ghost_box(), obox = grid_->owned_box();
  grid::NodeArray a = grid_->acquire_local(false);
  double lower[Dim];
  for (int d = 0; d < Dim; ++d) lower[d] = decomp_->lower()[d];
  const double dx = decomp_->dx();
  const auto colliders = colliders_.at_time(time_);  // as in the explicit grid update
  long released = 0;
  Kokkos::parallel_reduce(
      "mpm::implicit_contact_line_hold", Kokkos::RangePolicy<>(0, box.size()),
      KOKKOS_LAMBDA(const long i, long& count) {
        const double m = a(i, 0);
        if (!(m > 0) || !(a(i, 1 + Dim) > 0)) return;
        int node[Dim];
        box.node(i, node);
        double xi[Dim], vi[Dim];
        bool owned = true;
        for (int d = 0; d < Dim; ++d) {
          xi[d] = lower[d] + node[d] * dx;
          vi[d] = a(i, 1 + d);
          owned = owned && node[d] >= obox.lo[d] && node[d] < obox.lo[d] + obox.n[d];
        }
        if (hold_contact_line<Dim>(colliders, xi, vi, a(i, 1 + Dim) * dt / m) && owned) ++count;
        for (int d = 0; d < Dim; ++d) a(i, 1 + d) = vi[d];
      },
      released);
  grid_->release_local(a);
  MPI_Allreduce(MPI_IN_PLACE, &released, 1, MPI_LONG, MPI_SUM, comm_);
  last_implicit_.hold_passes = 1;
  last_implicit_.hold_released = released;
}

template <int Dim>
ImplicitGridSolver<Dim>& MpmMethod<Dim>::prepare_implicit_solve(double dt, bool project_hessian,
                                                                  std::unique_ptr<IncrementalPotential<Dim>>& potential) {
  if (!implicit_) throw RuntimeError("prepare_implicit_solve needs mpm.integrator: implicit");
  if (st_.enabled) resample_surface_particles();
  p2g(0.0);
  set_kinetic_mass_floor(dt);
  implicit_solver_->setup(*grid_, colliders_, gravity_, dt);
  auto in = potential_inputs(dt);
  in.project = project_hessian;
  potential = std::make_unique<IncrementalPotential<Dim>>(in);
  st_.active = false;
  return *implicit_solver_;
}

template PotentialInputs<2> MpmMethod<2>::potential_inputs(double) const;
template void MpmMethod<2>::set_kinetic_mass_floor(double);
template void MpmMethod<2>::implicit_update(double);
template void MpmMethod<2>::implicit_contact_line_hold(double);
template ImplicitGridSolver<2>& MpmMethod<2>::prepare_implicit_solve(double, bool, std::unique_ptr<IncrementalPotential<2>>&);
template PotentialInputs<3> MpmMethod<3>::potential_inputs(double) const;
template void MpmMethod<3>::set_kinetic_mass_floor(double);
template void MpmMethod<3>::implicit_update(double);
template void MpmMethod<3>::implicit_contact_line_hold(double);
template ImplicitGridSolver<3>& MpmMethod<3>::prepare_implicit_solve(double, bool, std::unique_ptr<IncrementalPotential<3>>&);

}  // namespace meniscus::mpm
