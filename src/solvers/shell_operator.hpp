#pragma once
// A matrix-free linear operator for PETSc: a MATSHELL whose product y = A x calls a C++ function on
// this rank's entries of x and y (host arrays, as PETSc stores its Vecs on CPU builds). The function
// may communicate (e.g. refresh ghost copies of x) as long as every rank calls it, which PETSc
// guarantees: MatMult is collective.
#include <petscmat.h>

#include <Kokkos_Core.hpp>
#include <functional>

namespace meniscus::solvers {

using HostArray = Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
using HostConstArray = Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

class ShellOperator {
 public:
  using Apply = std::function<void(HostConstArray x, HostArray y)>;
  using Diagonal = std::function<void(HostArray d)>;

  // local_rows: this rank's share of the unknowns (square operator, same row and column layout).
  ShellOperator(MPI_Comm comm, PetscInt local_rows, Apply apply);
  ~ShellOperator();
  ShellOperator(const ShellOperator&) = delete;
  ShellOperator& operator=(const ShellOperator&) = delete;

  // Optional: the operator's diagonal, which enables Jacobi preconditioning (-prefix_pc_type jacobi).
  void set_diagonal(Diagonal diagonal);

  Mat mat() const { return mat_; }
  PetscInt local_rows() const { return local_rows_; }
  // A Vec with this operator's row layout.
  Vec create_vector() const;

 private:
  static PetscErrorCode multiply(Mat A, Vec x, Vec y);
  static PetscErrorCode get_diagonal(Mat A, Vec d);
  Mat mat_ = nullptr;
  PetscInt local_rows_ = 0;
  Apply apply_;
  Diagonal diagonal_;
};

}  // namespace meniscus::solvers
