#pragma once
// The MPM method, registered as `mpm` (`mpm-explicit` is kept as an alias for older decks).
// APIC MPM with quadratic B-splines (Jiang et al. 2015): weakly compressible fluids and
// fixed-corotated solids on the shared DMDA decomposition. One step is
//   P2G (mass, APIC momentum and stress impulse, scattered into the ghosted grid and summed across
//   ranks) -> grid update (gravity, colliders) -> G2P (velocity, affine C, F/J, advection) ->
//   migration (and periodic sorting by cell).
// With mpm.integrator = implicit the grid update is backward Euler instead (implicit_solve.hpp): P2G
// carries mass and momentum only and Newton minimises the incremental potential; the rest is shared.
// The class owns the particles and grid; the driver owns time, output and progress. The step lives in
// mpm_method.cpp, the surface-tension coupling in mpm_surface_coupling.cpp, the backward-Euler update in
// mpm_implicit_step.cpp and the diagnostics row in mpm_diagnostics.cpp.
#include <memory>
#include <string>
#include <vector>

#include "grid/decomposition.hpp"
#include "grid/grid_field.hpp"
#include "methods/method.hpp"
#include "methods/mpm/mpm_deck.hpp"
#include "particles/particle_set.hpp"
#include "particles/particle_sources.hpp"
#include "particles/balance.hpp"
#include "particles/halo.hpp"
#include "methods/mpm/surface_coefficient.hpp"
#include "methods/mpm/surface_resampling.hpp"
#include "methods/mpm/implicit_solve.hpp"
#include "methods/mpm/mpm_heat.hpp"
#include "geometry/curve.hpp"
#include "physics/collider.hpp"
#include "physics/material.hpp"

namespace meniscus::mpm {

template <int Dim>
class MpmMethod : public Method {
 public:
  explicit MpmMethod(const MethodContext& ctx);
  ~MpmMethod() override;

  double stable_dt() override;
  void step(double dt) override;
  void diagnostics(DiagnosticRow& row) override;
  long global_particle_count() override;
  Timers& timers() override { return timers_; }

  // Whoever holds the set may change velocities: the speed of the last step is then measured again.
  particles::ParticleSet& particles() override {
    step_speed_known_ = false;
    return set_;
  }
  long local_particle_count() override { return static_cast<long>(set_.size()); }
  int position_field() const override { return f_.x; }
  int dimension() const override { return Dim; }
  std::vector<std::pair<std::string, double>> state() override;
  void restore_state(const std::vector<std::pair<std::string, double>>& state) override;
  void redistribute_particles() override;
  void particles_replaced() override;
  bool grid_snapshot(GridSnapshot& out, bool shared_faces = false) override;

  // Access for tests.
  const grid::Decomposition<Dim>& decomposition() const { return *decomp_; }
  // Rebalancing during the run (domain.rebalance_threshold): how often and how well.
  const particles::Rebalancer<Dim>& rebalancer() const { return rebalancer_; }
  struct Fields {
    int x, v, C, F, J, mass, volume;
  };
  const Fields& fields() const { return f_; }  // F is -1 when no material is a solid
  particles::RealField deformation() const;
  const double* gravity() const { return gravity_; }
  // The surface samples of the last step (positions, dA, coefficient, interface), and the model.
  const SurfaceSamples<Dim>& surface_samples() const { return st_.samples; }
  const SurfaceCoefficientModel& surface_coefficients() const { return st_.coefficient; }
  bool implicit() const { return implicit_; }
  // Temperature (mpm.heat, mpm_heat_coupling.cpp): particle fields (-1 when off) and the last solve.
  int temperature_field() const { return heat_.T; }
  int temperature_gradient_field() const { return heat_.gradT; }
  int liquid_fraction_field() const { return heat_.phi; }  // -1 unless a material melts
  const HeatStats& last_heat_solve() const { return heat_.last; }
  long wick_particles_trimmed() const { return wick_.trimmed; }
  const double* wick_tip() const { return wick_.tip; }
  // Curved wicks (sources of type curve of the wick material): their tips, in source order.
  const std::vector<std::array<double, 3>>& wick_tips() const { return wick_.tips; }
  const std::vector<geometry::Curve>& wick_curves() const { return wick_.curves; }
  long melted_count() const { return heat_.melted; }  // this rank's solid -> liquid changes
  long frozen_count() const { return heat_.frozen; }  // this rank's liquid -> solid changes
  // Test hook (implicit integrator only): resamples, runs P2G and sets up the backward-Euler solve at
  // dt without solving, so that tests can evaluate the incremental potential and its derivatives.
  ImplicitGridSolver<Dim>& prepare_implicit_solve(double dt, bool project_hessian,
                                                  std::unique_ptr<IncrementalPotential<Dim>>& potential);

  // The stages of one step. Public only because they hold Kokkos device lambdas, which CUDA does not
  // allow in private or protected member functions; nothing outside the class calls them.
  // cover: nodes the compact grid must hold besides the particles' (the output block), else none.
  void p2g(double dt, const grid::NodeBox<Dim>* cover = nullptr);
  template <class Scatter>
  void p2g_particles(Scatter& scatter, double dt);
  void grid_update(double dt);
  void g2p(double dt);
  void fill_seeded_particles(particles::SeededParticles& seeded);  // releases its omega and volume
  void initialize_hydrostatic(const particles::SeededParticles& seeded);
  void resample_surface_particles();
  double capillary_dt() const;
  void p2g_surface(double dt, grid::NodeArray& local);
  void g2p_surface(grid::NodeArray& local, Kokkos::View<double**, Kokkos::LayoutRight>& vsum, Kokkos::View<double**, Kokkos::LayoutRight>& bsum);
  PotentialInputs<Dim> potential_inputs(double dt) const;
  void implicit_update(double dt);
  void implicit_contact_line_hold(double dt);
  void setup_heat(const config::Section& root);
  void seed_temperature(const config::Section& root, const particles::SeededParticles& seeded);
  void heat_update(double dt);
  void refresh_temperature_bound();
  void setup_wick(const config::Section& root);
  void locate_wick_tip();
  void trim_wick();
  void project_onto_wicks();
  void trim_curved_wicks();
  void apply_phase_change();
  void heat_diagnostics(DiagnosticRow& row);

 private:

  // Moves to the decomposition the rebalancer proposes, if any: rebuilds the grid and the grid
  // solvers on it and sends the particles to their new owners (collective).
  void rebalance(bool force);
  void make_implicit_solver();

  MPI_Comm comm_;
  std::unique_ptr<grid::Decomposition<Dim>> decomp_;
  particles::Rebalancer<Dim> rebalancer_;
  std::unique_ptr<grid::GridField<Dim>> grid_;
  particles::ParticleSet set_;
  Fields f_{};
  MaterialTable table_;
  Kokkos::View<physics::Material*> materials_;
  physics::ColliderSet<Dim> colliders_;
  double gravity_[Dim] = {};
  double cfl_ = 0.4, dt_max_ = 1e-3, dt_min_ = 1e-9;
  long sort_every_ = 20, steps_ = 0;
  double time_ = 0;  // simulated time, for colliders that move
  double max_wave_speed_ = 0, max_viscous_rate_ = 0;
  long clamped_ = 0;
  Timers timers_;
  // Largest particle speed after the last step, over all ranks: G2P measures it and reduces it in the
  // same MPI_Allreduce as its finiteness check, so that stable_dt() needs no reduction of its own.
  double step_speed_ = 0;
  bool step_speed_known_ = false;

  // Backward Euler (mpm.integrator = implicit, mpm.newton).
  bool implicit_ = false, project_hessian_ = true;
  // Explicit without surface tension: the grid arrays cover only the nodes the particles reach
  // (GridField::acquire_active), not the rank's whole ghosted box.
  bool compact_grid_ = false;
  grid::NodeBox<Dim> particle_node_box() const;  // the nodes of this rank's particles' stencils
  grid::NodeBox<Dim> node_box() const { return compact_grid_ ? grid_->active_box() : grid_->ghost_box(); }
  double surface_smoothing_ = 0.3;
  double kinetic_mass_floor_ = 0;  // mpm.newton.kinetic_mass_floor (before the small-step scaling)
  void set_kinetic_mass_floor(double dt);
  std::unique_ptr<ImplicitGridSolver<Dim>> implicit_solver_;
  solvers::NewtonOptions newton_options_{};  // what make_implicit_solver() builds it with
  double light_node_fraction_ = 0;
  bool assembled_hessian_ = true;
  ImplicitStats last_implicit_{};
  double last_dt_ = 0;

  // Surface tension (mpm.surface_tension): samples rebuilt each step, their parents' group sizes.
  struct SurfaceTension {
    bool enabled = false, massless = false;
    SurfaceCoefficientModel coefficient;
    ResamplingOptions options;
    particles::HaloPlan<Dim> halo;
    SurfaceSamples<Dim> samples;
    Kokkos::View<int*> group, group_start, group_members;  // |Pi_p| and each parent's sample rows (sample_groups)
    long dropped = 0;
    int scalar_field = -1;  // the Marangoni scalar (`surfactant`, or `temperature`), when the model has a law
    bool active = false;  // samples and groups match the current particle order (inside a step)
    bool line_hold = false;  // mpm.surface_tension.contact_line_hold (wetting walls): grid column 1 + Dim
    bool hold_in_solve = false;  // mpm.surface_tension.hold_mode = in_solve (implicit): the hold inside the Newton solve
  } st_;

  // Temperature (mpm.heat): the grid solve and the particle fields it owns.
  struct Heat {
    std::unique_ptr<HeatSolver<Dim>> solver;
    int T = -1, gradT = -1, phi = -1;  // phi: liquid fraction (phase change)
    Kokkos::View<int*> partner;        // material id -> the id it melts into / freezes into, or -1
    double hysteresis = 0;
    std::vector<double> collider_T;    // per collider (ColliderSet order): prescribed T, or -1 (insulated)
    long flips = 0;                    // phase changes this run (summed over ranks in diagnostics)
    long melted = 0, frozen = 0;       // of which solid -> liquid, liquid -> solid (this rank)
    HeatStats last{};
    long iterations = 0;  // KSP iterations summed over the run's steps
  } heat_;

  // Candle wick (mpm.wick, mpm_wick.cpp).
  struct Wick {
    bool enabled = false;
    int material = -1;
    double trim_height = 0, trim_radius = 0;
    double tip[3] = {};  // highest wick point (axis position, max y), set before each heat solve
    long trimmed = 0;    // wick particles deleted so far (all ranks)
    // Curved wicks: one per `curve` source of the wick material, each with its own tip (flame). Their
    // polylines resampled at dx / 8 for the projection kernel: (vertex, x y z arc-length), and per curve
    // its first vertex (curves + 1 entries). Per particle: the wick it belongs to (-1: none) and its arc
    // length along that wick.
    std::vector<geometry::Curve> curves;
    std::vector<std::array<double, 3>> tips;
    Kokkos::View<double**, Kokkos::LayoutRight> polyline;
    Kokkos::View<int*> first_vertex;
    Kokkos::View<int*> which;
    Kokkos::View<double*> arc;
  } wick_;
};

}  // namespace meniscus::mpm
