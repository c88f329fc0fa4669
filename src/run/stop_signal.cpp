#include "run/stop_signal.hpp"

#include <algorithm>

namespace meniscus::run {

namespace {
// Written only by the handler, read by the time loop: an async-signal-safe flag is all a handler
// may touch.
volatile std::sig_atomic_t g_signal = 0;

extern "C" void record_signal(int sig) { g_signal = sig; }
}  // namespace

StopSignals::StopSignals() {
  g_signal = 0;
  struct sigaction sa {};
  sa.sa_handler = record_signal;
  sigemptyset(&sa.sa_mask);
  // Restart interrupted system calls, so that a signal during MPI or file I/O is only recorded.
  sa.sa_flags = SA_RESTART;
  sigaction(SIGUSR1, &sa, &old_usr1_);
  sigaction(SIGTERM, &sa, &old_term_);
}

StopSignals::~StopSignals() {
  sigaction(SIGUSR1, &old_usr1_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
}

int StopSignals::agree(MPI_Comm comm) const {
  int mine = static_cast<int>(g_signal), any = 0;
  MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, comm);
  return any;
}

namespace {
// Element 0 summed (the count), element 1 the maximum (the signal).
void sum_and_max(void* in, void* inout, int* len, MPI_Datatype*) {
  const long* a = static_cast<const long*>(in);
  long* b = static_cast<long*>(inout);
  for (int i = 0; i + 1 < *len; i += 2) {
    b[i] += a[i];
    b[i + 1] = std::max(b[i + 1], a[i + 1]);
  }
}
}  // namespace

int StopSignals::agree(MPI_Comm comm, long local_count, long& total_count) const {
  static MPI_Op op = MPI_OP_NULL;  // created once, freed by MPI_Finalize
  if (op == MPI_OP_NULL) MPI_Op_create(&sum_and_max, /*commute=*/1, &op);
  long mine[2] = {local_count, static_cast<long>(g_signal)}, all[2] = {0, 0};
  MPI_Allreduce(mine, all, 2, MPI_LONG, op, comm);
  total_count = all[0];
  return static_cast<int>(all[1]);
}

const char* signal_name(int sig) {
  switch (sig) {
    case SIGUSR1: return "SIGUSR1";
    case SIGTERM: return "SIGTERM";
    default: return "a signal";
  }
}

}  // namespace meniscus::run
