#include "solvers/shell_operator.hpp"

#include <exception>

#include "solvers/petsc_check.hpp"

namespace meniscus::solvers {

void ShellOperator::create(MPI_Comm comm, PetscInt local_rows) {
  local_rows_ = local_rows;
  petsc_check(MatCreateShell(comm, local_rows, local_rows, PETSC_DETERMINE, PETSC_DETERMINE, this, &mat_),
              "MatCreateShell");
  petsc_check(MatShellSetOperation(mat_, MATOP_MULT, reinterpret_cast<void (*)(void)>(&ShellOperator::multiply)),
              "MatShellSetOperation");
  petsc_check(MatSetUp(mat_), "MatSetUp");
}

ShellOperator::ShellOperator(MPI_Comm comm, PetscInt local_rows, Apply apply) : apply_(std::move(apply)) {
  create(comm, local_rows);
}

ShellOperator::ShellOperator(Vec layout, VecApply apply, VecDiagonal diagonal)
    : vec_apply_(std::move(apply)), vec_diagonal_(std::move(diagonal)) {
  PetscInt n = 0;
  petsc_check(VecGetLocalSize(layout, &n), "VecGetLocalSize");
  MPI_Comm comm = MPI_COMM_NULL;
  petsc_check(PetscObjectGetComm(reinterpret_cast<PetscObject>(layout), &comm), "PetscObjectGetComm");
  create(comm, n);
  if (vec_diagonal_)
    petsc_check(
        MatShellSetOperation(mat_, MATOP_GET_DIAGONAL, reinterpret_cast<void (*)(void)>(&ShellOperator::get_diagonal)),
        "MatShellSetOperation");
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

void ShellOperator::set_symmetric() {
  petsc_check(MatShellSetOperation(mat_, MATOP_MULT_TRANSPOSE, reinterpret_cast<void (*)(void)>(&ShellOperator::multiply)),
              "MatShellSetOperation");
  petsc_check(MatSetOption(mat_, MAT_SYMMETRIC, PETSC_TRUE), "MatSetOption");
}

Vec ShellOperator::create_vector() const {
  Vec v = nullptr;
  petsc_check(MatCreateVecs(mat_, &v, nullptr), "MatCreateVecs");
  return v;
}

// Exceptions never cross PETSc's C frames: they become an error code that KSPSolve returns.
PetscErrorCode ShellOperator::get_diagonal(Mat A, Vec d) {
  void* ctx = nullptr;
  PetscCall(MatShellGetContext(A, &ctx));
  auto* self = static_cast<ShellOperator*>(ctx);
  if (self->vec_diagonal_) {
    try {
      self->vec_diagonal_(d);
    } catch (const std::exception&) {
      return PETSC_ERR_LIB;
    }
    return 0;
  }
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

PetscErrorCode ShellOperator::multiply(Mat A, Vec x, Vec y) {
  void* ctx = nullptr;
  PetscCall(MatShellGetContext(A, &ctx));
  auto* self = static_cast<ShellOperator*>(ctx);
  if (self->vec_apply_) {
    try {
      self->vec_apply_(x, y);
    } catch (const std::exception&) {
      return PETSC_ERR_LIB;
    }
    return 0;
  }
  const PetscScalar* xa = nullptr;
  PetscScalar* ya = nullptr;
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArray(y, &ya));
  PetscErrorCode code = 0;
  try {
    self->apply_(HostConstArray(xa, self->local_rows_), HostArray(ya, self->local_rows_));
  } catch (const std::exception&) {
    code = PETSC_ERR_LIB;
  }
  PetscCall(VecRestoreArray(y, &ya));
  PetscCall(VecRestoreArrayRead(x, &xa));
  return code;
}

}  // namespace meniscus::solvers
