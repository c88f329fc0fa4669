#pragma once
// A PETSc Vec's local array as a Kokkos view (entries x components) for the duration of a scope. On
// host backends the view aliases PETSc's memory; on a device backend it is a copy, written back on
// release when the access is writable.
#include <petscvec.h>

#include <Kokkos_Core.hpp>

#include "solvers/petsc_check.hpp"

namespace meniscus::solvers {

using DeviceArray = Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::DefaultExecutionSpace::memory_space>;

class VecAccess {
 public:
  VecAccess(Vec v, int components, bool writable = true) : vec_(v), writable_(writable) {
    PetscInt n = 0;
    petsc_check(VecGetLocalSize(v, &n), "VecGetLocalSize");
    petsc_check(VecGetArray(v, &ptr_), "VecGetArray");
    host_ = Host(ptr_, n / components, components);
    view = Kokkos::create_mirror_view_and_copy(DeviceArray::memory_space(), host_);
  }
  ~VecAccess() {
    if (writable_) Kokkos::deep_copy(host_, view);
    view = DeviceArray();
    petsc_check_noexcept(VecRestoreArray(vec_, &ptr_), "VecRestoreArray");
  }
  VecAccess(const VecAccess&) = delete;
  VecAccess& operator=(const VecAccess&) = delete;

  DeviceArray view;

 private:
  using Host = Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Vec vec_;
  bool writable_;
  PetscScalar* ptr_ = nullptr;
  Host host_;
};

}  // namespace meniscus::solvers
