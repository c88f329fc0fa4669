#include "grid/grid_field.hpp"

#include "core/error.hpp"

namespace meniscus::grid {

template <int Dim>
GridField<Dim>::GridField(const Decomposition<Dim>& decomp) : decomp_(decomp) {
  DMCreateGlobalVector(decomp.dm(), &global_);
  DMCreateLocalVector(decomp.dm(), &local_);
  VecZeroEntries(global_);
  VecZeroEntries(local_);
}

template <int Dim>
GridField<Dim>::~GridField() {
  if (global_) VecDestroy(&global_);
  if (local_) VecDestroy(&local_);
}

template <int Dim>
NodeBox<Dim> GridField<Dim>::owned_box() const {
  NodeBox<Dim> b;
  for (int d = 0; d < Dim; ++d) {
    b.lo[d] = decomp_.owned_lo()[d];
    b.n[d] = decomp_.owned_hi()[d] - decomp_.owned_lo()[d];
  }
  return b;
}

template <int Dim>
NodeBox<Dim> GridField<Dim>::ghost_box() const {
  NodeBox<Dim> b;
  for (int d = 0; d < Dim; ++d) {
    b.lo[d] = decomp_.ghost_lo()[d];
    b.n[d] = decomp_.ghost_hi()[d] - decomp_.ghost_lo()[d];
  }
  return b;
}

template <int Dim>
NodeArray GridField<Dim>::acquire_local(bool zero) {
  if (zero) VecZeroEntries(local_);
  VecGetArray(local_, &local_ptr_);
  local_host_ = HostNodeArray(local_ptr_, ghost_box().size(), dof());
  return Kokkos::create_mirror_view_and_copy(MemSpace(), local_host_);
}

template <int Dim>
void GridField<Dim>::release_local(NodeArray& a) {
  Kokkos::deep_copy(local_host_, a);  // a no-op when the views alias (host backends)
  a = NodeArray();
  local_host_ = HostNodeArray();
  VecRestoreArray(local_, &local_ptr_);
}

template <int Dim>
NodeArray GridField<Dim>::acquire_owned() {
  VecGetArray(global_, &owned_ptr_);
  owned_host_ = HostNodeArray(owned_ptr_, owned_box().size(), dof());
  return Kokkos::create_mirror_view_and_copy(MemSpace(), owned_host_);
}

template <int Dim>
void GridField<Dim>::release_owned(NodeArray& a) {
  Kokkos::deep_copy(owned_host_, a);
  a = NodeArray();
  owned_host_ = HostNodeArray();
  VecRestoreArray(global_, &owned_ptr_);
}

template <int Dim>
void GridField<Dim>::local_to_global_add() {
  VecZeroEntries(global_);
  DMLocalToGlobalBegin(decomp_.dm(), local_, ADD_VALUES, global_);
  DMLocalToGlobalEnd(decomp_.dm(), local_, ADD_VALUES, global_);
}

template <int Dim>
void GridField<Dim>::global_to_local() {
  DMGlobalToLocalBegin(decomp_.dm(), global_, INSERT_VALUES, local_);
  DMGlobalToLocalEnd(decomp_.dm(), global_, INSERT_VALUES, local_);
}

template class GridField<2>;
template class GridField<3>;

}  // namespace meniscus::grid
