#pragma once
// Helpers for tests that build a simulation from a deck written inline.
#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <unistd.h>

#include "run/deck_schema.hpp"
#include "test_paths.hpp"
#include "run/simulation.hpp"

namespace meniscus::test {

// Writes `yaml` to a fresh temporary file (unique per process and call) and loads it.
inline run::LoadedDeck deck_from_string(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  static std::atomic<int> counter{0};
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("meniscus-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path file = dir / ("deck" + std::to_string(counter++) + ".yaml");
  std::ofstream(file) << yaml;
  return run::load_deck(file.string(), sets);
}

// A water column and a flying elastic sphere in a 2D box: fluid and solid fields, particles crossing
// rank boundaries within a few dozen steps. Tests append their own sections.
inline const std::string kWaterAndBlockScene = R"(
simulation: {dimension: 2, method: mpm, end_time: 1.0}
domain: {lower: [0, 0], upper: [0.4, 0.2], cell_size: 0.005}
mpm: {cfl: 0.4}
materials:
  - {name: water, model: fluid, density: 1000, bulk_modulus: 2.0e5, viscosity: 1.0e-3}
  - {name: block, model: fixed-corotated, density: 500, youngs_modulus: 2.0e5, poisson_ratio: 0.25}
sources:
  - {type: box, material: water, lower: [0.01, 0.01], upper: [0.1, 0.15]}
  - {type: sphere, material: block, center: [0.25, 0.08], radius: 0.03, velocity: [-1.5, 0.5]}
)";

// Runs the deck for `steps` steps (MPI_COMM_WORLD) with output into `dir`; returns the simulation.
inline std::unique_ptr<run::Simulation> run_for_steps(const run::LoadedDeck& deck, const std::string& dir, long steps) {
  run::RunOptions opt;
  opt.output_dir = dir;
  opt.max_steps = steps;
  auto sim = std::make_unique<run::Simulation>(MPI_COMM_WORLD, deck, opt);
  sim->run();
  return sim;
}


// A communicator holding only rank 0 of `comm` (MPI_COMM_NULL elsewhere), for running the 1-rank
// reference of a rank-equivalence test inside a multi-rank job.
inline MPI_Comm rank0_comm(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm out;
  MPI_Comm_split(comm, rank == 0 ? 0 : MPI_UNDEFINED, 0, &out);
  return out;
}

// Rank equivalence: run(comm) on every rank of comm, then run(rank 0 alone) as the one-rank reference.
// Returns {here, alone}; `alone` is set on rank 0 only (default-constructed elsewhere).
template <class Run>
auto run_here_and_alone(MPI_Comm comm, Run&& run) {
  auto here = run(comm);
  decltype(here) alone{};
  MPI_Comm solo = rank0_comm(comm);
  if (solo != MPI_COMM_NULL) {
    alone = run(solo);
    MPI_Comm_free(&solo);
  }
  return std::make_pair(std::move(here), std::move(alone));
}

// Steps a method (anything with stable_dt() and step(dt)) with its own time step to t_end, the last
// step cut to land on it; after each step calls after_step(t, steps taken). Returns the step count.
template <class Method, class AfterStep>
int step_method_to(Method& m, double t_end, AfterStep&& after_step) {
  double t = 0;
  int steps = 0;
  while (t < t_end - 1e-12) {
    const double dt = std::min(m.stable_dt(), t_end - t);
    m.step(dt);
    t += dt;
    after_step(t, ++steps);
  }
  return steps;
}

}  // namespace meniscus::test
