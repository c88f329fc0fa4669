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
  if (mat_) petsc_check_noexcept(MatDestroy(&mat_), "MatDestroy");
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

// Exceptions never cross PETSc's C frames: they become a PETSc error carrying their message, which
// KSPSolve returns and petsc_check turns back into a RuntimeError with that message.
PetscErrorCode ShellOperator::get_diagonal(Mat A, Vec d) {
  void* ctx = nullptr;
  PetscCall(MatShellGetContext(A, &ctx));
  auto* self = static_cast<ShellOperator*>(ctx);
  if (self->vec_diagonal_) {
    try {
      self->vec_diagonal_(d);
    } catch (const std::exception& e) {
      MENISCUS_PETSC_CALLBACK_FAILED("shell operator diagonal", e);
    }
    return 0;
  }
  PetscScalar* da = nullptr;
  PetscCall(VecGetArray(d, &da));
  try {
    self->diagonal_(HostArray(da, self->local_rows_));
  } catch (const std::exception& e) {
    PetscCall(VecRestoreArray(d, &da));
    MENISCUS_PETSC_CALLBACK_FAILED("shell operator diagonal", e);
  }
  PetscCall(VecRestoreArray(d, &da));
  return 0;
}

PetscErrorCode ShellOperator::multiply(Mat A, Vec x, Vec y) {
  void* ctx = nullptr;
  PetscCall(MatShellGetContext(A, &ctx));
  auto* self = static_cast<ShellOperator*>(ctx);
  if (self->vec_apply_) {
    try {
      self->vec_apply_(x, y);
    } catch (const std::exception& e) {
      MENISCUS_PETSC_CALLBACK_FAILED("shell operator product", e);
    }
    return 0;
  }
  const PetscScalar* xa = nullptr;
  PetscScalar* ya = nullptr;
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArray(y, &ya));
  try {
    self->apply_(HostConstArray(xa, self->local_rows_), HostArray(ya, self->local_rows_));
  } catch (const std::exception& e) {
    PetscCall(VecRestoreArray(y, &ya));
    PetscCall(VecRestoreArrayRead(x, &xa));
    MENISCUS_PETSC_CALLBACK_FAILED("shell operator product", e);
  }
  PetscCall(VecRestoreArray(y, &ya));
  PetscCall(VecRestoreArrayRead(x, &xa));
  return 0;
}

}  // namespace meniscus::solvers
