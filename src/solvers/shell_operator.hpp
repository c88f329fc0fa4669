#pragma once
// A PETSc MATSHELL whose product and diagonal are host callbacks (which launch Kokkos kernels), so a
// matrix-free operator can go into any KSP and PCJACOBI. The callbacks must stay valid while the
// operator lives.
#include <petscmat.h>

#include <functional>

namespace meniscus::solvers {

class ShellOperator {
 public:
  using Apply = std::function<void(Vec in, Vec out)>;
  using Diagonal = std::function<void(Vec diag)>;

  // Square operator with the layout of `layout` (local and global sizes).
  ShellOperator(Vec layout, Apply apply, Diagonal diagonal);
  ~ShellOperator();
  ShellOperator(const ShellOperator&) = delete;
  ShellOperator& operator=(const ShellOperator&) = delete;

  Mat mat() const { return mat_; }
  void apply(Vec in, Vec out) const { apply_(in, out); }
  void diagonal(Vec d) const { diagonal_(d); }

 private:
  Mat mat_ = nullptr;
  Apply apply_;
  Diagonal diagonal_;
};

}  // namespace meniscus::solvers
