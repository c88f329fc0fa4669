#pragma once
// A matrix-free linear operator for PETSc: a MATSHELL whose product y = A x and diagonal call C++
// functions (which launch Kokkos kernels). Two forms of callback, one class:
//  - on this rank's entries as host arrays (as PETSc stores its Vecs on CPU builds), or
//  - on the PETSc Vecs themselves, for callers that keep their unknowns in Vecs (e.g. DMDA grids).
// The functions may communicate (e.g. refresh ghost copies of x) as long as every rank calls them,
// which PETSc guarantees: MatMult is collective. They must stay valid while the operator lives.
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
  using VecApply = std::function<void(Vec x, Vec y)>;
  using VecDiagonal = std::function<void(Vec d)>;

  // local_rows: this rank's share of the unknowns (square operator, same row and column layout).
  ShellOperator(MPI_Comm comm, PetscInt local_rows, Apply apply);
  // Square operator with the parallel layout of `layout`; the diagonal enables PCJACOBI.
  ShellOperator(Vec layout, VecApply apply, VecDiagonal diagonal);
  ~ShellOperator();
  ShellOperator(const ShellOperator&) = delete;
  ShellOperator& operator=(const ShellOperator&) = delete;

  // Optional: the operator's diagonal, which enables Jacobi preconditioning (-prefix_pc_type jacobi).
  void set_diagonal(Diagonal diagonal);
  // Declares the operator symmetric (lets PETSc check CG's precondition, and use A^T = A).
  void set_symmetric();

  Mat mat() const { return mat_; }
  PetscInt local_rows() const { return local_rows_; }
  // A Vec with this operator's row layout.
  Vec create_vector() const;

 private:
  void create(MPI_Comm comm, PetscInt local_rows);
  static PetscErrorCode multiply(Mat A, Vec x, Vec y);
  static PetscErrorCode get_diagonal(Mat A, Vec d);
  Mat mat_ = nullptr;
  PetscInt local_rows_ = 0;
  Apply apply_;
  Diagonal diagonal_;
  VecApply vec_apply_;
  VecDiagonal vec_diagonal_;
};

}  // namespace meniscus::solvers
