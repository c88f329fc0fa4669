#include "run/checkpoint_observer.hpp"

#include "core/log.hpp"
#include "io/checkpoint.hpp"

namespace meniscus::run {

CheckpointObserver::CheckpointObserver(MPI_Comm comm, const LoadedDeck& deck, const std::string& output_dir)
    : comm_(comm), deck_(deck), folder_(io::checkpoint_folder(output_dir)) {
  const auto chk = deck.deck.root().section("checkpoint");
  every_ = chk.integer("every");
  every_s_ = chk.real("every_minutes") * 60.0;
  keep_ = static_cast<int>(chk.integer("keep"));
}

void CheckpointObserver::begin(Method& method, const StepInfo& info) {
  since_ = std::chrono::steady_clock::now();
  // A restarted run already has the checkpoint it started from.
  last_step_ = info.step;
}

bool CheckpointObserver::clock_due() {
  if (every_s_ <= 0) return false;
  int rank = 0, due = 0;
  MPI_Comm_rank(comm_, &rank);
  if (rank == 0) due = std::chrono::duration<double>(std::chrono::steady_clock::now() - since_).count() >= every_s_;
  MPI_Bcast(&due, 1, MPI_INT, 0, comm_);
  return due != 0;
}

void CheckpointObserver::write(Method& method, const StepInfo& info) {
  if (info.step == last_step_) return;
  io::CheckpointInfo ci;
  ci.step = info.step;
  ci.time = info.time;
  ci.dt = info.dt;
  ci.wall_s = info.wall_s;
  last_path_ = io::write_checkpoint(comm_, method, deck_.method, deck_.deck, folder_, ci, keep_);
  last_step_ = info.step;
  since_ = std::chrono::steady_clock::now();
  log::info("checkpoint %s (step %ld, t = %.6g s)", last_path_.c_str(), info.step, info.time);
}

void CheckpointObserver::after_step(Method& method, const StepInfo& info) {
  const bool by_steps = every_ > 0 && info.step % every_ == 0;
  // Every rank takes part in the clock decision, whatever the step schedule says.
  const bool by_clock = clock_due();
  if (by_steps || by_clock || info.stop_signal != 0) write(method, info);
}

}  // namespace meniscus::run
