#include "grid/grid_field.hpp"

#include "core/error.hpp"
#include "solvers/petsc_check.hpp"

namespace meniscus::grid {

template <int Dim>
GridField<Dim>::GridField(const Decomposition<Dim>& decomp) : decomp_(decomp) {
  solvers::petsc_check(DMCreateGlobalVector(decomp.dm(), &global_), "DMCreateGlobalVector");
  solvers::petsc_check(DMCreateLocalVector(decomp.dm(), &local_), "DMCreateLocalVector");
  solvers::petsc_check(VecZeroEntries(global_), "VecZeroEntries");
  solvers::petsc_check(VecZeroEntries(local_), "VecZeroEntries");
}

template <int Dim>
GridField<Dim>::~GridField() {
  if (global_) solvers::petsc_check_noexcept(VecDestroy(&global_), "VecDestroy");
  if (local_) solvers::petsc_check_noexcept(VecDestroy(&local_), "VecDestroy");
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
  if (zero) solvers::petsc_check(VecZeroEntries(local_), "VecZeroEntries");
  solvers::petsc_check(VecGetArray(local_, &local_ptr_), "VecGetArray");
  local_host_ = HostNodeArray(local_ptr_, ghost_box().size(), dof());
  return Kokkos::create_mirror_view_and_copy(MemSpace(), local_host_);
}

template <int Dim>
void GridField<Dim>::release_local(NodeArray& a) {
  Kokkos::deep_copy(local_host_, a);  // a no-op when the views alias (host backends)
  a = NodeArray();
  local_host_ = HostNodeArray();
  solvers::petsc_check(VecRestoreArray(local_, &local_ptr_), "VecRestoreArray");
}

template <int Dim>
NodeArray GridField<Dim>::acquire_owned() {
  solvers::petsc_check(VecGetArray(global_, &owned_ptr_), "VecGetArray");
  owned_host_ = HostNodeArray(owned_ptr_, owned_box().size(), dof());
  return Kokkos::create_mirror_view_and_copy(MemSpace(), owned_host_);
}

template <int Dim>
void GridField<Dim>::release_owned(NodeArray& a) {
  Kokkos::deep_copy(owned_host_, a);
  a = NodeArray();
  owned_host_ = HostNodeArray();
  solvers::petsc_check(VecRestoreArray(global_, &owned_ptr_), "VecRestoreArray");
}

template <int Dim>
void GridField<Dim>::local_to_global_add() {
  solvers::petsc_check(VecZeroEntries(global_), "VecZeroEntries");
  solvers::petsc_check(DMLocalToGlobalBegin(decomp_.dm(), local_, ADD_VALUES, global_), "DMLocalToGlobalBegin");
  solvers::petsc_check(DMLocalToGlobalEnd(decomp_.dm(), local_, ADD_VALUES, global_), "DMLocalToGlobalEnd");
}

template <int Dim>
void GridField<Dim>::global_to_local() {
  solvers::petsc_check(DMGlobalToLocalBegin(decomp_.dm(), global_, INSERT_VALUES, local_), "DMGlobalToLocalBegin");
  solvers::petsc_check(DMGlobalToLocalEnd(decomp_.dm(), global_, INSERT_VALUES, local_), "DMGlobalToLocalEnd");
}

template class GridField<2>;
template class GridField<3>;

}  // namespace meniscus::grid
