#include "core/runtime.hpp"

#include <petscsys.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdlib>
#include <string>
#include <thread>

#include "core/log.hpp"
#include "solvers/block_ssor_cg.hpp"
#include "solvers/petsc_check.hpp"

namespace meniscus {

Runtime::Runtime(int* argc, char*** argv) {
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  log::set_rank(rank_);
  (void)argc0_;
}

void Runtime::start_libraries(const std::vector<std::string>& petsc_args, int threads) {
  if (petsc_started_) return;
  petsc_storage_.clear();
  petsc_storage_.push_back("meniscus");
  for (const auto& a : petsc_args) petsc_storage_.push_back(a);
  petsc_argv_.clear();
  for (auto& s : petsc_storage_) petsc_argv_.push_back(s.data());
  petsc_argv_.push_back(nullptr);
  int pargc = static_cast<int>(petsc_storage_.size());
  char** pargv = petsc_argv_.data();
  PetscErrorCode ierr = PetscInitialize(&pargc, &pargv, nullptr, nullptr);
  if (ierr) MPI_Abort(MPI_COMM_WORLD, 1);
  petsc_started_ = true;
  // Every PETSc call is checked (solvers/petsc_check.hpp) and its failure reported as one line with
  // PETSc's text for the error; PETSc's own handler would print a traceback of 15-20 lines first.
  // Its printing is turned off, not the handler (which keeps returning the right error codes).
  // MENISCUS_PETSC_TRACEBACK=1 keeps the traceback (for debugging PETSc itself).
  const char* traceback = std::getenv("MENISCUS_PETSC_TRACEBACK");
  if (!(traceback && std::string(traceback) == "1")) PetscErrorPrintf = PetscErrorPrintfNone;
  PetscPushErrorHandler(solvers::record_petsc_error, nullptr);
  // Our KSP types, so that -ksp_type names them on any KSP.
  solvers::register_block_ssor_cg();

  if (threads <= 0) {
    if (const char* env = std::getenv("OMP_NUM_THREADS")) threads = std::max(1, std::atoi(env));
  }
  if (threads <= 0) {
    // Share the node's cores among the ranks that run on it.
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
    int local = 1;
    MPI_Comm_size(node, &local);
    MPI_Comm_free(&node);
    const int cores = std::max(1u, std::thread::hardware_concurrency());
    threads = std::max(1, cores / local);
  }
#if KOKKOS_VERSION >= 40000
  Kokkos::InitializationSettings args;
  args.set_num_threads(threads);
  args.set_disable_warnings(true);
#else
  Kokkos::InitArguments args;
  args.num_threads = threads;
  args.disable_warnings = true;
#endif
  Kokkos::initialize(args);
  kokkos_started_ = true;
}

Runtime::~Runtime() {
  if (kokkos_started_) Kokkos::finalize();
  if (petsc_started_) PetscFinalize();
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

std::string Runtime::backend() const {
  if (!kokkos_started_) return "none";
  return Kokkos::DefaultExecutionSpace::name();
}

int Runtime::threads() const {
  if (!kokkos_started_) return 0;
  return Kokkos::DefaultExecutionSpace::concurrency();
}

std::string Runtime::describe() const {
  return log::format("%d MPI rank%s, Kokkos %s x %d thread%s, PETSc %d.%d.%d", size_, size_ == 1 ? "" : "s",
                     backend().c_str(), threads(), threads() == 1 ? "" : "s", PETSC_VERSION_MAJOR,
                     PETSC_VERSION_MINOR, PETSC_VERSION_SUBMINOR);
}

}  // namespace meniscus
