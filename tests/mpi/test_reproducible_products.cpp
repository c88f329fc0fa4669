// solvers::ReproducibleGalerkinProducts: on 3+ ranks it holds -matptap_via allatonce in PETSc's options
// database for its lifetime and clears it afterwards; on 1 and 2 ranks, or where the database already
// names -matptap_via (the user's choice), it changes nothing. The effect on the solves (identical runs
// bit for bit) is checked by the heat, membrane and implicit MPM rank tests.
#include <gtest/gtest.h>
#include <mpi.h>
#include <petscsys.h>

#include <string>

#include "solvers/reproducible_products.hpp"

namespace {
// The database's value of -matptap_via, "" when it is not there.
std::string matptap_via() {
  char value[64] = "";
  PetscBool set = PETSC_FALSE;
  PetscOptionsGetString(nullptr, nullptr, "-matptap_via", value, sizeof(value), &set);
  return set ? value : "";
}
}  // namespace

TEST(ReproducibleGalerkinProducts, SetOnThreeOrMoreRanksAndLeavesAUserChoiceAlone) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ASSERT_EQ(matptap_via(), "") << "another test left -matptap_via set";
  {
    const meniscus::solvers::ReproducibleGalerkinProducts products(MPI_COMM_WORLD);
    EXPECT_EQ(products.active(), size >= 3);
    EXPECT_EQ(matptap_via(), size >= 3 ? "allatonce" : "");
  }
  EXPECT_EQ(matptap_via(), "") << "cleared when the scope ends";
  // On one rank the communicator decides alone.
  {
    const meniscus::solvers::ReproducibleGalerkinProducts products(MPI_COMM_SELF);
    EXPECT_FALSE(products.active());
    EXPECT_EQ(matptap_via(), "");
  }
  PetscOptionsSetValue(nullptr, "-matptap_via", "scalable");
  {
    const meniscus::solvers::ReproducibleGalerkinProducts products(MPI_COMM_WORLD);
    EXPECT_FALSE(products.active());
    EXPECT_EQ(matptap_via(), "scalable");
  }
  EXPECT_EQ(matptap_via(), "scalable") << "the user's value survives the scope";
  PetscOptionsClearValue(nullptr, "-matptap_via");
}
