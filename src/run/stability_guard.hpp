#pragma once
// Method-independent checks after every step that a run has not gone unstable: every velocity and
// position finite, no particle travelling more than three grid cells in one step (beyond any CFL
// bound, and farther than migration to a neighbouring rank can follow), and no more than run.max_removed_mass of
// the particle mass gone from the simulation (SPH's remove_outside deletes what leaves the box;
// a blow-up empties the box silently otherwise). A failed check throws UnstableRun naming the step,
// the cause and the keys to change.
#include <mpi.h>

#include <string>

#include "methods/method.hpp"
#include "run/deck_schema.hpp"

namespace meniscus::run {

class StabilityGuard {
 public:
  StabilityGuard(MPI_Comm comm, const LoadedDeck& deck, Method& method);
  // After step `step` of size dt. Collective.
  void check(Method& method, long step, double dt);

 private:
  double total_mass(Method& method) const;
  MPI_Comm comm_;
  std::string file_, step_keys_;
  double cell_size_ = 0, max_removed_ = 0.01;
  double mass_ = 0;      // after the last check
  double peak_ = 0;      // the most mass the simulation has held (emitters add some)
  double removed_ = 0;   // mass that left, summed over steps
};

// The deck keys that set a method's time step, for messages ("mpm.cfl or mpm.dt_max").
std::string time_step_keys(const LoadedDeck& deck);

}  // namespace meniscus::run
