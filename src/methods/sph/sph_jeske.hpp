#pragma once
// SPH with implicit surface tension (Jeske et al. 2023, Sec. 3, Algorithm 2): DFSPH
// (Bender & Koschier 2017) for pressure, the cohesion surface tension + Weiler viscosity + adhesion
// either solved implicitly in one matrix-free CG (module implicit_cohesion_viscosity) or applied
// explicitly (paper eq. 8), boundary samples from the SDF colliders, XSPH, inflow emitters.
// One step:
//   emitters -> neighbourhood (halo of width h, cell lists) -> boundary samples -> density and kernel
//   caches, DFSPH factor -> v* = v + dt g -> divergence solve -> surface tension + viscosity (implicit
//   solve, or explicit forces evaluated at t) -> density solve -> XSPH -> x += dt v -> colliders,
//   removal outside the box -> migration (+ periodic sort). docs/theory-sph.md has the equations.
#include <memory>
#include <string>
#include <vector>

#include "grid/decomposition.hpp"
#include "methods/method.hpp"
#include "methods/sph/boundary_contacts.hpp"
#include "methods/sph/sph_deck.hpp"
#include "methods/sph/sph_neighborhood.hpp"
#include "particles/balance.hpp"
#include "particles/halo.hpp"
#include "particles/neighbor_search.hpp"
#include "particles/particle_set.hpp"
#include "physics/collider.hpp"

namespace meniscus::sph {

template <int Dim>
class ImplicitSolverHandle;  // wraps the implicit module when it is built in

template <int Dim>
class SphJeske : public Method {
 public:
  explicit SphJeske(const MethodContext& ctx);
  ~SphJeske() override;

  double stable_dt() override;
  void step(double dt) override;
  void diagnostics(DiagnosticRow& row) override;
  long global_particle_count() override;
  Timers& timers() override { return timers_; }
  particles::ParticleSet& particles() override { return set_; }
  int position_field() const override { return f_.x; }
  int dimension() const override { return Dim; }
  std::vector<std::pair<std::string, double>> state() override;
  void restore_state(const std::vector<std::pair<std::string, double>>& state) override;
  void redistribute_particles() override;
  void particles_replaced() override;

  struct Fields {
    int x, v, mass, dv_prev, kappa, kappa_v;
  };
  const Fields& fields() const { return f_; }
  const SphParams& params() const { return p_; }
  // Tests change parameters between steps (e.g. switch XSPH off after relaxing a drop).
  SphParams& params_for_tests() { return p_; }
  const grid::Decomposition<Dim>& decomposition() const { return *decomp_; }
  // Rebalancing during the run (domain.rebalance_threshold): how often and how well.
  const particles::Rebalancer<Dim>& rebalancer() const { return rebalancer_; }
  double time() const { return time_; }

  // Stages, public for tests. update_neighborhood() builds the halo, the total (owned + ghost) rows
  // and the neighbour lists for the current positions; compute_density() fills density() (total rows)
  // and the step's kernel caches.
  void update_neighborhood();
  void compute_density();
  const Neighborhood& neighborhood() const { return nb_; }
  const particles::HaloPlan<Dim>& halo() const { return halo_; }  // ghost ids and periodic shifts
  Kokkos::View<double*> density() const { return rho_; }
  Kokkos::View<double**, Kokkos::LayoutRight> total_velocity() const { return vt_; }
  // Explicit cohesion (paper eq. 8, including adhesion) and Weiler viscosity accelerations of the owned
  // rows at the current state, with sigma and nu as given (after update_neighborhood, compute_density).
  Kokkos::View<double**, Kokkos::LayoutRight> explicit_acceleration(double sigma, double kinematic_viscosity);

  struct StepStats {
    int divergence_iterations = 0, density_iterations = 0, st_iterations = 0;
    double st_residual = 0, divergence_error = 0, density_error = 0;
    bool st_converged = true;
  };
  const StepStats& last_step() const { return last_; }

  // Stages that launch device lambdas. Public only because CUDA rejects an extended __device__ lambda
  // inside a private or protected member function; not part of the interface. The pressure solves
  // are in sph_pressure_solves.cpp, the emitters in sph_emitters.cpp.
  void seed_particles(const config::Section& root);
  void compute_alpha();
  int divergence_solve(double dt, Kokkos::View<double**, Kokkos::LayoutRight> vstar);
  int density_solve(double dt, Kokkos::View<double**, Kokkos::LayoutRight> vstar);
  void apply_stiffness(double dt, Kokkos::View<double*> kappa, Kokkos::View<double**, Kokkos::LayoutRight> vstar);
  Kokkos::View<double*> begin_stiffness_solve(double dt, particles::RealField stored, Kokkos::View<double**, Kokkos::LayoutRight> vstar);
  void accumulate_and_apply_stiffness(double dt, Kokkos::View<double*> kappa, Kokkos::View<double*> acc,
                                      Kokkos::View<double**, Kokkos::LayoutRight> vstar);
  void store_stiffness(Kokkos::View<double*> acc, particles::RealField stored);
  void implicit_surface_tension(double dt, double sigma);
  void xsph(Kokkos::View<double**, Kokkos::LayoutRight> vstar);
  void project_out_of_colliders();
  void emit(double t);
  // The nozzle of each emitter: the particles inside the first `nozzle_length()` of its jet (a
  // cylinder of the disc's radius, downstream of the disc) move with the jet velocity whatever the
  // forces on them, as liquid in a pipe does; hold_nozzle_rows() re-imposes it on a velocity field.
  void mark_nozzle_rows(double t);
  void hold_nozzle_rows(Kokkos::View<double**, Kokkos::LayoutRight> vstar);
  double nozzle_length() const { return p_.support(); }
  void remove_outside();

 private:
  void refresh(Kokkos::View<double**, Kokkos::LayoutRight> total);
  void refresh(Kokkos::View<double*> total);
  long neighbor_count_min_for_divergence() const { return Dim == 3 ? 20 : 7; }

  MPI_Comm comm_;
  int rank_ = 0;
  SphParams p_;
  std::unique_ptr<grid::Decomposition<Dim>> decomp_;
  particles::Rebalancer<Dim> rebalancer_;
  // Moves to the decomposition the rebalancer proposes, if any, and sends the particles to their new
  // owners: everything else between steps lives in particle fields (collective).
  void rebalance(bool force);
  particles::ParticleSet set_;
  Fields f_{};
  physics::ColliderSet<Dim> colliders_;
  int wall_count_ = 0;
  HalfSpaceVolume<Dim> psi_;
  Kokkos::View<double*> rest_density_;  // per phase
  double domain_lo_[Dim], domain_hi_[Dim];

  // Per-step rows: owned then ghosts.
  particles::HaloPlan<Dim> halo_;
  particles::NeighborLists lists_;
  Neighborhood nb_;
  int owned_ = 0, total_ = 0;
  Kokkos::View<double**, Kokkos::LayoutRight> xt_, vt_;
  Kokkos::View<double*> mass_t_, rho_, alpha_, kappa_t_;
  Kokkos::View<int*> phase_t_;
  BoundaryContacts<Dim> contacts_;
  Kokkos::View<double*> w_;      // W_ij per CSR entry
  Kokkos::View<double**, Kokkos::LayoutRight> grad_;  // m_j grad W_ij per CSR entry
  Kokkos::View<double* [BoundaryContacts<Dim>::kMax][Dim]> bgrad_;

  double time_ = 0;
  long steps_ = 0;
  int64_t next_id_ = 0;
  std::vector<long> emitted_layers_;
  Kokkos::View<double**, Kokkos::LayoutRight> nozzle_velocity_;  // owned rows: the jet velocity of the nozzle a row is in
  Kokkos::View<int*> in_nozzle_;            // owned rows: 1 inside a nozzle
  int nozzle_rows_ = 0;                     // on this rank, this step
  long removed_ = 0, projected_ = 0;
  StepStats last_;
  double sum_div_iters_ = 0, sum_density_iters_ = 0, sum_st_iters_ = 0;
  long stat_steps_ = 0;
  // Steps whose divergence, constant-density or implicit solve stopped short of its tolerance (the
  // same on every rank: each decision uses global errors). Reported in diagnostics and warned about.
  enum Solve { kDivergence = 0, kDensity = 1, kImplicit = 2 };
  long unconverged_[3] = {0, 0, 0};
  void note_unconverged(Solve which, double error, double tolerance);
  std::unique_ptr<ImplicitSolverHandle<Dim>> implicit_;
  Timers timers_;
};

}  // namespace meniscus::sph
