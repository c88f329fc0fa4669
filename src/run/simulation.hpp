#pragma once
// The time loop shared by every method: picks dt (method limit, end time), retries rejected steps
// with half the step, writes diagnostics.csv and run.json, prints progress and the stage timers.
#include <mpi.h>

#include <memory>
#include <string>

#include "methods/method.hpp"
#include "run/deck_schema.hpp"

namespace meniscus::run {

struct RunOptions {
  std::string output_dir;   // empty: the deck's output.directory
  long max_steps = -1;      // -1: the deck's simulation.max_steps
  double end_time = -1;     // -1: the deck's simulation.end_time
  std::string runtime_description;
};

struct RunSummary {
  long steps = 0;
  double time = 0;
  double wall_s = 0;
  double particle_steps_per_s = 0;
};

class Simulation {
 public:
  Simulation(MPI_Comm comm, const LoadedDeck& deck, RunOptions options);
  ~Simulation();
  RunSummary run();
  Method& method() { return *method_; }

 private:
  void write_run_json(const RunSummary* summary);
  MPI_Comm comm_;
  const LoadedDeck& deck_;
  RunOptions opt_;
  std::unique_ptr<Method> method_;
  std::string out_dir_;
  int rank_ = 0, size_ = 1;
};

}  // namespace meniscus::run
