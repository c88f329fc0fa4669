#pragma once
// Multiphase MPM for interacting fluids and solids (Yan et al. 2018), registered as `mpm-multiphase`.
// Every material belongs to a group; each group keeps its own grid mass, velocity and mass gradient
// on the shared DMDA (per node and group: m, p or u, f or a, G; dof = G (1 + 3 Dim)). One explicit
// step (update-stress-first, the paper's Algorithm 2):
//   1 P2G per group: m, m u, m grad N (normals), summed across ranks; u = p/m.
//   2 SPH density of every particle (number-density form over all groups, support 1.25 dx,
//     calibrated on a rest lattice) through the shared halo and a cell binning (no neighbour list).
//   3 Constitutive update: fluids p = Tait(rho); solids the Jaumann hypoelastic rate from their own
//     group's grid velocity gradient.
//   4 P2G of internal forces per group (plus the thermal buoyancy body force of smoke), summed across ranks.
//   5 Grid update: shared acceleration (all groups, the fluid groups only, or none: force_sharing),
//     anti-penetration contact between groups (contact.hpp), wall and collider conditions,
//     a = (u_new - u)/dt.
//   6 G2P per group: PIC/FLIP blend with the material's alpha_pic, advection; then migration.
// Before step 1: species diffusion, dissolution, the floor emitter and temperature diffusion. With the
// SPH density, steps 2 and 3 (fluids) come first and the fluids' forces join the P2G of step 1, so
// step 4 scatters only the solids' forces (same result to round-off, one pass over the fluid less).
// The stages are public only because they hold Kokkos device lambdas (CUDA rejects them in private
// member functions); tests call them one by one.
#include <memory>
#include <string>
#include <vector>

#include "grid/decomposition.hpp"
#include "grid/grid_field.hpp"
#include "grid/node_scatter.hpp"
#include "methods/method.hpp"
#include "methods/mpm_multiphase/multiphase_deck.hpp"
#include "particles/halo.hpp"
#include "particles/neighbor_search.hpp"
#include "particles/particle_set.hpp"
#include "particles/particle_sources.hpp"
#include "physics/collider.hpp"

namespace meniscus::mpm_multiphase {

template <int Dim>
class MultiphaseMpm : public Method {
 public:
  explicit MultiphaseMpm(const MethodContext& ctx);
  ~MultiphaseMpm() override;

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

  struct Fields {
    int x, v, mass, volume, density, stress, pressure;
    int fractions;  // volume fraction of every material (species), one column per material
    int temperature;  // K (buoyancy body force)
  };
  const Fields& fields() const { return f_; }
  const MultiphaseTable& table() const { return table_; }
  const MultiphaseSettings& settings() const { return s_; }
  MultiphaseSettings& settings() { return s_; }  // tests switch options between steps
  const grid::Decomposition<Dim>& decomposition() const { return *decomp_; }
  double density_calibration() const { return calibration_; }
  // The nodes of node_box() (this rank's particles' stencils, ghost nodes included, summed over the
  // ranks) after p2g_momentum: per group m, u, (unused), G (stride 1 + 3 Dim); after grid_update the
  // same array holds m, u_new, the grid increment / dt and G, which constitutive and g2p read.
  const grid::NodeArray& node_state() const { return state_; }
  const grid::NodeBox<Dim>& node_box() const { return state_box_; }
  // Group of each material (device), and per-group totals of mass and momentum (global; with `kinetic`
  // also the kinetic energy), exact sums of the particles' terms (reproducible_sum).
  void group_totals(std::vector<double>& mass, std::vector<double>& momentum, double* kinetic = nullptr);

  // Stages (see the header comment).
  void fill_seeded_particles(const particles::SeededParticles& seeded, double& vmin, double& vmax);
  // Removes the fluid particles seeded inside a solid or a fluid marked `displaces` (centre within half a
  // particle spacing of such a particle along every axis, displacers themselves kept); returns how many
  // (global).
  long remove_fluid_inside_solids(double spacing);
  // Particles (global count) outside the band G2P keeps them in, one cell inside the box, where every
  // GIMP stencil lies on the grid; the lowest such position per axis goes to `first` (or the box).
  long particles_outside_stencil_box(double* first);
  enum class Phases { All, Fluids, Solids };
  void p2g_momentum();  // p2g(false)
  // fluid_forces: also scatter the fluids' internal and buoyancy forces (SPH density mode, after
  // sph_density() and constitutive(dt, Phases::Fluids)); then p2g_forces(Phases::Solids) adds the rest.
  void p2g(bool fluid_forces);
  template <class Scatter>
  void p2g_scatter(Scatter& scatter, bool fluid_forces);  // p2g's particle pass (scatter view over node_box())
  // SPH density through a Verlet list (owned + ghost rows within support + skin), rebuilt with the
  // halo only when a row has moved more than half the skin since the last build, the particle count
  // changed or a particle changed phase (a global decision: the halo plan is collective).
  void sph_density();
  // The SPH sum's mirror images across walls and colliders (sph_wall_images).
  void add_wall_images(double support, double scale);
  long sph_list_builds() const { return sph_builds_; }
  void constitutive(double dt, Phases which = Phases::All);
  void p2g_forces(Phases which = Phases::All);
  template <class Scatter>
  void p2g_forces_scatter(Scatter& scatter, const grid::NodeBox<Dim>& box, Phases which);
  // Bounding boxes of every group's particles, this rank's and over all ranks (collective); p2g
  // measures them, and p2g_forces (same positions) reuses them.
  void measure_group_boxes();
  // The nodes reached by the stencils of this rank's particles of the given phases (clipped to the
  // ghosted box; empty when there are none), from the last measure_group_boxes().
  grid::NodeBox<Dim> phase_node_box(Phases which) const;
  // The nodes of node_box() that particles of the given phases on any rank may reach: the force pass's
  // box (a rank must receive the other ranks' forces on every node of its own box where they land).
  grid::NodeBox<Dim> force_node_box(Phases which) const;
  void grid_update(double dt, bool with_forces);
  void gather_rank_boxes();
  void g2p(double dt);
  // Miscible species: one explicit step of D alpha^k/Dt = k_d laplacian(alpha^k) with the weak-form
  // operator (conserves sum_j V0_j alpha_j^k to round-off), then mass and rest density follow.
  void diffuse_species(double dt);
  // One explicit step of DT/Dt = k_T laplacian(T) over every particle, the same weak-form operator
  // with one volume per node for all groups (heat crosses group boundaries); conserves sum_j V0_j T_j.
  void diffuse_temperature(double dt);
  // sum_j V0_j T_j (global).
  double heat_content();
  // Floor emitter (mpm_multiphase.emitter_*): adds the layers due by the current time; called at the
  // start of step().
  void emit();
  void append_emitted(const Kokkos::View<double**, Kokkos::LayoutRight>& x, const Kokkos::View<int64_t*>& ids);
  long emitted_layers() const { return emitted_layers_; }
  double emitter_spacing() const { return emitter_spacing_; }
  // Noyes-Whitney dissolution of solid material `dissolve_solid` into fluid `dissolve_into` at nodes
  // where both groups have mass (eqs. 30-32), then relabelling of saturated solid particles.
  void dissolve(double dt);
  long relabelled() const { return relabelled_; }
  // sum_j V0_j alpha_j^k of every material k (global).
  std::vector<double> species_volumes();

 private:
  // Per group and node: m, u, f (or a), the mass gradient, and with the position-based contact
  // detection the mass-weighted particle centre (Dim more).
  int stride() const { return 1 + 3 * Dim + (s_.contact_separation > 0 ? Dim : 0); }
  bool has_miscible_group() const;

  MPI_Comm comm_;
  MultiphaseSettings s_;
  MultiphaseTable table_;
  Kokkos::View<PhaseMaterial*> materials_;
  Kokkos::View<double*> beta_;  // G x G anti-penetration strengths
  Kokkos::View<double*> group_rest_;  // per group: its lightest material's rest density (contact_fill)
  Kokkos::View<double*> solid_rest_;  // per group: rest density of a solid group, 0 for a fluid group
  Kokkos::View<int*> shares_force_;  // per group: 1 if it shares the summed force (force_sharing)
  std::unique_ptr<grid::Decomposition<Dim>> decomp_;
  std::unique_ptr<grid::GridField<Dim>> grid_;
  // The step's compact node arrays (no PETSc Vec; ranks sum the overlaps of their boxes in rank
  // order): state_ over the nodes of every particle (grid_'s active array), and the separate force
  // pass's array over the nodes of the particles it visits (forces_; the solids alone with the SPH
  // density). The diffusion, dissolution and temperature passes keep grid_'s PETSc Vecs.
  grid::NodeArray state_;
  grid::NodeBox<Dim> state_box_{};
  std::unique_ptr<grid::GridField<Dim>> forces_;
  grid::NodeScatterCache scatter_cache_, force_scatter_cache_;  // the two passes' per-thread copies
  // Per group, the coordinate boxes of measure_group_boxes (as particles::BoundingBoxReducer: 2 Dim
  // values, max x and max -x) and, on the device, the nodes that any rank's particles of the group
  // reach (lo, hi per axis, unclipped; empty: lo >= hi). A particle whose stencil meets no other
  // group's nodes needs no mass gradient on the grid (only contact reads it, where two groups meet), and
  // a fluid particle whose stencil meets no solid's nodes has no solid volume to leave (g2p).
  std::vector<double> group_box_local_, group_box_global_;
  Kokkos::View<int*> group_nodes_;
  std::vector<int> group_nodes_host_;
  particles::ParticleSet set_;
  Fields f_{};
  physics::ColliderSet<Dim> colliders_;
  particles::HaloPlan<Dim> halo_;
  int dissolve_solid_ = -1, dissolve_into_ = -1;  // material ids (-1: no dissolution)
  long relabelled_ = 0;
  double calibration_ = 1;  // C_W of rho = m C_W sum_k W_jk (1/(V0 sum W) on a rest lattice)
  double max_wave_speed_ = 0;
  long steps_ = 0, contacts_ = 0;
  // Every rank's state_box_ of the current step (lo, n per axis; rank-major), for grid_update's
  // contact count: a node is counted by its owner if the owner's box holds it, else by the lowest rank
  // whose box does (exactly one rank counts each node that some rank updates).
  Kokkos::View<int*> rank_boxes_;
  std::vector<int> rank_boxes_host_;
  int emitter_material_ = -1;  // -1: no emitter
  double emitter_spacing_ = 0;
  long emitted_layers_ = 0;
  int64_t next_id_ = 0;
  bool has_solids_ = false;  // some material is a solid (dissolution only turns solids into fluid)
  bool forces_in_state_ = false, forces_in_vec_ = false;  // where grid_update finds the internal forces
  double time_ = 0;
  double ref_volume_ = 0, ref_half_width_ = 0;  // the seeded particle volume and its GIMP half-width
  // SPH Verlet list: positions of owned + ghost rows, owned positions at the last build, CSR list of
  // every fluid row's neighbours within support + skin at that build.
  Kokkos::View<double**, Kokkos::LayoutRight> sph_x_, sph_x0_;
  Kokkos::View<int*> sph_offset_, sph_index_;
  size_t sph_owned_ = 0;
  double sph_built_reach_ = 0;
  bool sph_valid_ = false;
  bool sort_pending_ = false;  // a sort is due and waits for the next list rebuild
  long sph_builds_ = 0;
  Timers timers_;
};

}  // namespace meniscus::mpm_multiphase
