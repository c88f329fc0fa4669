#pragma once
// When checkpoints are written: every checkpoint.every steps, every checkpoint.every_minutes of
// wall-clock time, and after the step at which a stop signal (SIGUSR1/SIGTERM) arrived. Rank 0's
// clock decides the wall-clock schedule for everyone (clocks differ between nodes).
#include <mpi.h>

#include <chrono>
#include <string>

#include "run/deck_schema.hpp"
#include "methods/step_observer.hpp"

namespace meniscus::run {

class CheckpointObserver : public StepObserver {
 public:
  CheckpointObserver(MPI_Comm comm, const LoadedDeck& deck, const std::string& output_dir);
  void begin(Method& method, const StepInfo& info) override;
  void after_step(Method& method, const StepInfo& info) override;
  // The path of the newest checkpoint this run wrote ("" if none).
  const std::string& last_written() const { return last_path_; }
  const std::string& folder() const { return folder_; }

 private:
  bool clock_due();
  void write(Method& method, const StepInfo& info);
  MPI_Comm comm_;
  const LoadedDeck& deck_;
  std::string folder_;
  long every_ = 0;
  double every_s_ = 0;
  int keep_ = 2;
  std::chrono::steady_clock::time_point since_;
  long last_step_ = -1;
  std::string last_path_;
};

}  // namespace meniscus::run
