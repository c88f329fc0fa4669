#pragma once
// When particle (and grid) files are written: every output.every steps and/or every
// output.every_time of simulated time, plus at the start and at the end of a run, when either key
// is set. The schedule in simulated time is a function of t alone (multiples of every_time), so a
// restarted run writes the same outputs as a straight one.
#include <mpi.h>

#include <memory>
#include <string>

#include "io/body_output.hpp"
#include "io/grid_output.hpp"
#include "io/particle_output.hpp"
#include "io/surface_output.hpp"
#include "run/deck_schema.hpp"
#include "methods/step_observer.hpp"

namespace meniscus::run {

class OutputObserver : public StepObserver {
 public:
  OutputObserver(MPI_Comm comm, Method& method, const LoadedDeck& deck, const std::string& dir);
  void begin(Method& method, const StepInfo& info) override;
  void after_step(Method& method, const StepInfo& info) override;
  void end(Method& method, const StepInfo& info) override;

 private:
  void write(Method& method, long step, double time);
  // Index of the next output time after t: outputs are at k * every_time.
  long next_index(double t) const;
  long every_ = 0;
  double every_time_ = 0;
  long next_k_ = 0;
  long last_step_ = -1;
  std::unique_ptr<io::ParticleOutput> particles_;
  std::unique_ptr<io::GridOutput> grid_;
  std::unique_ptr<io::BodyOutput> bodies_;  // methods that are a BodySource with bodies
  std::unique_ptr<io::SurfaceOutput> surface_;  // methods that are a SurfaceSource
  std::unique_ptr<io::SurfaceOutput> outlines_;  // 2D bodies' outlines (BodySource::body_outlines)
};

}  // namespace meniscus::run
