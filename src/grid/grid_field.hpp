#pragma once
// A nodal field on the decomposition's DMDA: a ghosted local Vec and, created on first use, a global
// Vec (owned nodes), exposed to kernels as Kokkos views (nodes x dof). On host backends the views
// alias PETSc's arrays; on a device backend acquire()/release() copy explicitly, so kernels never
// touch host memory. The explicit MPM step needs no global Vec: sum_ghosts_in_place() gives every
// rank the summed values on its whole ghosted box, so a nodewise update can run there directly.
#include <petscdmda.h>

#include <Kokkos_Core.hpp>
#include <vector>

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
  // active_dof > 0 gives the compact active arrays (acquire_active) that many values per node
  // instead of the decomposition's dof: a pass that fills only a few of the dof (the multiphase
  // force pass) then zeroes, scatters and sums a compact array. The PETSc Vecs keep the DM's dof.
  explicit GridField(const Decomposition<Dim>& decomp, int active_dof = 0);
  ~GridField();
  GridField(const GridField&) = delete;
  GridField& operator=(const GridField&) = delete;

  NodeBox<Dim> owned_box() const;
  NodeBox<Dim> ghost_box() const;
  int dof() const { return decomp_.dof(); }
  int active_dof() const { return active_dof_ > 0 ? active_dof_ : dof(); }

  // Ghosted local array. zero=true clears it first (P2G); copy_in reads the current local values.
  NodeArray acquire_local(bool zero);
  void release_local(NodeArray& a);
  // Owned array (the global Vec's local part).
  NodeArray acquire_owned();
  void release_owned(NodeArray& a);

  void local_to_global_add();  // global = sum of every rank's local contributions
  void global_to_local();      // ghosts <- owners
  // Every node of the ghosted local Vec becomes the sum of all ranks' local contributions to it,
  // added in ascending rank order from +0 (the order, for every rank that holds the node, is the
  // same, so owners and ghosts agree bit for bit; with at most two contributions it equals
  // local_to_global_add() followed by global_to_local()). Needs no global Vec: the ranks whose
  // ghosted boxes overlap exchange the overlap. Non-periodic decompositions only.
  void sum_ghosts_in_place();

  // Compact arrays for the explicit MPM step: a zeroed Kokkos array over `box` (a sub-box of the
  // ghosted box: the nodes this rank's particles reach), kept until the next call. Neither PETSc
  // Vec is created for them: a dense box would hold every node of the rank's part of the domain,
  // most of them empty where the material fills a corner. The box changes shape most steps while the
  // particles move, so the array is the leading rows of a store kept across calls: the store grows
  // by an eighth more than asked (as ParticleSet::reserve) and shrinks only when the box needs less
  // than half of it, so a steady run allocates a handful of times instead of every step.
  NodeArray acquire_active(const NodeBox<Dim>& box);
  // Rows (nodes) the active store holds: box sizes up to this take no allocation.
  size_t active_capacity() const { return active_store_.extent(0); }
  NodeArray active() const { return active_; }
  NodeBox<Dim> active_box() const { return active_box_; }
  // As sum_ghosts_in_place(), over the ranks' active boxes (collective: the boxes are gathered).
  void sum_active_in_place();

  Vec global() const;
  Vec local() const;

 private:
  struct Overlap {
    int rank;
    int lo[Dim], hi[Dim];
    long size() const {
      long s = 1;
      for (int d = 0; d < Dim; ++d) s *= hi[d] - lo[d];
      return s;
    }
    bool contains(const int* i) const {
      for (int d = 0; d < Dim; ++d)
        if (i[d] < lo[d] || i[d] >= hi[d]) return false;
      return true;
    }
  };
  // Sums the shared nodes of `a` (over `box`, dof values per node) with the overlapping ranks'.
  void sum_overlaps(double* a, const NodeBox<Dim>& box, const std::vector<Overlap>& overlaps, int dof) const;

  const Decomposition<Dim>& decomp_;
  int active_dof_ = 0;  // values per node of the active arrays; 0: the decomposition's dof
  // Both created on first use: the explicit MPM step without surface tension needs neither.
  mutable Vec global_ = nullptr, local_ = nullptr;
  std::vector<Overlap> overlaps_;  // other ranks' ghosted boxes met by ours, ascending rank
  bool overlaps_known_ = false;
  NodeArray active_store_;  // capacity rows x active_dof(); active_ is its first active_box_.size() rows
  NodeArray active_;
  NodeBox<Dim> active_box_{};
  PetscScalar* local_ptr_ = nullptr;
  PetscScalar* owned_ptr_ = nullptr;
  HostNodeArray local_host_, owned_host_;
};

}  // namespace meniscus::grid
