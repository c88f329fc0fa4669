#pragma once
// Method `membrane-ruan2021` in 3D: liquid on the 3D MAC grid with a triangle-mesh surface-tension
// membrane (Ruan et al. 2021) and rigid spheres (membrane_flow_3d.hpp, the bodies series). The
// membrane vertices are the method's particles (each rank's owned vertices, id = global vertex id).
// On several ranks the MAC grid is split as in 2D (rank_layout.hpp), the membrane with it and the
// bodies are replicated on every rank (membrane_flow_3d.hpp); a restart gathers the checkpoint's
// vertices and triangles and each rank keeps its part.
#include <memory>

#include "io/body_output.hpp"
#include "io/surface_output.hpp"
#include "methods/membrane/membrane_deck.hpp"
#include "methods/membrane/membrane_flow_3d.hpp"
#include "methods/method.hpp"

namespace meniscus::membrane {

class MembraneRuan3 : public Method, public io::SurfaceSource, public io::BodySource {
 public:
  explicit MembraneRuan3(const MethodContext& ctx);
  double stable_dt() override;
  void step(double dt) override;
  void diagnostics(DiagnosticRow& row) override;
  long global_particle_count() override;
  Timers& timers() override { return flow_->timers(); }
  particles::ParticleSet& particles() override { return set_; }
  int position_field() const override { return 0; }
  int dimension() const override { return 3; }
  // Checkpoints: the step count, volumes, flow time and each body's state (state), every dof of every MAC-grid node and the
  // membrane's triangles (grid tables); the vertices are the particles.
  std::vector<std::pair<std::string, double>> state() override;
  void restore_state(const std::vector<std::pair<std::string, double>>& state) override;
  std::vector<GridTable> grid_state() override;
  void restore_grid_state(const std::vector<GridTable>& tables) override;
  void redistribute_particles() override;
  // The MAC grid at cell centres: pressure, cell type, velocity (grid_state.hpp).
  bool grid_snapshot(GridSnapshot& out, bool shared_faces = false) override;
  // The membrane's triangles, vertices and velocities (gathered onto rank 0, one dataset) as the
  // output's membrane series. Collective.
  io::SurfaceMesh surface_mesh() override;
  // The spheres (every rank: the bodies are replicated) as the output's bodies series.
  std::vector<io::BodyRecord> body_records() override;

  MembraneFlow3& flow() { return *flow_; }

 private:
  MPI_Comm comm_;
  MembraneDeck deck_;
  std::unique_ptr<MacGrid3> grid_;
  std::unique_ptr<MembraneFlow3> flow_;
  particles::ParticleSet set_;
  double volume0_ = 0, last_dt_ = 0;
  Step3Report last_;
  long steps_ = 0;
  std::vector<double> restored_triangles_;  // the checkpoint's triangles until restore_state
};

// Host-side max |u| over the faces of the owned nodes and max |v| over the membrane vertices.
double max_face_speed_3d(MacGrid3& grid);

}  // namespace meniscus::membrane
