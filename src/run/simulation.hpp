#pragma once
// The time loop shared by every method: picks dt (method limit, end time), retries rejected steps
// with half the step, writes diagnostics.csv and run.json, prints progress and the stage timers.
// It owns the observers that write particle files and checkpoints, restarts from a checkpoint and
// stops cleanly on SIGUSR1/SIGTERM after writing a final one.
#include <mpi.h>

#include <memory>
#include <string>

#include <vector>

#include "methods/method.hpp"
#include "run/deck_schema.hpp"
#include "methods/step_observer.hpp"

namespace meniscus::run {

struct RunOptions {
  std::string output_dir;   // empty: the deck's output.directory
  long max_steps = -1;      // -1: the deck's simulation.max_steps
  double end_time = -1;     // -1: the deck's simulation.end_time
  std::string runtime_description;
  std::string restart_file;  // continue from this checkpoint (see io/checkpoint.hpp)
  bool clear_output = false;  // remove an earlier run's files from the output folder first (--overwrite)
};

struct RunSummary {
  long steps = 0;
  double time = 0;
  double wall_s = 0;
  double particle_steps_per_s = 0;
  // CPU time (user + system, every thread) of all ranks' processes over this session's steps, set-up
  // excluded, and per particle-step: the "core time" of Chen et al. 2021, Table 2.
  double core_s = 0;
  double core_ms_per_particle_step = 0;
  int stop_signal = 0;  // SIGUSR1/SIGTERM if the run stopped early on a signal (after a checkpoint)
};

class CheckpointObserver;

class Simulation {
 public:
  Simulation(MPI_Comm comm, const LoadedDeck& deck, RunOptions options);
  ~Simulation();
  RunSummary run();
  Method& method() { return *method_; }
  // Observers are called in the order added: the constructor adds particle output and checkpoints,
  // in-situ pipelines come after them.
  void add_observer(std::unique_ptr<StepObserver> observer) { observers_.push_back(std::move(observer)); }
  // Continue from a restored state instead of t = 0 (set by a restart before run()).
  void set_start(long step, double time) {
    start_step_ = step;
    start_time_ = time;
  }
  long start_step() const { return start_step_; }
  double start_time() const { return start_time_; }
  const std::string& output_directory() const { return out_dir_; }

 private:
  void write_run_json(const RunSummary* summary);
  MPI_Comm comm_;
  const LoadedDeck& deck_;
  RunOptions opt_;
  std::unique_ptr<Method> method_;
  std::string out_dir_;
  int rank_ = 0, size_ = 1;
  std::vector<std::unique_ptr<StepObserver>> observers_;
  long start_step_ = 0;
  double start_time_ = 0;
  double start_wall_ = 0;  // wall time used before a restart, so wall_s columns keep counting
  CheckpointObserver* checkpoints_ = nullptr;
};

}  // namespace meniscus::run
