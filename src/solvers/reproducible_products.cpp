#include "solvers/reproducible_products.hpp"

#include <petscsys.h>

#include "solvers/petsc_check.hpp"

namespace meniscus::solvers {

namespace {
constexpr const char* kOption = "-matptap_via";
}

ReproducibleGalerkinProducts::ReproducibleGalerkinProducts(MPI_Comm comm) {
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  if (ranks < 3) return;
  PetscBool given = PETSC_FALSE;
  petsc_check(PetscOptionsHasName(nullptr, nullptr, kOption, &given), "PetscOptionsHasName(-matptap_via)");
  if (given) return;
  petsc_check(PetscOptionsSetValue(nullptr, kOption, "allatonce"), "PetscOptionsSetValue(-matptap_via)");
  set_ = true;
}

ReproducibleGalerkinProducts::~ReproducibleGalerkinProducts() {
  if (set_) petsc_check_noexcept(PetscOptionsClearValue(nullptr, kOption), "PetscOptionsClearValue(-matptap_via)");
}

}  // namespace meniscus::solvers
