#include "solvers/view_files.hpp"

#include <fstream>

#include "core/error.hpp"
#include "solvers/petsc_check.hpp"

namespace meniscus::solvers {

void append_ksp_view_files(MPI_Comm comm, const std::string& prefix) {
  // The KSP options that take a viewer (PETSc 3.18 KSPSetFromOptions and KSPSolve).
  static const char* const keys[] = {"-ksp_view", "-ksp_view_pre", "-ksp_converged_reason",
                                     "-ksp_view_final_residual", "-ksp_view_mat", "-ksp_view_pmat",
                                     "-ksp_view_rhs", "-ksp_view_solution", "-ksp_view_eigenvalues",
                                     "-ksp_view_singularvalues", "-ksp_view_mat_explicit",
                                     "-ksp_view_preconditioned_operator_explicit", "-ksp_view_diagonal_scale"};
  for (const char* key : keys) {
    char value[PETSC_MAX_PATH_LEN] = "";
    PetscBool set = PETSC_FALSE;
    petsc_check(PetscOptionsGetString(nullptr, prefix.c_str(), key, value, sizeof value, &set), "PetscOptionsGetString");
    // ascii:FILE[:FORMAT[:append]], with a file name (stdout is never truncated).
    const std::string text = value;
    if (!set || text.rfind("ascii:", 0) != 0) continue;
    const std::string rest = text.substr(6);
    const std::string file = rest.substr(0, rest.find(':'));
    const std::string format = file.size() < rest.size() ? rest.substr(file.size() + 1) : "";
    if (file.empty() || format.find(':') != std::string::npos) continue;  // no file, or a mode given
    const std::string name = "-" + prefix + (key + 1);
    // A run starts the file afresh; rank 0 writes it, as PETSc's ASCII viewer does. A file that cannot
    // be written is the user's option, not a solver failure.
    int rank = 0, opened = 0;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0) opened = std::ofstream(file, std::ios::trunc).good() ? 1 : 0;
    MPI_Bcast(&opened, 1, MPI_INT, 0, comm);
    if (!opened) throw InputError("PETSc options database", name, "cannot open '" + file + "' for writing");
    petsc_check(PetscOptionsSetValue(nullptr, name.c_str(), ("ascii:" + file + ":" + format + ":append").c_str()),
                "PetscOptionsSetValue");
  }
}

}  // namespace meniscus::solvers
