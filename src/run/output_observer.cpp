#include "run/output_observer.hpp"

#include <cmath>

#include "core/log.hpp"

namespace meniscus::run {

OutputObserver::OutputObserver(MPI_Comm comm, Method& method, const LoadedDeck& deck, const std::string& dir) {
  const auto out = deck.deck.root().section("output");
  every_ = out.integer("every");
  every_time_ = out.real("every_time");
  if (every_ == 0 && every_time_ == 0) return;
  particles_ = std::make_unique<io::ParticleOutput>(comm, method, deck.method, out.names("fields"), dir, deck.deck.file());
  if (out.flag("grid")) grid_ = std::make_unique<io::GridOutput>(comm, dir);
  if (auto* src = dynamic_cast<io::BodySource*>(&method); src && !src->body_records().empty()) {
    bodies_ = std::make_unique<io::BodyOutput>(comm, deck.method, dir);
    if (method.dimension() == 2) outlines_ = std::make_unique<io::SurfaceOutput>(comm, deck.method, dir, "body_outlines");
  }
  if (dynamic_cast<io::SurfaceSource*>(&method)) surface_ = std::make_unique<io::SurfaceOutput>(comm, deck.method, dir);
}

long OutputObserver::next_index(double t) const {
  // A step that lands within round-off of an output time counts as reaching it.
  return static_cast<long>(std::floor(t / every_time_ * (1 + 1e-12) + 1e-12)) + 1;
}

void OutputObserver::write(Method& method, long step, double time) {
  if (!particles_ || step == last_step_) return;
  particles_->write(method, step, time);
  if (grid_) grid_->write(method, step, time);
  if (bodies_) bodies_->write(dynamic_cast<io::BodySource&>(method).body_records(), method.dimension(), step, time);
  if (outlines_) outlines_->write(dynamic_cast<io::BodySource&>(method).body_outlines(), 2, step, time);
  if (surface_) surface_->write(dynamic_cast<io::SurfaceSource&>(method).surface_mesh(), method.dimension(), step, time);
  last_step_ = step;
}

void OutputObserver::begin(Method& method, const StepInfo& info) {
  if (!particles_) return;
  if (every_time_ > 0) next_k_ = next_index(info.time);
  if (info.step == 0) {
    write(method, 0, info.time);
  } else {
    // Restarted: the run before wrote the files up to here; the collections go on from them.
    particles_->resume(info.step);
    if (grid_) grid_->resume(info.step);
    if (bodies_) bodies_->resume(info.step);
    if (surface_) surface_->resume(info.step);
    last_step_ = info.step;
  }
}

void OutputObserver::after_step(Method& method, const StepInfo& info) {
  if (!particles_) return;
  bool due = every_ > 0 && info.step % every_ == 0;
  if (every_time_ > 0 && info.time >= next_k_ * every_time_ * (1 - 1e-12)) {
    due = true;
    next_k_ = next_index(info.time);
  }
  if (due) write(method, info.step, info.time);
}

void OutputObserver::end(Method& method, const StepInfo& info) {
  if (particles_) write(method, info.step, info.time);
}

}  // namespace meniscus::run
