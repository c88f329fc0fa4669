#pragma once
// Signals that ask a run to stop cleanly: Slurm sends USR1 before the time limit
// (#SBATCH --signal=B:USR1@120, forwarded by the job script) and TERM when it cancels or times out a
// job; a terminal sends INT (Ctrl-C) and HUP (the terminal closed). The handler only records the
// signal; the time loop asks every rank after each step (an MPI_Allreduce, since the signal may reach
// the ranks at different moments; fused with the particle count), writes a final checkpoint and stops.
//
// Before the time loop (reading the deck, seeding, reading a restart file) there is nothing to save
// yet, so `SetupSignals` makes the same signals end the process at once with the run's exit code.
#include <mpi.h>

#include <csignal>

namespace meniscus::run {

// Catches USR1, TERM, INT and HUP while it exists; the previous handlers come back on destruction.
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
  // The same, and the largest `local_count` of any rank (for the load imbalance), still one reduction.
  int agree(MPI_Comm comm, long local_count, long& total_count, long& max_count) const;

 private:
  struct sigaction old_[4]{};
};

// Until the time loop takes over: USR1, TERM, INT and HUP print one line and end the process
// immediately with stop_exit_code(signal). Installed by the app right after MPI starts.
void install_setup_signal_exit();

// Exit code of a run stopped by `sig`: 0 for USR1 (a planned stop before the time limit),
// 128 + sig otherwise (what a shell reports for a job ended by that signal: TERM 143, INT 130, HUP 129).
int stop_exit_code(int sig);

// Open MPI's mpirun answers SIGTERM, SIGINT and SIGHUP by ending the job itself and exits with 1
// whatever the ranks report (its abort handler fixes the status; see jobs/mpirun.sh). When
// MENISCUS_EXIT_STATUS_FILE names a file, rank 0 writes its own exit code there as it ends, also
// from the setup-phase signal handler, so that a launcher script can exit with it.
// `writer`: whether this process writes (rank 0). Call once, after MPI has started.
void set_exit_status_file(bool writer);
// Writes `code` to that file (async-signal-safe: open, write, close); does nothing without one.
void record_exit_status(int code);

// Name of a signal for messages ("SIGUSR1").
const char* signal_name(int sig);

}  // namespace meniscus::run
