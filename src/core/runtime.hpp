#pragma once
// One object owns the lifetime of MPI, PETSc and Kokkos. MPI starts first (the deck is read and
// validated before the heavy libraries start, so input errors exit fast); start_libraries() then
// brings up PETSc (with the options collected from the deck and the command line) and Kokkos.
// Destruction runs in reverse: Kokkos, PETSc, MPI.
#include <mpi.h>

#include <string>
#include <vector>

namespace meniscus {

class Runtime {
 public:
  Runtime(int* argc, char*** argv);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // petsc_args: options for PETSc's database ("-ksp_type", "cg", ...). threads <= 0: one thread per
  // core shared among the ranks of a node, unless OMP_NUM_THREADS says otherwise.
  void start_libraries(const std::vector<std::string>& petsc_args, int threads = 0);

  MPI_Comm comm() const { return MPI_COMM_WORLD; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  bool libraries_started() const { return petsc_started_; }
  std::string backend() const;
  int threads() const;
  std::string describe() const;  // "2 ranks, Kokkos OpenMP x 1 thread, PETSc 3.18.5"

 private:
  int rank_ = 0, size_ = 1;
  bool petsc_started_ = false, kokkos_started_ = false;
  int argc0_ = 0;
  std::vector<std::string> petsc_storage_;
  std::vector<char*> petsc_argv_;
};

}  // namespace meniscus
