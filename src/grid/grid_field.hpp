#pragma once
// A nodal field on the decomposition's DMDA: a global Vec (owned nodes) and a ghosted local Vec,
// exposed to kernels as Kokkos views (nodes x dof). On host backends the views alias PETSc's arrays;
// on a device backend acquire()/release() copy explicitly, so kernels never touch host memory.
#include <petscdmda.h>

#include <Kokkos_Core.hpp>

#include "grid/decomposition.hpp"

namespace meniscus::grid {

using MemSpace = Kokkos::DefaultExecutionSpace::memory_space;
using NodeArray = Kokkos::View<double**, Kokkos::LayoutRight, MemSpace>;
using HostNodeArray =
    Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

// Index arithmetic of a box of nodes (owned or ghosted), x fastest as in PETSc.
template <int Dim>
struct NodeBox {
  int lo[Dim];
  int n[Dim];
  KOKKOS_INLINE_FUNCTION long index(const int* i) const {
    long idx = 0, stride = 1;
    for (int d = 0; d < Dim; ++d) {
      idx += (i[d] - lo[d]) * stride;
      stride *= n[d];
    }
    return idx;
  }
  KOKKOS_INLINE_FUNCTION void node(long idx, int* i) const {
    for (int d = 0; d < Dim; ++d) {
      i[d] = lo[d] + static_cast<int>(idx % n[d]);
      idx /= n[d];
    }
  }
  KOKKOS_INLINE_FUNCTION long size() const {
    long s = 1;
    for (int d = 0; d < Dim; ++d) s *= n[d];
    return s;
  }
};

template <int Dim>
class GridField {
 public:
  explicit GridField(const Decomposition<Dim>& decomp);
  ~GridField();
  GridField(const GridField&) = delete;
  GridField& operator=(const GridField&) = delete;

  NodeBox<Dim> owned_box() const;
  NodeBox<Dim> ghost_box() const;
  int dof() const { return decomp_.dof(); }

  // Ghosted local array. zero=true clears it first (P2G); copy_in reads the current local values.
  NodeArray acquire_local(bool zero);
  void release_local(NodeArray& a);
  // Owned array (the global Vec's local part).
  NodeArray acquire_owned();
  void release_owned(NodeArray& a);

  void local_to_global_add();  // global = sum of every rank's local contributions
  void global_to_local();      // ghosts <- owners

  Vec global() const { return global_; }
  Vec local() const { return local_; }

 private:
  const Decomposition<Dim>& decomp_;
  Vec global_ = nullptr, local_ = nullptr;
  PetscScalar* local_ptr_ = nullptr;
  PetscScalar* owned_ptr_ = nullptr;
  HostNodeArray local_host_, owned_host_;
};

}  // namespace meniscus::grid
