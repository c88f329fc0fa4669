#pragma once
// Helpers for tests that run whole simulations into an output folder and compare particle sets.
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "core/mpi_gather.hpp"
#include "particles/particle_set.hpp"

namespace meniscus::test {

// The whole text of a file ("" when it cannot be read).
// Number of ranks of comm.
inline int ranks(MPI_Comm comm) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  return size;
}

// A deck of the 3D membrane method in the unit box with cells of `cell_size`: the simulation and domain
// lines, then `membrane: {membrane}` and the `rest` (output, diagnostics) as given.
inline std::string membrane3d_deck(const std::string& name, const std::string& cell_size, const std::string& membrane,
                                   const std::string& rest) {
  return "simulation: {dimension: 3, method: membrane-ruan2021, end_time: 1.0, name: " + name + "}\n" +
         "domain: {lower: [0, 0, 0], upper: [1, 1, 1], cell_size: " + cell_size + "}\n" + "membrane: {" + membrane +
         "}\n" + rest;
}

inline std::string read_text_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A fresh, empty folder with the same name on every rank of `comm` (rank 0 picks and creates it),
// removed again when the test is done with it.
class SharedFolder {
 public:
  SharedFolder(MPI_Comm comm, const std::string& tag) : comm_(comm) {
    namespace fs = std::filesystem;
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    static int counter = 0;
    if (rank == 0) {
      path_ = (fs::temp_directory_path() /
               ("meniscus-" + tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++)))
                  .string();
      fs::remove_all(path_);
      fs::create_directories(path_);
    }
    int len = static_cast<int>(path_.size());
    MPI_Bcast(&len, 1, MPI_INT, 0, comm);
    path_.resize(len);
    MPI_Bcast(path_.data(), len, MPI_CHAR, 0, comm);
  }
  ~SharedFolder() {
    MPI_Barrier(comm_);
    int rank = 0;
    MPI_Comm_rank(comm_, &rank);
    std::error_code ec;
    if (rank == 0) std::filesystem::remove_all(path_, ec);
  }
  SharedFolder(const SharedFolder&) = delete;
  SharedFolder& operator=(const SharedFolder&) = delete;
  const std::string& path() const { return path_; }

 private:
  MPI_Comm comm_;
  std::string path_;
};

// All particles of every rank (rank order) on every rank: ids, materials and every field.
struct Gathered {
  std::vector<int64_t> id;
  std::vector<int32_t> material;
  std::map<std::string, std::vector<double>> field;  // n x components, row-major
  std::map<std::string, int> components;
  // Row of each id (ids are unique).
  std::map<int64_t, size_t> row_of() const {
    std::map<int64_t, size_t> m;
    for (size_t i = 0; i < id.size(); ++i) m[id[i]] = i;
    return m;
  }
};

inline Gathered gather_particles(MPI_Comm comm, const particles::ParticleSet& set) {
  const size_t n = set.size();
  Gathered g;
  auto ids = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.id());
  auto mats = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.material());
  g.id = allgather_vector(comm, std::vector<int64_t>(ids.data(), ids.data() + n));
  g.material = allgather_vector(comm, std::vector<int32_t>(mats.data(), mats.data() + n));
  for (size_t f = 0; f < set.field_info().size(); ++f) {
    const auto& info = set.field_info()[f];
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(static_cast<int>(f)));
    g.field[info.name] = allgather_vector(comm, std::vector<double>(h.data(), h.data() + n * info.components));
    g.components[info.name] = info.components;
  }
  return g;
}

}  // namespace meniscus::test
