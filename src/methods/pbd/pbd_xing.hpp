#pragma once
// Position-based surface tension flow (Xing et al. 2022, ACM TOG 41(6) 244), distributed over the
// particle layer of the framework (particle sets, halo ghosts, cell-list neighbour search, sources,
// colliders). One step follows the paper's Algorithm 1:
//   v += dt g;  p* = p + dt v;
//   nlIter times: every resetIter iterations rebuild the halo (width h) and the neighbour lists on p*;
//     density and lambda on p* -> refresh lambda on ghosts -> Jacobi gather of the density and distance
//     corrections -> p* += dp -> collider projection -> refresh ghost p*;
//   v = (p* - p)/dt;  XSPH viscosity;  p += dt v (or p = p*);  migration, cell sort.
// At every rebuild the particles are classified by light shading (surface / interior / isolated) and
// get colour-field normals; distance constraints act between particles of one label, isolated
// particles have no density constraint; every surface particle gets its local mesh (one-ring fan).
// Area constraints on the fans (paper sec. 5) join the Jacobi sweep. The halo is two supports deep so
// that ghost rows near the rank face get the same fans as on their owner (a fan straddling a rank
// face gives the same constraint on both sides). 3D only (the area constraint lives on 2D fans in 3D).
#include <memory>
#include <string>
#include <vector>

#include "grid/decomposition.hpp"
#include "methods/method.hpp"
#include "methods/pbd/pbd_deck.hpp"
#include "methods/pbd/pbf_constraints.hpp"
#include "methods/pbd/area_constraint.hpp"
#include "methods/pbd/local_mesh.hpp"
#include "methods/pbd/surface_detection.hpp"
#include "particles/halo.hpp"
#include "particles/neighbor_search.hpp"
#include "particles/particle_set.hpp"
#include "physics/collider.hpp"

namespace meniscus::pbd {

class PbdXing : public Method {
 public:
  explicit PbdXing(const MethodContext& ctx);

  double stable_dt() override { return p_.dt; }
  void step(double dt) override;
  void diagnostics(DiagnosticRow& row) override;
  long global_particle_count() override;
  Timers& timers() override { return timers_; }
  particles::ParticleSet& particles() override { return set_; }
  int position_field() const override { return f_.x; }
  int dimension() const override { return 3; }
  std::vector<std::pair<std::string, double>> state() override;
  void restore_state(const std::vector<std::pair<std::string, double>>& state) override;
  void redistribute_particles() override;

  struct Fields {
    int x, v, ps;  // position, velocity, predicted position p* (not persistent)
  };
  const Fields& fields() const { return f_; }
  const PbdParams& params() const { return p_; }
  double mass() const { return mass_; }
  double time() const { return time_; }

  // Stages, public for tests. rebuild() builds the halo and neighbour lists on the predicted
  // positions (set field `ps`); after it, density() holds rho on the owned rows once a sweep ran.
  void rebuild();
  void sweep();
  int owned() const { return owned_; }
  const particles::NeighborLists& neighbor_lists() const { return lists_; }
  Kokkos::View<double**, Kokkos::LayoutRight> total_positions() const { return xt_; }
  // Rows of the last sweep (owned rows before the end-of-step migration and sort).
  Kokkos::View<double*> density() const { return rho_; }
  Kokkos::View<double*> fan_area() const { return area_; }
  // After rebuild(): 1 for surface particles (owned and ghost rows), isolated particles, unit normals.
  Kokkos::View<int*> surface_label() const { return label_; }
  Kokkos::View<int*> isolated() const { return density_off_; }
  Kokkos::View<double**, Kokkos::LayoutRight> normals() const { return normal_; }
  void classify_surface();
  // Local meshes of the owned surface rows on the current p* (after classify_surface).
  void build_meshes();
  const LocalMeshes& meshes() const { return meshes_; }

  // Kernel-launching members stay public (a CUDA build rejects lambdas in private members).
  void seed_particles(const config::Section& root);
  void calibrate_mass();
  PbfSweep sweep_inputs() const;
  AreaSweep area_inputs() const;
  void project_colliders();
  void xsph(Kokkos::View<double**, Kokkos::LayoutRight> vt);
  // Kinematic particles (materials with `kinematic: true`) and the liquid held in a nozzle get back their
  // prescribed predicted position.
  void restore_kinematic();
  // Emitters (pbd.emitters, particles/disc_emitters.hpp): the layers due by time t join the set, with
  // the calibrated mass; ids continue in the same global order on every rank. Collective.
  void emit(double t);
  // Rows within nozzle_length of an emitter's disc (and within its radius plus half a spacing of its
  // axis) are held at the jet velocity for this step, as the liquid inside a pipe.
  void mark_nozzle_rows(double t);
  long emitted() const { return emitted_; }
  int held_rows() const { return held_rows_; }
  // End of a step, before migration (pbd.film_insertion_edge > 0): one new particle at the centroid of
  // the largest stretched triangle of each surface particle's fan that the particle has the smallest id
  // in; new ids follow the largest id in the run, in the order of their creators' ids, so the set does
  // not depend on the rank count. Returns the number inserted on all ranks. Collective.
  long insert_film_particles();

  // Ghost rows of a total-row view from their owners (this rebuild's halo plan).
  void refresh(Kokkos::View<double**, Kokkos::LayoutRight> total);
  void refresh(Kokkos::View<double*> total);
  void refresh(Kokkos::View<int*> total);

 private:

  MPI_Comm comm_;
  int rank_ = 0;
  PbdParams p_;
  std::unique_ptr<grid::Decomposition<3>> decomp_;
  physics::ColliderSet<3> colliders_, placed_;
  particles::ParticleSet set_;
  Fields f_{};
  double mass_ = 0;
  double min_block_ = 0;  // thinnest rank block (a ghost can only come from a face/edge/corner neighbour)

  particles::HaloPlan<3> halo_;
  particles::NeighborLists lists_;
  particles::NeighborLists all_lists_;  // every row (ghost fans), with area constraints
  Kokkos::View<double*> area_, area_lambda_;
  int owned_ = 0, total_ = 0;
  Kokkos::View<double**, Kokkos::LayoutRight> xt_;  // p*, owned then ghost rows
  Kokkos::View<double*> rho_, lambda_;
  Kokkos::View<int*> label_, density_off_;  // density_off_: isolated particles (no constraint, no fan)
  Kokkos::View<int*> filament_, no_density_;  // owned rows: filament particles; isolated or filament (sweep)
  Kokkos::View<int64_t*> ids_;
  Kokkos::View<double*> illuminated_;
  Kokkos::View<double**, Kokkos::LayoutRight> normal_;
  Kokkos::View<int*> has_normal_;
  Kokkos::View<double* [3]> shading_dirs_;
  Kokkos::View<int*> kinematic_;  // per material index: 1 = prescribed motion, constraints do not move it
  LocalMeshes meshes_;
  long fan_counts_[3] = {0, 0, 0};  // this rank at the last meshing: valid, closed, overflowing fans  // global ids of the owned and ghost rows

  std::vector<long> emitted_layers_;  // layers each emitter has released
  int64_t next_id_ = 0;               // next free particle id (emitters)
  long emitted_ = 0;                  // particles emitted so far (all ranks)
  Kokkos::View<int*> held_;           // set rows held in a nozzle this step
  Kokkos::View<double**, Kokkos::LayoutRight> held_velocity_;
  int held_rows_ = 0;

  double time_ = 0;
  double dt_now_ = 0;  // the current step's dt (kinematic particles' prescribed p* = p + dt v)
  long steps_ = 0;
  long projected_ = 0;
  long inserted_ = 0;  // film particles inserted so far (all ranks)
  long surface_count_ = 0, isolated_count_ = 0, filament_count_ = 0;  // this rank, at the last classification  // collider projections (summed over iterations, this rank)
  Timers timers_;
};

}  // namespace meniscus::pbd
