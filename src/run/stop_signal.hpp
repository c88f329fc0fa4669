#pragma once
// SIGUSR1 and SIGTERM ask a run to stop cleanly: Slurm sends USR1 before the time limit
// (#SBATCH --signal=B:USR1@120, forwarded by the job script) and TERM when it cancels or times out
// a job. The handler only records the signal; the time loop asks every rank after each step
// (an MPI_Allreduce, since the signal may reach the ranks at different moments, fused with the
// particle count), writes a final
// checkpoint and stops.
#include <mpi.h>

#include <csignal>

namespace meniscus::run {

// Catches USR1 and TERM while it exists; the previous handlers come back on destruction.
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // The signal any rank has received since the start (the larger number if several), or 0.
  // Collective.
  int agree(MPI_Comm comm) const;
  // The same, and the sum of `local_count` over the ranks in the same MPI_Allreduce (the time loop's
  // per-step particle count rides along with the stop signal: one collective instead of two).
  int agree(MPI_Comm comm, long local_count, long& total_count) const;

 private:
  struct sigaction old_usr1_ {}, old_term_{};
};

// Name of a signal for messages ("SIGUSR1").
const char* signal_name(int sig);

}  // namespace meniscus::run
