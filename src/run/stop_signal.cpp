#include "run/stop_signal.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace meniscus::run {

namespace {
// Written only by the handler, read by the time loop: an async-signal-safe flag is all a handler
// may touch.
volatile std::sig_atomic_t g_signal = 0;

constexpr int kStopSignals[4] = {SIGUSR1, SIGTERM, SIGINT, SIGHUP};

extern "C" void record_signal(int sig) { g_signal = sig; }

// MENISCUS_EXIT_STATUS_FILE, copied once so that a signal handler can use it without allocating.
char g_status_path[4096] = {0};

// Setup-phase handler: only async-signal-safe calls (write, _exit).
extern "C" void exit_on_signal(int sig) {
  static const char msg[] = "warning: stop signal received during setup (before the first step): "
                            "stopped, no checkpoint written\n";
  ssize_t ignored = write(STDERR_FILENO, msg, sizeof(msg) - 1);
  (void)ignored;
  record_exit_status(stop_exit_code(sig));
  _exit(stop_exit_code(sig));
}
}  // namespace

StopSignals::StopSignals() {
  g_signal = 0;
  struct sigaction sa {};
  sa.sa_handler = record_signal;
  sigemptyset(&sa.sa_mask);
  // Restart interrupted system calls, so that a signal during MPI or file I/O is only recorded.
  sa.sa_flags = SA_RESTART;
  for (int i = 0; i < 4; ++i) sigaction(kStopSignals[i], &sa, &old_[i]);
}

StopSignals::~StopSignals() {
  for (int i = 0; i < 4; ++i) sigaction(kStopSignals[i], &old_[i], nullptr);
}

int StopSignals::agree(MPI_Comm comm) const {
  int mine = static_cast<int>(g_signal), any = 0;
  MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, comm);
  return any;
}

void install_setup_signal_exit() {
  struct sigaction sa {};
  sa.sa_handler = exit_on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  for (int s : kStopSignals) sigaction(s, &sa, nullptr);
}

void set_exit_status_file(bool writer) {
  const char* path = std::getenv("MENISCUS_EXIT_STATUS_FILE");
  if (!writer || !path || !*path || std::strlen(path) >= sizeof(g_status_path)) return;
  std::strcpy(g_status_path, path);
}

void record_exit_status(int code) {
  if (g_status_path[0] == 0) return;
  const int fd = open(g_status_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return;
  // At most three digits: exit codes are 0..255.
  char text[5];
  int n = 0;
  code &= 255;
  if (code >= 100) text[n++] = static_cast<char>('0' + code / 100);
  if (code >= 10) text[n++] = static_cast<char>('0' + code / 10 % 10);
  text[n++] = static_cast<char>('0' + code % 10);
  text[n++] = '\n';
  ssize_t ignored = write(fd, text, static_cast<size_t>(n));
  (void)ignored;
  close(fd);
}

int stop_exit_code(int sig) { return sig == 0 || sig == SIGUSR1 ? 0 : 128 + sig; }

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

int StopSignals::agree(MPI_Comm comm, long local_count, long& total_count, long& max_count) const {
  static MPI_Op op = MPI_OP_NULL;
  if (op == MPI_OP_NULL) MPI_Op_create(&sum_and_max, /*commute=*/1, &op);
  // Pairs (summed, maximum): (count, signal), (0, count).
  long mine[4] = {local_count, static_cast<long>(g_signal), 0, local_count}, all[4] = {0, 0, 0, 0};
  MPI_Allreduce(mine, all, 4, MPI_LONG, op, comm);
  total_count = all[0];
  max_count = all[3];
  return static_cast<int>(all[1]);
}

const char* signal_name(int sig) {
  switch (sig) {
    case SIGUSR1: return "SIGUSR1";
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGHUP: return "SIGHUP";
    default: return "a signal";
  }
}

}  // namespace meniscus::run
