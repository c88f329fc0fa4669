#pragma once
// Method `membrane-ruan2021`: liquid + surface-tension membrane (Ruan et al. 2021, "Solid-Fluid
// Interaction with Surface-Tension-Dominant Contact", ACM TOG 40(4)), 2D. The membrane vertices
// are the method's particles (held by rank 0, as the membrane is replicated); the MAC grid is the
// method's grid output (cell-centred pressure, cell type and velocity); the rigid bodies are the
// bodies output series, and the membrane is also its own polyline dataset (the membrane series).
#include <memory>

#include "io/body_output.hpp"
#include "io/surface_output.hpp"
#include "methods/membrane/membrane_deck.hpp"
#include "methods/membrane/membrane_flow.hpp"
#include "methods/method.hpp"

namespace meniscus::membrane {

class MembraneRuan : public Method, public io::SurfaceSource, public io::BodySource {
 public:
  explicit MembraneRuan(const MethodContext& ctx);
  double stable_dt() override;
  void step(double dt) override;
  void diagnostics(DiagnosticRow& row) override;
  long global_particle_count() override;
  Timers& timers() override { return flow_->timers(); }
  particles::ParticleSet& particles() override { return set_; }
  int position_field() const override { return 0; }
  int dimension() const override { return 2; }
  std::vector<std::pair<std::string, double>> state() override;
  void restore_state(const std::vector<std::pair<std::string, double>>& state) override;
  std::vector<GridTable> grid_state() override;
  void restore_grid_state(const std::vector<GridTable>& tables) override;
  void redistribute_particles() override;
  bool grid_snapshot(GridSnapshot& out, bool shared_faces = false) override;
  // The rigid discs as their own output dataset (the bodies series beside the membrane's particles).
  std::vector<io::BodyRecord> body_records() override;
  io::SurfaceMesh body_outlines() override;
  // The membrane's segments (rank 0's copy; z = 0), for ParaView to draw it as a line.
  io::SurfaceMesh surface_mesh() override;

  MembraneFlow& flow() { return *flow_; }

 private:
  void publish_vertices();
  MPI_Comm comm_;
  MembraneDeck deck_;
  std::unique_ptr<MacGrid> grid_;
  std::unique_ptr<MembraneFlow> flow_;
  particles::ParticleSet set_;
  double volume0_ = 0, last_dt_ = 0;
  StepReport last_;
  long steps_ = 0;
  bool closed_ = false;
};

}  // namespace meniscus::membrane
