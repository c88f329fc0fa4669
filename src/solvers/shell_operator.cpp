#include "solvers/shell_operator.hpp"

#include <exception>

#include "solvers/petsc_check.hpp"

namespace meniscus::solvers {

ShellOperator::ShellOperator(MPI_Comm comm, PetscInt local_rows, Apply apply)
    : local_rows_(local_rows), apply_(std::move(apply)) {
  petsc_check(MatCreateShell(comm, local_rows, local_rows, PETSC_DETERMINE, PETSC_DETERMINE, this, &mat_),
              "MatCreateShell");
  petsc_check(MatShellSetOperation(mat_, MATOP_MULT, reinterpret_cast<void (*)(void)>(&ShellOperator::multiply)),
              "MatShellSetOperation");
  petsc_check(MatSetUp(mat_), "MatSetUp");
}

ShellOperator::~ShellOperator() {
  if (mat_) MatDestroy(&mat_);
}

void ShellOperator::set_diagonal(Diagonal diagonal) {
  diagonal_ = std::move(diagonal);
  petsc_check(
      MatShellSetOperation(mat_, MATOP_GET_DIAGONAL, reinterpret_cast<void (*)(void)>(&ShellOperator::get_diagonal)),
      "MatShellSetOperation");
}

PetscErrorCode ShellOperator::get_diagonal(Mat A, Vec d) {
  void* ctx = nullptr;
  PetscCall(MatShellGetContext(A, &ctx));
  auto* self = static_cast<ShellOperator*>(ctx);
  PetscScalar* da = nullptr;
  PetscCall(VecGetArray(d, &da));
  PetscErrorCode code = 0;
  try {
    self->diagonal_(HostArray(da, self->local_rows_));
  } catch (const std::exception&) {
    code = PETSC_ERR_LIB;
  }
  PetscCall(VecRestoreArray(d, &da));
  return code;
}

Vec ShellOperator::create_vector() const {
  Vec v = nullptr;
  petsc_check(MatCreateVecs(mat_, &v, nullptr), "MatCreateVecs");
  return v;
}

PetscErrorCode ShellOperator::multiply(Mat A, Vec x, Vec y) {
  void* ctx = nullptr;
  PetscCall(MatShellGetContext(A, &ctx));
  auto* self = static_cast<ShellOperator*>(ctx);
  const PetscScalar* xa = nullptr;
  PetscScalar* ya = nullptr;
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArray(y, &ya));
  PetscErrorCode code = 0;
  try {
    self->apply_(HostConstArray(xa, self->local_rows_), HostArray(ya, self->local_rows_));
  } catch (const std::exception&) {
    code = PETSC_ERR_LIB;  // surfaced by KSPSolve's return code; never let an exception cross C frames
  }
  PetscCall(VecRestoreArray(y, &ya));
  PetscCall(VecRestoreArrayRead(x, &xa));
  return code;
}

}  // namespace meniscus::solvers
