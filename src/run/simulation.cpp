#include "run/simulation.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <sys/resource.h>

#include "core/error.hpp"
#include "core/log.hpp"
#include "io/checkpoint.hpp"
#include "core/version.hpp"
#include "run/checkpoint_observer.hpp"
#include "run/diagnostics_csv.hpp"
#include "run/output_folder.hpp"
#include "run/output_observer.hpp"
#include "run/stability_guard.hpp"
#include "run/step_size.hpp"
#include "methods/instability.hpp"
#include "run/stop_signal.hpp"

namespace meniscus::run {
namespace fs = std::filesystem;

Simulation::Simulation(MPI_Comm comm, const LoadedDeck& deck, RunOptions options)
    : comm_(comm), deck_(deck), opt_(std::move(options)) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  const auto root = deck_.deck.root();
  out_dir_ = opt_.output_dir.empty() ? root.section("output").text("directory") : opt_.output_dir;
  MethodContext ctx{comm_, root, deck_.deck.dimension()};
  method_ = find_method(deck_.method)->create(ctx);
  if (!opt_.restart_file.empty()) {
    // The method was built from the deck as usual; the checkpoint's particles and state replace it.
    const io::CheckpointInfo info = io::read_checkpoint(comm_, opt_.restart_file, *method_, deck_.method, deck_.deck);
    if (opt_.max_steps >= 0 && opt_.max_steps < info.step)
      throw InputError(opt_.restart_file, "--steps",
                       log::format("--steps %ld stops before the checkpoint's step %ld (--steps counts from t = 0); "
                                   "give a larger value", opt_.max_steps, info.step));
    if (opt_.end_time > 0 && opt_.end_time <= info.time * (1 + 1e-12))
      throw InputError(opt_.restart_file, "--end-time",
                       log::format("--end-time %.9g s is not after the checkpoint's time %.9g s; give a later time",
                                   opt_.end_time, info.time));
    set_start(info.step, info.time);
    start_wall_ = info.wall_s;
    log::info("restarting from %s: step %ld, t = %.9g s, %ld particles (written by %d ranks)",
              opt_.restart_file.c_str(), info.step, info.time, info.particles, info.writer_ranks);
  }
  // The folder is made only now that the deck (and the restart file) passed every check, so a
  // rejected deck leaves nothing behind.
  int ok = 0;
  if (rank_ == 0) {
    std::error_code ec;
    if (opt_.clear_output) clear_run_outputs(out_dir_);
    fs::create_directories(out_dir_, ec);
    ok = fs::is_directory(out_dir_, ec) ? 1 : 0;
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, comm_);
  if (!ok) throw InputError(deck_.deck.file(), "output.directory", "cannot create output folder '" + out_dir_ + "'");
  add_observer(std::make_unique<OutputObserver>(comm_, *method_, deck_, out_dir_));
  auto checkpoints = std::make_unique<CheckpointObserver>(comm_, deck_, out_dir_);
  checkpoints_ = checkpoints.get();
  add_observer(std::move(checkpoints));
}

Simulation::~Simulation() = default;

namespace {

// This process's CPU time so far (user + system, all threads), in seconds.
double process_cpu_s() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

std::string human_time(double s) {
  if (!std::isfinite(s) || s < 0) return "--";
  if (s < 60) return log::format("%.0fs", s);
  if (s < 3600) return log::format("%dm%02ds", static_cast<int>(s / 60), static_cast<int>(s) % 60);
  return log::format("%dh%02dm", static_cast<int>(s / 3600), static_cast<int>(s / 60) % 60);
}
}  // namespace

RunSummary Simulation::run() {
  const auto root = deck_.deck.root();
  const auto sim = root.section("simulation");
  const double end_time = opt_.end_time > 0 ? opt_.end_time : sim.real("end_time");
  long max_steps = opt_.max_steps >= 0 ? opt_.max_steps : sim.integer("max_steps");
  const long diag_every = root.section("diagnostics").integer("every");
  const double progress_interval = root.section("progress").real("interval");

  // Signals are caught from here on; one that arrives during a step is acted on after it.
  StopSignals signals;
  // A restarted run continues the diagnostics of the run it resumes.
  DiagnosticsCsv csv(comm_, (fs::path(out_dir_) / "diagnostics.csv").string(), start_step_ > 0 ? start_step_ : -1);
  write_run_json(nullptr);

  const long n0 = method_->global_particle_count();
  log::info("meniscus %s: %s, %s, %ld particles, until t = %g s%s", version_string(), deck_.method.c_str(),
            opt_.runtime_description.c_str(), n0, end_time,
            max_steps > 0 ? log::format(" or %ld steps", max_steps).c_str() : "");

  const auto t0 = std::chrono::steady_clock::now();
  const double cpu0 = process_cpu_s();
  auto session = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  auto wall = [&] { return start_wall_ + session(); };
  double t = start_time_, last_progress = -1e30, particle_steps = 0, dt = 0;
  double imbalance = 1;  // max/mean particles per rank after the last step, for the progress line
  long step = start_step_;
  int stop_signal = 0;
  // Progress and ETA count from where this session started (a restart starts part-way).
  auto fraction = [&](double time, long steps) {
    return std::max(time / end_time, max_steps > 0 ? static_cast<double>(steps) / max_steps : 0.0);
  };
  const double frac0 = fraction(t, step);
  auto record = [&](double wall_s) {
    DiagnosticRow row{{"step", static_cast<double>(step)}, {"time", t}, {"dt", dt}, {"wall_s", wall_s}};
    method_->diagnostics(row);
    csv.write(row);
  };
  if (start_step_ == 0) record(0.0);
  StabilityGuard guard(comm_, deck_, *method_);
  for (auto& o : observers_) o->begin(*method_, StepInfo{step, t, 0.0, wall(), false, 0});
  while (t < end_time * (1 - 1e-12) && (max_steps <= 0 || step < max_steps)) {
    dt = next_step_size(method_->stable_dt(), end_time - t);
    bool stepped = false;
    try {
      for (int attempt = 0;; ++attempt) {
        try {
          method_->step(dt);
          break;
        } catch (const StepRejected& e) {
          if (attempt >= 20) throw RuntimeError(std::string("step rejected 20 times: ") + e.what());
          dt *= 0.5;
          log::warn("step %ld rejected (%s); retrying with dt = %g s", step + 1, e.what(), dt);
        }
      }
      t += dt;
      ++step;
      stepped = true;
      guard.check(*method_, step, dt);
    } catch (const UnstableRun& e) {
      // Thrown collectively (by the guard or by a method's own check during the step), so every
      // rank keeps the evidence together: the diagnostics row and a checkpoint of the failing state,
      // in DIR/unstable so that `--restart latest` still finds the last good one.
      if (!stepped) {
        t += dt;
        ++step;
      }
      record(wall());
      std::string where;
      try {
        io::CheckpointInfo ci;
        ci.step = step;
        ci.time = t;
        ci.dt = dt;
        ci.wall_s = wall();
        where = "its state is in " +
                io::write_checkpoint(comm_, *method_, deck_.method, deck_.deck, (fs::path(out_dir_) / "unstable").string(),
                                     ci, 1);
      } catch (const RuntimeError& w) {
        where = std::string("its state could not be saved (") + w.what() + ")";
      }
      const std::string good = checkpoints_->last_written();
      throw RuntimeError(std::string(e.what()) + "; " + where + ", its diagnostics in diagnostics.csv" +
                         (good.empty() ? std::string() : "; the last good checkpoint is " + good));
    }
    // Every rank must agree to stop after the same step; the signal may have reached only some. The
    // particle count (for the rate) comes with it in one reduction.
    long n = 0, nmax = 0;
    stop_signal = signals.agree(comm_, method_->local_particle_count(), n, nmax);
    particle_steps += static_cast<double>(n);
    imbalance = n > 0 ? static_cast<double>(nmax) * size_ / static_cast<double>(n) : 1.0;
    const double w = wall();
    if (step % diag_every == 0) record(w);
    const bool last = stop_signal != 0 || !(t < end_time * (1 - 1e-12) && (max_steps <= 0 || step < max_steps));
    for (auto& o : observers_) o->after_step(*method_, StepInfo{step, t, dt, w, last, stop_signal});
    if (stop_signal) break;
    const double ws = session();
    if (ws - last_progress >= progress_interval) {
      last_progress = ws;
      const double frac = fraction(t, step);
      const double eta = frac > frac0 ? ws * (1 - frac) / (frac - frac0) : -1;
      log::info("step %7ld  t = %.5e s  dt = %.3e s  wall %s  ETA %s  %.3g particle-steps/s%s", step, t, dt,
                human_time(w).c_str(), human_time(eta).c_str(), ws > 0 ? particle_steps / ws : 0.0,
                size_ > 1 ? log::format("  imbalance %.2f", imbalance).c_str() : "");
    }
  }
  if (step % diag_every != 0 && step != start_step_) record(wall());
  for (auto& o : observers_) o->end(*method_, StepInfo{step, t, dt, wall(), true, stop_signal});

  RunSummary s;
  s.steps = step;
  s.time = t;
  s.wall_s = wall();
  s.stop_signal = stop_signal;
  const double ws = session();
  s.particle_steps_per_s = ws > 0 ? particle_steps / ws : 0;
  const double cpu = process_cpu_s() - cpu0;
  MPI_Allreduce(&cpu, &s.core_s, 1, MPI_DOUBLE, MPI_SUM, comm_);
  s.core_ms_per_particle_step = particle_steps > 0 ? 1e3 * s.core_s / particle_steps : 0;
  if (stop_signal) {
    log::warn("%s received: stopped after step %ld at t = %.6g s with checkpoint %s; continue with "
              "`meniscus run %s --restart latest %s`",
              signal_name(stop_signal), step, t, checkpoints_->last_written().c_str(), deck_.deck.file().c_str(),
              out_dir_.c_str());
  } else {
    log::info("done: %ld steps to t = %.6g s in %s (%.3g particle-steps/s, %.3g ms of core time per particle-step)",
              step, t, human_time(ws).c_str(), s.particle_steps_per_s, s.core_ms_per_particle_step);
  }
  method_->timers().print(comm_, ws);
  write_run_json(&s);
  return s;
}

void Simulation::write_run_json(const RunSummary* summary) {
  auto stats = method_->timers().reduce(comm_);
  if (rank_ != 0) return;
  const std::string path = (fs::path(out_dir_) / "run.json").string();
  const std::string tmp = path + ".tmp";
  {
    std::ofstream os(tmp);
    os << "{\n";
    os << "  \"version\": \"" << version_string() << "\",\n";
    os << "  \"git_commit\": \"" << git_commit() << "\",\n";
    os << "  \"deck_file\": \"" << deck_.deck.file() << "\",\n";
    os << "  \"method\": \"" << deck_.method << "\",\n";
    os << "  \"ranks\": " << size_ << ",\n";
    os << "  \"runtime\": \"" << opt_.runtime_description << "\",\n";
    if (!opt_.restart_file.empty()) os << "  \"restarted_from\": \"" << opt_.restart_file << "\",\n";
    if (summary) {
      os << "  \"steps\": " << summary->steps << ",\n";
      os << "  \"time\": " << log::format("%.17g", summary->time) << ",\n";
      os << "  \"wall_s\": " << log::format("%.6g", summary->wall_s) << ",\n";
      os << "  \"particle_steps_per_s\": " << log::format("%.6g", summary->particle_steps_per_s) << ",\n";
      os << "  \"core_s\": " << log::format("%.6g", summary->core_s) << ",\n";
      os << "  \"core_ms_per_particle_step\": " << log::format("%.6g", summary->core_ms_per_particle_step) << ",\n";
      if (summary->stop_signal) os << "  \"stopped_by\": \"" << signal_name(summary->stop_signal) << "\",\n";
    }
    os << "  \"timers\": {";
    for (size_t i = 0; i < stats.size(); ++i)
      os << (i ? ", " : "") << "\"" << stats[i].name << "\": {\"min_s\": " << stats[i].min_s
         << ", \"avg_s\": " << stats[i].avg_s << ", \"max_s\": " << stats[i].max_s << ", \"calls\": " << stats[i].calls
         << "}";
    os << "},\n";
    os << "  \"deck\": " << config::to_json(deck_.deck.resolved()) << "\n";
    os << "}\n";
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
}

}  // namespace meniscus::run
