#pragma once
// Helpers for tests that build a simulation from a deck written inline.
#include <mpi.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "run/deck_schema.hpp"

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

inline std::string source_dir() { return MENISCUS_TEST_SOURCE_DIR; }

// A communicator holding only rank 0 of `comm` (MPI_COMM_NULL elsewhere), for running the 1-rank
// reference of a rank-equivalence test inside a multi-rank job.
inline MPI_Comm rank0_comm(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm out;
  MPI_Comm_split(comm, rank == 0 ? 0 : MPI_UNDEFINED, 0, &out);
  return out;
}

}  // namespace meniscus::test
