#include "solvers/shell_operator.hpp"

#include "core/error.hpp"

namespace meniscus::solvers {

namespace {
ShellOperator* self_of(Mat A) {
  void* ctx = nullptr;
  MatShellGetContext(A, &ctx);
  return static_cast<ShellOperator*>(ctx);
}
PetscErrorCode shell_mult(Mat A, Vec x, Vec y) {
  self_of(A)->apply(x, y);
  return 0;
}
PetscErrorCode shell_diagonal(Mat A, Vec d) {
  self_of(A)->diagonal(d);
  return 0;
}
}  // namespace

ShellOperator::ShellOperator(Vec layout, Apply apply, Diagonal diagonal)
    : apply_(std::move(apply)), diagonal_(std::move(diagonal)) {
  PetscInt n = 0, N = 0;
  VecGetLocalSize(layout, &n);
  VecGetSize(layout, &N);
  MPI_Comm comm;
  PetscObjectGetComm(reinterpret_cast<PetscObject>(layout), &comm);
  MatCreateShell(comm, n, n, N, N, this, &mat_);
  MatShellSetOperation(mat_, MATOP_MULT, reinterpret_cast<void (*)(void)>(shell_mult));
  MatShellSetOperation(mat_, MATOP_MULT_TRANSPOSE, reinterpret_cast<void (*)(void)>(shell_mult));  // symmetric
  MatShellSetOperation(mat_, MATOP_GET_DIAGONAL, reinterpret_cast<void (*)(void)>(shell_diagonal));
  MatSetOption(mat_, MAT_SYMMETRIC, PETSC_TRUE);
}

ShellOperator::~ShellOperator() {
  if (mat_) MatDestroy(&mat_);
}

}  // namespace meniscus::solvers
